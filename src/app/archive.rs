//! The window's entry list for an ODA archive opened whole: searchable, one
//! row per entry (name, kind, size; a motion's model and duration), the
//! motion picked replacing the archive's track on the stage.

use super::{App, AppError};
use crate::formats::{Kind, probe_file};
use crate::scene::archive::entry_path;
use crate::scene::{Archives, DiskMaterials, Input, Track, load_inputs_with};
use crate::summary::{EntrySummary, summarize_archive};
use std::path::{Path, PathBuf};

/// The first archive given whole and what the list shows of it.
pub struct ArchivePanel {
    /// The archive's path.
    path: PathBuf,
    /// Its bytes, kept to load the entry picked.
    bytes: Vec<u8>,
    /// Every entry, in table order.
    entries: Vec<EntrySummary>,
    /// The search text.
    query: String,
    /// The entry on the stage.
    playing: usize,
    /// Which track the archive's motion is.
    track: usize,
}

impl ArchivePanel {
    /// The panel for the first of `paths` that is an archive given whole,
    /// whose first motion [`Archives::FirstMotion`] put among `tracks`.
    pub fn for_inputs(paths: &[PathBuf], tracks: &[Track]) -> Result<Option<Self>, AppError> {
        let Some(path) = paths
            .iter()
            .find(|p| p.is_file() && probe_file(p).ok() == Some(Kind::Oda))
        else {
            return Ok(None);
        };
        let input = Input::read(path)?;
        let bytes = input.data.to_vec();
        let entries =
            summarize_archive(path, &bytes).map_err(|e| crate::Error::decode(path.display(), e))?;
        let playing = entries.iter().position(|e| e.mtn.is_some()).unwrap_or(0);
        let first = entries
            .get(playing)
            .map(|e| entry_path(path, &e.name))
            .unwrap_or_default();
        let track = tracks.iter().position(|t| t.path() == first).unwrap_or(0);
        Ok(Some(ArchivePanel {
            path: path.clone(),
            bytes,
            entries,
            query: String::new(),
            playing,
            track,
        }))
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

    /// The track of entry `i`, read from the archive's bytes.
    fn load(&self, i: usize) -> Result<Track, AppError> {
        let input =
            Input::from_bytes(&self.path, self.bytes.clone()).with_entry(&self.entries[i].name);
        let (mut tracks, _) = load_inputs_with(&[input], &DiskMaterials, Archives::Ask)?;
        tracks
            .pop()
            .ok_or_else(|| AppError::Options("the entry holds no motion".into()))
    }

    /// Lays the list out; returns the motion entry clicked, if one was.
    pub fn show(&mut self, ctx: &egui::Context) -> Option<usize> {
        let mut picked = None;
        let title = Path::new(&self.path)
            .file_name()
            .map_or_else(|| "archive".into(), |n| n.to_string_lossy().into_owned());
        egui::Window::new(title)
            .default_pos([8.0, 260.0])
            .default_width(420.0)
            .default_height(320.0)
            .collapsible(true)
            .show(ctx, |ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut self.query)
                        .hint_text("search entries")
                        .desired_width(f32::INFINITY),
                );
                let shown = self.matching();
                ui.label(format!("{} of {} entries", shown.len(), self.entries.len()));
                let row_height = ui.text_style_height(&egui::TextStyle::Body);
                egui::ScrollArea::vertical().max_height(280.0).show_rows(
                    ui,
                    row_height,
                    shown.len(),
                    |ui, rows| {
                        // One line a row: the scroll area counts rows of one line.
                        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
                        for &i in &shown[rows] {
                            let e = &self.entries[i];
                            let text = row_text(e);
                            let row = if e.mtn.is_some() {
                                ui.selectable_label(i == self.playing, text)
                            } else {
                                ui.add_enabled(false, egui::Button::selectable(false, text))
                            };
                            if row.clicked() {
                                picked = Some(i);
                            }
                        }
                    },
                );
            });
        picked.filter(|&i| i != self.playing)
    }
}

/// `name · KIND · size`, and a motion's model and duration.
fn row_text(e: &EntrySummary) -> String {
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

impl App {
    /// Puts archive entry `i` on the stage in place of the one playing.
    pub(super) fn play_entry(&mut self, i: usize) -> Result<(), AppError> {
        let Some(panel) = self.archive.as_mut() else {
            return Ok(());
        };
        let track = panel.load(i)?;
        panel.playing = i;
        let slot = panel.track;
        if let Some(t) = self.tracks.get_mut(slot) {
            *t = track;
        }
        self.reload()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panel(query: &str) -> ArchivePanel {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pack.ODA");
        std::fs::write(&path, crate::scene::archive::test_archive()).unwrap();
        let tracks =
            crate::scene::load_with(std::slice::from_ref(&path), Archives::FirstMotion).unwrap();
        let mut p = ArchivePanel::for_inputs(&[path], &tracks).unwrap().unwrap();
        p.query = query.into();
        p
    }

    #[test]
    fn the_list_starts_on_the_first_motion_and_searches_every_word() {
        let p = panel("");
        assert_eq!((p.playing, p.track), (1, 0));
        assert_eq!(p.matching(), [0, 1, 2]);
        assert_eq!(panel("SIT").matching(), [1, 2]);
        assert_eq!(panel("sleep ers-210").matching(), [2]);
        assert_eq!(panel("wave").matching(), [0]);
        assert!(panel("walk").matching().is_empty());
        let loaded = p.load(2).unwrap();
        assert_eq!(loaded.name(), "sleep_sit");
        assert!(p.load(0).is_err());
    }

    #[test]
    fn rows_say_kind_size_model_and_duration() {
        let p = panel("");
        assert_eq!(row_text(&p.entries[0]), "bark · WAVE · 8 B");
        assert_eq!(
            row_text(&p.entries[1]),
            "stand_sit · OMTN · 1.1 KiB · ERS-210 · 4.88 s"
        );
    }
}
