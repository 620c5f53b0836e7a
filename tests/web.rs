//! The app in a real browser: mount it into a fresh element, act on the DOM as a user would,
//! check what changed. Runs under `cargo test --target wasm32-unknown-unknown` (headless Chromium).

#![cfg(target_arch = "wasm32")]

use attention_lab::ui::App;
use leptos::mount::mount_to;
use leptos::task::tick;
use leptos::view;
use serde_json::{Value, json};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{
    Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement,
    HtmlTextAreaElement, KeyboardEvent, KeyboardEventInit, PointerEvent, PointerEventInit,
};

wasm_bindgen_test_configure!(run_in_browser);

/// The app's stylesheet, so that the app is laid out in tests as it is for users.
const STYLE: &str = include_str!("../style/main.css");

/// A fresh `<section>` in the document to mount into (with the app's stylesheet on the page).
fn host() -> HtmlElement {
    let document = web_sys::window().unwrap().document().unwrap();
    if document.get_element_by_id("lab-style").is_none() {
        let style = document.create_element("style").unwrap();
        style.set_id("lab-style");
        style.set_text_content(Some(STYLE));
        document.head().unwrap().append_child(&style).unwrap();
    }
    let host = document.create_element("section").unwrap();
    document.body().unwrap().append_child(&host).unwrap();
    host.unchecked_into()
}

fn find(host: &HtmlElement, selector: &str) -> Element {
    host.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
}

fn texts(host: &HtmlElement, selector: &str) -> Vec<String> {
    let nodes = host.query_selector_all(selector).unwrap();
    (0..nodes.length())
        .map(|i| nodes.item(i).unwrap().text_content().unwrap_or_default())
        .collect()
}

fn fire(target: &Element, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    target
        .dispatch_event(&Event::new_with_event_init_dict(kind, &init).unwrap())
        .unwrap();
}

/// Types `text` into a text area as a user would: set the value, fire `input`.
fn type_into(host: &HtmlElement, selector: &str, text: &str) {
    let field: HtmlTextAreaElement = find(host, selector).unchecked_into();
    field.set_value(text);
    fire(&field, "input");
}

/// Enters a value into an `<input>` and commits it (`change`).
fn enter(host: &HtmlElement, selector: &str, value: &str) {
    let field: HtmlInputElement = find(host, selector).unchecked_into();
    field.set_value(value);
    fire(&field, "input");
    fire(&field, "change");
}

fn click(host: &HtmlElement, selector: &str) {
    find(host, selector).unchecked_into::<HtmlElement>().click();
}

fn key(target: &Element, key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    target
        .dispatch_event(
            &KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap(),
        )
        .unwrap();
}

fn pointer(target: &Element, kind: &str, x: f64, y: f64, buttons: u16) {
    let init = PointerEventInit::new();
    init.set_bubbles(true);
    init.set_client_x(x as i32);
    init.set_client_y(y as i32);
    init.set_buttons(buttons);
    target
        .dispatch_event(&PointerEvent::new_with_event_init_dict(kind, &init).unwrap())
        .unwrap();
}

/// Waits for the browser to render two frames (views draw when they come into view).
async fn frames() {
    for _ in 0..2 {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window()
                .unwrap()
                .request_animation_frame(&resolve)
                .unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
    }
    tick().await;
}

/// Waits (a frame at a time, at most a second or so) until `condition` holds.
async fn until(what: &str, condition: impl Fn() -> bool) {
    for _ in 0..60 {
        if condition() {
            return;
        }
        frames().await;
    }
    panic!("timed out waiting for {what}");
}

/// Scrolls a view into sight and waits until it has drawn (a drawn canvas has its size set).
async fn reveal(host: &HtmlElement, selector: &str) -> Element {
    let element = find(host, selector);
    element.scroll_into_view();
    let drawn = || {
        element.tag_name() != "CANVAS"
            || element
                .get_attribute("style")
                .is_some_and(|style| style.contains("width"))
    };
    until(&format!("{selector} to draw"), drawn).await;
    element
}

/// Calls `window.attentionLab[name](arg)` and reads the result as JSON.
fn api(name: &str, arg: Option<Value>) -> Value {
    let window = web_sys::window().unwrap();
    let lab = js_sys::Reflect::get(&window, &"attentionLab".into()).unwrap();
    let function: js_sys::Function = js_sys::Reflect::get(&lab, &name.into())
        .unwrap()
        .unchecked_into();
    let result = match arg {
        Some(arg) => function
            .call1(
                &JsValue::NULL,
                &js_sys::JSON::parse(&arg.to_string()).unwrap(),
            )
            .unwrap(),
        None => function.call0(&JsValue::NULL).unwrap(),
    };
    if result.is_undefined() {
        return Value::Null;
    }
    let text: String = js_sys::JSON::stringify(&result).unwrap().into();
    serde_json::from_str(&text).unwrap()
}

