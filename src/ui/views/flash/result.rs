//! The end of the story: flash equals standard, and what it saves as sequences grow (a plotters
//! chart, exported as PNG or SVG).

use leptos::prelude::*;

use crate::ui::browser::canvas::ink_rgb;
use crate::ui::browser::share::{download_png, download_text, report};
use crate::ui::logic::line_chart::ChartLayout;
use crate::ui::logic::memory_chart::{MemoryChart, draw};
use crate::ui::state::Lab;
use crate::ui::views::chart::paint;

/// The end of the story: flash equals standard, and what it saves as sequences grow.
#[component]
pub fn FlashResult() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().flash;
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let chart = Memo::new(move |_| {
        let lang = lab.lang.get();
        // Its ink follows the theme in use (auto included).
        let _ = lab.scheme();
        lab.shown.with(|t| {
            t.as_ref().map(|t| {
                let (block_rows, block_cols) = t.0.config.block();
                let f = &lang.text().flash;
                MemoryChart {
                    tile: (block_rows * block_cols) as u64,
                    seq_len: t.0.config.seq_len() as u64,
                    title: f.chart_title.into(),
                    x_label: f.chart_x.into(),
                    y_label: f.chart_y.into(),
                    standard: f.chart_standard.into(),
                    flash: f.chart_flash.into(),
                    ink: (0, 0, 0),
                }
            })
        })
    });
    Effect::new(move |_| {
        if let (Some(canvas), Some(chart)) = (canvas.get(), chart.get()) {
            paint(&canvas, chart.line_chart(), 520);
        }
    });
    let diff = move || {
        lab.shown
            .with(|t| t.as_ref().map(|t| t.0.flash.max_abs_diff))
    };
    let export_png = move |_| {
        if let Some(canvas) = canvas.get_untracked() {
            report(download_png("flash-memory.png", &canvas));
        }
    };
    let export_svg = move |_| {
        let Some(mut chart) = chart.get_untracked() else {
            return;
        };
        if let Some(canvas) = canvas.get_untracked() {
            chart.ink = ink_rgb(&canvas);
        }
        let mut svg = String::new();
        {
            use plotters::prelude::IntoDrawingArea;
            let height = ChartLayout::new(&chart.line_chart(), 520).height;
            let root = plotters::prelude::SVGBackend::with_string(&mut svg, (520, height))
                .into_drawing_area();
            if let Err(error) = draw(&root, &chart) {
                web_sys::console::error_1(&format!("memory chart: {error}").into());
                return;
            }
        }
        report(download_text("flash-memory.svg", "image/svg+xml", &svg));
    };
    let lab_text = move || lab.lang.get().text();
    view! {
        <div class="flash-result">
            <p class="flash-check" data-testid="flash-equal">
                {move || text().equal} " " {move || diff().map(|d| format!("{d:.1e}")).unwrap_or_default()}
            </p>
            <div>
                <div class="heatmap-tools">
                    <button type="button" class="table-toggle" data-testid="memory-chart-png" on:click=export_png>
                        {move || lab_text().export_png}
                    </button>
                    <button type="button" class="table-toggle" data-testid="memory-chart-svg" on:click=export_svg>
                        {move || lab_text().export_svg}
                    </button>
                </div>
                <canvas class="memory-chart" node_ref=canvas data-testid="memory-chart" role="img"
                    aria-label=move || text().chart_title></canvas>
            </div>
        </div>
    }
}
