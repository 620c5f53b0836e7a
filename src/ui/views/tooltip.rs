//! Details on demand: the value of the cell under the pointer (or the keyboard cursor), its row
//! and column tokens, and how it was computed with the actual numbers.

use leptos::prelude::*;

use crate::ui::logic::explain::{CellInfo, explain, explain_block};
use crate::ui::state::{ActiveCell, Lab};

/// Width the tooltip may take, to keep it inside the window.
const TOOLTIP_WIDTH: f64 = 360.0;
/// The height it usually takes: below that much room it goes above the cell.
const TOOLTIP_HEIGHT: f64 = 170.0;

/// The cell under the pointer or the keyboard cursor, explained in the reader's language (none
/// when it no longer exists in the shown trace).
pub fn active_cell(lab: Lab) -> Option<(ActiveCell, CellInfo)> {
    let active = lab.active.get()?;
    let trace = lab.shown.get()?;
    let t = &trace.0;
    let stage = active.stage;
    // A block exists only in an overview; a cell in any trace (under an overview, it is zoomed).
    if !stage.is_shown(t) || (active.block && !stage.is_overview(t)) {
        return None;
    }
    let (rows, cols) = if active.block || stage.is_keyed() {
        // A block of the overview, or a cell of a full or zoomed n² matrix.
        let head = active.head.min(t.heads.len() - 1);
        match (active.block, t.overviews.get(head)) {
            (true, Some(o)) => o.scores_max.dim(),
            _ => (t.config.seq_len(), t.config.key_len()),
        }
    } else {
        stage.matrix(t, active.head).dim()
    };
    if active.row >= rows || active.col >= cols {
        return None;
    }
    let lang = lab.lang.get();
    let (head, row, col) = (active.head, active.row, active.col);
    let info = if active.block {
        explain_block(t, stage, head, row, col, lang)
    } else {
        explain(t, stage, head, row, col, lang)
    };
    Some((active, info))
}

#[component]
pub fn Tooltip() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let content = move || active_cell(lab);
    view! {
        {move || {
            content()
                .map(|(active, info)| {
                    let size = |f: fn(&web_sys::Window) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>, default| {
                        web_sys::window()
                            .and_then(|w| f(&w).ok())
                            .and_then(|v| v.as_f64())
                            .unwrap_or(default)
                    };
                    let (width, height) = (size(web_sys::Window::inner_width, 1200.0), size(web_sys::Window::inner_height, 800.0));
                    let left = (active.x + 14.0).min(width - TOOLTIP_WIDTH - 8.0).max(4.0);
                    // Below the cell, or above it where the screen ends (a phone's last rows).
                    let style = if active.y + 14.0 + TOOLTIP_HEIGHT > height {
                        format!("left: {left}px; bottom: {}px", (height - active.y + 14.0).max(4.0))
                    } else {
                        format!("left: {left}px; top: {}px", active.y + 14.0)
                    };
                    view! {
                        <div class="tooltip" role="tooltip" data-testid="tooltip" style=style>
                            <div class="tooltip-value" data-testid="tooltip-value">{info.value}</div>
                            <div class="tooltip-position">{info.position}</div>
                            {info
                                .lines
                                .into_iter()
                                .map(|line| view! { <div class="tooltip-line">{line}</div> })
                                .collect_view()}
                        </div>
                    }
                })
        }}
    }
}
