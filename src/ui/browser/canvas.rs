//! Small helpers for drawing on canvases and reading the page's look.

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The 2D context of a canvas.
pub fn context(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, JsValue> {
    canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d context"))?
        .dyn_into::<CanvasRenderingContext2d>()
        .map_err(JsValue::from)
}

/// Sizes `canvas` to `width` × `height` CSS pixels at `ratio` device pixels each (resizing only
/// when the size changes: a resize reallocates and clears the canvas even to the same size), and
/// returns its context, cleared and scaled so that drawing is in CSS pixels.
pub fn size_canvas(
    canvas: &HtmlCanvasElement,
    width: f64,
    height: f64,
    ratio: f64,
) -> Result<CanvasRenderingContext2d, JsValue> {
    let (w, h) = (
        (width * ratio).round() as u32,
        (height * ratio).round() as u32,
    );
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    let style = web_sys::HtmlElement::style(canvas);
    style.set_property("width", &format!("{width}px"))?;
    style.set_property("height", &format!("{height}px"))?;
    let ctx = context(canvas)?;
    ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0)?;
    ctx.clear_rect(0.0, 0.0, width, height);
    Ok(ctx)
}

/// A CSS property of an element as computed (its text colour, a custom property…).
pub fn computed(element: &web_sys::Element, property: &str) -> Option<String> {
    web_sys::window()?
        .get_computed_style(element)
        .ok()??
        .get_property_value(property)
        .ok()
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// The element's text colour (the theme's ink) as RGB.
pub fn ink_rgb(element: &web_sys::Element) -> (u8, u8, u8) {
    let color = computed(element, "color").unwrap_or_default();
    let parts: Vec<u8> = color
        .trim_start_matches("rgba(")
        .trim_start_matches("rgb(")
        .trim_end_matches(')')
        .split(',')
        .filter_map(|p| p.trim().parse::<f32>().ok().map(|v| v as u8))
        .collect();
    match parts[..] {
        [r, g, b, ..] => (r, g, b),
        _ => (30, 35, 48),
    }
}

/// Device pixels per CSS pixel (at least 1).
pub fn pixel_ratio() -> f64 {
    web_sys::window().map_or(1.0, |w| w.device_pixel_ratio().max(1.0))
}

/// Whether the user asked the system for less motion.
pub fn prefers_reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| {
            w.match_media("(prefers-reduced-motion: reduce)")
                .ok()
                .flatten()
        })
        .is_some_and(|query| query.matches())
}

/// Keeps `system_dark` equal to the system's colour preference, from now on: "auto" themes
/// follow a switch between light and dark while the page is open.
pub fn follow_system_scheme(system_dark: leptos::prelude::RwSignal<bool>) {
    use leptos::prelude::Set;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    let Some(query) = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
    else {
        return;
    };
    system_dark.set(query.matches());
    let watched = query.clone();
    let changed = Closure::<dyn Fn()>::new(move || system_dark.set(watched.matches()));
    if query
        .add_event_listener_with_callback("change", changed.as_ref().unchecked_ref())
        .is_ok()
    {
        // The page's own lab lives as long as the page: so does its listener.
        changed.forget();
    }
}

/// The browser's preferred language, if it says.
pub fn browser_language() -> Option<String> {
    web_sys::window()?.navigator().language()
}
