//! A matrix drawn as a heatmap on a canvas (see [`draw`]), with its tools: PNG and CSV export,
//! and the same numbers as a table ([`table`]).
//!
//! Hovering a cell, a tap on it, or moving the keyboard cursor (arrow keys once the canvas has
//! focus) reports the cell through `on_cell`; an outline marks it.
//!
//! A heatmap draws only while it is on screen (or about to be): off screen its data is not even
//! computed, and it draws the latest data when it scrolls into view. It takes only what it shows
//! (its data, label, language and theme) and reports through callbacks: it knows nothing of the
//! lab around it.

mod draw;
mod table;

use leptos::prelude::*;
use web_sys::{KeyboardEvent, PointerEvent};

use crate::ui::browser::clock::now_ms;
use crate::ui::browser::observers::{observe_visible, observe_width};
use crate::ui::browser::share::{download_png, download_text, report as report_download};
use crate::ui::i18n::Lang;
use crate::ui::model::matrix::{MatrixView, Span, csv};
use crate::ui::model::theme::Theme;
use draw::{DrawOptions, Layout, Surface, draw};
use table::MatrixTable;

pub use draw::FONT;

/// What every heatmap needs from the page around it: the language of its tools and the theme
/// (its labels take the theme's ink, so a new theme redraws them).
#[derive(Debug, Clone, Copy)]
pub struct Look {
    pub lang: Signal<Lang>,
    pub theme: Signal<Theme>,
}

/// A cell the user points at or moved the keyboard cursor to, with where it is on screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellPick {
    pub row: usize,
    pub col: usize,
    /// The cell's centre in viewport (client) coordinates.
    pub x: f64,
    pub y: f64,
}

/// How a paint gesture on a cell began or goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    /// A press (or Space/Enter on the keyboard cursor): toggle this cell.
    Start,
    /// The pointer moved onto this cell with the button held: give it the same value.
    Continue,
}

