//! The share bar: copy the link, copy the embed code, download the trace. What was copied also
//! shows in a field, so it can be selected by hand where the clipboard is not allowed.

use leptos::prelude::*;

use super::share_warnings::ShareWarnings;
use wasm_bindgen::JsCast;

use crate::ui::bridge::location;
use crate::ui::browser::address;
use crate::ui::browser::share::{copy, download_text, embed_code, report};
use crate::ui::logic::sections::{DEFAULT_PANELS, Section};
use crate::ui::state::Lab;

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
                on:click=move |_| share(address::href(&location::current(lab)))>
                {move || text().copy_link}
            </button>
            <button type="button" class="pill" data-testid="share-copy-embed"
                on:click=move |_| {
                    // The section in view, or the weights and the head view.
                    let panels = lab
                        .view
                        .get_untracked()
                        .and_then(|v| Section::from_id(&v))
                        .map_or(DEFAULT_PANELS.to_vec(), Section::panels);
                    share(embed_code(&location::current(lab), &panels))
                }>
                {move || text().copy_embed}
            </button>
            <button type="button" class="pill" data-testid="share-download-trace"
                on:click=move |_| {
                    // A user's own file: its numbers (in the trace's shape, with its tensors as
                    // the JSON format names them, so that the download opens again).
                    if lab.imported.with_untracked(Option::is_some) {
                        if let Some(Ok(run)) = lab.imported_run.get_untracked() {
                            let json = attention_core::api::import::run_json(&run.0, lab.layer.get_untracked()).to_string();
                            report(download_text("attention-trace.json", "application/json", &json));
                        }
                        return;
                    }
                    if let Some(trace) = lab.shown.get_untracked() {
                        match trace.to_json() {
                            Ok(json) => report(download_text("attention-trace.json", "application/json", &json)),
                            Err(error) => web_sys::console::error_1(&error.to_string().into()),
                        }
                    }
                }>
                {move || text().download_trace}
            </button>
            <label class="checkbox inline pill">
                <input type="checkbox" data-testid="export-titles" prop:checked=lab.export_titles
                    on:change=move |ev| lab.export_titles.set(event_target_checked(&ev)) />
                {move || text().share.titles_on_images}
            </label>
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
            <ShareWarnings shared=shown.into() />
        </div>
    }
}
