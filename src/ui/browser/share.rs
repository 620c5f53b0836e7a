//! Getting things out of the page: downloads (PNG, SVG, CSV, JSON), the clipboard, and the
//! embed code of a state.

use wasm_bindgen::{JsCast, JsValue};

use super::address;
use crate::ui::logic::link::{Embed, LinkState};

/// Saves `text` as a file named `filename`.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let result = download_url(filename, &url);
    web_sys::Url::revoke_object_url(&url)?;
    result
}

/// Saves what `url` (a data or blob URL) holds as `filename`.
pub fn download_url(filename: &str, url: &str) -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    link.set_href(url);
    link.set_download(filename);
    link.click();
    Ok(())
}

/// Saves a canvas as a PNG.
pub fn download_png(filename: &str, canvas: &web_sys::HtmlCanvasElement) -> Result<(), JsValue> {
    download_url(filename, &canvas.to_data_url_with_type("image/png")?)
}

/// Reports a failed download in the console (a download is never worth a broken page).
pub fn report(result: Result<(), JsValue>) {
    if let Err(error) = result {
        web_sys::console::error_2(&"attention-lab: the download failed".into(), &error);
    }
}

/// The `<iframe>` a course page pastes to embed the lab as it is now.
pub fn embed_code(state: &LinkState, panels: &[&str]) -> String {
    let embedded = LinkState {
        embed: Some(Embed {
            panels: panels.iter().map(|p| p.to_string()).collect(),
            origin: None,
        }),
        ..state.clone()
    };
    let src = address::href(&embedded)
        .replace('&', "&amp;")
        .replace('"', "&quot;");
    format!(
        "<iframe src=\"{src}\" title=\"Attention Lab\" width=\"100%\" height=\"560\" style=\"border: 0\" loading=\"lazy\"></iframe>"
    )
}

/// Puts `text` on the clipboard; the returned flag says whether that worked.
pub async fn copy(text: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let clipboard = window.navigator().clipboard();
    wasm_bindgen_futures::JsFuture::from(clipboard.write_text(text))
        .await
        .is_ok()
}
