//! A matrix drawn as a heatmap (see [`draw`]), with its tools ([`tools`]: PNG and CSV export, the
//! numbers as a table) and the cell cursor ([`cursor`]: hover, tap, arrow keys).
//!
//! Every labelled cell stays large enough to read its row and column labels: a wide or tall matrix
//! scrolls inside its frame, its labels sticking to the edges, rather than shrinking into a sliver.
//! The colour bar under it says which scale the colours follow.
//!
//! A heatmap draws only while it is on screen (or about to be): off screen its data is not even
//! computed, and it draws the latest data when it scrolls into view. It takes only what it shows
//! (its data, labels, language and theme) and reports through callbacks: it knows nothing of the
//! lab around it.

mod cursor;
mod draw;
pub mod look;
mod row_picture;
mod table;
mod tools;

use leptos::prelude::*;

use crate::ui::browser::canvas::{computed, pixel_ratio};
use crate::ui::browser::clock::now_ms;
use crate::ui::browser::observers::{observe_visible, observe_width};
use crate::ui::i18n::Lang;
use crate::ui::logic::matrix::{MatrixView, Span};
use crate::ui::logic::theme::Theme;
use draw::{Layout, LayoutKey};
use row_picture::RowLabels;
use table::MatrixTable;
use tools::HeatmapTools;

pub use cursor::{CellPick, Paint};
pub use draw::FONT;
pub use look::Look;

/// Kept between redraws: the legend's strip.
#[derive(Default)]
struct Surface {
    strip: draw::Strip,
    /// The legend as last drawn (it is redrawn only when its scale or note changes).
    legend: Option<(
        crate::ui::logic::colormap::Scale,
        crate::ui::logic::matrix::Legend,
        Lang,
    )>,
}

