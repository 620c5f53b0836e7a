//! Details on demand: the value of the cell under the pointer (or the keyboard cursor), its row
//! and column tokens, and how it was computed with the actual numbers.

use leptos::prelude::*;

use crate::ui::model::explain::{CellInfo, explain};
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
    let (rows, cols) = active.stage.matrix(&trace.0, active.head).dim();
    if !active.stage.is_shown(&trace.0) || active.row >= rows || active.col >= cols {
        return None;
    }
    let info = explain(
        &trace.0,
        active.stage,
        active.head,
        active.row,
        active.col,
        lab.lang.get(),
    );
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
