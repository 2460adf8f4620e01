//! The entries of a Sony ODA archive as `viewer info ARCHIVE.ODA` lists them:
//! one [`EntrySummary`] each, motions described as a `.mtn` file is, other
//! entries (sounds…) by their kind and size only, never decoded.

use super::MtnSummary;
use crate::error::DecodeError;
use crate::formats::mtn::{self, read_oda};
use crate::open::archive::entry_path;
use serde::Serialize;
use std::path::Path;

/// One entry of an ODA archive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EntrySummary {
    /// Always `"oda-entry"`.
    pub format: &'static str,
    /// `ARCHIVE.ODA:NAME`: the path that opens this entry.
    pub file: String,
    /// The entry's name in the archive's table.
    pub name: String,
    /// Its type tag: `OMTN` for a motion, `WAVE`, `MIDI`…
    pub kind: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// For a motion, what `viewer info` says of a `.mtn` file; `null` otherwise.
    pub mtn: Option<MtnSummary>,
    /// Why a motion entry could not be read, if it could not.
    pub warnings: Vec<String>,
}

impl EntrySummary {
    /// One line: kind, size, and for a motion its model, keyframes and duration.
    pub(crate) fn headline(&self) -> String {
        let mut line = format!("ODA entry · {} · {} bytes", self.kind, self.bytes);
        if let Some(m) = &self.mtn {
            line += &format!(
                " · AIBO motion · {} · {} keyframes · {:.3} s",
                m.model.unwrap_or("unknown model"),
                m.keyframes,
                m.duration_s
            );
            if m.name != self.name {
                line += &format!(" · named {}", m.name);
            }
        }
        line
    }
}

/// Every entry of the archive `bytes` (read from `path`), in table order.
/// A motion entry that does not decode is listed with the error as its warning.
pub(crate) fn summarize_archive(
    path: &Path,
    bytes: &[u8],
) -> Result<Vec<EntrySummary>, DecodeError> {
    let entries = read_oda(bytes)?;
    Ok(entries
        .iter()
        .map(|e| {
            let file = entry_path(path, &e.name);
            let data = &bytes[e.data.clone()];
            let (mtn, warnings) = if e.is_motion() {
                match mtn::decode(data) {
                    Ok(m) => (Some(MtnSummary::new(&file, &m)), Vec::new()),
                    Err(err) => (None, vec![format!("does not read as a motion: {err}")]),
                }
            } else {
                (None, Vec::new())
            };
            EntrySummary {
                format: "oda-entry",
                file: file.display().to_string(),
                name: e.name.clone(),
                kind: e.kind_name(),
                bytes: data.len(),
                mtn,
                warnings,
            }
        })
        .collect())
}

/// Summaries of the files `paths` name: a bare ODA archive as its entries,
/// everything else as its loaded tracks. Files between two archives load
/// together (so a MEMG motion still finds its `.obj` among them), and the
/// order of the command line is kept. Returns the summaries and the
/// warnings of loading (each naming its file).
#[cfg(not(target_arch = "wasm32"))]
pub fn summarize_paths(
    paths: &[std::path::PathBuf],
) -> crate::Result<(Vec<super::Summary>, Vec<String>)> {
    use super::{Summary, summarize};
    use crate::formats::{Kind, probe_file};
    use crate::open::{Archives, Input, OpenOptions, open_with};
    // An archive among other files (or named by `ARCHIVE.ODA:NAME`) is
    // refused with its entries listed, as a window would ask.
    let ask = OpenOptions {
        archives: Archives::Ask,
        ..OpenOptions::default()
    };
    let bare_archive = |p: &Path| p.is_file() && probe_file(p).ok() == Some(Kind::Oda);
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for run in paths.chunk_by(|a, b| !bare_archive(a) && !bare_archive(b)) {
        if let [one] = run
            && bare_archive(one)
        {
            let input = Input::read(one)?;
            let entries = summarize_archive(one, &input.data);
            // A mapped archive changed while read: that, not what it read as.
            input.data.check()?;
            let entries = entries.map_err(|e| crate::Error::decode(one, e))?;
            out.extend(entries.into_iter().map(Summary::OdaEntry));
        } else {
            let loaded = open_with(run, &ask)?;
            out.extend(loaded.tracks.iter().map(summarize));
            warnings.extend(loaded.warnings);
        }
    }
    Ok((out, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::open::archive::test_archive;

    #[test]
    fn entries_are_listed_with_kind_and_size_and_only_motions_decoded() {
        let bytes = test_archive();
        let entries = summarize_archive(Path::new("pack.ODA"), &bytes).unwrap();
        let listed: Vec<_> = entries
            .iter()
            .map(|e| (e.name.as_str(), e.kind.as_str(), e.bytes, e.mtn.is_some()))
            .collect();
        assert_eq!(
            listed,
            [
                ("bark", "WAVE", 8, false),
                ("stand_sit", "OMTN", 1164, true),
                ("sleep_sit", "OMTN", 784, true)
            ]
        );
        assert!(entries[0].warnings.is_empty());
        let m = entries[1].mtn.as_ref().unwrap();
        assert_eq!((m.name.as_str(), m.keyframes), ("a_stand#sit_S", 6));
        assert_eq!(m.file, "pack.ODA:stand_sit");
        assert_eq!(
            entries[1].headline(),
            "ODA entry · OMTN · 1164 bytes · AIBO motion · ERS-210 · 6 keyframes · 4.880 s · named a_stand#sit_S"
        );
        let json = serde_json::to_value(&entries[0]).unwrap();
        assert_eq!(json["mtn"], serde_json::Value::Null);

        // A motion entry whose bytes are not a motion is listed with why.
        let mut broken = bytes.clone();
        let at = 64 + 3 * 144 + 8;
        broken[at..at + 4].copy_from_slice(b"XXXX");
        let entries = summarize_archive(Path::new("pack.ODA"), &broken).unwrap();
        assert!(entries[1].mtn.is_none());
        assert!(entries[1].warnings[0].starts_with("does not read as a motion: magic at byte 0"));
    }
}
