//! Drawing a heatmap: its layout (cell size, label areas), the cells from one `ImageData` buffer
//! (never a canvas call per cell: on screen one backing pixel per cell that CSS stretches, in an
//! export scaled up with one `drawImage`), the row and column labels, and
//! the colour bar with the values at its ends and what scale it is. On screen each part has its
//! own canvas (the labels stay in view while the cells scroll); an export draws them all, with an
//! optional title, on one canvas at twice the pixels or more.

use wasm_bindgen::{Clamped, JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

use crate::ui::browser::canvas::{self, context};
use crate::ui::i18n::Lang;
use crate::ui::logic::format::{format_value, shorten_label};
use crate::ui::logic::matrix::{MatrixView, pixels};
use crate::ui::logic::theme::Theme;

pub const FONT: &str =
    "12px system-ui, -apple-system, 'Segoe UI', 'Noto Sans CJK SC', 'PingFang SC', sans-serif";
const TITLE_FONT: &str =
    "bold 14px system-ui, -apple-system, 'Segoe UI', 'Noto Sans CJK SC', 'PingFang SC', sans-serif";
const MAX_LABEL_CHARS: usize = 12;
/// The colour bar and its values; and with the note under it, in an export.
pub const LEGEND_HEIGHT: f64 = 32.0;
const NOTED_LEGEND_HEIGHT: f64 = 46.0;
const LEGEND_WIDTH: f64 = 180.0;
/// Cell sides, in CSS pixels: labelled cells never go below the height of a label (so every row
/// and column keeps its label, and wide matrices scroll instead of shrinking into slivers), and
/// never above a size that still shows the whole at a glance.
const MIN_LABELLED_CELL: f64 = 14.0;
const MAX_CELL: f64 = 22.0;
/// Beyond this many CSS pixels a side would be too large a canvas: cells shrink and labels thin.
const MAX_SIDE: f64 = 6000.0;

/// What a layout depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutKey {
    pub rows: usize,
    pub cols: usize,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// The width the frame offers, in CSS pixels.
    pub available: f64,
    pub compact: bool,
    /// An overview: the whole fits the width (cells as small as a pixel), labels thin out.
    pub fit: bool,
    /// The colours the labels and the legend are drawn in: a new theme draws them again.
    pub scheme: Theme,
}

/// Where everything goes, in CSS pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub key: LayoutKey,
    /// The width of the row labels, and the height of the column labels.
    pub left: f64,
    pub top: f64,
    pub cell: f64,
    /// Column labels stand upright (short ones) or are turned.
    pub upright: bool,
    /// Every `label_every`-th label is drawn (1 unless the matrix is too large to label fully).
    pub label_every: usize,
}

impl Layout {
    pub fn grid_width(&self) -> f64 {
        self.cell * self.key.cols as f64
    }

    pub fn grid_height(&self) -> f64 {
        self.cell * self.key.rows as f64
    }

    /// Sizes the cells and the label areas for `key`, measuring labels with `measure`.
    pub fn new(key: LayoutKey, measure: impl Fn(&str) -> f64) -> Self {
        // Each distinct label measured once (a long sentence repeats its words).
        let widest = |labels: &[String]| {
            let distinct: std::collections::HashSet<&str> =
                labels.iter().map(String::as_str).collect();
            distinct
                .into_iter()
                .map(|label| measure(&short(label)))
                .fold(0.0f64, f64::max)
                .ceil()
        };
        let (rows, cols) = (key.rows.max(1) as f64, key.cols.max(1) as f64);
        if key.compact {
            let cell = (key.available.clamp(40.0, 900.0) / cols)
                .floor()
                .clamp(2.0, MAX_CELL);
            return Self {
                key,
                left: 0.0,
                top: 0.0,
                cell,
                upright: true,
                label_every: 1,
            };
        }
        let left = widest(&key.row_labels) + 8.0;
        let widest_column = widest(&key.col_labels);
        let fitting = ((key.available - left - 4.0) / cols).floor();
        let largest_side = rows.max(cols);
        let cell = if key.fit {
            ((key.available - left - 4.0) / cols).clamp(1.0, MAX_CELL)
        } else if largest_side * MIN_LABELLED_CELL <= MAX_SIDE {
            fitting.clamp(MIN_LABELLED_CELL, MAX_CELL)
        } else {
            (MAX_SIDE / largest_side)
                .floor()
                .clamp(1.0, MIN_LABELLED_CELL)
        };
        let label_every = (MIN_LABELLED_CELL / cell).ceil().max(1.0) as usize;
        let upright = widest_column <= cell - 2.0;
        let top = if upright { 20.0 } else { widest_column + 10.0 };
        Self {
            key,
            left,
            top,
            cell,
            upright,
            label_every,
        }
    }
}

fn short(label: &str) -> String {
    shorten_label(label, MAX_LABEL_CHARS)
}

