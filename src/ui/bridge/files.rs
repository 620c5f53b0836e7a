//! A user's own attention from a file the page is given: picked, dropped, pasted, or passed to
//! `attentionLab.load`. The bytes are read here and handed to `state::imported`; a file that
//! cannot be used leaves the page as it was and says why.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use crate::ui::state::Lab;
use crate::ui::state::imported::{OpenStatus, Refusal, open_bytes};
use attention_core::io::import::Format;

/// Opens `bytes` named `name` in `lab`, or records why not (and returns it, in the page's
/// language). The page keeps what it showed when a file is refused.
pub fn open(
    lab: Lab,
    name: &str,
    format: Option<Format>,
    bytes: &[u8],
    tokens: Option<Vec<String>>,
    batch: Option<usize>,
) -> Result<(), String> {
    match open_bytes(name, format, bytes, tokens, batch) {
        Ok(file) => {
            lab.show_imported(Some(file));
            Ok(())
        }
        Err(why) => Err(refuse(lab, name, why)),
    }
}

/// Records a refusal; returns its message.
pub fn refuse(lab: Lab, name: &str, why: Refusal) -> String {
    let lang = lab.lang.get_untracked();
    let message = (lang.import().refused)(name, &why.message(lang));
    lab.open_status.set(Some(OpenStatus::Refused {
        name: name.to_string(),
        why,
    }));
    message
}

/// Reads a file the user picked or dropped, then opens it.
pub fn open_picked(lab: Lab, file: web_sys::File, tokens: Option<Vec<String>>) {
    let name = file.name();
    lab.open_status.set(Some(OpenStatus::Reading(name.clone())));
    wasm_bindgen_futures::spawn_local(async move {
        let read = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await;
        match read {
            Ok(buffer) => {
                let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
                let _ = open(lab, &name, None, &bytes, tokens, None);
            }
            Err(error) => {
                refuse(lab, &name, Refusal::Unreadable(js_message(error)));
            }
        }
    });
}

/// Fetches `url` (an embed's `src=`: absolute, or relative to the lab) and opens it; where the
/// browser refuses (no such file, another site that does not allow it), the page says why.
pub fn open_url(lab: Lab, url: String) {
    let name = url
        .split(['?', '#'])
        .next()
        .and_then(|path| path.rsplit('/').next())
        .filter(|n| !n.is_empty())
        .unwrap_or(&url)
        .to_string();
    lab.open_status.set(Some(OpenStatus::Reading(name.clone())));
    wasm_bindgen_futures::spawn_local(async move {
        match fetch_bytes(&url).await {
            Ok(bytes) => {
                if open(lab, &name, None, &bytes, None, None).is_ok() {
                    lab.imported_src.set(Some(url));
                }
            }
            Err(why) => {
                refuse(lab, &name, Refusal::Unreadable(why));
            }
        }
    });
}

async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    use wasm_bindgen_futures::JsFuture;
    let message = js_message;
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(message)?
        .dyn_into()
        .map_err(|_| "not a response".to_string())?;
    if !response.ok() {
        return Err(format!("{} {}", response.status(), response.status_text()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(message)?)
        .await
        .map_err(message)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// A JavaScript error's message, for the page to say why.
fn js_message(error: wasm_bindgen::JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|| "unknown error".into())
}

/// `batch` given with the data (`attentionLab.load({…, batch})`): an example's number, or none.
pub fn batch_of(lab: Lab, data: &JsValue, name: &str) -> Result<Option<usize>, String> {
    let batch = js_sys::Reflect::get(data, &"batch".into()).unwrap_or(JsValue::UNDEFINED);
    if batch.is_undefined() || batch.is_null() {
        return Ok(None);
    }
    let example = batch
        .as_f64()
        .filter(|b| *b >= 0.0 && b.fract() == 0.0)
        .ok_or_else(|| {
            refuse(
                lab,
                name,
                Refusal::Unreadable("batch: expected an example's number (0, 1, 2, …)".into()),
            )
        })?;
    Ok(Some(example as usize))
}

/// `hide_special` and `mean` given with the data: how the file is looked at once it is open.
pub fn look(lab: Lab, data: &JsValue, name: &str) -> Result<(), String> {
    let field = |key: &str| js_sys::Reflect::get(data, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let hide_special = field("hide_special").as_bool().unwrap_or(false);
    let mean = match field("mean").as_string().as_deref() {
        None => None,
        Some("heads") => Some(attention_core::io::imported_views::Mean::Heads),
        Some("layers") => Some(attention_core::io::imported_views::Mean::Layers),
        Some(other) => {
            return Err(refuse(
                lab,
                name,
                Refusal::Unreadable(format!("mean: \"heads\" or \"layers\", not {other:?}")),
            ));
        }
    };
    lab.import_view
        .set(crate::ui::state::imported::ImportView { hide_special, mean });
    Ok(())
}