fn trace() -> Value {
    api("trace", None)
}

fn state() -> Value {
    api("state", None)
}

fn weights(trace: &Value, head: usize) -> Vec<Vec<f64>> {
    serde_json::from_value(trace["heads"][head]["weights"].clone()).unwrap()
}

/// The pixels of a canvas, to see whether a redraw changed it.
fn pixels(canvas: &Element) -> Vec<u8> {
    let canvas: web_sys::HtmlCanvasElement = canvas.clone().unchecked_into();
    let ctx: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    ctx.get_image_data(
        0.0,
        0.0,
        f64::from(canvas.width()),
        f64::from(canvas.height()),
    )
    .unwrap()
    .data()
    .0
}

/// Starts a heatmap's keyboard cursor with `Home`. The key goes straight to the canvas rather
/// than through `focus()`: whether a headless window has system focus (and so whether focus and
/// blur events fire) varies between runs.
/// Until the heatmap has drawn once it has no grid to move on, so the key is pressed again each
/// frame until the cursor shows.
async fn take_keyboard(canvas: &Element) {
    until("the keyboard cursor", || {
        key(canvas, "Home");
        outline_left(canvas).is_some()
    })
    .await;
}

/// The left edge of a heatmap's cursor outline, in viewport pixels, when it shows.
fn outline_left(canvas: &Element) -> Option<f64> {
    let rect = canvas.next_element_sibling()?.get_bounding_client_rect();
    (rect.width() > 0.0).then(|| rect.left())
}

/// Where the grid of a heatmap is, from the outline of its keyboard cursor at (`row`, `col`):
/// the grid's left and top edges and the cell size, in viewport pixels.
fn cell_geometry(canvas: &Element, (row, col): (usize, usize)) -> (f64, f64, f64) {
    let outline = canvas.next_element_sibling().unwrap();
    let rect = outline.get_bounding_client_rect();
    let cell = rect.width() - 2.0;
    (
        rect.left() + 1.0 - col as f64 * cell,
        rect.top() + 1.0 - row as f64 * cell,
        cell,
    )
}

#[wasm_bindgen_test]
async fn typing_a_sentence_recomputes_tokens_and_weights() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;

    let before_tokens = texts(&host, "[data-testid=tokens] .chip-text");
    assert_eq!(before_tokens.first().map(String::as_str), Some("The"));
    let before = trace();

    type_into(&host, "[data-testid=sentence]", "注意力 is all you need 🙂");
    tick().await;

    let after_tokens = texts(&host, "[data-testid=tokens] .chip-text");
    assert_eq!(
        after_tokens,
        ["注", "意", "力", "is", "all", "you", "need", "🙂"]
    );
    let after = trace();
    let w = weights(&after, 0);
    assert_eq!(w.len(), after_tokens.len());
    assert_ne!(
        w,
        weights(&before, 0),
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
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let tokens = texts(&host, "[data-testid=tokens] .chip-text");

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
        texts(&host, "[data-testid=tokens] .chip-text"),
        tokens,
        "the last valid tokens stay"
    );
}

