//! The app in a real browser: mount it into a fresh element, act on the DOM, check what changed.
//! Runs under `cargo test --target wasm32-unknown-unknown` (headless Chromium).

#![cfg(target_arch = "wasm32")]

use attention_lab::ui::App;
use leptos::mount::mount_to;
use leptos::task::tick;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Event, EventInit, HtmlElement, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh `<section>` in the document to mount into.
fn host() -> HtmlElement {
    let document = web_sys::window().unwrap().document().unwrap();
    let host = document.create_element("section").unwrap();
    document.body().unwrap().append_child(&host).unwrap();
    host.unchecked_into()
}

fn texts(host: &HtmlElement, selector: &str) -> Vec<String> {
    let nodes = host.query_selector_all(selector).unwrap();
    (0..nodes.length())
        .map(|i| nodes.item(i).unwrap().text_content().unwrap_or_default())
        .collect()
}

/// Types `text` into the element as a user would: set the value, fire `input`.
fn type_into(host: &HtmlElement, selector: &str, text: &str) {
    let field: HtmlTextAreaElement = host
        .query_selector(selector)
        .unwrap()
        .unwrap()
        .unchecked_into();
    field.set_value(text);
    let init = EventInit::new();
    init.set_bubbles(true);
    field
        .dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
}

/// `window.attentionLab.trace()`, read through JSON so the test checks the public shape.
fn trace() -> serde_json::Value {
    let window = web_sys::window().unwrap();
    let api = js_sys::Reflect::get(&window, &"attentionLab".into()).unwrap();
    let trace_fn: js_sys::Function = js_sys::Reflect::get(&api, &"trace".into())
        .unwrap()
        .unchecked_into();
    let value = trace_fn.call0(&JsValue::NULL).unwrap();
    let text: String = js_sys::JSON::stringify(&value).unwrap().into();
    serde_json::from_str(&text).unwrap()
}

fn weights(trace: &serde_json::Value) -> Vec<Vec<f64>> {
    serde_json::from_value(trace["heads"][0]["weights"].clone()).unwrap()
}

#[wasm_bindgen_test]
async fn typing_a_sentence_recomputes_tokens_and_weights() {
    let host = host();
    let _app = mount_to(host.clone(), App);
    tick().await;

    let before_tokens = texts(&host, "[data-testid=token-chip] .chip-text");
    assert_eq!(before_tokens.first().map(String::as_str), Some("The"));
    let before = trace();

    type_into(&host, "[data-testid=sentence]", "注意力 is all you need 🙂");
    tick().await;

    let after_tokens = texts(&host, "[data-testid=token-chip] .chip-text");
    assert_eq!(
        after_tokens,
        ["注", "意", "力", "is", "all", "you", "need", "🙂"]
    );
    let after = trace();
    let w = weights(&after);
    assert_eq!(w.len(), after_tokens.len());
    assert_ne!(
        w,
        weights(&before),
        "the weights must change with the sentence"
    );
    for (i, row) in w.iter().enumerate() {
        let sum: f64 = row.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "row {i} sums to {sum}");
    }
}

#[wasm_bindgen_test]
async fn an_empty_sentence_shows_a_message_and_keeps_the_last_result() {
    let host = host();
    let _app = mount_to(host.clone(), App);
    tick().await;
    let tokens = texts(&host, "[data-testid=token-chip] .chip-text");

    type_into(&host, "[data-testid=sentence]", "   ");
    tick().await;

    let errors = texts(&host, "[data-testid=error]");
    assert_eq!(errors.len(), 1, "one message");
    assert!(
        errors[0].contains("sentence") || errors[0].contains("句子"),
        "{}",
        errors[0]
    );
    assert_eq!(
        texts(&host, "[data-testid=token-chip] .chip-text"),
        tokens,
        "the last valid tokens stay"
    );
}