/// A heatmap that redraws whenever `data` changes.
#[component]
pub fn Heatmap(
    #[prop(into)] data: Signal<Option<MatrixView>>,
    /// The page's language, theme and export settings.
    look: Look,
    /// The `data-testid` of the cell canvas; its other parts are named after it.
    #[prop(into)]
    test_id: String,
    /// What the heatmap shows, for screen readers (and the table's caption).
    #[prop(into)]
    label: Signal<String>,
    /// The title line of an exported image (when titles are on) and its file name, without
    /// extension. By default the label and the test id.
    #[prop(optional, into)]
    export: Option<Signal<(String, String)>>,
    /// Called with the hovered, tapped or keyboard-selected cell, and `None` when it is left.
    #[prop(optional)]
    on_cell: Option<Callback<Option<CellPick>>>,
    /// No labels, no legend, no tools: for small multiples.
    #[prop(optional)]
    compact: bool,
    /// Called after each redraw with its duration, in milliseconds.
    #[prop(optional)]
    on_drawn: Option<Callback<f64>>,
    /// Makes the cells paintable (the mask editor): press or drag over cells.
    #[prop(optional)]
    on_paint: Option<Callback<(usize, usize, Paint)>>,
    /// A block of cells to outline (FlashAttention's current tile and blocks).
    #[prop(optional, into)]
    highlight: Option<Signal<Option<Span>>>,
    /// No "show as table" and no CSV (for colours that are states, not numbers).
    #[prop(optional)]
    no_table: bool,
    /// Called with a cell that is clicked, tapped, chosen with Enter or Space, or moved to with
    /// the arrow keys (not merely hovered): an overview's block to zoom into.
    #[prop(optional)]
    on_choose: Option<Callback<(usize, usize)>>,
) -> impl IntoView {
    let grid = NodeRef::<leptos::html::Canvas>::new();
    let rows_canvas = NodeRef::<leptos::html::Canvas>::new();
    let rows_image = NodeRef::<leptos::html::Img>::new();
    let row_labels = StoredValue::new_local(RowLabels::default());
    on_cleanup(move || {
        if let Some(labels) = row_labels.try_get_value() {
            labels.release();
        }
    });
    let cols_canvas = NodeRef::<leptos::html::Canvas>::new();
    let legend_canvas = NodeRef::<leptos::html::Canvas>::new();
    let scroller = NodeRef::<leptos::html::Div>::new();
    let frame = NodeRef::<leptos::html::Div>::new();
    let layout = RwSignal::new(None::<Layout>);
    let surface = StoredValue::new_local(Surface::default());
    let inks = StoredValue::new(None::<(Theme, String)>);
    // The width this heatmap may use, from a ResizeObserver on its frame: the layout follows the
    // page without reading sizes (which would force a reflow) on every redraw.
    let width = RwSignal::new(None::<f64>);
    observe_width(move || frame.get().map(Into::into), width);
    let visible = RwSignal::new(false);
    observe_visible(move || frame.get().map(Into::into), visible);

    Effect::new(move |_| {
        if !visible.get() {
            return;
        }
        let scheme = look.theme.get();
        let lang = look.lang.get();
        let available = width.get().unwrap_or(560.0);
        let (
            Some(grid),
            Some(rows_canvas),
            Some(rows_image),
            Some(cols_canvas),
            Some(legend_canvas),
        ) = (
            grid.get(),
            rows_canvas.get(),
            rows_image.get(),
            cols_canvas.get(),
            legend_canvas.get(),
        )
        else {
            return;
        };
        let start = now_ms();
        let result = data.with(|data| {
            let Some(data) = data else {
                // Nothing to show (a step without a tile): empty canvases, not a stale picture.
                for canvas in [&grid, &cols_canvas, &legend_canvas] {
                    draw::size_canvas(canvas, 0.0, 0.0, 1.0)?;
                }
                row_labels.with_value(|labels| labels.hide(&rows_canvas, &rows_image));
                layout.set(None);
                return Ok(());
            };
            let key = LayoutKey {
                rows: data.values.nrows(),
                cols: data.values.ncols(),
                row_labels: data.row_labels.clone(),
                col_labels: data.col_labels.clone(),
                available,
                compact,
                fit: data.blocks.is_some(),
                scheme,
            };
            // The theme's ink, read (a style lookup, which can force a style recalculation) only
            // when labels or the legend are drawn, and once per theme.
            let ink = || match inks.get_value() {
                Some((theme, ink)) if theme == scheme => ink,
                _ => {
                    let ink = computed(&grid, "color").unwrap_or_else(|| "#222".into());
                    inks.set_value(Some((scheme, ink.clone())));
                    ink
                }
            };
            let ratio = pixel_ratio();
            let previous = layout.get_untracked().filter(|p| p.key == key);
            let relabel = previous.is_none();
            let current = if let Some(previous) = previous {
                previous
            } else {
                let labels = row_labels.get_value();
                let measure = draw::size_canvas(&rows_canvas, 1.0, 1.0, 1.0)?;
                let new = Layout::new(key, |text| {
                    measure.measure_text(text).map_or(0.0, |m| m.width())
                });
                if compact {
                    labels.hide(&rows_canvas, &rows_image);
                } else {
                    let ink = ink();
                    labels.show(&rows_canvas, &rows_image, &new, &ink, ratio)?;
                    let ctx = draw::size_canvas(&cols_canvas, new.grid_width(), new.top, ratio)?;
                    draw::column_labels(&ctx, &new, &ink, (0.0, 0.0))?;
                }
                layout.set(Some(new.clone()));
                new
            };
            let document = web_sys::window()
                .and_then(|w| w.document())
                .ok_or("no document")?;
            surface
                .try_update_value(|surface| -> Result<(), wasm_bindgen::JsValue> {
                    draw::cells_on_grid(&grid, data, &current)?;
                    let shown = (data.scale, data.legend, lang);
                    if !compact && data.legend.shown() {
                        if relabel || surface.legend != Some(shown) {
                            let ctx = draw::size_canvas(
                                &legend_canvas,
                                draw::legend_width(&current),
                                draw::LEGEND_HEIGHT,
                                ratio,
                            )?;
                            draw::legend(
                                &ctx,
                                &document,
                                &mut surface.strip,
                                data,
                                lang,
                                &ink(),
                                (current.left, 0.0),
                                false,
                            )?;
                            surface.legend = Some(shown);
                        }
                    } else {
                        draw::size_canvas(&legend_canvas, 0.0, 0.0, 1.0)?;
                        surface.legend = None;
                    }
                    Ok(())
                })
                .unwrap_or(Ok(()))
        });
        if let Err(error) = result {
            web_sys::console::error_2(&"heatmap: drawing failed".into(), &error);
        }
        if let Some(on_drawn) = on_drawn {
            on_drawn.run(now_ms() - start);
        }
    });

    let cursor = cursor::Cursor::new(layout, grid, scroller, on_cell, on_paint, on_choose);
    let span_outline = move || {
        let (Some(span), Some(layout)) = (highlight.and_then(|h| h.get()), layout.get()) else {
            return "display: none".to_string();
        };
        // Clamped to the matrix: a span may say "every column" with an open end.
        let cols = span.cols.start.min(layout.key.cols)..span.cols.end.min(layout.key.cols);
        let rows = span.rows.start.min(layout.key.rows)..span.rows.end.min(layout.key.rows);
        format!(
            "left: {}px; top: {}px; width: {}px; height: {}px",
            cols.start as f64 * layout.cell - 2.0,
            rows.start as f64 * layout.cell - 2.0,
            cols.len() as f64 * layout.cell + 4.0,
            rows.len() as f64 * layout.cell + 4.0
        )
    };
    // The legend's words follow the data while the heatmap is on screen, as its picture does: a
    // heatmap out of view reads no new matrix (its data is then never computed).
    let legend_label = Memo::new(move |previous: Option<&Option<String>>| {
        if visible.get() {
            data.with(|d| d.as_ref().map(|d| legend_text(d, look.lang.get())))
        } else {
            previous.cloned().flatten()
        }
    });
    let legend_note = Memo::new(move |previous: Option<&Option<String>>| {
        if visible.get() {
            data.with(|d| {
                d.as_ref()
                    .filter(|_| !compact)
                    .map(|d| d.note(look.lang.get()))
            })
        } else {
            previous.cloned().flatten()
        }
    });
    let as_table = RwSignal::new(false);
    let table_id = format!("{test_id}-table");
    let legend_id = format!("{test_id}-legend");
    let note_id = format!("{test_id}-legend-note");
    let tools_id = test_id.clone();
    let export = export.unwrap_or_else(|| {
        let name = test_id.trim_start_matches("heatmap-").to_string();
        Signal::derive(move || (label.get(), name.clone()))
    });
    let sheet_style = move || {
        layout.with(|l| match l {
            // A small multiple fits its box: its column shrinks (the cells scale down with it,
            // style/main.css), so no key is ever cut off.
            Some(l) if l.key.compact => format!(
                "grid-template-columns: 0 minmax(0, {}px); grid-template-rows: 0 auto",
                l.grid_width()
            ),
            Some(l) => format!(
                "grid-template-columns: {}px {}px; grid-template-rows: {}px {}px",
                l.left,
                l.grid_width(),
                l.top,
                l.grid_height()
            ),
            None => String::new(),
        })
    };
    view! {
        <div class="heatmap" class:compact=compact node_ref=frame>
            <Show when=move || !compact>
                <HeatmapTools
                    data=data
                    layout=layout.read_only()
                    look=look
                    label=label
                    export=export
                    test_id=tools_id.clone()
                    offers_table=!no_table
                    as_table=as_table
                />
            </Show>
            <div class="heatmap-scroll" node_ref=scroller>
                <div class="heatmap-sheet" style=sheet_style>
                    <div class="heatmap-corner" aria-hidden="true"></div>
                    <canvas class="heatmap-cols" node_ref=cols_canvas aria-hidden="true" width="0" height="0"></canvas>
                    <canvas class="heatmap-rows" node_ref=rows_canvas aria-hidden="true" width="0" height="0"></canvas>
                    <img class="heatmap-rows" node_ref=rows_image aria-hidden="true" alt="" decoding="async"
                        style=row_picture::IMAGE_STYLE />
                    <div class="heatmap-grid">
                        <canvas
                            class="heatmap-cells"
                            node_ref=grid
                            width="0"
                            height="0"
                            data-testid=test_id
                            role="img"
                            tabindex="0"
                            aria-label=label
                            on:pointermove=move |ev| cursor.pointer_move(&ev)
                            on:pointerdown=move |ev| cursor.pointer_down(&ev)
                            on:pointerleave=move |ev| cursor.pointer_leave(&ev)
                            on:keydown=move |ev| cursor.key(&ev)
                            on:focus=move |_| cursor.focus()
                            on:blur=move |_| cursor.blur()
                        ></canvas>
                        <div class="cell-outline" style=move || cursor.outline() aria-hidden="true"></div>
                        <div class="span-outline" style=span_outline aria-hidden="true" data-testid="span-outline"></div>
                    </div>
                </div>
            </div>
            // Named once drawn; until then (not yet in view) nothing is drawn and nothing is said.
            <canvas class="heatmap-legend" node_ref=legend_canvas data-testid=legend_id width="0" height="0"
                role=move || legend_label.with(|l| l.is_some().then_some("img"))
                aria-hidden=move || legend_label.with(|l| l.is_none().then_some("true"))
                aria-label=legend_label></canvas>
            <p class="legend-note help" data-testid=note_id
                style=move || layout.with(|l| format!("margin-left: {}px", l.as_ref().map_or(0.0, |l| l.left)))>
                {legend_note}
            </p>
            <Show when=move || as_table.get()>
                <MatrixTable data=data label=label lang=look.lang test_id=table_id.clone() />
            </Show>
        </div>
    }
}

/// What the colour bar shows, in words (for screen readers and tests).
fn legend_text(data: &MatrixView, lang: Lang) -> String {
    use crate::ui::logic::format::format_value;
    let scales = &lang.text().scales;
    let (low_value, high_value) = data.scale.range();
    let (low, high) = (format_value(low_value), format_value(high_value));
    let note = data.note(lang);
    if high_value <= low_value {
        (scales.constant)(&low)
    } else if note.is_empty() {
        (scales.colour_bar_plain)(&low, &high)
    } else {
        (scales.colour_bar)(&low, &high, &note)
    }
}
