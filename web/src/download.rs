//! Bytes made in the page (a screenshot, a glTF file) handed to the user as
//! a download: a Blob, an object URL, a click on a link to it.

use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// Offers `bytes` as a file named `name` of MIME type `mime`.
pub fn offer(name: &str, bytes: &[u8], mime: &str) -> motion_viewer::Result<()> {
    let js = |e: wasm_bindgen::JsValue| {
        let why = format!("cannot offer it for download: {e:?}");
        motion_viewer::Error::io(name, std::io::Error::other(why))
    };
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(js)?;
    let url = Url::create_object_url_with_blob(&blob).map_err(js)?;
    let document = crate::dom::document()?;
    let link: HtmlAnchorElement = document
        .create_element("a")
        .map_err(js)?
        .dyn_into()
        .map_err(|_| js("an <a> that is not a link".into()))?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    // Revoked once the browser has surely read the blob, not at once: a
    // URL revoked right after the click can cancel the download.
    let revoke = wasm_bindgen::closure::Closure::once_into_js(move || {
        let _ = Url::revoke_object_url(&url);
    });
    if let Some(window) = web_sys::window() {
        window
            .set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000)
            .map_err(js)?;
    }
    Ok(())
}

/// Asks the viewer to offer the tracks it holds as one `.glb`: edited
/// motions as edited, laid out as shown, with the materials they were opened
/// with (the window's `E`).
#[wasm_bindgen::prelude::wasm_bindgen(js_name = downloadGltf)]
pub fn download_gltf() -> Result<(), wasm_bindgen::JsValue> {
    crate::page::send(motion_viewer::app::HostEvent::Action(
        motion_viewer::app::Action::ExportGltf,
    ))
}