#[wasm_bindgen_test]
async fn every_control_changes_the_computation() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;

    enter(&host, "[data-testid=d-model]", "24");
    tick().await;
    assert_eq!(trace()["d_model"], 24);
    assert_eq!(trace()["x"][0].as_array().unwrap().len(), 24);

    enter(&host, "[data-testid=n-heads]", "4");
    tick().await;
    assert_eq!(trace()["heads"].as_array().unwrap().len(), 4);
    assert_eq!(trace()["d_k"], 6, "auto d_k = d_model / heads");

    let kv: HtmlSelectElement = find(&host, "[data-testid=n-kv-heads]").unchecked_into();
    let options: Vec<String> = (0..kv.length())
        .map(|i| kv.item(i).unwrap().text_content().unwrap())
        .collect();
    assert_eq!(
        options,
        ["1", "2", "4"],
        "only divisors of the heads are offered"
    );
    kv.set_value("2");
    fire(&kv, "change");
    tick().await;
    assert_eq!(trace()["n_kv_heads"], 2);
    assert!(texts(&host, "[data-testid=kv-kind]")[0].contains("GQA"));

    // 3 heads cannot share 2 K/V heads: the control moves K/V heads to 1 and says so.
    enter(&host, "[data-testid=n-heads]", "3");
    tick().await;
    assert_eq!(
        (trace()["n_heads"].clone(), trace()["n_kv_heads"].clone()),
        (json!(3), json!(1))
    );
    assert!(texts(&host, "[data-testid=error]")[0].contains("K/V"));

    enter(&host, "[data-testid=d-k]", "5");
    tick().await;
    assert_eq!(trace()["d_k"], 5);
    assert_eq!(trace()["heads"][0]["q"][0].as_array().unwrap().len(), 5);
    click(&host, "[data-testid=d-k-auto]");
    tick().await;
    assert_eq!(trace()["d_k"], 8, "auto again: 24 / 3");
    enter(&host, "[data-testid=d-v]", "3");
    tick().await;
    assert_eq!(trace()["heads"][0]["v"][0].as_array().unwrap().len(), 3);

    enter(&host, "[data-testid=temperature]", "0.25");
    tick().await;
    assert_eq!(trace()["temperature"], 0.25);
    let slider: HtmlInputElement = find(&host, "[data-testid=temperature-slider]").unchecked_into();
    slider.set_value("1000");
    fire(&slider, "input");
    tick().await;
    assert_eq!(
        trace()["temperature"],
        10.0,
        "the slider's right end is T = 10"
    );

    click(&host, "[data-testid=mask-kind] button[data-value='1']");
    tick().await;
    assert_eq!(trace()["mask"], "causal");
    assert_eq!(
        weights(&trace(), 0)[0][1],
        0.0,
        "the first token cannot see the second"
    );

    click(&host, "[data-testid=mask-kind] button[data-value='2']");
    tick().await;
    enter(&host, "[data-testid=valid-len]", "2");
    tick().await;
    assert_eq!(state()["mask"], json!({"kind": "padding", "valid_len": 2}));
    assert!(
        weights(&trace(), 0)
            .iter()
            .all(|row| row[2..].iter().all(|&w| w == 0.0))
    );

    click(&host, "[data-testid=mask-kind] button[data-value='3']");
    tick().await;
    enter(&host, "[data-testid=window-radius]", "1");
    tick().await;
    assert_eq!(state()["mask"], json!({"kind": "window", "radius": 1}));
    assert_eq!(weights(&trace(), 0)[0][2], 0.0, "|0 − 2| > 1");

    click(&host, "[data-testid=mask-kind] button[data-value='0']");
    let before = weights(&trace(), 0);
    enter(&host, "[data-testid=seed]", "7");
    tick().await;
    assert_eq!(state()["seed"], 7);
    assert_ne!(weights(&trace(), 0), before, "new seed, new weights");
    click(&host, "[data-testid=reroll]");
    tick().await;
    assert_ne!(state()["seed"], 7, "re-roll draws another seed");

    click(&host, "[data-testid=layer-norm] button[data-value='1']");
    tick().await;
    assert_eq!(trace()["layer_norm"], "pre");

    enter(&host, "[data-testid=block-rows]", "3");
    enter(&host, "[data-testid=block-cols]", "5");
    tick().await;
    assert_eq!(trace()["flash"]["block"], json!([3, 5]));
    assert!(trace()["flash"]["max_abs_diff"].as_f64().unwrap() < 1e-5);

    let cross: HtmlInputElement = find(&host, "[data-testid=cross-toggle]").unchecked_into();
    cross.set_checked(true);
    fire(&cross, "change");
    tick().await;
    type_into(&host, "[data-testid=source-sentence]", "源 句子 很 短");
    tick().await;
    // 源 · 句 · 子 · 很 · 短: one token per Chinese character.
    assert_eq!(trace()["source_tokens"].as_array().unwrap().len(), 5);
    assert_eq!(
        weights(&trace(), 0)[0].len(),
        5,
        "keys come from the source"
    );
    assert_eq!(
        texts(&host, "[data-testid=source-tokens] .chip-text").len(),
        5
    );
}

