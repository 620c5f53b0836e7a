//! The flash chapter's experiment, drawn: what the tiles save.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::state::Lab;

use super::parts::texts;

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let counts = move || {
        let Some(Experiment::Flash(e)) = e.get() else {
            return String::new();
        };
        (texts(lab).flash_counts)(
            e.tiles,
            e.skipped_tiles,
            e.standard_cells,
            e.tile_cells,
            e.max_abs_diff,
        )
    };
    view! { <p class="lesson-result" data-testid="lesson-result">{counts}</p> }
}
