//! The page's side of the window ([`Host`]): files come from the page (see
//! [`crate::page`]), screenshots and edited motions are downloaded, the
//! status is kept as JSON in `#status` and in the page's title (`* ` first
//! while an edited motion is unsaved).

use crate::dom::{CANVAS_ID, STATUS_ID};
use crate::download;
use motion_viewer::app::Status;
use motion_viewer::app::{Host, HostEvent, Task};
use motion_viewer::open::{Input, Materials};
use std::path::{Path, PathBuf};
use web_sys::{HtmlCanvasElement, HtmlElement};
use winit::event_loop::EventLoopProxy;
use winit::platform::web::WindowAttributesExtWebSys;
use winit::window::WindowAttributes;

/// The web host; see the module docs.
pub struct WebHost {
    proxy: EventLoopProxy<HostEvent>,
    canvas: HtmlCanvasElement,
    status: HtmlElement,
    document: web_sys::Document,
    last_json: String,
    last_title: String,
    /// The canvas's focus was told to winit (see [`Host::report`] below).
    focus_told: bool,
}

impl WebHost {
    /// A host for the page's `#viewer` canvas and `#status` element, sending
    /// the results of its tasks through `proxy`.
    pub fn new(proxy: EventLoopProxy<HostEvent>) -> motion_viewer::Result<WebHost> {
        let document = crate::dom::document()?;
        Ok(WebHost {
            proxy,
            canvas: crate::dom::element(&document, CANVAS_ID)?,
            status: crate::dom::element(&document, STATUS_ID)?,
            document,
            last_json: String::new(),
            last_title: String::new(),
            focus_told: false,
        })
    }
}

impl Host for WebHost {
    fn read_dropped(&mut self, path: &Path) -> motion_viewer::Result<Input> {
        // winit reports no dropped paths in a page; drops come as bytes.
        Err(motion_viewer::Error::unsupported(
            path,
            "no file system here",
        ))
    }

    fn materials(&self) -> &dyn Materials {
        // No file system: a library not among the files given is missing.
        &NoFileSystem
    }

    fn watch(&mut self, _sets: Vec<Vec<PathBuf>>) {}

    fn save_picture(
        &mut self,
        picture: &image::RgbaImage,
        first_input: Option<&Path>,
    ) -> motion_viewer::Result<String> {
        let mut png = Vec::new();
        motion_viewer::export::png::encode(picture, &mut png)
            .map_err(|e| motion_viewer::Error::io("screenshot.png", e))?;
        let stem = first_input
            .and_then(Path::file_stem)
            .map_or_else(|| "viewer".into(), |s| s.to_string_lossy());
        let name = format!("{stem}_screenshot.png");
        download::offer(&name, &png, "image/png")?;
        Ok(name)
    }

    fn save_scene(
        &mut self,
        glb: &[u8],
        first_input: Option<&Path>,
    ) -> motion_viewer::Result<String> {
        let stem = first_input
            .and_then(Path::file_stem)
            .map_or_else(|| "motion".into(), |s| s.to_string_lossy());
        let name = format!("{stem}.glb");
        download::offer(&name, glb, "model/gltf-binary")?;
        Ok(name)
    }

    fn save_motion(
        &mut self,
        path: &Path,
        _original: &Path,
        bytes: &[u8],
        _overwrite: bool,
    ) -> motion_viewer::Result<String> {
        // A download never replaces a file: nothing to confirm here.
        let name = path
            .file_name()
            .map_or_else(|| "motion-edited.mtn".into(), |n| n.to_string_lossy());
        download::offer(&name, bytes, "application/octet-stream")?;
        Ok(name.into_owned())
    }

    fn status(&mut self, line: &str) {
        // The page's status is the JSON in `#status` (see `report`); the
        // desktop's lines are kept for the console.
        if !line.starts_with("frame ") {
            web_sys::console::log_1(&line.into());
        }
    }

    fn log(&mut self, line: &str) {
        web_sys::console::warn_1(&format!("viewer: {line}").into());
    }

    fn run(&mut self, task: Task) -> Option<HostEvent> {
        let proxy = self.proxy.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // Fails only once the page is going away.
            let _ = proxy.send_event(task.await);
        });
        None
    }

    fn window_attributes(&self, attributes: WindowAttributes) -> WindowAttributes {
        // The canvas's size comes from the page's layout (CSS), not from
        // the desktop's default window size.
        let mut attributes = attributes
            .with_canvas(Some(self.canvas.clone()))
            .with_prevent_default(true)
            .with_focusable(true);
        attributes.inner_size = None;
        attributes
    }

    fn report(&mut self, status: &Status) {
        if !std::mem::replace(&mut self.focus_told, true) {
            // winit learns the canvas's focus from focus events, listened
            // for once the window exists; the page focuses the canvas when
            // it loads, before that, so egui took the window for unfocused
            // (no caret in a field, `Response::has_focus` false). Focusing
            // it again now (the first frame) tells it.
            let canvas: &web_sys::Element = self.canvas.as_ref();
            if self.document.active_element().as_ref() == Some(canvas) {
                let _ = self.canvas.blur();
                let _ = self.canvas.focus();
            }
        }
        let json = status.to_json();
        if json != self.last_json {
            self.status.set_text_content(Some(&json));
            self.last_json = json;
        }
        let unsaved = status.edit.as_ref().is_some_and(|e| e.dirty);
        crate::page::set_unsaved(unsaved);
        let title = match status.files.is_empty() {
            true => "motion viewer — open or drop files".to_string(),
            false => format!(
                "{}{} — {:.1} s — motion viewer",
                if unsaved { "* " } else { "" },
                status.files.join(", "),
                status.time_s
            ),
        };
        if title != self.last_title {
            self.document.set_title(&title);
            self.last_title = title;
        }
    }
}

/// Where a page looks for `.mtl` libraries the files given lack: nowhere.
pub(crate) struct NoFileSystem;

impl Materials for NoFileSystem {
    fn read(&self, _: &Path, lib: &str) -> std::io::Result<Vec<u8>> {
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            format!("no file system here; add {lib} to the files"),
        ))
    }
}
