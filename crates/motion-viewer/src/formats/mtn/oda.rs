//! Sony `ODAR` archives: the containers Sony ships `.mtn` motions in.
//!
//! Layout (`oda-sony-archive-format.txt`): a 64-byte header (magic `ODAR`,
//! u16 major and minor version, u32 file count, u32 table element size,
//! reserved), then one table element per file: u32 type (`OMTN`, `WAVE`, …),
//! a 128-byte NUL-padded name, u32 offset from the start of the archive,
//! u32 size, u32 reserved. The data of each file lies where its entry says.
//!
//! ```
//! use motion_viewer::formats::mtn::{self, read_oda};
//!
//! // An ERS-7 archive from Sony's samples (provenance in tests/data/oda/SOURCES.txt).
//! let archive = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/oda/ers7_MOTION7.ODA"))?;
//! let entries = read_oda(&archive)?;
//! assert_eq!(entries.len(), 12);
//! let first = entries.iter().find(|e| e.is_motion()).unwrap();
//! let motion = mtn::decode(&archive[first.data.clone()])?;
//! assert_eq!(motion.design, "DRX-1000");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::DecodeError;
use crate::formats::bytes::Reader;
use std::ops::Range;

/// Bytes of the archive header before the table.
const HEADER_LEN: usize = 64;
/// Bytes of one table element as Sony writes it.
const ENTRY_LEN: usize = 144;
/// Bytes of the name field of an entry.
const NAME_LEN: usize = 128;

/// One file inside an `ODAR` archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OdaEntry {
    /// The file name, up to its first NUL (bytes read as Latin-1).
    pub name: String,
    /// The four-byte type tag, e.g. `*b"OMTN"`.
    pub kind: [u8; 4],
    /// Where the file's bytes lie in the archive.
    pub data: Range<usize>,
}

impl OdaEntry {
    /// True for a motion (type `OMTN`).
    pub fn is_motion(&self) -> bool {
        &self.kind == b"OMTN"
    }

    /// The type tag as text: `OMTN`, `WAVE`, `MIDI`; bytes outside printable
    /// ASCII (and the NULs that pad a short tag) as `\xNN`.
    pub(crate) fn kind_name(&self) -> String {
        self.kind
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() {
                    char::from(b).to_string()
                } else {
                    format!("\\x{b:02x}")
                }
            })
            .collect()
    }
}

/// Reads the table of an `ODAR` archive, checking that every entry's data
/// lies inside the archive.
pub fn read_oda(bytes: &[u8]) -> Result<Vec<OdaEntry>, DecodeError> {
    let mut r = Reader::new(bytes);
    let magic: [u8; 4] = r.array("ODA magic")?;
    if &magic != b"ODAR" {
        return Err(DecodeError::new(
            "ODA magic",
            0,
            "\"ODAR\"",
            format!("{magic:02x?}"),
        ));
    }
    r.u16("ODA major version")?;
    r.u16("ODA minor version")?;
    let count_at = r.pos();
    let count = r.u32("ODA file count")?;
    let element_at = r.pos();
    let element = r.u32("ODA table element size")? as usize;
    // An element smaller than Sony's 144 bytes cannot hold type, name, offset
    // and size; a larger one is allowed (the extra bytes are skipped).
    if element < ENTRY_LEN {
        return Err(DecodeError::new(
            "ODA table element size",
            element_at as u64,
            format!("at least {ENTRY_LEN}"),
            element.to_string(),
        ));
    }
    r.seek(HEADER_LEN, "ODA header")?;
    let count = r.check_count("ODA file count", count_at, count.into(), element)?;
    let mut entries = Vec::with_capacity(count);
    for i in 0..count {
        let at = HEADER_LEN + i * element;
        r.seek(at, "ODA table")?;
        let kind: [u8; 4] = r.array("ODA entry type")?;
        let raw = r.bytes(NAME_LEN, "ODA entry name")?;
        let name_len = raw.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
        let name = raw[..name_len].iter().map(|&b| char::from(b)).collect();
        let offset_at = r.pos();
        let offset = r.u32("ODA entry offset")? as usize;
        let size = r.u32("ODA entry size")? as usize;
        let end = offset.checked_add(size).filter(|&e| e <= bytes.len());
        let Some(end) = end else {
            return Err(DecodeError::new(
                format!("ODA entry {i} offset and size"),
                offset_at as u64,
                format!("data within the {} bytes of the archive", bytes.len()),
                format!("offset {offset} + size {size}"),
            ));
        };
        entries.push(OdaEntry {
            name,
            kind,
            data: offset..end,
        });
    }
    Ok(entries)
}