/// A heatmap canvas that redraws whenever `data` changes.
#[component]
pub fn Heatmap(
    #[prop(into)] data: Signal<Option<MatrixView>>,
    /// The page's language and theme.
    look: Look,
    /// The `data-testid` of the canvas.
    #[prop(into)]
    test_id: String,
    /// What the heatmap shows, for screen readers.
    #[prop(into)]
    label: Signal<String>,
    /// Called with the hovered or keyboard-selected cell, and `None` when it is left.
    #[prop(optional)]
    on_cell: Option<Callback<Option<CellPick>>>,
    /// No labels and no legend: for small multiples.
    #[prop(optional)]
    compact: bool,
    /// Called after each redraw with its duration, in milliseconds.
    #[prop(optional)]
    on_drawn: Option<Callback<f64>>,
    /// Makes the cells paintable (the mask editor): press or drag over cells.
    #[prop(optional)]
    on_paint: Option<Callback<(usize, usize, Paint)>>,
    /// No colour legend (for matrices whose colours are categories).
    #[prop(optional)]
    no_legend: bool,
    /// A block of cells to outline (FlashAttention's current tile and blocks).
    #[prop(optional, into)]
    highlight: Option<Signal<Option<Span>>>,
    /// No "show as table" (for colours that are states, not numbers).
    #[prop(optional)]
    no_table: bool,
) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let layout = RwSignal::new(None::<Layout>);
    let cursor = RwSignal::new(None::<(usize, usize)>);
    // Where the keyboard cursor was when focus left: focus coming back resumes there.
    let resume = StoredValue::new(None::<(usize, usize)>);
    let surface = StoredValue::new_local(Surface::default());
    // The width this heatmap may use, from a ResizeObserver on its frame: the layout follows the
    // page without reading sizes (which would force a reflow) on every redraw.
    let width = RwSignal::new(None::<f64>);
    observe_width(
        move || {
            canvas
                .get()
                .and_then(|c| c.parent_element())
                .and_then(|wrap| wrap.parent_element())
        },
        width,
    );
    let visible = RwSignal::new(false);
    observe_visible(move || canvas.get().map(Into::into), visible);

    Effect::new(move |_| {
        if !visible.get() {
            return;
        }
        look.theme.track();
        let available = width.get();
        let Some(canvas) = canvas.get() else {
            return;
        };
        let Some(data) = data.get() else {
            // Nothing to show (a step without a tile): an empty canvas, not a stale picture.
            canvas.set_width(0);
            canvas.set_height(0);
            let style = web_sys::HtmlElement::style(&canvas);
            let _ = style.set_property("width", "0px");
            let _ = style.set_property("height", "0px");
            layout.set(None);
            cursor.set(None);
            return;
        };
        let start = now_ms();
        let previous = layout.get_untracked();
        let options = DrawOptions {
            compact,
            legend: !compact && !no_legend,
            available,
        };
        let drawn = surface
            .try_update_value(|surface| draw(&canvas, &data, &options, previous.as_ref(), surface));
        match drawn {
            Some(Ok(new_layout)) if previous.as_ref() != Some(&new_layout) => {
                layout.set(Some(new_layout));
            }
            Some(Err(error)) => {
                web_sys::console::error_2(&"heatmap: drawing failed".into(), &error)
            }
            _ => {}
        }
        // A cursor outside a smaller matrix is dropped.
        let (rows, cols) = data.values.dim();
        if cursor
            .get_untracked()
            .is_some_and(|(r, c)| r >= rows || c >= cols)
        {
            cursor.set(None);
        }
        if resume
            .get_value()
            .is_some_and(|(r, c)| r >= rows || c >= cols)
        {
            resume.set_value(None);
        }
        if let Some(on_drawn) = on_drawn {
            on_drawn.run(now_ms() - start);
        }
    });

    let report = move |pick: Option<(usize, usize)>| {
        cursor.set(pick);
        let Some(on_cell) = on_cell else { return };
        let picked = pick.and_then(|(row, col)| {
            let layout = layout.get_untracked()?;
            let rect = canvas.get_untracked()?.get_bounding_client_rect();
            Some(CellPick {
                row,
                col,
                x: rect.left() + layout.left + (col as f64 + 0.5) * layout.cell,
                y: rect.top() + layout.top + (row as f64 + 0.5) * layout.cell,
            })
        });
        on_cell.run(picked);
    };
    // The cell under a pointer at viewport coordinates (x, y).
    let cell_at = move |x: f64, y: f64| -> Option<(usize, usize)> {
        let layout = layout.get_untracked()?;
        let rect = canvas.get_untracked()?.get_bounding_client_rect();
        let (x, y) = (x - rect.left(), y - rect.top());
        let (col, row) = (
            (x - layout.left) / layout.cell,
            (y - layout.top) / layout.cell,
        );
        (col >= 0.0
            && row >= 0.0
            && (col as usize) < layout.key.cols
            && (row as usize) < layout.key.rows)
            .then_some((row as usize, col as usize))
    };
    let on_pointer_move = move |ev: PointerEvent| {
        let pick = cell_at(f64::from(ev.client_x()), f64::from(ev.client_y()));
        if pick != cursor.get_untracked() {
            report(pick);
            if let (Some(on_paint), Some((row, col))) = (on_paint, pick)
                && ev.buttons() & 1 == 1
            {
                on_paint.run((row, col, Paint::Continue));
            }
        }
    };
    let on_pointer_down = move |ev: PointerEvent| {
        let Some(on_paint) = on_paint else { return };
        if let Some((row, col)) = cell_at(f64::from(ev.client_x()), f64::from(ev.client_y())) {
            ev.prevent_default();
            report(Some((row, col)));
            on_paint.run((row, col, Paint::Start));
        }
    };
    let on_key = move |ev: KeyboardEvent| {
        let Some(layout) = layout.get_untracked() else {
            return;
        };
        let (rows, cols) = (layout.key.rows, layout.key.cols);
        // A key pressed before the cursor exists (focus can arrive without a focus event when the
        // window itself is not focused) starts it where it last was.
        let (row, col) = cursor
            .get_untracked()
            .or_else(|| resume.get_value())
            .unwrap_or((0, 0));
        let moved = match ev.key().as_str() {
            "ArrowUp" => Some((row.saturating_sub(1), col)),
            "ArrowDown" => Some(((row + 1).min(rows - 1), col)),
            "ArrowLeft" => Some((row, col.saturating_sub(1))),
            "ArrowRight" => Some((row, (col + 1).min(cols - 1))),
            "Home" => Some((row, 0)),
            "End" => Some((row, cols - 1)),
            "Escape" => {
                report(None);
                return;
            }
            " " | "Enter" => {
                if let Some(on_paint) = on_paint {
                    ev.prevent_default();
                    on_paint.run((row, col, Paint::Start));
                }
                return;
            }
            _ => return,
        };
        ev.prevent_default();
        report(moved);
    };
    let outline = move || {
        let (Some((row, col)), Some(layout)) = (cursor.get(), layout.get()) else {
            return "display: none".to_string();
        };
        format!(
            "left: {}px; top: {}px; width: {}px; height: {}px",
            layout.left + col as f64 * layout.cell - 1.0,
            layout.top + row as f64 * layout.cell - 1.0,
            layout.cell + 2.0,
            layout.cell + 2.0
        )
    };

    let span_outline = move || {
        let (Some(span), Some(layout)) = (highlight.and_then(|h| h.get()), layout.get()) else {
            return "display: none".to_string();
        };
        // Clamped to the matrix: a span may say "every column" with an open end.
        let cols = span.cols.start.min(layout.key.cols)..span.cols.end.min(layout.key.cols);
        let rows = span.rows.start.min(layout.key.rows)..span.rows.end.min(layout.key.rows);
        format!(
            "left: {}px; top: {}px; width: {}px; height: {}px",
            layout.left + cols.start as f64 * layout.cell - 2.0,
            layout.top + rows.start as f64 * layout.cell - 2.0,
            cols.len() as f64 * layout.cell + 4.0,
            rows.len() as f64 * layout.cell + 4.0
        )
    };
    // The same numbers as an HTML table, for screen readers and anyone who wants the digits.
    let as_table = RwSignal::new(false);
    let lang = look.lang;
    let text = move || lang.get().text();
    let table_id = format!("{test_id}-table");
    let toggle_id = format!("{test_id}-table-toggle");
    let offers_table = !compact && !no_table;
    let name = test_id.trim_start_matches("heatmap-").to_string();
    let png_name = format!("{name}.png");
    let csv_name = format!("{name}.csv");
    let export_png = move |_| {
        if let Some(canvas) = canvas.get_untracked() {
            report_download(download_png(&png_name, &canvas));
        }
    };
    let export_csv = move |_| {
        if let Some(data) = data.get_untracked() {
            report_download(download_text(&csv_name, "text/csv", &csv(&data)));
        }
    };
    view! {
        <div class="heatmap-tools" hidden=compact>
            <button type="button" class="table-toggle" data-testid=format!("{test_id}-png") on:click=export_png
                title=move || format!("{} — {}", text().export_png, label.get())>
                {move || text().export_png}
            </button>
            <button type="button" class="table-toggle" data-testid=format!("{test_id}-csv") on:click=export_csv
                hidden=!offers_table
                title=move || format!("{} — {}", text().export_csv, label.get())>
                {move || text().export_csv}
            </button>
        <button
            type="button"
            class="table-toggle"
            hidden=!offers_table
            data-testid=toggle_id
            aria-pressed=move || as_table.get().to_string()
            on:click=move |_| as_table.update(|t| *t = !*t)
        >
            {move || if as_table.get() { text().hide_table } else { text().show_table }}
        </button>
        </div>
        <div class="heatmap-wrap">
            <canvas
                class="heatmap"
                node_ref=canvas
                data-testid=test_id
                role="img"
                tabindex="0"
                aria-label=label
                on:pointermove=on_pointer_move
                on:pointerdown=on_pointer_down
                on:pointerleave=move |_| report(None)
                on:keydown=on_key
                on:focus=move |_| {
                    if cursor.get_untracked().is_none() {
                        report(Some(resume.get_value().unwrap_or((0, 0))));
                    }
                }
                on:blur=move |_| {
                    resume.set_value(cursor.get_untracked());
                    report(None);
                }
            ></canvas>
            <div class="cell-outline" style=outline aria-hidden="true"></div>
            <div class="span-outline" style=span_outline aria-hidden="true" data-testid="span-outline"></div>
        </div>
        <Show when=move || as_table.get()>
            <MatrixTable data=data label=label lang=lang test_id=table_id.clone() />
        </Show>
    }
}
