//! Embedding: the compact layout of `?embed=1`, and the `postMessage` protocol with the host page.
//!
//! Protocol (documented in the README):
//! - the host sends `{type: "attention-lab:set", params: {...}}`, with the trace CLI's parameter
//!   names plus the view settings `head`, `lang`, `theme`, `step`, `view`, `panels`;
//! - the lab posts `{type: "attention-lab:state", state}` (what `attentionLab.state()` returns) to
//!   its parent when ready and whenever the state changes, and
//!   `{type: "attention-lab:error", error}` when a message is refused.
//!
//! With an `origin` parameter in the lab's URL, only that origin's messages are obeyed, and the
//! state is posted to that origin alone.

use leptos::prelude::*;
use serde_json::{Value, json};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use super::app::LiveRegion;
use super::controls::{Controls, InputPanel};
use super::flash_view::FlashView;
use super::head_view::HeadView;
use super::js_api::{apply_message, state_json};
use super::link::LinkState;
use super::location;
use super::pipeline::{AllHeads, StageCard};
use super::stages::Stage;
use super::state::Lab;
use super::tooltip::Tooltip;

/// What an embed shows when its link names no panels.
pub const DEFAULT_PANELS: [&str; 2] = ["weights", "head-view"];

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
    let listener =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
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
            if message.get("type").and_then(Value::as_str) != Some("attention-lab:set") {
                return; // Not for us (other scripts use postMessage too).
            }
            let result = match message.get("params") {
                Some(params @ Value::Object(_)) => apply_message(lab, params),
                _ => Err("params: expected an object of parameters".into()),
            };
            if let Err(error) = result {
                post(json!({"type": "attention-lab:error", "error": error}));
            }
        });
    if let Err(error) =
        window.add_event_listener_with_callback("message", listener.as_ref().unchecked_ref())
    {
        web_sys::console::warn_2(&"attention-lab: cannot listen to the host".into(), &error);
    }
    listener.forget(); // Lives as long as the page.

    // The state, once ready and after every change (not while the GPU is still computing).
    Effect::new(move |previous: Option<String>| {
        let ready = lab.outcome.with(|o| !o.pending && o.result.is_ok());
        location::current(lab);
        lab.shown.track();
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

/// One panel of an embed, by name.
fn panel(name: &str) -> AnyView {
    let stage = Stage::ALL.into_iter().find(|s| s.id() == name);
    match (name, stage) {
        (_, Some(stage)) => {
            view! { <div class="step"><div class="stage-row"><StageCard stage=stage /></div></div> }
                .into_any()
        }
        ("head-view", _) => view! { <div class="step"><HeadView /></div> }.into_any(),
        ("all-heads", _) => view! { <AllHeads /> }.into_any(),
        ("flash", _) => view! { <FlashView /> }.into_any(),
        ("sentence", _) => view! { <InputPanel /> }.into_any(),
        ("controls", _) => view! { <Controls /> }.into_any(),
        _ => ().into_any(),
    }
}

/// The compact lab: the chosen panels, no page chrome, and a link to the full lab.
#[component]
pub fn EmbedLayout() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let panels = Memo::new(move |_| {
        let chosen = lab.embed.get().map(|e| e.panels).unwrap_or_default();
        if chosen.is_empty() {
            DEFAULT_PANELS
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
        } else {
            chosen
        }
    });
    let full = move || {
        location::href(&LinkState {
            embed: None,
            ..location::current(lab)
        })
    };
    view! {
        <div class="lab embed" lang=move || lab.lang.get().code() data-testid="embed">
            <div class="embed-bar">
                <span class="embed-title">{move || text().title}</span>
                <span class="help">{move || lab.shown.with(|t| t.as_ref().map(|t| t.0.config.tokens().join(" ")))}</span>
                <a href=full target="_blank" rel="noopener" data-testid="open-full">{move || text().open_full}</a>
            </div>
            {move || panels.get().iter().map(|p| panel(p)).collect_view()}
            <Tooltip />
            <LiveRegion />
        </div>
    }
}
