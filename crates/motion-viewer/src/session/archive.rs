//! The entry list of an ODA archive opened whole: one row per entry (name,
//! kind, size; a motion's model and duration), searchable, the motion picked
//! taking the place of the archive's track. Plain data over the archive's
//! bytes as the host handed them in: no file is read here, so a web page
//! works the same way.

use crate::error::{EntryProblem, Error, Result};
use crate::open::archive::entry_path;
use crate::open::{Archives, Input, OpenOptions, open_held};
use crate::scene::Track;
use crate::summary::{EntrySummary, summarize_archive};
use std::path::{Path, PathBuf};

/// One archive given whole and what its list shows.
#[derive(Debug, Clone)]
pub struct ArchiveList {
    /// The archive's name (its path on the desktop).
    path: PathBuf,
    /// Its bytes, kept to load the entry picked.
    bytes: Vec<u8>,
    /// Every entry, in table order.
    entries: Vec<EntrySummary>,
    /// The search text the list is filtered by.
    pub query: String,
    /// The entry on the stage.
    playing: usize,
}

impl ArchiveList {
    /// The list of the archive `bytes` named `path`, playing its first
    /// motion (the one [`Archives::FirstMotion`] loads).
    pub fn new(path: &Path, bytes: Vec<u8>) -> Result<ArchiveList> {
        let entries = summarize_archive(path, &bytes).map_err(|e| Error::decode(path, e))?;
        let playing = entries.iter().position(|e| e.mtn.is_some()).unwrap_or(0);
        Ok(ArchiveList {
            path: path.to_path_buf(),
            bytes,
            entries,
            query: String::new(),
            playing,
        })
    }

    /// The same list over the archive's new `bytes` (the file changed):
    /// search text kept, and the entry playing found again by name.
    pub(crate) fn refreshed(&self, bytes: Vec<u8>) -> Result<ArchiveList> {
        let mut list = ArchiveList::new(&self.path, bytes)?;
        list.query = self.query.clone();
        if let Some(old) = self.entries.get(self.playing)
            && let Some(i) = list.entries.iter().position(|e| e.name == old.name)
        {
            list.playing = i;
        }
        Ok(list)
    }

    /// The archive's name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The archive's file name, for a heading.
    pub fn file_name(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// Every entry, in table order.
    pub fn entries(&self) -> &[EntrySummary] {
        &self.entries
    }

    /// The entry on the stage.
    pub fn playing(&self) -> usize {
        self.playing
    }

    /// The path of the track the entry on the stage makes (`ARCHIVE:NAME`).
    pub(crate) fn playing_path(&self) -> PathBuf {
        self.entries
            .get(self.playing)
            .map(|e| entry_path(&self.path, &e.name))
            .unwrap_or_default()
    }

    /// Marks entry `i` as the one on the stage.
    pub(crate) fn set_playing(&mut self, i: usize) {
        if i < self.entries.len() {
            self.playing = i;
        }
    }

    /// The entries the search text matches, by index: every word of the
    /// query, ignoring case, found in the name, kind or model.
    pub fn matching(&self) -> Vec<usize> {
        let words: Vec<String> = self
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        (0..self.entries.len())
            .filter(|&i| {
                let e = &self.entries[i];
                let model = e.mtn.as_ref().and_then(|m| m.model).unwrap_or("");
                let text = format!("{} {} {model}", e.name, e.kind).to_lowercase();
                words.iter().all(|w| text.contains(w.as_str()))
            })
            .collect()
    }

    /// The track of entry `i`, decoded from the archive's bytes (an entry
    /// that is not a motion is an error naming its kind).
    pub fn load(&self, i: usize) -> Result<Track> {
        let entry = self.entries.get(i).ok_or_else(|| {
            Error::entry(
                &self.path,
                EntryProblem::NoSuchEntry {
                    name: format!("#{i}"),
                    listing: format!("{} entries", self.entries.len()),
                },
            )
        })?;
        let input = Input::from_bytes(&self.path, self.bytes.clone()).with_entry(&entry.name);
        // A motion entry needs no material library.
        let options = OpenOptions {
            archives: Archives::Ask,
            ..OpenOptions::default()
        };
        let mut tracks = open_held(&[input], &options)?.tracks;
        tracks.pop().ok_or_else(|| {
            Error::entry(
                entry_path(&self.path, &entry.name),
                EntryProblem::NotAMotion {
                    kind: entry.kind.clone(),
                },
            )
        })
    }
}

/// `name · KIND · size`, and a motion's model and duration.
#[cfg_attr(not(feature = "window"), allow(dead_code))]
pub(crate) fn row_text(e: &EntrySummary) -> String {
    let size = if e.bytes >= 1024 {
        format!("{:.1} KiB", e.bytes as f64 / 1024.0)
    } else {
        format!("{} B", e.bytes)
    };
    match &e.mtn {
        Some(m) => format!(
            "{} · {} · {size} · {} · {:.2} s",
            e.name,
            e.kind,
            m.model.unwrap_or("?"),
            m.duration_s
        ),
        None => format!("{} · {} · {size}", e.name, e.kind),
    }
}

#[cfg(test)]
mod viewer_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn list(query: &str) -> ArchiveList {
        let mut l =
            ArchiveList::new(Path::new("pack.ODA"), crate::open::archive::test_archive()).unwrap();
        l.query = query.into();
        l
    }

    #[test]
    fn the_list_starts_on_the_first_motion_and_searches_every_word() {
        let l = list("");
        assert_eq!(l.playing(), 1);
        assert_eq!(l.playing_path(), Path::new("pack.ODA:stand_sit"));
        assert_eq!(l.matching(), [0, 1, 2]);
        assert_eq!(list("SIT").matching(), [1, 2]);
        assert_eq!(list("sleep ers-210").matching(), [2]);
        assert_eq!(list("wave").matching(), [0]);
        assert!(list("walk").matching().is_empty());
        let loaded = l.load(2).unwrap();
        assert_eq!(loaded.name(), "sleep_sit");
        assert!(l.load(0).is_err());
        assert!(l.load(9).is_err());
    }

    #[test]
    fn rows_say_kind_size_model_and_duration() {
        let l = list("");
        assert_eq!(row_text(&l.entries()[0]), "bark · WAVE · 8 B");
        assert_eq!(
            row_text(&l.entries()[1]),
            "stand_sit · OMTN · 1.1 KiB · ERS-210 · 4.88 s"
        );
    }
}
