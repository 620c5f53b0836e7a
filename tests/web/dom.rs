//! Acting on the page as a user would, and reading what it shows: shared by every browser test.

#![allow(dead_code)]

use leptos::task::tick;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{
    Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlTextAreaElement, KeyboardEvent,
    KeyboardEventInit, PointerEvent, PointerEventInit,
};

/// The app's stylesheet, so that the app is laid out in tests as it is for users.
pub const STYLE: &str = include_str!("../../style/main.css");

/// A fresh `<section>` in the document to mount into (with the app's stylesheet on the page).
pub fn host() -> HtmlElement {
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

pub fn find(host: &HtmlElement, selector: &str) -> Element {
    host.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
}

/// The text of the first element matching `selector`.
pub fn text_of(host: &HtmlElement, selector: &str) -> String {
    find(host, selector).text_content().unwrap_or_default()
}

pub fn texts(host: &HtmlElement, selector: &str) -> Vec<String> {
    let nodes = host.query_selector_all(selector).unwrap();
    (0..nodes.length())
        .map(|i| nodes.item(i).unwrap().text_content().unwrap_or_default())
        .collect()
}

pub fn fire(target: &Element, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    target
        .dispatch_event(&Event::new_with_event_init_dict(kind, &init).unwrap())
        .unwrap();
}

/// Types `text` into a text area as a user would: set the value, fire `input`.
pub fn type_into(host: &HtmlElement, selector: &str, text: &str) {
    let field: HtmlTextAreaElement = find(host, selector).unchecked_into();
    field.set_value(text);
    fire(&field, "input");
}

/// Enters a value into an `<input>` and commits it (`change`).
pub fn enter(host: &HtmlElement, selector: &str, value: &str) {
    let field: HtmlInputElement = find(host, selector).unchecked_into();
    field.set_value(value);
    fire(&field, "input");
    fire(&field, "change");
}

pub fn click(host: &HtmlElement, selector: &str) {
    find(host, selector).unchecked_into::<HtmlElement>().click();
}

pub fn key(target: &Element, key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    target
        .dispatch_event(
            &KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap(),
        )
        .unwrap();
}

pub fn pointer(target: &Element, kind: &str, x: f64, y: f64, buttons: u16) {
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
pub async fn frames() {
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

/// Waits (a frame at a time, at most about five seconds) until `condition` holds.
pub async fn until(what: &str, condition: impl Fn() -> bool) {
    for _ in 0..300 {
        if condition() {
            return;
        }
        frames().await;
    }
    panic!("timed out waiting for {what}");
}

/// Scrolls a view into sight and waits until it has drawn (a drawn canvas has its size set).
pub async fn reveal(host: &HtmlElement, selector: &str) -> Element {
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
pub fn api(name: &str, arg: Option<Value>) -> Value {
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

/// Calls `window.attentionLab[name](arg)`, which answers a promise (`generate`, `composition`),
/// and reads what it resolves to as JSON.
pub async fn api_awaited(name: &str, arg: Option<Value>) -> Value {
    let window = web_sys::window().unwrap();
    let lab = js_sys::Reflect::get(&window, &"attentionLab".into()).unwrap();
    let function: js_sys::Function = js_sys::Reflect::get(&lab, &name.into())
        .unwrap()
        .unchecked_into();
    let promise = match arg {
        Some(arg) => function.call1(
            &JsValue::NULL,
            &js_sys::JSON::parse(&arg.to_string()).unwrap(),
        ),
        None => function.call0(&JsValue::NULL),
    }
    .unwrap();
    let promise: js_sys::Promise = promise.dyn_into().expect("a promise");
    let result = wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
    let text: String = js_sys::JSON::stringify(&result).unwrap().into();
    serde_json::from_str(&text).unwrap()
}

pub fn trace() -> Value {
    api("trace", None)
}

pub fn state() -> Value {
    api("state", None)
}

pub fn weights(trace: &Value, head: usize) -> Vec<Vec<f64>> {
    serde_json::from_value(trace["heads"][head]["weights"].clone()).unwrap()
}

/// The pixels of a canvas, to see whether a redraw changed it.
pub fn pixels(canvas: &Element) -> Vec<u8> {
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
pub async fn take_keyboard(canvas: &Element) {
    until("the keyboard cursor", || {
        key(canvas, "Home");
        outline_left(canvas).is_some()
    })
    .await;
}

/// The left edge of a heatmap's cursor outline, in viewport pixels, when it shows.
pub fn outline_left(canvas: &Element) -> Option<f64> {
    let rect = canvas.next_element_sibling()?.get_bounding_client_rect();
    (rect.width() > 0.0).then(|| rect.left())
}

/// Where the grid of a heatmap is, from the outline of its keyboard cursor at (`row`, `col`):
/// the grid's left and top edges and the cell size, in viewport pixels.
pub fn cell_geometry(canvas: &Element, (row, col): (usize, usize)) -> (f64, f64, f64) {
    let outline = canvas.next_element_sibling().unwrap();
    let rect = outline.get_bounding_client_rect();
    let cell = rect.width() - 2.0;
    (
        rect.left() + 1.0 - col as f64 * cell,
        rect.top() + 1.0 - row as f64 * cell,
        cell,
    )
}

/// Waits until the lab's state satisfies `condition`.
pub async fn until_state(what: &str, condition: impl Fn(&Value) -> bool) -> Value {
    until(what, || condition(&state())).await;
    state()
}

/// Opens the control panel where it is a sheet (narrow windows, such as the test browser's), so
/// that controls drawn only on screen (the mask editor) draw.
pub async fn open_controls(host: &HtmlElement) {
    if host.query_selector(".lab.controls-open").unwrap().is_none() {
        click(host, "[data-testid=controls-open]");
        tick().await;
    }
}
