//! Embedding: the compact layout of `?embed=1`, and the `postMessage` protocol with the host page.
//!
//! Protocol (documented in the README):
//! - the host sends `{type: "attention-lab:set", params: {...}}`, with the trace CLI's parameter
//!   names plus the view settings `head`, `lang`, `theme`, `step`, `view`, `panels`;
//! - or `{type: "attention-lab:link", query, cleared?}`: parameters and view settings as a link
//!   writes them (what the course element sends for its attributes), and the names it no longer
//!   sets (an attribute removed: what it set goes back to its default);
//! - or `{type: "attention-lab:load", data, name?}`: one's own attention, `data` as
//!   `attentionLab.load` takes it (null goes back to the lab's own numbers);
//! - the lab posts `{type: "attention-lab:state", state}` (what `attentionLab.state()` returns) to
//!   its parent when ready and whenever the state changes, `{type: "attention-lab:size",
//!   height}` (its content's height in CSS pixels) whenever that changes, and
//!   `{type: "attention-lab:error", error}` when a message is refused.
//!
//! With an `origin` parameter in the lab's URL, only that origin's messages are obeyed, and the
//! state is posted to that origin alone.

use leptos::prelude::*;
use serde_json::{Value, json};

use wasm_bindgen::JsValue;

use super::js_api::{apply_link, apply_message, load_data};
use super::location;
use super::state_json::state_json;
use crate::ui::logic::notice::ApiError;
use crate::ui::state::Lab;

/// Obeys `attention-lab:set` messages and, inside a frame, tells the host page the state.
/// (At the top level nobody receives the state, but messages are still obeyed: a script of the
/// same page can call `attentionLab.set` anyway.)
pub fn connect(lab: Lab) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let parent = window
        .parent()
        .ok()
        .flatten()
        .filter(|parent| !js_sys::Object::is(parent, &window));
    let framed = parent.is_some();
    let origin = lab.embed.get_untracked().and_then(|e| e.origin);
    let target = origin.clone().unwrap_or_else(|| "*".into());
    let post = move |message: Value| {
        let Some(parent) = &parent else { return };
        if let Ok(value) = js_sys::JSON::parse(&message.to_string())
            && let Err(error) = parent.post_message(&value, &target)
        {
            web_sys::console::warn_2(&"attention-lab: could not post to the host".into(), &error);
        }
    };
    let post_state = post.clone();
    let post_size = post.clone();
    let handle = window_event_listener(leptos::ev::message, move |event: web_sys::MessageEvent| {
        if origin
            .as_deref()
            .is_some_and(|allowed| allowed != event.origin())
        {
            web_sys::console::warn_1(
                &format!("attention-lab: ignored a message from {}", event.origin()).into(),
            );
            return;
        }
        let text = js_sys::JSON::stringify(&event.data())
            .map(String::from)
            .unwrap_or_default();
        let Ok(message) = serde_json::from_str::<Value>(&text) else {
            return;
        };
        // One's own attention: `data` as `attentionLab.load` takes it (bytes included, so it
        // is read from the message itself, not from its JSON).
        if message.get("type").and_then(Value::as_str) == Some("attention-lab:load") {
            let field = |name: &str| {
                js_sys::Reflect::get(&event.data(), &name.into()).unwrap_or(JsValue::UNDEFINED)
            };
            let name = field("name").as_string();
            match load_data(lab, &field("data"), name.as_deref()) {
                // Where the host fetched it: "Open the full lab" carries it as `src=`.
                Ok(()) => lab.imported_src.set(field("url").as_string()),
                Err(error) => post(json!({"type": "attention-lab:error", "error": error})),
            }
            return;
        }
        // The course element's attributes, as a link's query.
        if message.get("type").and_then(Value::as_str) == Some("attention-lab:link") {
            let query = message.get("query").and_then(Value::as_str).unwrap_or("");
            // The element's `model-src`: the folder fetched from there (a refusal to the host).
            if let Some(src) = crate::ui::logic::link::parse_query(query).0.model_src {
                let post = post.clone();
                leptos::task::spawn_local(async move {
                    if let Err(error) = super::own_model::open_url(lab, src).await {
                        post(json!({"type": "attention-lab:error", "error": error}));
                    }
                });
            }
            // The attributes of its group that the element no longer sets (removed ones).
            let cleared: Vec<String> = message
                .get("cleared")
                .and_then(Value::as_array)
                .map(|names| {
                    names
                        .iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if let Err(error) = apply_link(lab, query, &cleared) {
                post(json!({"type": "attention-lab:error", "error": error}));
            }
            return;
        }
        if message.get("type").and_then(Value::as_str) != Some("attention-lab:set") {
            return; // Not for us (other scripts use postMessage too).
        }
        let result = match message.get("params") {
            Some(params @ Value::Object(_)) => apply_message(lab, params),
            _ => Err(ApiError::NotAnObject),
        };
        if let Err(error) = result {
            let error = error.message(lab.lang.get_untracked());
            post(json!({"type": "attention-lab:error", "error": error}));
        }
    });
    on_cleanup(move || handle.remove());
    if !framed {
        return; // Nobody to tell: no state is serialised on every change.
    }

    // The content's height, whenever it changes, so that a host (the `<attention-lab>`
    // element) can fit its frame to it.
    let last = std::cell::Cell::new(0.0);
    crate::ui::browser::observers::observe_height(
        || web_sys::window()?.document()?.body().map(Into::into),
        move |height| {
            if height > 0.0 && height != last.get() {
                last.set(height);
                post_size(json!({"type": "attention-lab:size", "height": height}));
            }
        },
    );

    // The state, once ready and after every change (not while the GPU is still computing).
    Effect::new(move |previous: Option<String>| {
        let ready = lab.outcome.with(|o| !o.pending && o.result.is_ok());
        location::current(lab);
        lab.shown.track();
        lab.imported_run.track();
        let state = state_json(lab);
        if ready && previous.as_deref() != Some(state.as_str()) {
            post_state(json!({
                "type": "attention-lab:state",
                "state": serde_json::from_str::<Value>(&state).unwrap_or(Value::Null),
            }));
            return state;
        }
        previous.unwrap_or_default()
    });
}
