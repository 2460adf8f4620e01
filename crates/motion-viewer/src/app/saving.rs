//! What the window keeps of what it shows: screenshots (F12, with the
//! panels Shift+F12), taken right after a frame is presented and read back
//! by the host (at once on the desktop, when the browser has it in a
//! page), and the tracks as one glTF scene (E). Where they go is the
//! [`Host`]'s business. (An edited motion is saved by [`super::editing`].)

use super::framework::EguiFrame;
use super::host::{Host, HostEvent, Picture, Task};
use super::view::View;
use crate::session::viewer::ViewerState;

/// A screenshot asked for and not taken yet.
#[derive(Debug, Default)]
pub(crate) struct Saving {
    /// `Some(true)`: with the panels.
    screenshot: Option<bool>,
}

impl Saving {
    /// Takes a screenshot after the next frame: the 3D view alone, or the
    /// window as shown (`overlay`).
    pub(crate) fn ask_screenshot(&mut self, overlay: bool) {
        self.screenshot = Some(overlay);
    }

    /// Takes the screenshot asked for, if any, of the frame just drawn at
    /// `time_s` (`egui` is its overlay), and hands it to the host to keep.
    pub(crate) fn capture(
        &mut self,
        host: &mut impl Host,
        view: &mut View,
        state: &ViewerState,
        time_s: f64,
        egui: &EguiFrame,
    ) {
        let Some(overlay) = self.screenshot.take() else {
            return;
        };
        let first = state.tracks().first().map(|e| e.track.path().to_path_buf());
        let task: Task = match view.picture(time_s, overlay.then_some(egui)) {
            Ok(capture) => Box::pin(async move {
                let picture = capture.read_async().await;
                HostEvent::Picture(Box::new(Picture { picture, first }))
            }),
            Err(e) => {
                let picture = Err(e);
                Box::pin(async move { HostEvent::Picture(Box::new(Picture { picture, first })) })
            }
        };
        // The desktop reads it back at once; a page, when the browser has.
        if let Some(HostEvent::Picture(picture)) = host.run(task) {
            keep_picture(host, *picture);
        }
    }
}

/// Keeps a screenshot read back, or says why there is none.
pub(crate) fn keep_picture(host: &mut impl Host, taken: Picture) {
    if let Err(e) = taken
        .picture
        .and_then(|p| host.save_picture(&p, taken.first.as_deref()))
    {
        host.log(&format!("screenshot failed: {e}"));
    }
}

/// Saves the tracks the session holds — edited motions, the layout shown,
/// the materials they were opened with — as one glTF scene: what `viewer
/// export --layout … --out x.glb` writes for the same files.
pub(crate) fn export_gltf(host: &mut impl Host, state: &ViewerState) {
    let tracks = state.decoded();
    if tracks.is_empty() {
        host.log("glTF: no tracks to export; open some files first");
        return;
    }
    let first = tracks[0].path().to_path_buf();
    let saved = crate::export::gltf::glb_bytes(
        &tracks,
        state.plan(),
        &crate::export::gltf::GltfOptions::default(),
    )
    .and_then(|(glb, _)| host.save_scene(&glb, Some(&first)));
    if let Err(e) = saved {
        host.log(&format!("glTF: {e}"));
    }
}
