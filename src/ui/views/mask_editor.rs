//! The custom mask editor: a grid of query × key cells to switch on or off by clicking or
//! dragging (or Space/Enter on the keyboard cursor). Allowed cells are coloured; blocked ones
//! wear the same grey checker as masked scores elsewhere in the lab.

use leptos::prelude::*;
use ndarray::Array2;

use super::heatmap::Look;
use super::heatmap::{Heatmap, Paint};
use crate::ui::logic::colormap::Scale;
use crate::ui::logic::matrix::{Legend, MatrixView};
use crate::ui::logic::visible_all;
use crate::ui::state::Lab;
use attention_core::api::{MaskRequest, Request};

/// The value drawn for an allowed cell (a mid viridis green on the 0…1 scale).
const ALLOWED: f32 = 0.7;

#[component]
pub fn MaskEditor() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    // The value a drag paints: that of the first cell after it was toggled.
    let painting = StoredValue::new(true);
    let allowed = move || {
        lab.request.with(|r| match &r.mask {
            Some(MaskRequest::Custom { allowed }) => Some(allowed.clone()),
            _ => None,
        })
    };
    let data = Signal::derive(move || {
        let allowed = allowed()?;
        let rows = allowed.len();
        let cols = allowed.first().map_or(0, Vec::len);
        let labels = |n: usize, tokens: Option<Vec<String>>| {
            tokens
                .filter(|t| t.len() == n)
                .unwrap_or_else(|| (0..n).map(|i| i.to_string()).collect())
        };
        let trace = lab.shown.get();
        Some(MatrixView {
            values: Array2::from_shape_fn((rows, cols), |(i, j)| {
                if allowed[i][j] {
                    ALLOWED
                } else {
                    f32::NEG_INFINITY
                }
            }),
            row_labels: labels(
                rows,
                trace.as_ref().map(|t| visible_all(t.0.config.tokens())),
            ),
            col_labels: labels(
                cols,
                trace.map(|t| visible_all(&t.0.config.key_sequence().tokens)),
            ),
            scale: Scale::UNIT,
            legend: Legend::Hidden,
            blocks: None,
        })
    });
    let set_mask = move |allowed: Vec<Vec<bool>>| {
        lab.change(Request {
            mask: Some(MaskRequest::Custom { allowed }),
            ..Request::default()
        })
    };
    // The last switch, said to screen readers (the pointer's as the keyboard's).
    let toggled = RwSignal::new(None::<(usize, usize, bool)>);
    let on_paint = Callback::new(move |(row, col, paint): (usize, usize, Paint)| {
        let Some(mut cells) = allowed() else { return };
        let Some(cell) = cells.get_mut(row).and_then(|r| r.get_mut(col)) else {
            return;
        };
        let value = match paint {
            Paint::Start => {
                painting.set_value(!*cell);
                !*cell
            }
            Paint::Continue => painting.get_value(),
        };
        if *cell != value {
            *cell = value;
            set_mask(cells);
            toggled.set(Some((row, col, value)));
        }
    });
    let shape = move || allowed().map_or((0, 0), |a| (a.len(), a.first().map_or(0, Vec::len)));
    view! {
        <div class="mask-editor">
            <p class="help block">{move || text().mask_editor_help}</p>
            <div class="control-row">
                <button
                    type="button"
                    class="button"
                    data-testid="mask-allow-all"
                    on:click=move |_| {
                        let (rows, cols) = shape();
                        set_mask(vec![vec![true; cols]; rows]);
                    }
                >
                    {move || text().mask_all}
                </button>
                <button
                    type="button"
                    class="button"
                    data-testid="mask-causal-preset"
                    on:click=move |_| {
                        let (rows, cols) = shape();
                        set_mask((0..rows).map(|i| (0..cols).map(|j| j <= i).collect()).collect());
                    }
                >
                    {move || text().mask_causal_preset}
                </button>
            </div>
            <div class="heatmap-frame">
                <Heatmap
                    data=data
                    look=Look::of(lab)
                    test_id="mask-editor"
                    label=Signal::derive(move || text().mask_editor_help.to_string())
                    on_paint=on_paint
                    no_table=true
                />
            </div>
            <p class="visually-hidden" aria-live="polite" data-testid="mask-toggled">
                {move || toggled.get().map(|(i, j, allowed)| (text().mask_toggled)(i, j, allowed))}
            </p>
        </div>
    }
}
