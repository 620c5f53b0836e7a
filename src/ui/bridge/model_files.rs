//! Fetching a trained model's files (model.safetensors, config.json, vocab.json, in the folder
//! its name gives beside the page, `gpt2/`, `llama/`, `llama-gated/` or `hybrid/`, copied there
//! by Trunk from assets/)
//! the first time that model is asked for, so the default view never waits for
//! them; each is kept once read, so switching back is instant. Everything is same-origin: the
//! page stays offline.

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::ui::state::Lab;
use crate::ui::state::model::{ModelKey, ModelRef, ModelStatus};
use attention_core::models::{Model, Shipped};

thread_local! {
    /// Models handed over directly (tests mount the lab where no model folder is served), and
    /// models fetched and read: at most one per layout.
    static MODELS: RefCell<Vec<Arc<Model>>> = const { RefCell::new(Vec::new()) };
}

/// Makes `gpt` the model of its layout that every lab mounted from now on uses, without fetching.
pub fn provide(gpt: Model) {
    keep(Arc::new(gpt));
}

pub(super) fn keep(gpt: Arc<Model>) {
    let key = ModelKey::of_model(&gpt);
    MODELS.with(|models| {
        let mut models = models.borrow_mut();
        models.retain(|m| ModelKey::of_model(m) != key);
        models.push(gpt);
    });
}

pub(super) fn kept(key: &ModelKey) -> Option<Arc<Model>> {
    MODELS.with(|models| {
        models
            .borrow()
            .iter()
            .find(|m| ModelKey::of_model(m) == *key)
            .cloned()
    })
}

/// The name of the folder's model opened last, if one is open.
pub fn kept_folder() -> Option<String> {
    MODELS.with(|models| {
        models
            .borrow()
            .iter()
            .rev()
            .find_map(|m| match ModelKey::of_model(m) {
                ModelKey::Folder(name) => Some(name),
                ModelKey::Shipped(_) => None,
            })
    })
}

/// Loads a trained model the first time the request asks for it (and puts a kept one back in
/// place when the request switches to it again).
pub fn load_when_needed(lab: Lab) {
    Effect::new(move |_| {
        let Some(key) = lab.request.with(ModelKey::of) else {
            return;
        };
        // Loaded, loading, or failed for this model already: nothing to do (a failure is not
        // retried on every edit; reloading the page retries).
        if lab.model_status.with_untracked(|s| s.key()).as_ref() == Some(&key) {
            return;
        }
        if let Some(gpt) = kept(&key) {
            // A folder's model opened before another: its worker builds it again.
            if matches!(key, ModelKey::Folder(_)) {
                lab.model_jobs.reopen(gpt.clone());
            }
            lab.model_status.set(ModelStatus::Ready(ModelRef(gpt)));
            return;
        }
        // A folder's model comes only from the files the user opens (`own_model`).
        let ModelKey::Shipped(wanted) = key else {
            lab.model_status.set(ModelStatus::Failed(
                key,
                "open the model's folder first (Open a model, or attentionLab.load({model: {files}}))".into(),
            ));
            return;
        };
        lab.model_status.set(ModelStatus::Loading(key.clone()));
        leptos::task::spawn_local(async move {
            let fetched = fetch_model(wanted).await;
            if let Ok(gpt) = &fetched {
                keep(gpt.clone());
            }
            // The learner may have switched while the files came: report only if still wanted.
            if lab
                .model_status
                .with_untracked(|s| *s != ModelStatus::Loading(key.clone()))
            {
                return;
            }
            lab.model_status.set(match fetched {
                Ok(gpt) => ModelStatus::Ready(ModelRef(gpt)),
                Err(message) => ModelStatus::Failed(key, message),
            });
        });
    });
}

/// A shipped model without making it the page's: the one kept, or its files fetched (and kept).
/// The Streaming section reads the Llama twin not in use this way.
pub async fn shipped(model: Shipped) -> Result<Arc<Model>, String> {
    if let Some(kept) = kept(&ModelKey::Shipped(model)) {
        return Ok(kept);
    }
    let fetched = fetch_model(model).await?;
    keep(fetched.clone());
    Ok(fetched)
}

async fn fetch_model(model: Shipped) -> Result<Arc<Model>, String> {
    let base = format!("{}/", model.folder());
    let bytes = fetch(&format!("{base}model.safetensors")).await?;
    let config = String::from_utf8(fetch(&format!("{base}config.json")).await?)
        .map_err(|e| e.to_string())?;
    let vocab =
        String::from_utf8(fetch(&format!("{base}vocab.json")).await?).map_err(|e| e.to_string())?;
    Model::from_files(&bytes, &config, &vocab)
        .map(Arc::new)
        .map_err(|e| e.to_string())
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
