//! A matrix drawn as a heatmap on a canvas. The cells come from one `ImageData` buffer scaled up
//! with one `drawImage` (never a canvas call per cell); the token labels and the legend are drawn
//! around it. The label layer is kept while the labels and the size stay the same, so a change
//! of values costs one `putImageData` and one `drawImage`.
//!
//! Hovering a cell, or moving the keyboard cursor (arrow keys once the canvas has focus), reports
//! the cell through `on_cell`; an outline marks it.
//!
//! A heatmap draws only while it is on screen (or about to be): off screen its data is not even
//! computed, and it draws the latest data when it scrolls into view.

use leptos::prelude::*;
use ndarray::Array2;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen::{Clamped, JsCast, JsValue};
use web_sys::{
    CanvasRenderingContext2d, HtmlCanvasElement, ImageData, IntersectionObserver,
    IntersectionObserverEntry, IntersectionObserverInit, KeyboardEvent, PointerEvent,
    ResizeObserver, ResizeObserverEntry,
};

use super::colormap::Scale;

/// What a heatmap shows.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapData {
    /// [rows, cols]; non-finite values (a masked score, −∞) are drawn as a grey checker.
    pub values: Array2<f32>,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    pub scale: Scale,
}

/// A block of cells to outline: rows × columns, half-open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub rows: std::ops::Range<usize>,
    pub cols: std::ops::Range<usize>,
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

/// Where the grid sits in the canvas, in CSS pixels.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    key: LayoutKey,
    left: f64,
    top: f64,
    cell: f64,
}

/// Everything the label layer depends on.
#[derive(Debug, Clone, PartialEq)]
struct LayoutKey {
    rows: usize,
    cols: usize,
    row_labels: Vec<String>,
    col_labels: Vec<String>,
    available: f64,
    ratio: f64,
    ink: String,
    compact: bool,
    legend: bool,
}

const FONT: &str =
    "12px system-ui, -apple-system, 'Segoe UI', 'Noto Sans CJK SC', 'PingFang SC', sans-serif";
const MAX_LABEL_CHARS: usize = 12;
const LEGEND_HEIGHT: f64 = 34.0;
/// The largest cell side, in CSS pixels: big enough to point at, small enough to see the whole.
const MAX_CELL: f64 = 22.0;
/// The two greys of the checker that marks masked (−∞) cells.
const MASKED: [[u8; 3]; 2] = [[150, 150, 150], [200, 200, 200]];

