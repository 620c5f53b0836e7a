//! The lab's state and the address bar: the link's settings applied when the page opens, the
//! state written back as the user works ([`keep_in_sync`]: at most a few times a second, as
//! browsers throttle pages that rewrite the address too often), and the part of the page in view
//! followed ([`follow_view`]).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::browser::address;
use crate::ui::i18n::Lang;
use crate::ui::logic::link::{LinkNotice, LinkState, ViewSettings, to_query, usable_request};
use crate::ui::state::Lab;
use attention_core::api::Request;

/// Wait this long after the last change before rewriting the address.
const WRITE_DELAY_MS: u64 = 300;
/// While a computation runs, wait this long instead (it is written as soon as the result is
/// shown): rewriting the address of a long input costs the page and the browser's own process
/// tens of milliseconds (4096 words: 30 ms on the page's thread and 70 ms in the browser's, on a
/// 2-core machine taken from the workers computing the edit).
const WRITE_DELAY_BUSY_MS: u64 = 3000;

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
        // A user's model travels by its address only (never its numbers), when it has one.
        model_src: lab.model_src.get().filter(|_| {
            lab.request
                .with(|r| matches!(r.model, Some(attention_core::api::ModelChoice::Folder(_))))
        }),
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
        let write = move || address::replace(&to_query(&state));
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
