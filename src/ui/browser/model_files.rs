//! Fetching the trained model's files (`model/` beside the page: model.safetensors, config.json,
//! vocab.json, copied there by Trunk from assets/model) the first time the model is asked for,
//! so the default view never waits for them. Everything is same-origin: the page stays offline.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::ui::state::Lab;
use crate::ui::state::model::{GptRef, ModelStatus};
use attention_core::api::load_model;
use attention_core::gpt::Gpt;

/// Where the files are, relative to the page.
const BASE: &str = "model/";

thread_local! {
    /// A model handed over directly (tests mount the lab where no `model/` folder is served).
    static PROVIDED: RefCell<Option<Arc<Gpt>>> = const { RefCell::new(None) };
}

/// Makes `gpt` the model every lab mounted from now on uses, without fetching.
pub fn provide(gpt: Gpt) {
    PROVIDED.with(|slot| *slot.borrow_mut() = Some(Arc::new(gpt)));
}

/// Loads the model the first time the request asks for it.
pub fn load_when_needed(lab: Lab) {
    Effect::new(move |_| {
        let wanted = lab.request.with(|r| r.is_trained());
        if !wanted || lab.model_status.with_untracked(|s| *s != ModelStatus::Idle) {
            return;
        }
        if let Some(gpt) = PROVIDED.with(|slot| slot.borrow().clone()) {
            lab.model_status.set(ModelStatus::Ready(GptRef(gpt)));
            return;
        }
        lab.model_status.set(ModelStatus::Loading);
        leptos::task::spawn_local(async move {
            let status = match fetch_model().await {
                Ok(gpt) => ModelStatus::Ready(GptRef(Arc::new(gpt))),
                Err(message) => ModelStatus::Failed(message),
            };
            lab.model_status.set(status);
        });
    });
}

async fn fetch_model() -> Result<Gpt, String> {
    let bytes = fetch(&format!("{BASE}model.safetensors")).await?;
    let config = String::from_utf8(fetch(&format!("{BASE}config.json")).await?)
        .map_err(|e| e.to_string())?;
    let vocab =
        String::from_utf8(fetch(&format!("{BASE}vocab.json")).await?).map_err(|e| e.to_string())?;
    load_model(&bytes, &config, &vocab).map_err(|e| e.to_string())
}

/// The bytes at `url` (relative to the page).
async fn fetch(url: &str) -> Result<Vec<u8>, String> {
    let describe = |error: JsValue| {
        format!(
            "{url}: {}",
            error.as_string().unwrap_or_else(|| format!("{error:?}"))
        )
    };
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(describe)?
        .dyn_into()
        .map_err(describe)?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(describe)?)
        .await
        .map_err(describe)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}
