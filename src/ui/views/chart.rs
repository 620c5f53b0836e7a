//! A line chart on a canvas (see `ui::logic::line_chart`), redrawn when its data, the language or
//! the theme change: the lessons' experiments and FlashAttention's memory chart.

use leptos::prelude::*;

use crate::ui::browser::canvas::ink_rgb;
use crate::ui::browser::observers::observe_visible;
use crate::ui::logic::format::format_value;
use crate::ui::logic::line_chart::{ChartLayout, LineChart, draw, table_rows};
use crate::ui::state::Lab;

/// Draws `chart` on `canvas`, `width` pixels wide and as tall as its legend needs, in the
/// canvas's text colour.
pub fn paint(canvas: &web_sys::HtmlCanvasElement, mut chart: LineChart, width: u32) {
    chart.ink = ink_rgb(canvas);
    let height = ChartLayout::new(&chart, width).height;
    canvas.set_width(width);
    canvas.set_height(height);
    if let Some(backend) = plotters_canvas::CanvasBackend::with_canvas_object(canvas.clone()) {
        use plotters::prelude::IntoDrawingArea;
        let root = backend.into_drawing_area();
        if let Err(error) = draw(&root, &chart) {
            web_sys::console::error_1(&format!("chart: {error}").into());
        }
    }
}

/// An x value as the table shows it: a whole number in full (4096, not 4.10e3).
fn axis_value(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format_value(x as f32)
    }
}

#[component]
pub fn Chart(chart: Signal<Option<LineChart>>, test_id: &'static str) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    // Drawn only on screen (plotters takes milliseconds): off screen a new chart waits, and the
    // latest is drawn when the canvas scrolls into view.
    let visible = RwSignal::new(false);
    observe_visible(move || canvas.get().map(Into::into), visible);
    Effect::new(move |_| {
        if !visible.get() {
            return;
        }
        // Its ink follows the theme in use (auto included).
        let _ = lab.scheme();
        if let (Some(canvas), Some(chart)) = (canvas.get(), chart.get()) {
            paint(&canvas, chart, 480);
        }
    });
    let label = move || chart.with(|c| c.as_ref().map(|c| c.title.clone()).unwrap_or_default());
    // Its numbers, for whoever cannot see the lines (a screen reader, a projector): a table of
    // each series' points, up to 16 of each.
    let as_table = RwSignal::new(false);
    let text = move || lab.lang.get().text();
    let table = move || {
        chart.with(|c| {
            let c = c.as_ref()?;
            let rows = table_rows(c, 16);
            Some(view! {
                <div class="table-scroll" tabindex="0">
                    <table class="lesson-table" data-testid=format!("{test_id}-table")>
                        <caption>{c.title.clone()}</caption>
                        <thead><tr><th>{text().chart_series}</th><th>{c.x_label.clone()}</th><th>{c.y_label.clone()}</th></tr></thead>
                        <tbody>
                            {rows.into_iter().map(|(series, x, y)| view! {
                                <tr>
                                    <td>{series}</td>
                                    <td>{axis_value(x)}</td>
                                    <td>{format_value(y as f32)}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                </div>
            })
        })
    };
    view! {
        <canvas class="lesson-chart" node_ref=canvas data-testid=test_id role="img" aria-label=label></canvas>
        <button type="button" class="table-toggle" data-testid=format!("{test_id}-as-table")
            aria-pressed=move || as_table.get().to_string()
            on:click=move |_| as_table.update(|t| *t = !*t)>
            {move || if as_table.get() { text().hide_table } else { text().show_table }}
        </button>
        <Show when=move || as_table.get()>{table}</Show>
    }
}
