//! Residual + LayerNorm around the attention layer: off, Pre-LN or Post-LN.

use leptos::prelude::*;

use super::widgets::Segmented;
use crate::ui::state::Lab;
use attention_core::api::{LayerNormRequest, Request};

#[component]
pub fn LayerNormControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let selected = Signal::derive(move || lab.request.with(|r| r.layer_norm).unwrap_or_default());
    let select = Callback::new(move |mode: LayerNormRequest| {
        lab.change(Request {
            layer_norm: Some(mode),
            ..Request::default()
        })
    });
    let trained = super::shown::trained(lab);
    view! {
        <h2>{move || text().layer_section}</h2>
        <Show
            when=move || !trained.get()
            fallback=move || view! { <p class="help block" data-testid="norm-fixed">{move || {
                let model = &text().model;
                // The model in use (a folder's too): its norm and its ε.
                let (rms, epsilon) = crate::ui::state::model::in_use(lab.request, lab.model_status).map_or(
                    (
                        lab.request
                            .with(|r| r.trained_layout())
                            .is_some_and(|l| l.rms_norm()),
                        1e-5,
                    ),
                    |m| (m.config.layout.rms_norm(), m.config.norm_epsilon),
                );
                let epsilon = crate::ui::logic::format::power_of_ten(epsilon);
                if rms {
                    (model.llama_fixed_norm)(&epsilon)
                } else {
                    (model.fixed_norm)(&epsilon)
                }
            }}</p> }
        >
            <Segmented selected=selected lang=lab.lang test_id="layer-norm" on_select=select />
            <p class="help block">{move || text().layer_norm_help}</p>
        </Show>
    }
}
