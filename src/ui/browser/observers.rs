//! Observers that keep a signal up to date with the page: whether an element is on screen
//! (IntersectionObserver) and how wide it is (ResizeObserver). Each observer is owned by the
//! component that asked for it: when the element it watches changes it disconnects the old one
//! before watching the new, and it disconnects when the component goes away.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{
    IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit, ResizeObserver,
    ResizeObserverEntry,
};

/// How far outside the viewport a view starts drawing, so it is ready as it scrolls in.
const VISIBLE_MARGIN: &str = "300px";

/// Something that watches elements until disconnected.
trait Observer {
    fn disconnect(&self);
}

impl Observer for IntersectionObserver {
    fn disconnect(&self) {
        IntersectionObserver::disconnect(self);
    }
}

impl Observer for ResizeObserver {
    fn disconnect(&self) {
        ResizeObserver::disconnect(self);
    }
}

/// An observer with its callback (which must live as long as it does).
struct Owned<O: Observer> {
    observer: O,
    _callback: Closure<dyn Fn(js_sys::Array)>,
}

/// Runs `create` on the element `target` returns whenever it changes, disconnecting the previous
/// observer first, and the last one when the owner is cleaned up.
fn observe<O: Observer + 'static>(
    target: impl Fn() -> Option<web_sys::Element> + 'static,
    create: impl Fn(&web_sys::Element) -> Option<Owned<O>> + 'static,
) {
    let slot = StoredValue::new_local(None::<Owned<O>>);
    let disconnect = move || {
        slot.try_update_value(|slot| {
            if let Some(old) = slot.take() {
                old.observer.disconnect();
            }
        });
    };
    Effect::new(move |_| {
        let element = target();
        disconnect();
        if let Some(element) = element {
            let created = create(&element);
            slot.set_value(created);
        }
    });
    on_cleanup(disconnect);
}

/// Keeps `visible` true while the element `target` returns is on screen or near it.
pub fn observe_visible(
    target: impl Fn() -> Option<web_sys::Element> + 'static,
    visible: RwSignal<bool>,
) {
    observe(target, move |element| {
        let callback = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
            // The last entry is the newest state of the one target.
            if let Ok(entry) = entries
                .get(entries.length().saturating_sub(1))
                .dyn_into::<IntersectionObserverEntry>()
            {
                let on_screen = entry.is_intersecting();
                if visible.get_untracked() != on_screen {
                    visible.set(on_screen);
                }
            }
        });
        let options = IntersectionObserverInit::new();
        options.set_root_margin(VISIBLE_MARGIN);
        match IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &options) {
            Ok(observer) => {
                observer.observe(element);
                Some(Owned {
                    observer,
                    _callback: callback,
                })
            }
            Err(error) => {
                // Without the observer, draw always.
                web_sys::console::error_2(&"no IntersectionObserver".into(), &error);
                visible.set(true);
                None
            }
        }
    });
}

/// Runs `on_entry` with each size change of the element `target` returns (once it exists).
fn observe_size(
    target: impl Fn() -> Option<web_sys::Element> + 'static,
    on_entry: impl Fn(&ResizeObserverEntry) + Clone + 'static,
) {
    observe(target, move |element| {
        let on_entry = on_entry.clone();
        let callback = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Ok(entry) = entries.get(0).dyn_into::<ResizeObserverEntry>() {
                on_entry(&entry);
            }
        });
        match ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            Ok(observer) => {
                observer.observe(element);
                Some(Owned {
                    observer,
                    _callback: callback,
                })
            }
            Err(error) => {
                web_sys::console::error_2(&"no ResizeObserver".into(), &error);
                None
            }
        }
    });
}

/// Calls `report` with the height of the element `target` returns, border box, whenever it
/// changes (once it exists).
pub fn observe_height(
    target: impl Fn() -> Option<web_sys::Element> + 'static,
    report: impl Fn(f64) + Clone + 'static,
) {
    observe_size(target, move |entry| {
        report(entry.target().get_bounding_client_rect().height().ceil());
    });
}

/// Keeps `width` equal to the content width of the element `target` returns (once it exists).
pub fn observe_width(
    target: impl Fn() -> Option<web_sys::Element> + 'static,
    width: RwSignal<Option<f64>>,
) {
    observe_size(target, move |entry| {
        let measured = entry.content_rect().width().floor();
        if measured > 0.0 && width.get_untracked() != Some(measured) {
            width.set(Some(measured));
        }
    });
}
