//! The motion viewer in a web page: the desktop window's [`App`] (tracks
//! panel, timeline, keys, WebGPU compute deformation) in a canvas, with a
//! [`host::WebHost`] that takes files from the page instead of a disk.
//!
//! - [`host`]: the page's side of the window: files in, status out;
//! - [`page`]: the page's controls (file input, drop onto the canvas,
//!   buttons) and the hooks tests call (`window.motionViewer`);
//! - [`check`]: MEMG positions deformed by the compute shader in the page,
//!   read back and compared with the CPU reference;
//! - [`download`]: bytes made in the page handed to the user as a file;
//! - [`dom`]: the page's document and the ids of its elements (imports none
//!   of the others: the modules form no cycle).
//!
//! Natively this crate is empty: it exists for `wasm32-unknown-unknown`
//! (`web/build.sh`).
//!
//! [`App`]: motion_viewer::app::App

// Built natively the crate is empty (everything is for wasm32), so these
// docs' links resolve only in the page's own build.
#![cfg_attr(not(target_arch = "wasm32"), allow(rustdoc::broken_intra_doc_links))]

#[cfg(target_arch = "wasm32")]
pub mod check;
#[cfg(target_arch = "wasm32")]
pub mod dom;
#[cfg(target_arch = "wasm32")]
pub mod download;
#[cfg(target_arch = "wasm32")]
pub mod host;
#[cfg(target_arch = "wasm32")]
pub mod page;

/// Starts the viewer in the page: called once by wasm-bindgen when the
/// module is instantiated.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() -> Result<(), wasm_bindgen::JsValue> {
    use motion_viewer::anim::LoopMode;
    use motion_viewer::app::{App, HostEvent, Options};
    use winit::event_loop::EventLoop;
    use winit::platform::web::EventLoopExtWebSys;

    page::report_panics();
    let options = Options {
        paused: false,
        speed: 1.0,
        start_s: 0.0,
        loop_mode: LoopMode::Loop,
        size: (1280, 720),
        layout: None,
        watch: false,
        basis: motion_viewer::gpu::BasisFormat::F32,
        // `?curves=PATTERN` in the page's address opens the curves panel.
        curves: page::query("curves"),
    };
    let event_loop = EventLoop::<HostEvent>::with_user_event()
        .build()
        .map_err(|e| e.to_string())?;
    let proxy = event_loop.create_proxy();
    page::connect(proxy.clone())?;
    let app = App::new(
        host::WebHost::new(proxy).map_err(dom::js)?,
        options,
        &[],
        &host::NoFileSystem,
    )
    .map_err(dom::js)?;
    event_loop.spawn_app(app);
    Ok(())
}
