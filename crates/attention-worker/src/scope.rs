//! What the worker's two message loops share: its clock and posting to the page.

use js_sys::Array;
use wasm_bindgen::JsCast;
use web_sys::DedicatedWorkerGlobalScope;

/// The worker's clock, in milliseconds (`performance.now()`, else the date's).
pub fn now() -> f64 {
    let scope = js_sys::global();
    js_sys::Reflect::get(&scope, &"performance".into())
        .ok()
        .and_then(|p| {
            let now = js_sys::Reflect::get(&p, &"now".into()).ok()?;
            now.dyn_into::<js_sys::Function>().ok()?.call0(&p).ok()
        })
        .and_then(|t| t.as_f64())
        .unwrap_or_else(js_sys::Date::now)
}

/// Posts `message` to the page, transferring `transfer`'s buffers.
pub fn post(scope: &DedicatedWorkerGlobalScope, message: &Array, transfer: Option<&Array>) {
    // A failed post (the page has gone) leaves nothing to tell.
    let _ = match transfer {
        Some(transfer) => scope.post_message_with_transfer(message, transfer),
        None => scope.post_message(message),
    };
}
