//! `window.attentionLab`: a small JavaScript API for embedding hosts and tests.
//!
//! - `set(params)`: applies any subset of the parameters (named as in the trace CLI's input).
//!   Invalid values are refused with a visible message and leave the state as it was.
//!   Returns `{ok: true}` or `{ok: false, error}`.
//! - `state()`: the current parameters plus `tokens`, `backend`, `compute_ms`, `max_flash_diff`.
//! - `trace()`: the last valid trace in the CLI's JSON shape, or null.

use leptos::prelude::*;
use serde_json::json;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::Closure;

use super::engine::{GpuStatus, probe, simulate_loss};
use super::i18n::fallback_message;
use super::i18n::request_error_message;
use super::state::Lab;
use crate::api::{RequestError, parse_request, trace_json};

/// Applies `update` if the result is computable; otherwise returns the message and changes nothing.
pub fn apply(lab: Lab, update: &str) -> Result<(), String> {
    let lang = lab.lang.get_untracked();
    let refuse = |error: RequestError| request_error_message(&error, lang);
    let update = parse_request(update).map_err(refuse)?;
    let merged = lab.request.get_untracked().merged(&update);
    let previous = lab.shown.get_untracked();
    merged
        .to_params()
        .and_then(|params| Ok(params.validate_reusing(previous.as_ref().map(|t| &t.0.config))?))
        .map_err(refuse)?;
    lab.change(update);
    Ok(())
}

/// The state as `attentionLab.state()` returns it, as JSON text.
pub fn state_json(lab: Lab) -> String {
    let request = lab.request.get_untracked();
    let outcome = lab.outcome.get_untracked();
    let trace = lab.shown.get_untracked();
    let mut state = serde_json::to_value(&request).unwrap_or_else(|_| json!({}));
    if let Some(object) = state.as_object_mut() {
        object.insert(
            "tokens".into(),
            json!(trace.as_ref().map(|t| t.0.config.tokens().to_vec())),
        );
        let backend = outcome.result.as_ref().ok().map(|t| t.0.backend.clone());
        object.insert(
            "backend".into(),
            json!(backend.as_ref().map_or("cpu", |b| b.name())),
        );
        object.insert(
            "adapter".into(),
            json!(match &backend {
                Some(crate::core::Backend::Gpu { adapter }) => Some(adapter.clone()),
                _ => None,
            }),
        );
        object.insert(
            "fallback_reason".into(),
            json!(outcome.fallback.as_ref().map(|f| f.code)),
        );
        object.insert(
            "fallback_message".into(),
            json!(outcome.fallback.as_ref().map(|f| fallback_message(
                f.code,
                &f.detail,
                lab.lang.get_untracked()
            ))),
        );
        object.insert("pending".into(), json!(outcome.pending));
        object.insert(
            "gpu".into(),
            json!(match lab.gpu.get_untracked() {
                GpuStatus::Probing => "probing",
                GpuStatus::Ready(_) => "ready",
                GpuStatus::Unavailable { .. } => "unavailable",
                GpuStatus::Lost(_) => "lost",
            }),
        );
        object.insert("compute_ms".into(), json!(outcome.compute_ms));
        object.insert(
            "max_flash_diff".into(),
            json!(trace.as_ref().map(|t| t.0.flash.max_abs_diff)),
        );
        object.insert("update_ms".into(), json!(lab.timing.get_value().update_ms));
        object.insert(
            "error".into(),
            json!(outcome.result.as_ref().err().map(|e| e.to_string())),
        );
    }
    state.to_string()
}

/// Installs `window.attentionLab` for this lab (the last mounted lab wins).
pub fn install(lab: Lab) {
    #[cfg(target_arch = "wasm32")]
    if let Err(error) = install_on_window(lab) {
        web_sys::console::error_2(&"attentionLab: could not install the API".into(), &error);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = lab;
}

fn parse(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap_or(JsValue::NULL)
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn install_on_window(lab: Lab) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let api = js_sys::Object::new();
    let set = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |params: JsValue| {
        let text = js_sys::JSON::stringify(&params)
            .map(String::from)
            .unwrap_or_default();
        let result = match apply(lab, &text) {
            Ok(()) => json!({ "ok": true }),
            Err(message) => {
                lab.notice.set(Some(message.clone()));
                json!({ "ok": false, "error": message })
            }
        };
        parse(&result.to_string())
    });
    let state = Closure::<dyn Fn() -> JsValue>::new(move || parse(&state_json(lab)));
    let trace = Closure::<dyn Fn() -> JsValue>::new(move || {
        match lab.shown.get_untracked().map(|t| trace_json(&t.0)) {
            Some(Ok(json)) => parse(&json),
            _ => JsValue::NULL,
        }
    });
    js_sys::Reflect::set(&api, &"set".into(), &set.into_js_value())?;
    js_sys::Reflect::set(&api, &"state".into(), &state.into_js_value())?;
    js_sys::Reflect::set(&api, &"trace".into(), &trace.into_js_value())?;
    // For tests of the recovery path: lose the GPU device as a driver reset would, and retry.
    let lose = Closure::<dyn Fn()>::new(move || simulate_loss(lab));
    let retry = Closure::<dyn Fn()>::new(move || probe(lab));
    js_sys::Reflect::set(&api, &"simulateGpuLoss".into(), &lose.into_js_value())?;
    js_sys::Reflect::set(&api, &"retryGpu".into(), &retry.into_js_value())?;
    js_sys::Reflect::set(&window, &"attentionLab".into(), &api)?;
    Ok(())
}