#[wasm_bindgen_test]
async fn the_mask_editor_switches_cells_by_keyboard_click_and_drag() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    type_into(&host, "[data-testid=sentence]", "a b c d e");
    click(&host, "[data-testid=mask-kind] button[data-value='4']");
    tick().await;
    let allowed = || -> Vec<Vec<bool>> {
        serde_json::from_value(state()["mask"]["allowed"].clone()).unwrap()
    };
    assert!(
        allowed().iter().flatten().all(|&a| a),
        "custom starts from the current (empty) mask"
    );

    let editor = reveal(&host, "[data-testid=mask-editor]").await;
    take_keyboard(&editor).await;
    let start = outline_left(&editor);
    key(&editor, "ArrowRight");
    until("the cursor to move", || outline_left(&editor) > start).await;
    key(&editor, " ");
    until("Space to switch the cell", || !allowed()[0][1]).await;
    assert_eq!(weights(&trace(), 0)[0][1], 0.0);

    let (left, top, cell) = cell_geometry(&editor, (0, 1));
    let at = |row: usize, col: usize| {
        (
            left + (col as f64 + 0.5) * cell,
            top + (row as f64 + 0.5) * cell,
        )
    };
    let (x, y) = at(2, 0);
    pointer(&editor, "pointerdown", x, y, 1);
    until("a click to switch a cell off", || !allowed()[2][0]).await;
    for col in 1..4 {
        let (x, y) = at(2, col);
        pointer(&editor, "pointermove", x, y, 1);
    }
    tick().await;
    assert_eq!(
        allowed()[2],
        [false, false, false, false, true],
        "a drag paints the same value"
    );
    let (x, y) = at(2, 0);
    pointer(&editor, "pointerdown", x, y, 1);
    tick().await;
    assert!(allowed()[2][0], "clicking again switches it back on");

    // The editor follows the sentence: a longer one keeps the cells and allows the new ones.
    type_into(&host, "[data-testid=sentence]", "a b c d e f");
    tick().await;
    let grown = allowed();
    assert_eq!((grown.len(), grown[0].len()), (6, 6));
    assert!(!grown[0][1] && grown[5][5]);
}

#[wasm_bindgen_test]
async fn the_head_selector_switches_the_per_head_views() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let canvas = reveal(&host, "[data-testid=heatmap-weights]").await;
    let head_0 = pixels(&canvas);

    click(&host, "[data-testid=head-tab-1]");
    until("head 2's weights to be drawn", || pixels(&canvas) != head_0).await;
    assert_eq!(
        find(&host, "[data-testid=head-tab-1]")
            .get_attribute("aria-selected")
            .as_deref(),
        Some("true")
    );

    let small = reveal(&host, "[data-testid=all-heads-0]").await;
    small.unchecked_ref::<HtmlElement>().click();
    tick().await;
    assert_eq!(
        find(&host, "[data-testid=head-tab-0]")
            .get_attribute("aria-selected")
            .as_deref(),
        Some("true")
    );
    reveal(&host, "[data-testid=heatmap-weights]").await;
    until("head 1's weights again", || pixels(&canvas) == head_0).await;
}

#[wasm_bindgen_test]
async fn the_tooltip_explains_a_cell_with_its_numbers() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let w = weights(&trace(), 0);

    let canvas = reveal(&host, "[data-testid=heatmap-weights]").await;
    take_keyboard(&canvas).await;
    until("the tooltip", || {
        !texts(&host, "[data-testid=tooltip-value]").is_empty()
    })
    .await;
    assert_eq!(
        texts(&host, "[data-testid=tooltip-value]"),
        [format!("{:.3}", w[0][0])]
    );
    key(&canvas, "ArrowRight");
    let second = format!("{:.3}", w[0][1]);
    until("the tooltip to move", || {
        texts(&host, "[data-testid=tooltip-value]") == [second.clone()]
    })
    .await;
    let tooltip = texts(&host, "[data-testid=tooltip]").join(" ");
    assert!(tooltip.starts_with(&format!("{:.3}", w[0][1])), "{tooltip}");
    assert!(tooltip.contains("“The” → key 1 “cat”"), "{tooltip}");
    assert!(
        tooltip.contains("exp(") && tooltip.contains("max_0"),
        "{tooltip}"
    );

    // Pointing works too: hover row 2, column 3 of the scaled scores.
    let scores = reveal(&host, "[data-testid=heatmap-scaled]").await;
    take_keyboard(&scores).await;
    let (left, top, cell) = cell_geometry(&scores, (0, 0));
    pointer(
        &scores,
        "pointermove",
        left + 3.5 * cell,
        top + 2.5 * cell,
        0,
    );
    let t = trace();
    let score = t["heads"][0]["scores"][2][3].as_f64().unwrap();
    until("the score's tooltip", || {
        texts(&host, "[data-testid=tooltip-value]") == [format!("{score:.3}")]
    })
    .await;
    let tooltip = texts(&host, "[data-testid=tooltip]").join(" ");
    assert!(tooltip.starts_with(&format!("{score:.3}")), "{tooltip}");
    assert!(
        tooltip.contains("(√d_k · T)") && tooltip.contains("√8 · 1.000"),
        "{tooltip}"
    );

    key(&scores, "Escape");
    until("Escape to close the tooltip", || {
        texts(&host, "[data-testid=tooltip]").is_empty()
    })
    .await;
}