/// Sizes `canvas` (see [`canvas::size_canvas`]) with the heatmap's label font set.
pub fn size_canvas(
    canvas: &HtmlCanvasElement,
    width: f64,
    height: f64,
    ratio: f64,
) -> Result<CanvasRenderingContext2d, JsValue> {
    let ctx = canvas::size_canvas(canvas, width, height, ratio)?;
    ctx.set_font(FONT);
    Ok(ctx)
}

/// The row labels, right-aligned in the `layout.left` pixels left of (x, y).
pub fn row_labels(
    ctx: &CanvasRenderingContext2d,
    layout: &Layout,
    ink: &str,
    (x, y): (f64, f64),
) -> Result<(), JsValue> {
    ctx.set_font(FONT);
    ctx.set_fill_style_str(ink);
    ctx.set_text_baseline("middle");
    ctx.set_text_align("right");
    let every = layout.label_every;
    // Where cells are thinner than a label (an overview), the first and last labels stay whole.
    let half = MIN_LABELLED_CELL / 2.0;
    let inside = |at: f64| at.clamp(half, (layout.grid_height() - half).max(half));
    for (i, label) in layout.key.row_labels.iter().enumerate().step_by(every) {
        ctx.fill_text(
            &short(label),
            x + layout.left - 5.0,
            y + inside((i as f64 + 0.5) * layout.cell),
        )?;
    }
    Ok(())
}

/// The column labels, upright or turned, in the `layout.top` pixels above (x, y) + top.
pub fn column_labels(
    ctx: &CanvasRenderingContext2d,
    layout: &Layout,
    ink: &str,
    (x, y): (f64, f64),
) -> Result<(), JsValue> {
    ctx.set_font(FONT);
    ctx.set_fill_style_str(ink);
    ctx.set_text_baseline("middle");
    ctx.set_text_align(if layout.upright { "center" } else { "left" });
    let every = layout.label_every;
    let half = MIN_LABELLED_CELL / 2.0;
    let inside = |at: f64| at.clamp(half, (layout.grid_width() - half).max(half));
    for (j, label) in layout.key.col_labels.iter().enumerate().step_by(every) {
        ctx.save();
        ctx.translate(
            x + inside((j as f64 + 0.5) * layout.cell),
            y + layout.top - if layout.upright { 9.0 } else { 5.0 },
        )?;
        if !layout.upright {
            ctx.rotate(-std::f64::consts::FRAC_PI_2)?;
        }
        ctx.fill_text(&short(label), 0.0, 0.0)?;
        ctx.restore();
    }
    Ok(())
}

/// The cells, from `cells` (one pixel, or a 2 × 2 checker, per cell), scaled to the grid at (x, y).
pub fn cells(
    ctx: &CanvasRenderingContext2d,
    cells: &HtmlCanvasElement,
    layout: &Layout,
    (x, y): (f64, f64),
) -> Result<(), JsValue> {
    ctx.set_image_smoothing_enabled(false);
    ctx.clear_rect(x, y, layout.grid_width(), layout.grid_height());
    ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
        cells,
        x,
        y,
        layout.grid_width(),
        layout.grid_height(),
    )
}

/// The width the colour bar needs.
pub fn legend_width(layout: &Layout) -> f64 {
    layout.left + LEGEND_WIDTH + 8.0
}

/// The colour bar at (x, y) with its two end values; with `note`, what scale it is underneath
/// (on screen the note is text beside the canvas, so it wraps and translates).
#[allow(clippy::too_many_arguments)]
pub fn legend(
    ctx: &CanvasRenderingContext2d,
    document: &web_sys::Document,
    strip: &mut Strip,
    data: &MatrixView,
    lang: Lang,
    ink: &str,
    (x, y): (f64, f64),
    note: bool,
) -> Result<(), JsValue> {
    let (low, high) = data.scale.range();
    let colours: Vec<u8> = (0..256)
        .flat_map(|i| {
            let [r, g, b] = data.scale.color(low + (high - low) * i as f32 / 255.0);
            [r, g, b, 255]
        })
        .collect();
    // A new range on the same colour map gives the same strip: only its numbers change.
    let bar = match &strip.canvas {
        Some(canvas) if strip.colours == colours => canvas.clone(),
        _ => {
            let canvas = image_canvas(document, &mut strip.canvas, &colours, 256, 1)?;
            strip.colours = colours;
            canvas
        }
    };
    ctx.set_image_smoothing_enabled(true);
    ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&bar, x, y + 6.0, LEGEND_WIDTH, 8.0)?;
    ctx.set_font(FONT);
    ctx.set_fill_style_str(ink);
    ctx.set_text_baseline("top");
    ctx.set_text_align("left");
    if high > low {
        ctx.fill_text(&format_value(low), x, y + 17.0)?;
        ctx.set_text_align("right");
        ctx.fill_text(&format_value(high), x + LEGEND_WIDTH, y + 17.0)?;
    } else {
        // Every value the same: one number, where it sits on the bar.
        ctx.fill_text(&format_value(low), x, y + 17.0)?;
    }
    if note {
        ctx.set_text_align("left");
        ctx.set_global_alpha(0.75);
        ctx.fill_text(&data.note(lang), x, y + 31.0)?;
        ctx.set_global_alpha(1.0);
    }
    Ok(())
}