/// A heatmap canvas that redraws whenever `data` changes.
#[component]
pub fn Heatmap(
    #[prop(into)] data: Signal<Option<HeatmapData>>,
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
    let lab = use_context::<super::state::Lab>();

    Effect::new(move |_| {
        if !visible.get() {
            return;
        }
        if let Some(lab) = lab {
            lab.theme.track();
        }
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
        let start = super::state::now_ms();
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
            on_drawn.run(super::state::now_ms() - start);
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
    let lang = move || lab.map_or(super::i18n::Lang::En, |lab| lab.lang.get());
    let table_id = format!("{test_id}-table");
    let toggle_id = format!("{test_id}-table-toggle");
    let table = move || {
        if !as_table.get() {
            return None;
        }
        let data = data.get()?;
        let text = lang().text();
        Some(view! {
            <div class="matrix-table-frame">
                <table class="matrix-table" data-testid=table_id.clone()>
                    <caption class="visually-hidden">{label.get()}</caption>
                    <thead>
                        <tr>
                            <th scope="col">
                                <span class="visually-hidden">{text.rows_and_columns}</span>
                            </th>
                            {data.col_labels.iter().map(|c| view! { <th scope="col">{c.clone()}</th> }).collect_view()}
                        </tr>
                    </thead>
                    <tbody>
                        {data
                            .values
                            .outer_iter()
                            .zip(&data.row_labels)
                            .map(|(row, label)| {
                                view! {
                                    <tr>
                                        <th scope="row">{label.clone()}</th>
                                        {row.iter().map(|&v| view! { <td>{format_value(v)}</td> }).collect_view()}
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </tbody>
                </table>
            </div>
        })
    };
    let offers_table = !compact && !no_table;
    let name = test_id.trim_start_matches("heatmap-").to_string();
    let png_name = format!("{name}.png");
    let csv_name = format!("{name}.csv");
    let export_png = move |_| {
        if let Some(canvas) = canvas.get_untracked() {
            super::share::report(super::share::download_png(&png_name, &canvas));
        }
    };
    let export_csv = move |_| {
        if let Some(data) = data.get_untracked() {
            super::share::report(super::share::download_text(
                &csv_name,
                "text/csv",
                &super::share::csv(&data),
            ));
        }
    };
    view! {
        <div class="heatmap-tools" hidden=compact>
            <button type="button" class="table-toggle" data-testid=format!("{test_id}-png") on:click=export_png
                title=move || format!("{} — {}", lang().text().export_png, label.get())>
                {move || lang().text().export_png}
            </button>
            <button type="button" class="table-toggle" data-testid=format!("{test_id}-csv") on:click=export_csv
                hidden=!offers_table
                title=move || format!("{} — {}", lang().text().export_csv, label.get())>
                {move || lang().text().export_csv}
            </button>
        <button
            type="button"
            class="table-toggle"
            hidden=!offers_table
            data-testid=toggle_id
            aria-pressed=move || as_table.get().to_string()
            on:click=move |_| as_table.update(|t| *t = !*t)
        >
            {move || if as_table.get() { lang().text().hide_table } else { lang().text().show_table }}
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
        {table}
    }
}

fn short(label: &str) -> String {
    if label.chars().count() > MAX_LABEL_CHARS {
        let mut cut: String = label.chars().take(MAX_LABEL_CHARS - 1).collect();
        cut.push('…');
        cut
    } else {
        label.to_string()
    }
}

/// The 2D context of a canvas.
pub(super) fn context(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, JsValue> {
    canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d context"))?
        .dyn_into::<CanvasRenderingContext2d>()
        .map_err(JsValue::from)
}

/// RGBA bytes, row-major, `side` × `side` pixels per cell: one pixel per cell, unless a value is
/// not finite (a masked score, −∞); then every cell takes 2 × 2 pixels and the non-finite ones a
/// grey checker.
pub fn pixels(values: &Array2<f32>, scale: &Scale) -> (Vec<u8>, usize) {
    let (rows, cols) = values.dim();
    let side = if values.iter().all(|v| v.is_finite()) {
        1
    } else {
        2
    };
    let width = cols * side;
    let mut rgba = vec![255u8; rows * side * width * 4];
    for ((i, j), &value) in values.indexed_iter() {
        let color = value.is_finite().then(|| scale.color(value));
        for dy in 0..side {
            for dx in 0..side {
                let [r, g, b] = color.unwrap_or(MASKED[(dx + dy) % 2]);
                let at = ((i * side + dy) * width + j * side + dx) * 4;
                rgba[at..at + 3].copy_from_slice(&[r, g, b]);
            }
        }
    }
    (rgba, side)
}

/// How a heatmap is drawn.
struct DrawOptions {
    compact: bool,
    legend: bool,
    /// The width the frame offers, once known.
    available: Option<f64>,
}

/// Canvases kept between redraws: the cells at one pixel each, the legend strip, and the
/// legend's range (the legend is redrawn only when it changes).
#[derive(Default)]
struct Surface {
    cells: Option<HtmlCanvasElement>,
    legend: Option<HtmlCanvasElement>,
    legend_range: Option<(f32, f32)>,
}

/// Draws `data`; keeps the label layer of `previous` when nothing it depends on changed.
fn draw(
    canvas: &HtmlCanvasElement,
    data: &HeatmapData,
    options: &DrawOptions,
    previous: Option<&Layout>,
    surface: &mut Surface,
) -> Result<Layout, JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let (rows, cols) = data.values.dim();
    let ink = window
        .get_computed_style(canvas)?
        .map(|style| style.get_property_value("color"))
        .transpose()?
        .unwrap_or_else(|| "#222".into());
    let available = match options.available {
        Some(width) => width,
        None => canvas
            .parent_element()
            .and_then(|wrap| wrap.parent_element())
            .map_or(560.0, |frame| f64::from(frame.client_width())),
    };
    let key = LayoutKey {
        rows,
        cols,
        row_labels: data.row_labels.clone(),
        col_labels: data.col_labels.clone(),
        available,
        ratio: window.device_pixel_ratio().max(1.0),
        ink,
        compact: options.compact,
        legend: options.legend,
    };
    if rows == 0 || cols == 0 {
        return Ok(Layout {
            key,
            left: 0.0,
            top: 0.0,
            cell: 1.0,
        });
    }
    let layout = match previous {
        Some(previous) if previous.key == key => previous.clone(),
        _ => {
            surface.legend_range = None;
            draw_frame(canvas, key)?
        }
    };
    let ctx = context(canvas)?;
    let (grid_w, grid_h) = (layout.cell * cols as f64, layout.cell * rows as f64);
    let (rgba, side) = pixels(&data.values, &data.scale);
    let cells = image_canvas(
        &document,
        &mut surface.cells,
        &rgba,
        (cols * side) as u32,
        (rows * side) as u32,
    )?;
    ctx.set_image_smoothing_enabled(false);
    ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
        &cells,
        layout.left,
        layout.top,
        grid_w,
        grid_h,
    )?;
    let range = data.scale.range();
    if options.legend && surface.legend_range != Some(range) {
        draw_legend(
            &ctx,
            &document,
            &mut surface.legend,
            &layout,
            data,
            grid_w,
            grid_h,
        )?;
        surface.legend_range = Some(range);
    }
    Ok(layout)
}

/// Sizes the canvas and draws the labels; returns where the grid goes.
fn draw_frame(canvas: &HtmlCanvasElement, key: LayoutKey) -> Result<Layout, JsValue> {
    let ctx = context(canvas)?;
    ctx.set_font(FONT);
    let widest = |labels: &[String]| -> Result<f64, JsValue> {
        labels.iter().try_fold(0.0f64, |widest, label| {
            Ok(widest.max(ctx.measure_text(&short(label))?.width()))
        })
    };
    let (rows, cols) = (key.rows, key.cols);
    let (left, widest_column) = if key.compact {
        (0.0, 0.0)
    } else {
        (
            widest(&key.row_labels)?.ceil() + 8.0,
            widest(&key.col_labels)?.ceil(),
        )
    };
    let available = key.available.clamp(80.0, 900.0);
    let cell = ((available - left - 4.0) / cols as f64)
        .floor()
        .clamp(if key.compact { 2.0 } else { 3.0 }, MAX_CELL);
    // Short labels (a Chinese character, a short word) stand upright; longer ones are turned.
    let upright = widest_column <= cell - 2.0;
    let top = if key.compact {
        0.0
    } else if upright {
        20.0
    } else {
        widest_column + 10.0
    };
    let (grid_w, grid_h) = (cell * cols as f64, cell * rows as f64);
    let width = (left + grid_w + 4.0).max(if key.compact { 0.0 } else { 150.0 });
    let height = top + grid_h + if key.legend { LEGEND_HEIGHT } else { 0.0 };

    canvas.set_width((width * key.ratio).round() as u32);
    canvas.set_height((height * key.ratio).round() as u32);
    let style = web_sys::HtmlElement::style(canvas);
    style.set_property("width", &format!("{width}px"))?;
    style.set_property("height", &format!("{height}px"))?;
    let ctx = context(canvas)?; // Resizing resets the context state.
    ctx.scale(key.ratio, key.ratio)?;
    ctx.set_font(FONT);
    ctx.set_fill_style_str(&key.ink);

    if !key.compact {
        // Labels, thinned out when the cells are too small to name each one.
        let label_every = (11.0 / cell).ceil().max(1.0) as usize;
        ctx.set_text_baseline("middle");
        ctx.set_text_align("right");
        for (i, label) in key.row_labels.iter().enumerate().step_by(label_every) {
            ctx.fill_text(&short(label), left - 5.0, top + (i as f64 + 0.5) * cell)?;
        }
        ctx.set_text_align(if upright { "center" } else { "left" });
        for (j, label) in key.col_labels.iter().enumerate().step_by(label_every) {
            ctx.save();
            ctx.translate(left + (j as f64 + 0.5) * cell, top - 9.0)?;
            if !upright {
                ctx.translate(0.0, 4.0)?;
                ctx.rotate(-std::f64::consts::FRAC_PI_2)?;
            }
            ctx.fill_text(&short(label), 0.0, 0.0)?;
            ctx.restore();
        }
    }
    Ok(Layout {
        key,
        left,
        top,
        cell,
    })
}

/// The colour bar under the grid, with the values at its two ends.
fn draw_legend(
    ctx: &CanvasRenderingContext2d,
    document: &web_sys::Document,
    strip_canvas: &mut Option<HtmlCanvasElement>,
    layout: &Layout,
    data: &HeatmapData,
    grid_w: f64,
    grid_h: f64,
) -> Result<(), JsValue> {
    let (low, high) = data.scale.range();
    let strip: Vec<u8> = (0..256)
        .flat_map(|i| {
            let [r, g, b] = data.scale.color(low + (high - low) * i as f32 / 255.0);
            [r, g, b, 255]
        })
        .collect();
    let legend = image_canvas(document, strip_canvas, &strip, 256, 1)?;
    let legend_w = grid_w.clamp(120.0, 220.0);
    let y = layout.top + grid_h + 8.0;
    ctx.clear_rect(
        0.0,
        y - 1.0,
        layout.left + grid_w.max(legend_w) + 4.0,
        LEGEND_HEIGHT,
    );
    ctx.set_image_smoothing_enabled(true);
    ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&legend, layout.left, y, legend_w, 8.0)?;
    ctx.set_font(FONT);
    ctx.set_fill_style_str(&layout.key.ink);
    ctx.set_text_baseline("top");
    ctx.set_text_align("left");
    ctx.fill_text(&format_value(low), layout.left, y + 11.0)?;
    ctx.set_text_align("right");
    ctx.fill_text(&format_value(high), layout.left + legend_w, y + 11.0)?;
    Ok(())
}

/// A `width` × `height` canvas holding `rgba`: the one in `slot`, resized if needed, or a new one.
fn image_canvas(
    document: &web_sys::Document,
    slot: &mut Option<HtmlCanvasElement>,
    rgba: &[u8],
    width: u32,
    height: u32,
) -> Result<HtmlCanvasElement, JsValue> {
    let canvas = match slot {
        Some(canvas) => canvas.clone(),
        None => {
            let canvas: HtmlCanvasElement = document.create_element("canvas")?.dyn_into()?;
            *slot = Some(canvas.clone());
            canvas
        }
    };
    if canvas.width() != width || canvas.height() != height {
        canvas.set_width(width);
        canvas.set_height(height);
    }
    let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(rgba), width, height)?;
    context(&canvas)?.put_image_data(&image, 0.0, 0.0)?;
    Ok(canvas)
}

/// How far outside the viewport a view starts drawing, so it is ready as it scrolls in.
const VISIBLE_MARGIN: &str = "300px";

/// Keeps `visible` true while the element `target` returns is on screen or near it.
pub(super) fn observe_visible(
    target: impl Fn() -> Option<web_sys::Element> + 'static,
    visible: RwSignal<bool>,
) {
    let observer =
        StoredValue::new_local(None::<(IntersectionObserver, Closure<dyn Fn(js_sys::Array)>)>);
    Effect::new(move |_| {
        let Some(target) = target() else {
            return;
        };
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
            Ok(intersection_observer) => {
                intersection_observer.observe(&target);
                observer.set_value(Some((intersection_observer, callback)));
            }
            Err(error) => {
                // Without the observer, draw always.
                web_sys::console::error_2(&"heatmap: no IntersectionObserver".into(), &error);
                visible.set(true);
            }
        }
    });
    on_cleanup(move || {
        observer.try_with_value(|observer| {
            if let Some((intersection_observer, _)) = observer {
                intersection_observer.disconnect();
            }
        });
    });
}

/// Keeps `width` equal to the content width of the element `frame` returns (once it exists).
pub(super) fn observe_width(
    frame: impl Fn() -> Option<web_sys::Element> + 'static,
    width: RwSignal<Option<f64>>,
) {
    let observer = StoredValue::new_local(None::<(ResizeObserver, Closure<dyn Fn(js_sys::Array)>)>);
    Effect::new(move |_| {
        let Some(frame) = frame() else {
            return;
        };
        let callback = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
            if let Ok(entry) = entries.get(0).dyn_into::<ResizeObserverEntry>() {
                let measured = entry.content_rect().width().floor();
                if measured > 0.0 && width.get_untracked() != Some(measured) {
                    width.set(Some(measured));
                }
            }
        });
        match ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            Ok(resize_observer) => {
                resize_observer.observe(&frame);
                observer.set_value(Some((resize_observer, callback)));
            }
            Err(error) => web_sys::console::error_2(&"heatmap: no ResizeObserver".into(), &error),
        }
    });
    on_cleanup(move || {
        observer.try_with_value(|observer| {
            if let Some((resize_observer, _)) = observer {
                resize_observer.disconnect();
            }
        });
    });
}

/// A compact, readable number for labels, legends and tooltips.
pub fn format_value(value: f32) -> String {
    if value == 0.0 {
        "0".into()
    } else if !value.is_finite() {
        if value > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        }
    } else if value.abs() >= 1000.0 || value.abs() < 0.001 {
        format!("{value:.2e}")
    } else {
        format!("{value:.3}")
    }
}
