//! Motions inside Sony ODA archives as inputs.
//!
//! `ARCHIVE.ODA:NAME` names one entry of an archive wherever a file is
//! expected: the part before a `:` that is an existing file is the archive
//! (so a file whose own name holds a `:` still opens as itself), the rest is
//! the entry's name. An archive given bare is handled as the caller's
//! [`Archives`] says. Tracks made from an entry carry the path
//! `ARCHIVE.ODA:NAME` and the entry's name.

use super::load::Input;
use crate::error::{Error, Result};
use crate::formats::mtn::OdaEntry;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What loading does with an ODA archive given without an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Archives {
    /// Refuse with one line that lists the entries, so the user can name one.
    #[default]
    Ask,
    /// Every motion entry becomes a track.
    EveryMotion,
    /// The first motion entry becomes a track.
    FirstMotion,
}

/// `ARCHIVE:ENTRY` split into the archive (an existing file) and the entry's
/// name; `None` when `path` is itself a file or names no archive that exists.
pub fn split_entry(path: &Path) -> Option<(PathBuf, String)> {
    if path.symlink_metadata().is_ok() {
        return None;
    }
    let text = path.to_str()?;
    text.match_indices(':').find_map(|(at, _)| {
        let archive = Path::new(&text[..at]);
        let entry = &text[at + 1..];
        (!entry.is_empty() && archive.is_file()).then(|| (archive.to_path_buf(), entry.to_string()))
    })
}

/// The path `ARCHIVE:ENTRY` that names one entry.
pub fn entry_path(archive: &Path, entry: &str) -> PathBuf {
    let mut joined: OsString = archive.as_os_str().to_owned();
    joined.push(":");
    joined.push(entry);
    PathBuf::from(joined)
}

/// The file on disk that `path` reads: the archive of `ARCHIVE:ENTRY`, else
/// `path` itself (for telling an output from the inputs).
pub fn disk_file(path: &Path) -> PathBuf {
    split_entry(path).map_or_else(|| path.to_path_buf(), |(archive, _)| archive)
}

/// The bytes `path` names: the file, or the one entry of `ARCHIVE:ENTRY`.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let input = Input::read(path)?;
    let Some(name) = &input.entry else {
        return Ok(input.data.to_vec());
    };
    let entries = crate::formats::mtn::read_oda(&input.data)
        .map_err(|e| Error::decode(input.path.display(), e))?;
    let entry = find_entry(&input, &entries, name)?;
    Ok(input.data[entry.data.clone()].to_vec())
}

/// `paths` with every ODA archive among them narrowed to its entry `entry`
/// (`viewer --entry NAME`); an error if none of them is an archive.
pub fn select_entry(paths: &[PathBuf], entry: &str) -> Result<Vec<PathBuf>> {
    let is_archive =
        |p: &Path| crate::formats::probe_file(p).ok() == Some(crate::formats::Kind::Oda);
    let out: Vec<PathBuf> = paths
        .iter()
        .map(|p| {
            if is_archive(p) {
                entry_path(p, entry)
            } else {
                p.clone()
            }
        })
        .collect();
    if out == paths {
        return Err(Error::Invalid {
            file: format!("--entry {entry}"),
            message: "none of the files given is an ODA archive".into(),
        });
    }
    Ok(out)
}

/// The entry of `input` (an archive) called `name`: by exact name, else the
/// one entry whose name matches ignoring case; an error listing the entries
/// otherwise.
pub fn find_entry<'a>(input: &Input, entries: &'a [OdaEntry], name: &str) -> Result<&'a OdaEntry> {
    if let Some(e) = entries.iter().find(|e| e.name == name) {
        return Ok(e);
    }
    let mut folded = entries.iter().filter(|e| e.name.eq_ignore_ascii_case(name));
    if let (Some(e), None) = (folded.next(), folded.next()) {
        return Ok(e);
    }
    Err(Error::Invalid {
        file: input.path.display().to_string(),
        message: format!("no entry {name:?}; {}", listing(entries)),
    })
}

/// The entries to load from `input`, an archive, as its entry selector or
/// `archives` says.
pub(super) fn chosen<'a>(
    input: &Input,
    entries: &'a [OdaEntry],
    archives: Archives,
) -> Result<Vec<&'a OdaEntry>> {
    if let Some(name) = &input.entry {
        return Ok(vec![find_entry(input, entries, name)?]);
    }
    let mut motions = entries.iter().filter(|e| e.is_motion());
    let refuse = |message: String| Error::Invalid {
        file: input.path.display().to_string(),
        message,
    };
    match archives {
        Archives::EveryMotion => Ok(motions.collect()),
        Archives::FirstMotion => motions
            .next()
            .map(|e| vec![e])
            .ok_or_else(|| refuse(format!("holds no motion; {}", listing(entries)))),
        Archives::Ask => Err(refuse(format!(
            "an ODA archive: name one entry as {}:NAME or with --entry NAME; {}",
            input.path.display(),
            listing(entries)
        ))),
    }
}

/// `12 entries: a, b, c, …` with at most eight names.
fn listing(entries: &[OdaEntry]) -> String {
    const SHOWN: usize = 8;
    let names: Vec<&str> = entries
        .iter()
        .take(SHOWN)
        .map(|e| e.name.as_str())
        .collect();
    let more = if entries.len() > SHOWN { ", …" } else { "" };
    format!("{} entries: {}{more}", entries.len(), names.join(", "))
}
