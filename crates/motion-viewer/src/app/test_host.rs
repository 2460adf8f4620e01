//! A [`Host`] for the window's parts under test: it keeps what it is
//! handed (status lines, messages, saved motions) and opens nothing.

use super::host::{Host, HostEvent, Task};
use crate::open::{DiskMaterials, Input, Materials};
use crate::session::viewer::ViewerState;
use std::path::{Path, PathBuf};

/// A motion handed to [`Host::save_motion`].
pub(crate) struct SavedMotion {
    pub path: PathBuf,
    pub original: PathBuf,
    pub bytes: Vec<u8>,
    pub overwrite: bool,
}

/// Keeps what the window hands it; a save fails while `refuse` is set.
#[derive(Default)]
pub(crate) struct RecordingHost {
    pub status: Vec<String>,
    pub log: Vec<String>,
    pub motions: Vec<SavedMotion>,
    pub refuse: Option<String>,
}

impl Host for RecordingHost {
    fn read_dropped(&mut self, path: &Path) -> crate::Result<Input> {
        Err(crate::Error::io(
            path,
            std::io::Error::other("no files under test"),
        ))
    }

    fn materials(&self) -> &dyn Materials {
        &DiskMaterials
    }

    fn watch(&mut self, _sets: Vec<Vec<PathBuf>>) {}

    fn save_picture(
        &mut self,
        _picture: &image::RgbaImage,
        _first_input: Option<&Path>,
    ) -> crate::Result<String> {
        Ok("picture".into())
    }

    fn save_motion(
        &mut self,
        path: &Path,
        original: &Path,
        bytes: &[u8],
        overwrite: bool,
    ) -> crate::Result<String> {
        if let Some(why) = &self.refuse {
            return Err(crate::Error::io(path, std::io::Error::other(why.clone())));
        }
        self.motions.push(SavedMotion {
            path: path.to_path_buf(),
            original: original.to_path_buf(),
            bytes: bytes.to_vec(),
            overwrite,
        });
        Ok(path.display().to_string())
    }

    fn save_scene(&mut self, _glb: &[u8], _first_input: Option<&Path>) -> crate::Result<String> {
        Ok("scene".into())
    }

    fn status(&mut self, line: &str) {
        self.status.push(line.to_string());
    }

    fn log(&mut self, line: &str) {
        self.log.push(line.to_string());
    }

    fn run(&mut self, _task: Task) -> Option<HostEvent> {
        None
    }
}

/// A paused session showing `data/sony_stand_sit.mtn` (an ERS-210 motion
/// of 6 keyframes) opened as `m.mtn`.
pub(crate) fn sony() -> ViewerState {
    let bytes = include_bytes!("../../../../data/sony_stand_sit.mtn");
    let timeline = crate::anim::timeline::Timeline::new(0.0, 1.0 / 60.0).with_paused(true);
    let mut state = ViewerState::new(timeline, 0.0, None);
    let input = Input::from_bytes("m.mtn", bytes.to_vec());
    state.open(&[input], &DiskMaterials).unwrap();
    state
}
