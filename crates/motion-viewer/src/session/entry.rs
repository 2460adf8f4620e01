//! One track as the window keeps it: the decoded track, the files it came
//! from, what the panels show about it, and its editor (AIBO motions).

use super::mtn::{FindingMark, finding_marks};
use super::playback;
use crate::open::Input;
use crate::scene::Track;
use crate::summary::{Summary, summarize};
use crate::workbench::Editor;
use std::path::{Path, PathBuf};

/// One loaded track and what the window keeps about it.
#[derive(Debug, Clone)]
pub struct TrackEntry {
    /// The decoded track (the last version that loaded).
    pub track: Track,
    /// The files it was made from: the `.obj` then the motion for MEMG,
    /// else the one file. A reload must bring all of them.
    pub sources: Vec<PathBuf>,
    /// Its typed summary, for the tracks panel.
    pub summary: Summary,
    /// Times worth a keyframe jump, seconds, ascending: `.mtn` keyframes,
    /// MEMG timesteps, MRTK curve keys.
    pub keyframes: Vec<f64>,
    /// Named times on the timeline (MRTK markers), seconds.
    pub markers: Vec<(f64, String)>,
    /// `check`'s findings with a time (AIBO motions), in time order.
    pub findings: Vec<FindingMark>,
    /// The user's visibility toggle (solo overrides it; see [`super::viewer::ViewerState::is_shown`]).
    pub visible: bool,
    /// Why the last reload failed; the track shows its previous version meanwhile.
    pub error: Option<String>,
    /// The motion being edited, for an AIBO track (see [`super::EditStatus`]).
    pub editor: Option<Box<Editor>>,
}

impl TrackEntry {
    pub(super) fn new(track: Track) -> TrackEntry {
        TrackEntry::with_inputs(track, &[])
    }

    /// [`TrackEntry::new`], its editor keeping the bytes of the `.mtn` file
    /// among `inputs` it was decoded from, so that saving it unedited (or
    /// with every edit undone) writes that file's bytes even where our
    /// encoder would write them differently (a section size that lied).
    pub(super) fn with_inputs(track: Track, inputs: &[Input]) -> TrackEntry {
        let sources = match &track {
            Track::Memg {
                obj_path,
                motion_path,
                ..
            } => vec![obj_path.clone(), motion_path.clone()],
            other => vec![other.path().to_path_buf()],
        };
        let editor = match &track {
            Track::Mtn {
                path,
                motion,
                entry,
            } => {
                // A loose file's input is what the loader decoded `motion` from.
                let file = inputs
                    .iter()
                    .find(|i| entry.is_none() && i.entry.is_none() && i.path == *path);
                Some(Box::new(match file {
                    Some(input) => {
                        debug_assert!(
                            crate::formats::mtn::decode(&input.data).is_ok_and(|m| m == *motion),
                            "{}: the track is not what its input decodes to",
                            path.display()
                        );
                        Editor::decoded_from(motion.clone(), input.data.to_vec())
                    }
                    None => Editor::new(motion.clone()),
                }))
            }
            _ => None,
        };
        TrackEntry {
            summary: summarize(&track),
            keyframes: playback::keyframes(&track),
            markers: playback::markers(&track),
            findings: finding_marks(&track),
            sources,
            visible: true,
            error: None,
            editor,
            track,
        }
    }

    /// The track's name for display: the file name of its motion.
    pub fn name(&self) -> String {
        let path = self.track.path();
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// The format as the panel names it.
    pub fn format(&self) -> &'static str {
        match self.track {
            Track::Mtn { .. } => "AIBO .mtn",
            Track::Memg { .. } => "MEMG",
            Track::InputAnimation { .. } => "MRTK",
        }
    }

    pub(super) fn same_sources(&self, paths: &[&Path]) -> bool {
        self.sources.len() == paths.len()
            && self.sources.iter().all(|s| paths.contains(&s.as_path()))
    }
}
