//! The page's address: the link it was opened with (or the one a page without an address gave
//! it), the address of a state, and rewriting it with `history.replaceState` (so that no history
//! entries pile up).

use crate::ui::logic::link::{LinkNotice, LinkState, parse_query, to_query};

/// The link a page gave as `window.attentionLabLink`, if it gave one (then the address is not
/// the lab's to keep).
pub fn given_link() -> Option<String> {
    let window = web_sys::window()?;
    js_sys::Reflect::get(&window, &"attentionLabLink".into())
        .ok()?
        .as_string()
}

/// A page that has no address of its own to read (one file saved from a notebook, a frame's
/// `srcdoc`) gives its link as `window.attentionLabLink` (`"?embed=1&panels=weights"`) before the
/// lab starts; it is read instead of the address.
/// The state in the page's address, and what in it could not be used.
pub fn read() -> (LinkState, Vec<LinkNotice>) {
    let window = web_sys::window();
    let given = given_link();
    let search = given.unwrap_or_else(|| {
        window
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default()
    });
    parse_query(&search)
}

/// The address of the page for `state`.
pub fn href(state: &LinkState) -> String {
    let location = web_sys::window().map(|w| w.location());
    let origin = location
        .as_ref()
        .and_then(|l| l.origin().ok())
        .unwrap_or_default();
    let path = location
        .as_ref()
        .and_then(|l| l.pathname().ok())
        .unwrap_or_else(|| "/".into());
    let query = to_query(state);
    if query.is_empty() {
        format!("{origin}{path}")
    } else {
        format!("{origin}{path}?{query}")
    }
}

/// Makes `query` (without `?`) the page's address, keeping its path, without a new history entry.
pub fn replace(query: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(history) = window.history() else {
        return;
    };
    let path = window.location().pathname().unwrap_or_else(|_| "/".into());
    let url = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    if let Err(error) = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    {
        web_sys::console::warn_2(
            &"attention-lab: could not update the address".into(),
            &error,
        );
    }
}
