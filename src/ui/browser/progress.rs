//! The learner's progress in the browser's local storage: read once when the lab starts, written
//! whenever it changes. Nothing leaves the browser. Without storage (a private window that
//! refuses it, an embed in a sandboxed frame) progress lasts as long as the page.

use leptos::prelude::*;

use crate::ui::model::lesson::{Progress, STORAGE_KEY};
use crate::ui::state::Lab;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// Loads the stored progress into `lab` and keeps the store up to date.
pub fn keep(lab: Lab) {
    if let Some(text) = storage().and_then(|s| s.get_item(STORAGE_KEY).ok().flatten()) {
        lab.progress.set(Progress::from_json(&text));
    }
    Effect::new(move |first: Option<()>| {
        let json = lab.progress.with(Progress::to_json);
        // The first run only reads what was just loaded.
        if first.is_some()
            && let Some(storage) = storage()
            && let Err(error) = storage.set_item(STORAGE_KEY, &json)
        {
            web_sys::console::warn_2(&"progress: could not be stored".into(), &error);
        }
    });
}
