//! The page's controls: the "Open files" input and drops onto the canvas
//! hand the files' bytes to the window; leaving the page with unsaved edits
//! asks first; the hooks a page script or a test
//! calls live on `window.motionViewer` (see `web/index.js`).

use crate::dom::{CANVAS_ID, FILES_ID, STATUS_ID, document, element, js};
use motion_viewer::app::HostEvent;
use motion_viewer::open::Input;
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DragEvent, File, FileList, HtmlInputElement};
use winit::event_loop::EventLoopProxy;

/// Files handed over together: each one's name and bytes.
type Batch = Vec<(String, Vec<u8>)>;

thread_local! {
    /// Every batch of files handed to the window, in order: the MEMG check
    /// (a test's probe of the page's GPU) opens them again through the
    /// library's front door. Downloads are made from the window's tracks.
    static GIVEN: RefCell<Vec<Batch>> = const { RefCell::new(Vec::new()) };
    /// True while an edited motion has not been saved (downloaded).
    static UNSAVED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The window's event loop, for the page's buttons.
    static PROXY: RefCell<Option<EventLoopProxy<HostEvent>>> = const { RefCell::new(None) };
}

/// Sends `event` to the window, as a key or a dropped file does.
pub fn send(event: HostEvent) -> Result<(), JsValue> {
    PROXY.with(|p| match p.borrow().as_ref() {
        Some(proxy) => proxy
            .send_event(event)
            .map_err(|_| JsValue::from_str("the viewer has stopped")),
        None => Err(JsValue::from_str("the viewer has not started")),
    })
}

/// Tells the page whether an edited motion is unsaved: leaving the page
/// then asks first.
pub fn set_unsaved(unsaved: bool) {
    UNSAVED.with(|u| u.set(unsaved));
}

/// The batches of files given so far (a batch may have failed to load).
pub fn given() -> Vec<Batch> {
    GIVEN.with(|g| g.borrow().clone())
}

/// The value of `name` in the page address's query (`?curves=head_*`), if any.
pub fn query(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get(name)
        .filter(|v| !v.is_empty())
}

/// Writes panics to the console and into `#status` (as `{"panic": …}`):
/// a panicked module draws nothing more, and a test should say why.
pub fn report_panics() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&message.clone().into());
        if let Ok(document) = document()
            && let Some(status) = document.get_element_by_id(STATUS_ID)
        {
            let json = serde_json::json!({ "panic": message });
            status.set_text_content(Some(&json.to_string()));
        }
    }));
}

/// Wires the file input and the canvas's drop to `proxy`.
pub fn connect(proxy: EventLoopProxy<HostEvent>) -> Result<(), JsValue> {
    PROXY.with(|p| *p.borrow_mut() = Some(proxy.clone()));
    let document = document().map_err(js)?;
    let input: HtmlInputElement = element(&document, FILES_ID).map_err(js)?;
    let canvas: web_sys::HtmlCanvasElement = element(&document, CANVAS_ID).map_err(js)?;

    let on_change = {
        let (proxy, input) = (proxy.clone(), input.clone());
        Closure::<dyn FnMut()>::new(move || {
            if let Some(files) = input.files() {
                open(proxy.clone(), files);
            }
            // The same file chosen again must fire `change` again.
            input.set_value("");
        })
    };
    input.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref())?;
    // The page lives as long as the module: the listeners stay.
    on_change.forget();

    let on_drag_over = Closure::<dyn FnMut(DragEvent)>::new(|e: DragEvent| e.prevent_default());
    canvas.add_event_listener_with_callback("dragover", on_drag_over.as_ref().unchecked_ref())?;
    on_drag_over.forget();
    let on_drop = Closure::<dyn FnMut(DragEvent)>::new(move |e: DragEvent| {
        e.prevent_default();
        if let Some(files) = e.data_transfer().and_then(|d| d.files()) {
            open(proxy.clone(), files);
        }
    });
    canvas.add_event_listener_with_callback("drop", on_drop.as_ref().unchecked_ref())?;
    on_drop.forget();

    // Leaving with unsaved edits asks first (the browser words the question).
    let on_leave = Closure::<dyn FnMut(web_sys::Event)>::new(|e: web_sys::Event| {
        if UNSAVED.with(std::cell::Cell::get) {
            e.prevent_default();
            // Older browsers ask only when `returnValue` is set.
            let _ = js_sys::Reflect::set(&e, &"returnValue".into(), &"".into());
        }
    });
    if let Some(window) = web_sys::window() {
        window
            .add_event_listener_with_callback("beforeunload", on_leave.as_ref().unchecked_ref())?;
    }
    on_leave.forget();
    Ok(())
}

/// Reads every file of `list` and sends them to the window as one batch,
/// so that an `.obj` and its `.bin` pair up as on the command line.
fn open(proxy: EventLoopProxy<HostEvent>, list: FileList) {
    let files: Vec<File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
    wasm_bindgen_futures::spawn_local(async move {
        let mut batch = Vec::with_capacity(files.len());
        for file in files {
            match JsFuture::from(file.array_buffer()).await {
                Ok(buffer) => batch.push((file.name(), js_sys::Uint8Array::new(&buffer).to_vec())),
                Err(e) => web_sys::console::error_2(&file.name().into(), &e),
            }
        }
        let inputs = batch
            .iter()
            .map(|(name, bytes)| Input::from_bytes(name, bytes.clone()))
            .collect();
        GIVEN.with(|g| g.borrow_mut().push(batch));
        // Fails only once the page is going away.
        let _ = proxy.send_event(HostEvent::Open(inputs));
    });
}
