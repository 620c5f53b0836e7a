//! A line chart on a canvas (see `ui::model::line_chart`), redrawn when its data, the language or
//! the theme change.

use leptos::prelude::*;

use crate::ui::browser::canvas::ink_rgb;
use crate::ui::model::line_chart::{LineChart, draw};
use crate::ui::state::Lab;

#[component]
pub fn Chart(chart: Signal<Option<LineChart>>, test_id: &'static str) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |_| {
        lab.theme.track();
        let (Some(canvas), Some(mut chart)) = (canvas.get(), chart.get()) else {
            return;
        };
        chart.ink = ink_rgb(&canvas);
        let canvas: web_sys::HtmlCanvasElement = canvas;
        canvas.set_width(480);
        canvas.set_height(270);
        if let Some(backend) = plotters_canvas::CanvasBackend::with_canvas_object(canvas) {
            use plotters::prelude::IntoDrawingArea;
            let root = backend.into_drawing_area();
            if let Err(error) = draw(&root, &chart) {
                web_sys::console::error_1(&format!("chart: {error}").into());
            }
        }
    });
    let label = move || chart.with(|c| c.as_ref().map(|c| c.title.clone()).unwrap_or_default());
    view! {
        <canvas class="lesson-chart" node_ref=canvas data-testid=test_id role="img" aria-label=label></canvas>
    }
}
