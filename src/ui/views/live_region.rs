//! Announces the cell under the keyboard cursor (or pointer) to screen readers: its tokens and
//! its value.

use leptos::prelude::*;

use super::tooltip::active_cell;
use crate::ui::state::Lab;

#[component]
pub fn LiveRegion() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let announcement = move || {
        let (active, info) = active_cell(lab)?;
        let title = lab.shown.with(|t| {
            active
                .stage
                .title(t.as_ref().map(|t| &*t.0), lab.lang.get())
        });
        Some(format!("{title}: {}: {}", info.position, info.value))
    };
    view! {
        <div class="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="live-region">
            {announcement}
        </div>
    }
}