#[wasm_bindgen_test]
async fn the_js_api_refuses_bad_values_and_keeps_the_state() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let ok = api(
        "set",
        Some(json!({"n_heads": 4, "temperature": 0.5, "mask": {"kind": "causal"}})),
    );
    assert_eq!(ok, json!({"ok": true}));
    tick().await;
    let before = state();
    assert_eq!(
        (before["n_heads"].clone(), before["temperature"].clone()),
        (json!(4), json!(0.5))
    );
    for field in [
        "tokens",
        "backend",
        "fallback_reason",
        "compute_ms",
        "max_flash_diff",
    ] {
        assert!(before.get(field).is_some(), "state() has {field}");
    }

    for bad in [
        json!({"n_heads": 3, "n_kv_heads": 2}),
        json!({"temperature": 0}),
        json!({"d_model": "wide"}),
        json!({"mask": {"kind": "padding", "valid_len": 999}}),
        json!({"colour": "red"}),
    ] {
        let refused = api("set", Some(bad.clone()));
        assert_eq!(refused["ok"], false, "{bad}");
        tick().await;
        let shown = texts(&host, "[data-testid=error]").join(" ");
        assert!(!shown.is_empty(), "a visible message for {bad}");
        let mut after = state();
        let mut expected = before.clone();
        for v in [&mut after, &mut expected] {
            v["compute_ms"] = json!(null);
            v["update_ms"] = json!(null);
        }
        assert_eq!(after, expected, "{bad} left the state as it was");
    }
}

/// Waits until the lab's state satisfies `condition`.
async fn until_state(what: &str, condition: impl Fn(&Value) -> bool) -> Value {
    until(what, || condition(&state())).await;
    state()
}

#[wasm_bindgen_test]
async fn the_gpu_computes_when_chosen_and_the_cpu_takes_over_when_it_is_lost() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    // This browser runs with --enable-unsafe-webgpu: SwiftShader, a software adapter.
    let ready = until_state("the GPU probe", |s| s["gpu"] != "probing").await;
    assert_eq!(ready["gpu"], "ready", "{ready}");
    assert_eq!(
        ready["backend"], "cpu",
        "auto does not use a software adapter"
    );
    assert_eq!(ready["fallback_reason"], "software-adapter");
    let cpu = trace();

    click(&host, "[data-testid=backend] button[data-value='1']");
    let on_gpu = until_state("the GPU's result", |s| {
        s["backend"] == "gpu" && s["pending"] == false
    })
    .await;
    assert!(
        !on_gpu["adapter"].as_str().unwrap_or_default().is_empty(),
        "{on_gpu}"
    );
    let badge = texts(&host, "[data-testid=backend-badge]").join("");
    assert!(badge.starts_with("GPU · "), "{badge}");
    let gpu = trace();
    for (g, c) in weights(&gpu, 1)
        .iter()
        .flatten()
        .zip(weights(&cpu, 1).iter().flatten())
    {
        assert!((g - c).abs() < 1e-4, "GPU weight {g} vs CPU {c}");
    }

    // A parameter change goes to the GPU too.
    enter(&host, "[data-testid=temperature]", "0.5");
    until_state("the GPU's new result", |s| {
        s["temperature"] == 0.5 && s["backend"] == "gpu" && s["pending"] == false
    })
    .await;

    // The device is lost: the CPU takes over with everything the user set, and says why.
    api("simulateGpuLoss", None);
    enter(&host, "[data-testid=temperature]", "0.7");
    let fallen = until_state("the CPU to take over", |s| {
        s["backend"] == "cpu" && s["gpu"] == "lost"
    })
    .await;
    assert_eq!(fallen["fallback_reason"], "device-lost");
    assert_eq!(fallen["temperature"], 0.7);
    assert_eq!(fallen["sentence"], ready["sentence"]);
    assert_eq!(
        trace()["temperature"],
        0.7,
        "the CPU computed the latest parameters"
    );
    assert!(
        !texts(&host, "[data-testid=fallback-reason]")
            .join("")
            .is_empty(),
        "the page says why"
    );

    click(&host, "[data-testid=gpu-retry]");
    let back = until_state("the GPU to come back", |s| {
        s["backend"] == "gpu" && s["pending"] == false
    })
    .await;
    assert_eq!(back["temperature"], 0.7);
}

/// A number as the page prints it (`heatmap::format_value`); null in the trace's JSON is −∞.
fn printed(value: &Value) -> String {
    match value.as_f64() {
        None => "−∞".into(),
        Some(0.0) => "0".into(),
        Some(v) if v.abs() >= 1000.0 || v.abs() < 0.001 => format!("{:.2e}", v as f32),
        Some(v) => format!("{:.3}", v as f32),
    }
}

fn flash_cells(host: &HtmlElement, row: usize, column: &str) -> String {
    texts(
        host,
        &format!("[data-testid=flash-row-{row}] [data-testid=flash-{column}]"),
    )
    .join("")
}

