//! The address bar: the state is read from the link when the page opens and written back as the
//! user works, with `history.replaceState` (so no history entries pile up), at most a few times a
//! second (browsers throttle pages that rewrite the address too often).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::i18n::Lang;
use crate::ui::model::link::{
    LinkNotice, LinkState, ViewSettings, parse_query, to_query, usable_request,
};
use crate::ui::state::Lab;
use attention_core::api::Request;

/// Wait this long after the last change before rewriting the address.
const WRITE_DELAY_MS: u64 = 300;
/// While a computation runs, wait this long instead (it is written as soon as the result is
/// shown): rewriting the address of a long input costs the page and the browser's own process
/// tens of milliseconds (4096 words: 30 ms on the page's thread and 70 ms in the browser's, on a
/// 2-core machine taken from the workers computing the edit).
const WRITE_DELAY_BUSY_MS: u64 = 3000;

/// The state in the page's address, and what in it could not be used.
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

/// The request a link asks for on top of the lab's defaults, keeping every value that can work
/// and naming the ones left out.
pub fn request_from(link: &Request, lang: Lang) -> (Request, Vec<LinkNotice>) {
    usable_request(&Lab::default_request_in(lang), link)
}

/// Applies a link's view settings to the lab.
pub fn apply_view(lab: Lab, view: &ViewSettings) {
    lab.head.set(view.head);
    lab.theme.set(view.theme);
    lab.flash_step.set(view.step);
    lab.scale_mode.set(view.scale);
    lab.layer.set(view.layer);
    lab.view.set(view.view.clone());
    lab.lesson.set(view.lesson);
    lab.generation.set(view.generation);
    if let Some(lang) = view.lang {
        lab.lang.set(lang);
    }
}

/// The lab's current state as a link's query.
pub fn current(lab: Lab) -> LinkState {
    LinkState {
        request: lab.request.get(),
        view: ViewSettings {
            head: lab.head.get(),
            lang: Some(lab.lang.get()),
            theme: lab.theme.get(),
            step: lab.flash_step.get(),
            scale: lab.scale_mode.get(),
            layer: lab.layer.get(),
            view: lab.view.get(),
            lesson: lab.lesson.get(),
            generation: lab.generation.get(),
        },
        embed: lab.embed.get(),
        src: lab.imported_src.get(),
    }
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

/// Keeps the address bar equal to the state, a moment after each change (or, while a computation
/// runs, once its result is shown).
pub fn keep_in_sync(lab: Lab) {
    let pending = StoredValue::new_local(None::<TimeoutHandle>);
    let computing = Memo::new(move |_| lab.outcome.with(|o| o.pending));
    Effect::new(move |_| {
        let state = current(lab);
        let delay = if computing.get() {
            WRITE_DELAY_BUSY_MS
        } else {
            WRITE_DELAY_MS
        };
        if let Some(handle) = pending.try_update_value(Option::take).flatten() {
            handle.clear();
        }
        let write = move || {
            let query = to_query(&state);
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
            if let Err(error) =
                history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
            {
                web_sys::console::warn_2(
                    &"attention-lab: could not update the address".into(),
                    &error,
                );
            }
        };
        match set_timeout_with_handle(write, std::time::Duration::from_millis(delay)) {
            Ok(handle) => pending.set_value(Some(handle)),
            Err(error) => web_sys::console::warn_2(&"attention-lab: no timer".into(), &error),
        }
    });
}

/// Scrolls to the view a link names, then keeps `lab.view` on the step at the top of the screen.
pub fn follow_view(lab: Lab) {
    let target = lab.view.get_untracked();
    // After the first render: go to the view the link names.
    let scroll_to = move || {
        if let Some(element) = target.as_deref().and_then(view_element) {
            element.scroll_into_view();
        }
    };
    if let Err(error) = set_timeout_with_handle(scroll_to, std::time::Duration::from_millis(50)) {
        web_sys::console::warn_2(&"attention-lab: no timer".into(), &error);
    }
    let handle = window_event_listener(leptos::ev::scroll, move |_| {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let Ok(sections) = document.query_selector_all("[data-view]") else {
            return;
        };
        let at_top = (0..sections.length())
            .filter_map(|i| sections.item(i)?.dyn_into::<web_sys::Element>().ok())
            .find(|s| s.get_bounding_client_rect().bottom() > 120.0)
            .and_then(|s| s.get_attribute("data-view"));
        if at_top.is_some() && at_top != lab.view.get_untracked() {
            lab.view.set(at_top);
        }
    });
    on_cleanup(move || handle.remove());
}

/// The section of the page a view name stands for.
fn view_element(view: &str) -> Option<web_sys::Element> {
    web_sys::window()?
        .document()?
        .query_selector(&format!("[data-view=\"{view}\"]"))
        .ok()
        .flatten()
}