/// The colour bar's strip as last drawn: a 256 × 1 canvas and its pixels.
#[derive(Default)]
pub struct Strip {
    canvas: Option<HtmlCanvasElement>,
    colours: Vec<u8>,
}

/// A `width` × `height` canvas holding `rgba`: the one in `slot`, resized if needed, or a new one.
pub fn image_canvas(
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

/// The cells of `data` on the page's grid canvas: its backing store holds one pixel (or a 2 × 2
/// checker, where cells are masked) per cell, and CSS stretches it to the layout's grid with
/// `image-rendering: pixelated`. Scaling in the compositor costs nothing per update; drawing a
/// 128 × 128 matrix at 14 px per cell into the canvas itself meant rastering 3.2 million pixels
/// on every change (tens of milliseconds in a software canvas).
pub fn cells_on_grid(
    grid: &HtmlCanvasElement,
    data: &MatrixView,
    layout: &Layout,
) -> Result<(), JsValue> {
    let (rows, cols) = data.values.dim();
    let (rgba, side) = pixels(&data.values, &data.scale);
    let (width, height) = ((cols * side) as u32, (rows * side) as u32);
    if grid.width() != width || grid.height() != height {
        grid.set_width(width);
        grid.set_height(height);
    }
    let style = web_sys::HtmlElement::style(grid);
    style.set_property("width", &format!("{}px", layout.grid_width()))?;
    style.set_property("height", &format!("{}px", layout.grid_height()))?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&rgba), width, height)?;
    context(grid)?.put_image_data(&image, 0.0, 0.0)
}

/// The cells of `data` on an off-screen canvas, one pixel (or a 2 × 2 checker) per cell.
pub fn cell_image(
    document: &web_sys::Document,
    slot: &mut Option<HtmlCanvasElement>,
    data: &MatrixView,
) -> Result<HtmlCanvasElement, JsValue> {
    let (rows, cols) = data.values.dim();
    let (rgba, side) = pixels(&data.values, &data.scale);
    image_canvas(
        document,
        slot,
        &rgba,
        (cols * side) as u32,
        (rows * side) as u32,
    )
}

/// The whole heatmap on one canvas, for an export: the title (if any), the labels, the cells and
/// the colour bar, at `ratio` device pixels per CSS pixel on a background of `paper`.
#[allow(clippy::too_many_arguments)]
pub fn export(
    document: &web_sys::Document,
    layout: &Layout,
    data: &MatrixView,
    title: Option<&str>,
    lang: Lang,
    (ink, paper): (&str, &str),
    ratio: f64,
) -> Result<HtmlCanvasElement, JsValue> {
    let canvas: HtmlCanvasElement = document.create_element("canvas")?.dyn_into()?;
    let measure = context(&canvas)?;
    measure.set_font(TITLE_FONT);
    let title_width = match title {
        Some(title) => measure.measure_text(title)?.width() + 16.0,
        None => 0.0,
    };
    let title_height = if title.is_some() { 26.0 } else { 0.0 };
    let legend = data.legend.shown();
    let width = (layout.left + layout.grid_width() + 8.0)
        .max(if legend { legend_width(layout) } else { 0.0 })
        .max(title_width);
    let height = title_height
        + layout.top
        + layout.grid_height()
        + if legend { NOTED_LEGEND_HEIGHT } else { 8.0 };
    let ctx = size_canvas(&canvas, width, height, ratio)?;
    ctx.set_fill_style_str(paper);
    ctx.fill_rect(0.0, 0.0, width, height);
    if let Some(title) = title {
        ctx.set_font(TITLE_FONT);
        ctx.set_fill_style_str(ink);
        ctx.set_text_baseline("top");
        ctx.set_text_align("left");
        ctx.fill_text(title, 8.0, 6.0)?;
    }
    let origin = (0.0, title_height);
    if !layout.key.compact {
        row_labels(&ctx, layout, ink, (0.0, title_height + layout.top))?;
        column_labels(&ctx, layout, ink, (layout.left, title_height))?;
    }
    let image = cell_image(document, &mut None, data)?;
    let grid = (origin.0 + layout.left, origin.1 + layout.top);
    cells(&ctx, &image, layout, grid)?;
    if legend {
        legend_at(&ctx, document, data, lang, ink, layout, grid)?;
    }
    Ok(canvas)
}

/// The colour bar under a grid drawn at `grid`.
fn legend_at(
    ctx: &CanvasRenderingContext2d,
    document: &web_sys::Document,
    data: &MatrixView,
    lang: Lang,
    ink: &str,
    layout: &Layout,
    grid: (f64, f64),
) -> Result<(), JsValue> {
    legend(
        ctx,
        document,
        &mut Strip::default(),
        data,
        lang,
        ink,
        (grid.0, grid.1 + layout.grid_height() + 4.0),
        true,
    )
}