/// Mounts the lab on a small case and brings the FlashAttention view into sight.
async fn flash_lab(host: &HtmlElement, params: Value) -> Value {
    assert_eq!(api("set", Some(params)), json!({"ok": true}));
    tick().await;
    reveal(host, "[data-testid=flash-grid]").await;
    trace()
}

#[wasm_bindgen_test]
async fn flash_steps_show_the_traces_numbers() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let t = flash_lab(&host, json!({"sentence": "a b c d e", "n_heads": 1, "d_model": 4, "block": {"rows": 2, "cols": 2}})).await;
    let steps = t["flash"]["heads"][0]["steps"].as_array().unwrap().clone();
    assert_eq!(steps.len(), 9, "3 query blocks × 3 key blocks");
    click(&host, "[data-testid=flash-acc-table-toggle]");
    let acc_table = || texts(&host, "[data-testid=flash-acc-table] tbody td");
    let frame = |host: &HtmlElement| texts(host, "[data-testid=flash-frame]").join("");
    assert_eq!(frame(&host), "step 1 of 51");

    // Walk the first query block: start, three tiles of five phases, normalise.
    for index in 0..17 {
        if index > 0 {
            click(&host, "[data-testid=flash-forward]");
        }
        until("the frame to change", || {
            frame(&host) == format!("step {} of 51", index + 1)
        })
        .await;
        let (tile, phase) = if index == 0 {
            (0, "start")
        } else if index == 16 {
            (2, "normalize")
        } else {
            (
                (index - 1) / 5,
                ["scores", "max", "exp", "sum", "acc"][(index - 1) % 5],
            )
        };
        let step = &steps[tile];
        let line = match phase {
            "start" => 3,
            "scores" => 6,
            "max" => 7,
            "exp" => 8,
            "sum" => 9,
            "acc" => 10,
            _ => 11,
        };
        let active = host
            .query_selector("[data-testid=pseudocode] li.active")
            .unwrap()
            .unwrap();
        assert_eq!(
            active.get_attribute("data-testid").unwrap(),
            format!("pseudocode-line-{line}"),
            "frame {index}"
        );
        for r in 0..2 {
            let (m, rescale, l) = match phase {
                "start" => ("−∞".to_string(), String::new(), "0".to_string()),
                "scores" => (
                    printed(&step["m_prev"][r]),
                    String::new(),
                    printed(&step["l_prev"][r]),
                ),
                "max" | "exp" => (
                    format!(
                        "{} → {}",
                        printed(&step["m_prev"][r]),
                        printed(&step["m"][r])
                    ),
                    String::new(),
                    printed(&step["l_prev"][r]),
                ),
                "sum" | "acc" => (
                    format!(
                        "{} → {}",
                        printed(&step["m_prev"][r]),
                        printed(&step["m"][r])
                    ),
                    printed(&step["rescale"][r]),
                    format!(
                        "{} → {}",
                        printed(&step["l_prev"][r]),
                        printed(&step["l"][r])
                    ),
                ),
                _ => (
                    printed(&step["m"][r]),
                    String::new(),
                    printed(&step["l"][r]),
                ),
            };
            assert_eq!(flash_cells(&host, r, "m"), m, "frame {index}, row {r}: m");
            assert_eq!(
                flash_cells(&host, r, "rescale"),
                rescale,
                "frame {index}, row {r}: rescale"
            );
            assert_eq!(flash_cells(&host, r, "l"), l, "frame {index}, row {r}: l");
        }
        // The accumulator: after a tile its new rows; at the end the rows divided by l.
        let expected: Option<Vec<String>> = match phase {
            "acc" => Some(
                step["acc"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|row| row.as_array().unwrap().iter().map(printed))
                    .collect(),
            ),
            "normalize" => Some(
                t["flash"]["heads"][0]["output"].as_array().unwrap()[0..2]
                    .iter()
                    .flat_map(|row| row.as_array().unwrap().iter().map(printed))
                    .collect(),
            ),
            _ => None,
        };
        if let Some(expected) = expected {
            until("the accumulator table", || acc_table() == expected).await;
        }
    }
}

