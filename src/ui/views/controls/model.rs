//! Which weights attention runs with: seeded random draws of any shape, or one of the four
//! trained models (GPT-2 layout, Llama layout and its gated twin, Qwen3-Next's hybrid), or the
//! user's own; what the model is, and whether it is loaded.

use leptos::prelude::*;

use super::own_model::OwnModelOpener;
use super::widgets::Segmented;
use crate::ui::bridge::model_files::kept_folder;
use crate::ui::i18n::own_model::ModelFacts;
use crate::ui::logic::controls::ModelPick;
use crate::ui::logic::format::group_digits;
use crate::ui::state::Lab;
use crate::ui::state::model::{ModelKey, ModelStatus};
use attention_core::api::{MaskRequest, ModelChoice, ModelFolder};
use attention_core::models::{Layout, Shipped};

#[component]
pub fn ModelControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().model;
    let selected = Signal::from(Memo::new(move |_| {
        lab.request.with(|r| ModelPick::of(r.model.as_ref()))
    }));
    let picker = NodeRef::<leptos::html::Input>::new();
    let select = Callback::new(move |pick: ModelPick| {
        // "Your model": the folder opened last, or the picker when none is open yet.
        let choice = match pick.choice() {
            Some(choice) => choice,
            None => match kept_folder() {
                Some(name) => ModelChoice::Folder(ModelFolder { path: name }),
                None => {
                    if let Some(input) = picker.get_untracked() {
                        input.click();
                    }
                    return;
                }
            },
        };
        lab.edit(|r| {
            // Heads knocked out are the model's: another model starts with all of its heads on.
            if r.model.clone().unwrap_or_default() != choice {
                r.ablate = None;
            }
            let random = choice == ModelChoice::Random;
            r.model = (!random).then_some(choice);
            // The models were trained to look only backwards: they start under a causal mask.
            if !random && r.mask.is_none() {
                r.mask = Some(MaskRequest::Causal);
            }
        });
    });
    // Memos: a keystroke in the sentence changes the request, not the model, and must not
    // rebuild the model's paragraphs (their layout was a typed character's frame's work).
    let key = Memo::new(move |_| lab.request.with(ModelKey::of));
    let key = move || key.get();
    let shipped = Memo::new(move |_| match key() {
        Some(ModelKey::Shipped(shipped)) => Some(shipped),
        _ => None,
    });
    let shipped = move || shipped.get();
    let status = move || match lab.model_status.get() {
        ModelStatus::Idle => String::new(),
        // The other model still in place while this one loads.
        status if status.key() != key() => texts().loading.to_string(),
        ModelStatus::Loading(_) => texts().loading.to_string(),
        ModelStatus::Ready(gpt) => {
            let shape = gpt.0.config;
            let parameters = group_digits(gpt.0.parameter_count() as u64);
            match (key(), shape.layout) {
                (Some(ModelKey::Folder(name)), _) => {
                    (lab.lang.get().text().own_model.ready)(&ModelFacts {
                        name: &name,
                        layout: shape.model_type,
                        layers: shape.n_layers,
                        heads: shape.n_heads,
                        kv_heads: shape.n_kv_heads,
                        width: shape.d_model,
                        parameters: &parameters,
                        megabytes: &megabytes(gpt.0.bytes()),
                        dtype: gpt.0.token_embedding.dtype(),
                    })
                }
                (_, Layout::Gpt2) => {
                    (texts().ready)(shape.n_layers, shape.n_heads, shape.d_model, &parameters)
                }
                (_, Layout::Hybrid) => (texts().hybrid_ready)(
                    shape.n_layers,
                    (0..shape.n_layers).filter(|&l| shape.is_linear(l)).count(),
                    shape.n_heads,
                    shape.n_kv_heads,
                    shape.d_model,
                    &parameters,
                ),
                (_, Layout::Llama) => {
                    let mut said = (texts().llama_ready)(
                        shape.n_layers,
                        shape.n_heads,
                        shape.n_kv_heads,
                        shape.d_model,
                        &parameters,
                    );
                    if shape.output_gate {
                        said.push_str(texts().gated_ready);
                    }
                    said
                }
            }
        }
        ModelStatus::Failed(..) => texts().failed.to_string(),
    };
    // Why it failed, as the browser or the file said it: technical, shown as code.
    let why = move || match lab.model_status.get() {
        ModelStatus::Failed(_, why) if lab.model_status.with(|s| s.key()) == key() => {
            Some(view! { <code class="error-detail" data-testid="model-failed-why">{why}</code> })
        }
        _ => None,
    };
    let trained = move || key().is_some();
    view! {
        <h2>{move || texts().section}</h2>
        <Segmented selected=selected lang=lab.lang test_id="model-choice" on_select=select
            label=Signal::derive(move || texts().section.to_string()) />
        <OwnModelOpener input=picker />
        // What the model is (and whether it loaded) only while it is the one in use.
        <Show when=trained>
            <p class="help block" data-testid="model-status">{status} " " {why}</p>
        </Show>
        <Show when=trained fallback=move || view! {
            <p class="help block" data-testid="weights-untrained">{move || {
                let text = lab.lang.get().text();
                if lab.request.with(|r| r.weights.is_some()) {
                    text.own_weights_note
                } else {
                    text.random_weights_note
                }
            }}</p>
        }>
            <div class="model-about" data-testid="model-about">
                {move || {
                    let about = match (key(), shipped()) {
                        (Some(ModelKey::Folder(_)), _) => &lab.lang.get().text().own_model.about[..],
                        (_, Some(Shipped::Llama)) => &texts().llama_about[..],
                        (_, Some(Shipped::LlamaGated)) => &texts().gated_about[..],
                        (_, Some(Shipped::Hybrid)) => &texts().hybrid_about[..],
                        _ => &texts().about[..],
                    };
                    about.iter().map(|p| view! { <p class="help block">{*p}</p> }).collect_view()
                }}
            </div>
        </Show>
    }
}

/// Bytes as megabytes: one decimal under 10 MB (a small model's 0.1 MB), whole above.
fn megabytes(bytes: usize) -> String {
    let mb = bytes as f64 / 1e6;
    if mb < 10.0 {
        format!("{mb:.1}")
    } else {
        group_digits(mb.round() as u64)
    }
}
