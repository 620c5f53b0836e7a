//! A heatmap's tools: save it as a PNG for slides (at twice the pixels or more, with a title line
//! when titles are on, under a name that says what it is), save its numbers as CSV, or show them
//! as a table.

use leptos::prelude::*;

use super::draw::{self, Layout};
use super::look::Look;
use crate::ui::browser::canvas::{computed, pixel_ratio};
use crate::ui::browser::share::{download_png, download_text, report};
use crate::ui::logic::matrix::{MatrixView, csv};

/// Exported images have at least this many device pixels per CSS pixel.
const EXPORT_RATIO: f64 = 2.0;

#[allow(clippy::too_many_arguments)]
#[component]
pub fn HeatmapTools(
    #[prop(into)] data: Signal<Option<MatrixView>>,
    layout: ReadSignal<Option<Layout>>,
    look: Look,
    #[prop(into)] label: Signal<String>,
    /// The title line and the file name (without extension) of an export.
    export: Signal<(String, String)>,
    test_id: String,
    offers_table: bool,
    as_table: RwSignal<bool>,
) -> impl IntoView {
    let text = move || look.lang.get().text();
    let export_png = move |ev: leptos::ev::MouseEvent| {
        let (Some(data), Some(layout)) = (data.get_untracked(), layout.get_untracked()) else {
            return;
        };
        let (title, name) = export.get_untracked();
        let element = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok());
        let ink = element
            .as_ref()
            .and_then(|e| computed(e, "color"))
            .unwrap_or_else(|| "#1e2330".into());
        let paper = element
            .as_ref()
            .and_then(|e| computed(e, "--panel"))
            .unwrap_or_else(|| "#ffffff".into());
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let titled = look.titles.get_untracked().then_some(title.as_str());
        let canvas = draw::export(
            &document,
            &layout,
            &data,
            titled,
            look.lang.get_untracked(),
            (&ink, &paper),
            pixel_ratio().max(EXPORT_RATIO),
        );
        match canvas {
            Ok(canvas) => report(download_png(&format!("{name}.png"), &canvas)),
            Err(error) => web_sys::console::error_2(&"export failed".into(), &error),
        }
    };
    let export_csv = move |_| {
        if let Some(data) = data.get_untracked() {
            let (_, name) = export.get_untracked();
            report(download_text(
                &format!("{name}.csv"),
                "text/csv",
                &csv(&data),
            ));
        }
    };
    view! {
        <div class="heatmap-tools">
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
                data-testid=format!("{test_id}-table-toggle")
                aria-pressed=move || as_table.get().to_string()
                on:click=move |_| as_table.update(|t| *t = !*t)
            >
                {move || if as_table.get() { text().hide_table } else { text().show_table }}
            </button>
        </div>
    }
}