#[wasm_bindgen_test]
async fn stepping_back_then_forward_returns_the_same_view() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    flash_lab(&host, json!({"sentence": "the cat sat on the warm mat", "n_heads": 1, "mask": {"kind": "causal"}, "block": {"rows": 3, "cols": 2}})).await;
    for _ in 0..13 {
        click(&host, "[data-testid=flash-forward]");
    }
    tick().await;
    let grid = find(&host, "[data-testid=flash-grid]");
    let view = || {
        (
            texts(&host, "[data-testid=flash-frame]"),
            texts(&host, "[data-testid=flash-phase]"),
            texts(&host, "[data-testid=flash-table]"),
            texts(&host, "[data-testid=pseudocode] li.active"),
            texts(&host, "[data-testid=flash-traffic]"),
        )
    };
    until("the grid to draw", || pixels(&grid).iter().any(|&b| b != 0)).await;
    frames().await;
    let (before, before_pixels) = (view(), pixels(&grid));
    click(&host, "[data-testid=flash-back]");
    until("a step back", || view() != before).await;
    assert_ne!(view().0, before.0);
    click(&host, "[data-testid=flash-forward]");
    until("the step forward", || view() == before).await;
    until("the same picture", || pixels(&grid) == before_pixels).await;
}

#[wasm_bindgen_test]
async fn causal_masking_skips_exactly_the_tiles_above_the_diagonal() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    for (n, rows, cols) in [(7usize, 2usize, 2usize), (7, 3, 2), (10, 4, 3)] {
        let sentence = vec!["w"; n].join(" ");
        flash_lab(&host, json!({"sentence": sentence, "n_heads": 1, "mask": {"kind": "causal"}, "block": {"rows": rows, "cols": cols}})).await;
        // A tile is strictly above the diagonal when its first key comes after its last query.
        let mut above = 0;
        let mut total = 0;
        for r0 in (0..n).step_by(rows) {
            let last_query = (r0 + rows).min(n) - 1;
            for c0 in (0..n).step_by(cols) {
                total += 1;
                above += usize::from(c0 > last_query);
            }
        }
        click(&host, "[data-testid=flash-end]");
        let expected = above.to_string();
        until("the count at the end", || {
            texts(&host, "[data-testid=flash-skipped]") == [expected.clone()]
        })
        .await;
        let tiles = texts(&host, "[data-testid=flash-tiles]").join("");
        assert!(tiles.starts_with(&format!("{total} / {total}")), "{tiles}");
        click(&host, "[data-testid=flash-start]");
        tick().await;
    }
}

#[wasm_bindgen_test]
async fn the_flash_player_answers_the_keyboard() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    flash_lab(
        &host,
        json!({"sentence": "a b c d", "n_heads": 1, "block": {"rows": 2, "cols": 2}}),
    )
    .await;
    let view = find(&host, "[data-testid=flash-view]");
    let frame = || texts(&host, "[data-testid=flash-frame]").join("");
    key(&view, "ArrowRight");
    key(&view, "ArrowRight");
    until("two steps", || frame().starts_with("step 3 of")).await;
    key(&view, "ArrowLeft");
    until("one back", || frame().starts_with("step 2 of")).await;
    key(&view, "End");
    until("the end", || {
        let f = frame();
        let parts: Vec<&str> = f.split(' ').collect();
        parts.len() == 4 && parts[1] == parts[3]
    })
    .await;
    key(&view, "Home");
    until("the start", || frame().starts_with("step 1 of")).await;
    key(&view, " ");
    until("playing on its own", || !frame().starts_with("step 1 of")).await;
    key(&view, " ");
    let paused = frame();
    frames().await;
    frames().await;
    assert_eq!(frame(), paused, "paused");
    // A parameter change keeps the position (same block and phase).
    assert_eq!(
        api("set", Some(json!({"temperature": 0.5}))),
        json!({"ok": true})
    );
    tick().await;
    assert_eq!(frame(), paused);
}

/// Sets the test page's address (so that a page-mode lab reads it), returning the old one.
fn set_address(query: &str) -> String {
    let window = web_sys::window().unwrap();
    let old = window.location().href().unwrap();
    let path = window.location().pathname().unwrap();
    window
        .history()
        .unwrap()
        .replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{query}")))
        .unwrap();
    old
}

fn restore_address(old: &str) {
    web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .replace_state_with_url(&JsValue::NULL, "", Some(old))
        .unwrap();
}

