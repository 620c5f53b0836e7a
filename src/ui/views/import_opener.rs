//! Opening one's own attention: a file picker, a tokens field, pasted JSON (dropping a file
//! anywhere is handled by the app shell); what was opened, and the way back to the lab's own
//! numbers.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::bridge::files;
use crate::ui::state::Lab;
use crate::ui::state::imported::{OpenStatus, parse_tokens};
use attention_core::io::import::{Format, Tensors};

/// "Open your own attention": a file, tokens beside it, or pasted JSON; what was opened and the
/// way back to the lab's own numbers.
#[component]
pub fn ImportOpener() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || lab.lang.get().import();
    let pasted = RwSignal::new(String::new());
    let tokens = lab.import_tokens;
    // Opens by itself to say why a dropped file was refused (and never closes by itself).
    let details = NodeRef::<leptos::html::Details>::new();
    Effect::new(move |_| {
        if lab.open_status.with(Option::is_some)
            && let Some(details) = details.get()
        {
            details.set_open(true);
        }
    });
    let on_pick = move |ev: web_sys::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            files::open_picked(lab, file, parse_tokens(&tokens.get_untracked()));
        }
        // The same file chosen again opens again.
        input.set_value("");
    };
    let open_pasted = move |_| {
        let text = pasted.get_untracked();
        let name = texts().pasted_name;
        let _ = files::open(
            lab,
            name,
            Some(Format::Json),
            text.as_bytes(),
            parse_tokens(&tokens.get_untracked()),
            None,
        );
    };
    view! {
        <details class="panel import-opener" data-testid="import-opener" node_ref=details>
            <summary data-testid="import-open">{move || texts().open_title}</summary>
            <p class="help block">{move || texts().open_help}</p>
            <label class="button file-button">
                {move || texts().choose_file}
                <input type="file" class="visually-hidden" data-testid="import-file"
                    accept=".json,.npz,.npy,.safetensors,application/json"
                    on:change=on_pick />
            </label>
            <p class="help block">{move || texts().drop_hint}</p>
            <label class="field">
                <span class="field-label">{move || texts().tokens_label}</span>
                <input type="text" data-testid="import-tokens" prop:value=move || tokens.get()
                    on:input=move |ev| tokens.set(event_target_value(&ev)) />
                <span class="help">{move || texts().tokens_help}</span>
            </label>
            <label class="field">
                <span class="field-label">{move || texts().paste_label}</span>
                <textarea rows="4" data-testid="import-paste" spellcheck="false"
                    placeholder=r#"{"attention": [[1, 0], [0.3, 0.7]], "tokens": ["a", "b"]}"#
                    prop:value=move || pasted.get()
                    on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
            </label>
            <button type="button" class="button" data-testid="import-paste-open"
                disabled=move || pasted.with(|p| p.trim().is_empty())
                on:click=open_pasted>
                {move || texts().paste_button}
            </button>
            <ImportStatus />
        </details>
    }
}

/// The opener's last word: a file being read, or why it was refused.
#[component]
pub fn ImportStatus() -> impl IntoView {
    let lab = expect_context::<Lab>();
    move || {
        let lang = lab.lang.get();
        lab.open_status.get().map(|status| match status {
            OpenStatus::Reading(name) => view! {
                <p class="help" role="status" data-testid="import-reading">{(lang.import().reading)(&name)}</p>
            }
            .into_any(),
            OpenStatus::Refused { name, why } => view! {
                <p class="error" role="alert" data-testid="import-error">
                    {(lang.import().refused)(&name, &why.message(lang))}
                </p>
            }
            .into_any(),
        })
    }
}

/// What is open, and the way back (shown above the controls while a file is open).
/// `embedded`: in a course page's embed, which shows the author's file, without the way back.
#[component]
pub fn ImportSummary(#[prop(optional)] embedded: bool) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || lab.lang.get().import();
    let summary = move || {
        let lang = lab.lang.get();
        lab.imported.with(|file| {
            let file = file.as_ref()?;
            let t = &file.data.tensors;
            let holds = match t {
                Tensors::Attention(_) => lang.import().holds_weights.to_string(),
                Tensors::Vectors { q, v, .. } => {
                    (lang.import().holds_vectors)(q.dim().3, v.is_some())
                }
            };
            Some((lang.import().summary)(
                &file.name,
                t.layers(),
                t.heads(),
                t.queries(),
                t.keys(),
                &holds,
            ))
        })
    };
    let note = move || {
        lab.imported.with(|f| match f {
            Some(f) if f.from_vectors() => texts().vectors_note,
            _ => texts().weights_note,
        })
    };
    view! {
        <Show when=move || lab.is_imported()>
            <div class="panel import-summary" data-testid="import-summary">
                <p data-testid="import-summary-text"><strong>{summary}</strong></p>
                <p class="help block">{note}</p>
                {move || lab.imported_run.with(|r| match r {
                    Some(Ok(run)) => run.0.rope.map(|(base, pairing, _)| {
                        let t = texts();
                        let pairing = t.pairings[usize::from(pairing == attention_core::math::scoring::Pairing::Interleaved)];
                        view! { <p class="note" data-testid="import-rope">{(t.rope_note)(&format!("{base}"), pairing)}</p> }
                    }),
                    _ => None,
                })}
                <ul class="import-notices" data-testid="import-notices">
                    {move || {
                        let lang = lab.lang.get();
                        lab.imported.with(|f| {
                            f.as_ref().map(|f| {
                                f.data.notices.iter().map(|n| view! { <li>{lang.import_notice(n)}</li> }).collect_view()
                            })
                        })
                    }}
                </ul>
                {(!embedded).then(|| view! {
                    <button type="button" class="button" data-testid="import-back"
                        on:click=move |_| lab.show_imported(None)>
                        {move || texts().back}
                    </button>
                })}
            </div>
        </Show>
    }
}
