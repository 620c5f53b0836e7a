//! Drawing a heatmap on its canvas: the cells from one `ImageData` buffer scaled up with one
//! `drawImage` (never a canvas call per cell), the token labels and the colour legend around
//! them. The label layer is kept while the labels and the size stay the same, so a change of
//! values costs one `putImageData` and one `drawImage`.

use wasm_bindgen::{Clamped, JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

use crate::ui::browser::canvas::{context, pixel_ratio};
use crate::ui::model::format::{format_value, shorten_label};
use crate::ui::model::matrix::{MatrixView, pixels};

pub const FONT: &str =
    "12px system-ui, -apple-system, 'Segoe UI', 'Noto Sans CJK SC', 'PingFang SC', sans-serif";
const MAX_LABEL_CHARS: usize = 12;
const LEGEND_HEIGHT: f64 = 34.0;
/// The largest cell side, in CSS pixels: big enough to point at, small enough to see the whole.
const MAX_CELL: f64 = 22.0;

/// Where the grid sits in the canvas, in CSS pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub key: LayoutKey,
    pub left: f64,
    pub top: f64,
    pub cell: f64,
}

/// Everything the label layer depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutKey {
    pub rows: usize,
    pub cols: usize,
    row_labels: Vec<String>,
    col_labels: Vec<String>,
    available: f64,
    ratio: f64,
    ink: String,
    compact: bool,
    legend: bool,
}

fn short(label: &str) -> String {
    shorten_label(label, MAX_LABEL_CHARS)
}

/// How a heatmap is drawn.
pub struct DrawOptions {
    pub compact: bool,
    pub legend: bool,
    /// The width the frame offers, once known.
    pub available: Option<f64>,
}

/// Canvases kept between redraws: the cells at one pixel each, the legend strip, and the
/// legend's range (the legend is redrawn only when it changes).
#[derive(Default)]
pub struct Surface {
    cells: Option<HtmlCanvasElement>,
    legend: Option<HtmlCanvasElement>,
    legend_range: Option<(f32, f32)>,
}

/// Draws `data`; keeps the label layer of `previous` when nothing it depends on changed.
pub fn draw(
    canvas: &HtmlCanvasElement,
    data: &MatrixView,
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
        ratio: pixel_ratio(),
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
    data: &MatrixView,
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
