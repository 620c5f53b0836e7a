//! A matrix drawn as a heatmap on a canvas: the cells come from one `ImageData` buffer (one pixel
//! per cell) scaled up with `drawImage`, never from a canvas call per cell. Axis labels are the
//! tokens; a legend shows the colour range.

use leptos::prelude::*;
use ndarray::Array2;
use wasm_bindgen::{Clamped, JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};

use super::colormap::Scale;

/// What a heatmap shows.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatmapData {
    /// [rows, cols]
    pub values: Array2<f32>,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    pub scale: Scale,
}

const FONT: &str =
    "12px system-ui, -apple-system, 'Segoe UI', 'Noto Sans CJK SC', 'PingFang SC', sans-serif";
const MAX_LABEL_CHARS: usize = 12;
const LEGEND_HEIGHT: f64 = 36.0;

/// A heatmap canvas that redraws whenever `data` changes.
#[component]
pub fn Heatmap(
    #[prop(into)] data: Signal<Option<HeatmapData>>,
    test_id: &'static str,
    #[prop(into)] label: Signal<String>,
) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    // The layout depends on the available width: redraw when the window is resized.
    let resized = RwSignal::new(0u32);
    let listener = window_event_listener(leptos::ev::resize, move |_| {
        resized.update(|n| *n = n.wrapping_add(1))
    });
    on_cleanup(move || listener.remove());
    Effect::new(move |_| {
        resized.track();
        let (Some(canvas), Some(data)) = (canvas.get(), data.get()) else {
            return;
        };
        if let Err(error) = draw(&canvas, &data) {
            web_sys::console::error_2(&"heatmap: drawing failed".into(), &error);
        }
    });
    view! {
        <canvas class="heatmap" node_ref=canvas data-testid=test_id role="img" aria-label=label></canvas>
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

fn context(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d, JsValue> {
    canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d context"))?
        .dyn_into::<CanvasRenderingContext2d>()
        .map_err(JsValue::from)
}

/// RGBA bytes, one pixel per cell, row-major.
pub fn pixels(data: &HeatmapData) -> Vec<u8> {
    let mut rgba = Vec::with_capacity(data.values.len() * 4);
    for &value in &data.values {
        let [r, g, b] = data.scale.color(value);
        rgba.extend_from_slice(&[r, g, b, 255]);
    }
    rgba
}

fn draw(canvas: &HtmlCanvasElement, data: &HeatmapData) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let (rows, cols) = data.values.dim();
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let ratio = window.device_pixel_ratio().max(1.0);
    let ink = window
        .get_computed_style(canvas)?
        .map(|style| style.get_property_value("color"))
        .transpose()?
        .unwrap_or_else(|| "#222".into());

    // Measure the labels to size the margins.
    let ctx = context(canvas)?;
    ctx.set_font(FONT);
    let widest = |labels: &[String]| -> Result<f64, JsValue> {
        labels.iter().try_fold(0.0f64, |widest, label| {
            Ok(widest.max(ctx.measure_text(&short(label))?.width()))
        })
    };
    let left = widest(&data.row_labels)?.ceil() + 10.0;
    let widest_column = widest(&data.col_labels)?.ceil();
    let available = canvas
        .parent_element()
        .map_or(560.0, |parent| f64::from(parent.client_width()))
        .clamp(200.0, 900.0);
    let cell = ((available - left - 12.0) / cols as f64)
        .floor()
        .clamp(4.0, 40.0);
    // Short labels (a Chinese character, a short word) stand upright; longer ones are turned.
    let upright = widest_column <= cell - 2.0;
    let top = if upright { 22.0 } else { widest_column + 10.0 };
    let (grid_w, grid_h) = (cell * cols as f64, cell * rows as f64);
    let (width, height) = (left + grid_w + 12.0, top + grid_h + LEGEND_HEIGHT);

    canvas.set_width((width * ratio) as u32);
    canvas.set_height((height * ratio) as u32);
    let style = web_sys::HtmlElement::style(canvas);
    style.set_property("width", &format!("{width}px"))?;
    style.set_property("height", &format!("{height}px"))?;
    let ctx = context(canvas)?; // Resizing resets the context state.
    ctx.scale(ratio, ratio)?;
    ctx.set_font(FONT);
    ctx.set_fill_style_str(&ink);

    // The cells: one ImageData, one drawImage.
    let cells = image_canvas(&document, &pixels(data), cols as u32, rows as u32)?;
    ctx.set_image_smoothing_enabled(false);
    ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&cells, left, top, grid_w, grid_h)?;

    // Labels, centred on their row or column when the cells are big enough to name.
    let label_every = (14.0 / cell).ceil().max(1.0) as usize;
    ctx.set_text_baseline("middle");
    ctx.set_text_align("right");
    for (i, label) in data.row_labels.iter().enumerate().step_by(label_every) {
        ctx.fill_text(&short(label), left - 6.0, top + (i as f64 + 0.5) * cell)?;
    }
    ctx.set_text_align(if upright { "center" } else { "left" });
    for (j, label) in data.col_labels.iter().enumerate().step_by(label_every) {
        ctx.save();
        ctx.translate(left + (j as f64 + 0.5) * cell, top - 10.0)?;
        if !upright {
            ctx.translate(0.0, 4.0)?;
            ctx.rotate(-std::f64::consts::FRAC_PI_2)?;
        }
        ctx.fill_text(&short(label), 0.0, 0.0)?;
        ctx.restore();
    }

    // The legend: a 256-pixel strip of the scale with its two end values.
    let (low, high) = data.scale.range();
    let strip: Vec<u8> = (0..256)
        .flat_map(|i| {
            let [r, g, b] = data.scale.color(low + (high - low) * i as f32 / 255.0);
            [r, g, b, 255]
        })
        .collect();
    let legend = image_canvas(&document, &strip, 256, 1)?;
    let legend_w = grid_w.min(240.0);
    let legend_y = top + grid_h + 10.0;
    ctx.draw_image_with_html_canvas_element_and_dw_and_dh(&legend, left, legend_y, legend_w, 8.0)?;
    ctx.set_text_baseline("top");
    ctx.fill_text(&format_value(low), left, legend_y + 11.0)?;
    ctx.set_text_align("right");
    ctx.fill_text(&format_value(high), left + legend_w, legend_y + 11.0)?;
    Ok(())
}

/// A `width` × `height` canvas holding `rgba`.
fn image_canvas(
    document: &web_sys::Document,
    rgba: &[u8],
    width: u32,
    height: u32,
) -> Result<HtmlCanvasElement, JsValue> {
    let canvas: HtmlCanvasElement = document.create_element("canvas")?.dyn_into()?;
    canvas.set_width(width);
    canvas.set_height(height);
    let image = ImageData::new_with_u8_clamped_array_and_sh(Clamped(rgba), width, height)?;
    context(&canvas)?.put_image_data(&image, 0.0, 0.0)?;
    Ok(canvas)
}

/// A compact, readable number for labels and legends.
pub fn format_value(value: f32) -> String {
    if value == 0.0 {
        "0".into()
    } else if value.abs() >= 1000.0 || value.abs() < 0.001 {
        format!("{value:.2e}")
    } else {
        format!("{value:.3}")
    }
}
