//! Which weights attention runs with: seeded random draws of any shape, or the trained model;
//! what the trained model is, and whether it is loaded.

use leptos::prelude::*;

use super::widgets::Segmented;
use crate::ui::model::format::group_digits;
use crate::ui::state::Lab;
use crate::ui::state::model::ModelStatus;
use attention_core::api::{MaskRequest, ModelChoice};

#[component]
pub fn ModelControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().model;
    let selected = Signal::derive(move || lab.request.with(|r| r.model).unwrap_or_default());
    let select = Callback::new(move |choice: ModelChoice| {
        lab.edit(|r| {
            r.model = (choice == ModelChoice::Trained).then_some(choice);
            // GPT-2 was trained to look only backwards: it starts under a causal mask.
            if choice == ModelChoice::Trained && r.mask.is_none() {
                r.mask = Some(MaskRequest::Causal);
            }
        });
    });
    let status = move || match lab.model_status.get() {
        ModelStatus::Idle => String::new(),
        ModelStatus::Loading => texts().loading.to_string(),
        ModelStatus::Ready(gpt) => {
            let shape = gpt.0.shape;
            let parameters: usize = gpt.0.parameter_count();
            (texts().ready)(
                shape.n_layer,
                shape.n_head,
                shape.n_embd,
                &group_digits(parameters as u64),
            )
        }
        ModelStatus::Failed(why) => (texts().failed)(&why),
    };
    let trained = move || selected.get() == ModelChoice::Trained;
    view! {
        <h2>{move || texts().section}</h2>
        <Segmented selected=selected lang=lab.lang test_id="model-choice" on_select=select />
        // What the model is (and whether it loaded) only while it is the one in use.
        <Show when=trained>
            <p class="help block" data-testid="model-status">{status}</p>
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
                {move || texts().about.iter().map(|p| view! { <p class="help block">{*p}</p> }).collect_view()}
            </div>
        </Show>
    }
}
