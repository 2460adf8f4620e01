//! What the window needs from the platform it runs on, and what the platform
//! tells it. The window itself never touches a file, a thread or a blocking
//! call: the desktop (the `viewer` application's `desktop` module) reads dropped and watched files,
//! saves screenshots and prints status lines; a web page (the `web/` crate)
//! hands over the bytes of the files given to it, downloads screenshots and
//! keeps the [`Status`] in the page. Work that takes a while on the GPU
//! (opening it, reading a picture back) is a [`Task`] the host runs: the
//! desktop blocks on it, a browser cannot.

use crate::open::{Input, Materials};
use crate::session::status::Status;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use winit::window::WindowAttributes;

/// Work the window starts and the platform finishes (opening the GPU,
/// reading a picture back): the desktop blocks on it, a browser cannot and
/// runs it on its event loop. Its result comes back as a [`HostEvent`].
pub type Task = Pin<Box<dyn Future<Output = HostEvent>>>;

/// The GPU opened for the window (or why it could not be), from the task
/// the window gave [`Host::run`].
pub struct GpuOpened(pub(super) crate::Result<super::framework::Opened>);

impl std::fmt::Debug for GpuOpened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Ok(_) => f.write_str("GpuOpened(Ok)"),
            Err(e) => write!(f, "GpuOpened({e})"),
        }
    }
}

/// What the platform sends the window, through winit's event-loop proxy
/// (from a watcher thread, a browser callback…).
#[derive(Debug)]
pub enum HostEvent {
    /// Files to add as tracks (dropped, picked in a dialog, given at start).
    Open(Vec<Input>),
    /// The new content of every file of one track (the files the track was opened from).
    Changed(Vec<Input>),
    /// The GPU the window asked for is ready (or failed).
    Gpu(Box<GpuOpened>),
    /// A screenshot the window asked for, read back from the GPU.
    Picture(Box<Picture>),
    /// An action asked for by the platform (a page's button), as if its key
    /// had been pressed.
    Action(super::keys::Action),
}

/// A screenshot read back (or why not), and the first track's file to name
/// it after.
#[derive(Debug)]
pub struct Picture {
    /// The picture, or why it could not be taken.
    pub picture: crate::Result<image::RgbaImage>,
    /// The first track's file, if any.
    pub first: Option<PathBuf>,
}

/// The platform's side of the window.
pub trait Host {
    /// The bytes of a file the windowing system says was dropped on the
    /// window (winit reports paths on the desktop), or why it can't be read.
    fn read_dropped(&mut self, path: &Path) -> crate::Result<Input>;

    /// Where `.obj` material libraries not among the inputs come from.
    fn materials(&self) -> &dyn Materials;

    /// The tracks are now made from these sets of files (one set per
    /// track); a host that watches files for changes watches these.
    fn watch(&mut self, sets: Vec<Vec<PathBuf>>);

    /// Keeps a screenshot (`first_input` names the first track's file, for a
    /// name beside it) and tells the user where it went; returns that place.
    fn save_picture(
        &mut self,
        picture: &image::RgbaImage,
        first_input: Option<&Path>,
    ) -> crate::Result<String>;

    /// Saves an edited AIBO motion's `.mtn` bytes as `path` and says where
    /// they went. The desktop writes `path` all or nothing, and never over
    /// `original` (the file the motion came from) unless `overwrite` (the
    /// user confirmed); a page offers `path`'s file name as a download.
    fn save_motion(
        &mut self,
        path: &Path,
        original: &Path,
        bytes: &[u8],
        overwrite: bool,
    ) -> crate::Result<String>;

    /// Keeps the tracks as one glTF scene (`.glb` bytes; `first_input`
    /// names the first track's file, for a name beside it) and says where it
    /// went: the desktop writes it beside that file, a page offers it as a
    /// download.
    fn save_scene(&mut self, glb: &[u8], first_input: Option<&Path>) -> crate::Result<String>;

    /// A status line for scripts and tests (printed only when asked for on
    /// the desktop; kept in the page on the web).
    fn status(&mut self, line: &str);

    /// A message worth the user's attention beyond the window (stderr on
    /// the desktop). The window's panel shows load errors itself.
    fn log(&mut self, line: &str);

    /// Runs `task`. Returns its event when it finished at once (the desktop
    /// blocks on it); `None` when the event will arrive later through the
    /// event-loop proxy (a browser cannot block).
    fn run(&mut self, task: Task) -> Option<HostEvent>;

    /// The window's attributes as this platform wants them (a page puts
    /// the window in its canvas).
    fn window_attributes(&self, attributes: WindowAttributes) -> WindowAttributes {
        attributes
    }

    /// The viewer's state changed (see [`Status`]); a page shows it, the
    /// desktop prints [`Status::line`] through [`Host::status`] instead.
    fn report(&mut self, _status: &Status) {}
}
