//! Getting things out of the lab: downloads (PNG, SVG, CSV, JSON), and the share bar's link and
//! embed code.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use super::heatmap::HeatmapData;
use super::link::{Embed, LinkState};
use super::location;
use super::state::Lab;
use attention_core::api::trace_json;

/// A matrix as CSV: a header of column labels, then one row per row label. Fields with commas,
/// quotes or line breaks are quoted; masked scores are written `-inf`.
pub fn csv(data: &HeatmapData) -> String {
    let field = |text: &str| {
        if text.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.to_string()
        }
    };
    let mut out = String::new();
    out.push_str(
        &std::iter::once(String::new())
            .chain(data.col_labels.iter().map(|c| field(c)))
            .collect::<Vec<_>>()
            .join(","),
    );
    out.push('\n');
    for (row, label) in data.values.outer_iter().zip(&data.row_labels) {
        let cells = row.iter().map(|&v| {
            if v.is_finite() {
                v.to_string()
            } else if v < 0.0 {
                "-inf".into()
            } else {
                "inf".into()
            }
        });
        out.push_str(
            &std::iter::once(field(label))
                .chain(cells)
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
    }
    out
}

/// Saves `text` as a file named `filename`.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let result = download_url(filename, &url);
    web_sys::Url::revoke_object_url(&url)?;
    result
}

/// Saves what `url` (a data or blob URL) holds as `filename`.
pub fn download_url(filename: &str, url: &str) -> Result<(), JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let link: web_sys::HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    link.set_href(url);
    link.set_download(filename);
    link.click();
    Ok(())
}

/// Saves a canvas as a PNG.
pub fn download_png(filename: &str, canvas: &web_sys::HtmlCanvasElement) -> Result<(), JsValue> {
    download_url(filename, &canvas.to_data_url_with_type("image/png")?)
}

/// Reports a failed download in the console (a download is never worth a broken page).
pub fn report(result: Result<(), JsValue>) {
    if let Err(error) = result {
        web_sys::console::error_2(&"attention-lab: the download failed".into(), &error);
    }
}

/// The `<iframe>` a course page pastes to embed the lab as it is now.
pub fn embed_code(state: &LinkState, panels: &[&str]) -> String {
    let embedded = LinkState {
        embed: Some(Embed {
            panels: panels.iter().map(|p| p.to_string()).collect(),
            origin: None,
        }),
        ..state.clone()
    };
    let src = location::href(&embedded)
        .replace('&', "&amp;")
        .replace('"', "&quot;");
    format!(
        "<iframe src=\"{src}\" title=\"Attention Lab\" width=\"100%\" height=\"560\" style=\"border: 0\" loading=\"lazy\"></iframe>"
    )
}

/// Puts `text` on the clipboard; the returned flag says whether that worked.
async fn copy(text: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let clipboard = window.navigator().clipboard();
    wasm_bindgen_futures::JsFuture::from(clipboard.write_text(text))
        .await
        .is_ok()
}

/// Copy link, copy embed code, download the trace. What was copied also shows in a field, so it
/// can be selected by hand where the clipboard is not allowed.
#[component]
pub fn ShareBar() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let shown = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<bool>);
    let share = move |value: String| {
        shown.set(Some(value.clone()));
        status.set(None);
        leptos::task::spawn_local(async move {
            status.set(Some(copy(&value).await));
        });
    };
    view! {
        <div class="share" data-testid="share">
            <button type="button" class="pill" data-testid="share-copy-link"
                on:click=move |_| share(location::href(&location::current(lab)))>
                {move || text().copy_link}
            </button>
            <button type="button" class="pill" data-testid="share-copy-embed"
                on:click=move |_| share(embed_code(&location::current(lab), &["weights", "head-view"]))>
                {move || text().copy_embed}
            </button>
            <button type="button" class="pill" data-testid="share-download-trace"
                on:click=move |_| {
                    if let Some(trace) = lab.shown.get_untracked() {
                        match trace_json(&trace.0) {
                            Ok(json) => report(download_text("attention-trace.json", "application/json", &json)),
                            Err(error) => web_sys::console::error_1(&error.to_string().into()),
                        }
                    }
                }>
                {move || text().download_trace}
            </button>
            {move || shown.get().map(|value| view! {
                <div class="share-result">
                    <input type="text" readonly data-testid="share-text" prop:value=value
                        aria-label=move || text().copy_link
                        on:focus=move |ev| {
                            if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                                input.select();
                            }
                        } />
                    <span class="help" data-testid="share-status" role="status">
                        {move || match status.get() {
                            Some(true) => text().copied,
                            Some(false) => text().copy_by_hand,
                            None => "",
                        }}
                    </span>
                </div>
            })}
        </div>
    }
}
