//! The learner's progress in the browser's local storage ([`crate::ui::browser::storage`]): read
//! once when the lab starts, written whenever it changes. Without storage progress lasts as long
//! as the page.

use leptos::prelude::*;

use crate::ui::browser::storage;
use crate::ui::logic::lesson::{Progress, STORAGE_KEY};
use crate::ui::state::Lab;

/// Loads the stored progress into `lab` and keeps the store up to date.
pub fn keep(lab: Lab) {
    if let Some(text) = storage::read(STORAGE_KEY) {
        lab.progress.set(Progress::from_json(&text));
    }
    Effect::new(move |first: Option<()>| {
        let json = lab.progress.with(Progress::to_json);
        // The first run only reads what was just loaded.
        if first.is_some() {
            storage::write(STORAGE_KEY, &json);
        }
    });
}
