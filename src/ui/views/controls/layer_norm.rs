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
                if lab.request.with(|r| r.trained_layout()).is_some_and(|l| l.rms_norm()) {
                    model.llama_fixed_norm
                } else {
                    model.fixed_norm
                }
            }}</p> }
        >
            <Segmented selected=selected lang=lab.lang test_id="layer-norm" on_select=select />
            <p class="help block">{move || text().layer_norm_help}</p>
        </Show>
    }
}
