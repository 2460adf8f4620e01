//! The page's elements, as the other modules find them: the document, an
//! element by id, and the ids `web/index.html` gives them. The lowest module
//! of the crate: it imports none of the others.

use motion_viewer::{Error, Result};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Document;

/// The page as the library's errors name it: what failed is in `index.html`
/// (an element it lacks) rather than in a file the user gave.
pub const PAGE: &str = "index.html";

/// The id of the canvas the viewer draws into.
pub const CANVAS_ID: &str = "viewer";
/// The id of the element whose text is the window's status as JSON.
pub const STATUS_ID: &str = "status";
/// The id of the `<input type=file multiple>`.
pub const FILES_ID: &str = "files";

/// The page's document.
pub fn document() -> Result<Document> {
    web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| Error::unsupported(PAGE, "no document: not in a web page"))
}

/// The element `id` as a `T`, or an error naming what the page lacks.
pub fn element<T: JsCast>(document: &Document, id: &str) -> Result<T> {
    document
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into().ok())
        .ok_or_else(|| Error::unsupported(PAGE, format!("the page has no suitable element #{id}")))
}

/// The library's error as JavaScript sees it, where a call returns to the
/// page: its one line as a string.
pub fn js(e: Error) -> JsValue {
    JsValue::from_str(&e.to_string())
}
