//! Motions inside Sony ODA archives as inputs.
//!
//! `ARCHIVE.ODA:NAME` names one entry of an archive wherever a file is
//! expected: the part before a `:` that is an existing file is the archive
//! (so a file whose own name holds a `:` still opens as itself), the rest is
//! the entry's name. An archive given bare is handled as the caller's
//! [`Archives`] says. Tracks made from an entry carry the path
//! `ARCHIVE.ODA:NAME` and the entry's name.

use crate::error::{EntryProblem, Error, Result};
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

/// Refuses `out` if it names one of `inputs` (the same file, by path or
/// through a link; for an archive entry `ARCHIVE.ODA:NAME`, the archive),
/// unless `force`.
pub fn check_not_input(out: &Path, inputs: &[PathBuf], force: bool) -> Result<()> {
    if force {
        return Ok(());
    }
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    let Some(target) = canon(out) else {
        // An output that does not exist yet can't be an input.
        return Ok(());
    };
    if inputs
        .iter()
        .any(|i| canon(&disk_file(i)).as_ref() == Some(&target))
    {
        return Err(Error::OutputIsInput {
            path: out.to_path_buf(),
        });
    }
    Ok(())
}

/// `paths` with every ODA archive among them narrowed to its entry `entry`
/// (`viewer --entry NAME`); an error if none of them is an archive.
#[cfg(not(target_arch = "wasm32"))]
pub fn select_entry(paths: &[PathBuf], entry: &str) -> Result<Vec<PathBuf>> {
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        // Probed without blocking: a named pipe is refused at once, never
        // waited on ([`crate::formats::file::open_regular`]).
        match crate::formats::probe_file(p) {
            Ok(crate::formats::Kind::Oda) => out.push(entry_path(p, entry)),
            Err(e @ Error::NotRegularFile { .. }) => return Err(e),
            _ => out.push(p.clone()),
        }
    }
    if out == paths {
        return Err(Error::entry(
            format!(
                "--entry {}",
                crate::text::cut(entry, crate::text::QUOTED_CHARS)
            ),
            EntryProblem::NoArchiveGiven,
        ));
    }
    Ok(out)
}

/// The entry of `input` (an archive) called `name`: by exact name, else the
/// one entry whose name matches ignoring case; an error listing the entries
/// otherwise.
pub(crate) fn find_entry<'a>(
    archive: &Path,
    entries: &'a [OdaEntry],
    name: &str,
) -> Result<&'a OdaEntry> {
    if let Some(e) = entries.iter().find(|e| e.name == name) {
        return Ok(e);
    }
    let mut folded = entries.iter().filter(|e| e.name.eq_ignore_ascii_case(name));
    if let (Some(e), None) = (folded.next(), folded.next()) {
        return Ok(e);
    }
    Err(Error::entry(
        archive,
        EntryProblem::NoSuchEntry {
            name: name.to_string(),
            listing: listing(entries),
        },
    ))
}

/// The entries to load from the archive at `archive`, as its entry
/// selector (`ARCHIVE:NAME`) or `archives` says.
pub(super) fn chosen<'a>(
    archive: &Path,
    selector: Option<&str>,
    entries: &'a [OdaEntry],
    archives: Archives,
) -> Result<Vec<&'a OdaEntry>> {
    if let Some(name) = selector {
        return Ok(vec![find_entry(archive, entries, name)?]);
    }
    let mut motions = entries.iter().filter(|e| e.is_motion());
    match archives {
        Archives::EveryMotion => Ok(motions.collect()),
        Archives::FirstMotion => motions.next().map(|e| vec![e]).ok_or_else(|| {
            Error::entry(
                archive,
                EntryProblem::NoMotion {
                    listing: listing(entries),
                },
            )
        }),
        Archives::Ask => Err(Error::entry(
            archive,
            EntryProblem::NeedsEntry {
                listing: listing(entries),
            },
        )),
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

/// An archive of a sound and two motions (the seeds), built for tests.
#[cfg(test)]
pub(crate) fn test_archive() -> Vec<u8> {
    let seeds = ["sony_stand_sit.mtn", "skitter_sleep_to_sit.mtn"]
        .map(|s| std::fs::read(format!("{}/../../data/{s}", env!("CARGO_MANIFEST_DIR"))).unwrap());
    let files: [(&[u8; 4], &str, &[u8]); 3] = [
        (b"WAVE", "bark", b"RIFF...."),
        (b"OMTN", "stand_sit", &seeds[0]),
        (b"OMTN", "sleep_sit", &seeds[1]),
    ];
    let mut out = b"ODAR\0\0\x03\0".to_vec();
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&144u32.to_le_bytes());
    out.resize(64, 0);
    let mut offset = 64 + 3 * 144;
    for (kind, name, data) in files {
        out.extend_from_slice(kind);
        let mut field = name.as_bytes().to_vec();
        field.resize(128, 0);
        out.extend_from_slice(&field);
        for word in [offset, data.len(), 0] {
            out.extend_from_slice(&(word as u32).to_le_bytes());
        }
        offset += data.len();
    }
    for (_, _, data) in files {
        out.extend_from_slice(data);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_colon_splits_off_an_entry_only_after_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let pack = dir.path().join("pack.ODA");
        std::fs::write(&pack, test_archive()).unwrap();
        let named = entry_path(&pack, "stand_sit");
        assert_eq!(
            split_entry(&named),
            Some((pack.clone(), "stand_sit".into()))
        );
        assert_eq!(disk_file(&named), pack);
        // A file whose own name holds a colon is that file.
        let odd = dir.path().join("a:b.mtn");
        std::fs::write(&odd, b"OMTN").unwrap();
        assert_eq!(split_entry(&odd), None);
        assert_eq!(disk_file(&odd), odd);
        // Nothing that exists before the colon: no split (the read fails as usual).
        assert_eq!(split_entry(&dir.path().join("none.ODA:x")), None);
        assert_eq!(split_entry(&entry_path(&pack, "")), None);

        let chosen = select_entry(&[pack.clone(), odd.clone()], "sleep_sit").unwrap();
        assert_eq!(chosen, [entry_path(&pack, "sleep_sit"), odd.clone()]);
        assert!(select_entry(&[odd], "x").is_err());
    }

    #[test]
    fn inputs_are_not_overwritten_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.mtn");
        std::fs::write(&input, b"OMTN").unwrap();
        let same = dir.path().join(".").join("a.mtn");
        assert!(matches!(
            check_not_input(&same, std::slice::from_ref(&input), false),
            Err(Error::OutputIsInput { .. })
        ));
        assert!(check_not_input(&same, std::slice::from_ref(&input), true).is_ok());
        let other = dir.path().join("b.mtn");
        assert!(check_not_input(&other, std::slice::from_ref(&input), false).is_ok());
    }
}
