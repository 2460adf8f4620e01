//! Bytes made in the page (a screenshot, a glTF file) handed to the user as
//! a download: a Blob, an object URL, a click on a link to it.

use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// Offers `bytes` as a file named `name` of MIME type `mime`.
pub fn offer(name: &str, bytes: &[u8], mime: &str) -> Result<(), String> {
    let js = |e: wasm_bindgen::JsValue| format!("cannot offer {name} for download: {e:?}");
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
        .map_err(|_| "an <a> that is not a link".to_string())?;
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

/// Offers the tracks given to the page as one `motion.glb`, laid out as the
/// window lays them out. Batches that failed to load are left out.
#[wasm_bindgen::prelude::wasm_bindgen(js_name = downloadGltf)]
pub fn download_gltf() -> Result<(), wasm_bindgen::JsValue> {
    use motion_viewer::export::gltf::{GltfOptions, glb_bytes};
    use motion_viewer::scene::{DiskMaterials, Plan, auto_layout, load_inputs};
    let tracks: Vec<_> = crate::page::given()
        .iter()
        .filter_map(|batch| load_inputs(batch, &DiskMaterials).ok())
        .flat_map(|(tracks, _)| tracks)
        .collect();
    if tracks.is_empty() {
        return Err("no tracks to export: open some files first".into());
    }
    let plan = Plan::with_layout(&tracks, auto_layout(&tracks)).map_err(|e| e.to_string())?;
    let (bytes, _) =
        glb_bytes(&tracks, &plan, &GltfOptions::default()).map_err(|e| e.to_string())?;
    offer("motion.glb", &bytes, "model/gltf-binary")?;
    Ok(())
}