#[wasm_bindgen_test]
async fn a_link_restores_the_state_and_the_address_follows_the_user() {
    use attention_lab::ui::link::{parse_query, to_query};
    let old = set_address(
        "?sentence=%E7%8C%AB%20sat%20down&n_heads=4&n_kv_heads=2&temperature=0.25&mask=padding&valid_len=2&seed=9&head=3&lang=zh&theme=dark&step=5",
    );
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App page=true /> });
    tick().await;
    let s = state();
    assert_eq!(s["sentence"], "猫 sat down");
    assert_eq!(
        (
            s["n_heads"].clone(),
            s["n_kv_heads"].clone(),
            s["temperature"].clone()
        ),
        (json!(4), json!(2), json!(0.25))
    );
    assert_eq!(s["mask"], json!({"kind": "padding", "valid_len": 2}));
    assert_eq!(
        (
            s["head"].clone(),
            s["lang"].clone(),
            s["theme"].clone(),
            s["seed"].clone()
        ),
        (json!(3), json!("zh"), json!("dark"), json!(9))
    );
    assert_eq!(
        texts(&host, "[data-testid=tokens] .chip-text"),
        ["猫", "sat", "down"]
    );
    assert!(
        texts(&host, "[data-testid=link-notices]").is_empty(),
        "a clean link has no notices"
    );

    // The user works; the address follows (without new history entries).
    let history_length = web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .length()
        .unwrap();
    enter(&host, "[data-testid=temperature]", "0.75");
    click(&host, "[data-testid=mask-kind] button[data-value='1']");
    let search = || web_sys::window().unwrap().location().search().unwrap();
    until("the address to follow", || {
        search().contains("temperature=0.75") && search().contains("mask=causal")
    })
    .await;
    let (link, notices) = parse_query(&search());
    assert!(notices.is_empty());
    assert_eq!(link.request.temperature, Some(0.75));
    assert_eq!(link.view.head, 3);
    assert_eq!(
        web_sys::window()
            .unwrap()
            .history()
            .unwrap()
            .length()
            .unwrap(),
        history_length,
        "no history entries added"
    );
    // What the address holds is the state itself: writing it again gives the same link.
    assert_eq!(to_query(&link), search().trim_start_matches('?'));
    restore_address(&old);
}

#[wasm_bindgen_test]
async fn bad_and_hostile_links_show_a_notice_and_the_defaults() {
    for (query, expected_notices) in [
        (
            "?sentence=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&d_model=wide&colour=red",
            2,
        ),
        ("?n_heads=3&n_kv_heads=2", 1),
        (&*format!("?sentence={}", "a%20".repeat(9_000)), 1),
        ("?mask=custom&cells=1x1", 2),
    ] {
        let old = set_address(query);
        let host = host();
        let app = mount_to(host.clone(), || view! { <App page=true /> });
        tick().await;
        let notices = host
            .query_selector_all("[data-testid=link-notices] li")
            .unwrap()
            .length();
        assert_eq!(
            notices as usize,
            expected_notices,
            "{}",
            &query[..query.len().min(80)]
        );
        assert!(
            host.query_selector("img").unwrap().is_none(),
            "markup stays text"
        );
        let s = state();
        assert_eq!(s["d_model"], Value::Null, "the default shape");
        if query.contains("n_heads=3") {
            assert_eq!(
                s["n_heads"],
                Value::Null,
                "impossible together: the defaults"
            );
            assert_eq!(
                texts(&host, "[data-testid=tokens] .chip-text")
                    .first()
                    .map(String::as_str),
                Some("The")
            );
        }
        if query.contains("img") {
            // The hostile text is a sentence like any other: tokens shown as text.
            assert!(texts(&host, "[data-testid=tokens] .chip-text").contains(&"img".to_string()));
        }
        click(&host, "[data-testid=link-notices-dismiss]");
        tick().await;
        assert!(
            host.query_selector("[data-testid=link-notices]")
                .unwrap()
                .is_none(),
            "dismissed"
        );
        drop(app);
        restore_address(&old);
    }
}

#[wasm_bindgen_test]
async fn a_host_message_changes_the_state() {
    let old = set_address("?embed=1&panels=weights");
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App page=true /> });
    tick().await;
    assert!(
        host.query_selector("[data-testid=embed]")
            .unwrap()
            .is_some(),
        "the compact layout"
    );
    assert!(
        host.query_selector("[data-testid=controls]")
            .unwrap()
            .is_none(),
        "no page chrome"
    );
    let post = |message: Value| {
        let window = web_sys::window().unwrap();
        window
            .post_message(&js_sys::JSON::parse(&message.to_string()).unwrap(), "*")
            .unwrap();
    };
    post(
        json!({"type": "attention-lab:set", "params": {"temperature": 0.3, "sentence": "hello host page", "head": 1}}),
    );
    let s = until_state("the message", |s| s["temperature"] == 0.3).await;
    assert_eq!(s["sentence"], "hello host page");
    assert_eq!(s["head"], 1);
    // Invalid or foreign messages change nothing.
    post(json!({"type": "attention-lab:set", "params": {"n_heads": 3, "n_kv_heads": 2}}));
    post(json!({"type": "something-else", "params": {"temperature": 5}}));
    post(json!("not even an object"));
    frames().await;
    frames().await;
    let after = state();
    assert_eq!(
        (after["temperature"].clone(), after["n_heads"].clone()),
        (json!(0.3), Value::Null)
    );
    restore_address(&old);
}
