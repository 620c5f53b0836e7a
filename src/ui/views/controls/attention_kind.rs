//! Which attention the whole page computes: the softmax, or linear attention (elu + 1, the delta
//! rule, gated) with its chunk; and the output gate. A setting that cannot go with linear
//! attention (a sliding mask, a temperature, a soft-cap…) is the core's to refuse: its message
//! is shown here, under the control, as well as at the top of the page.

use leptos::prelude::*;

use super::widgets::{Segmented, parse};
use crate::ui::logic::linear::AttentionChoice;
use crate::ui::state::Lab;
use attention_core::api::{LinearRequest, RequestError};
use attention_core::math::linear::{DEFAULT_CHUNK, MAX_CHUNK};
use attention_core::pipeline::error::ConfigError;

/// Whether `error` is about linear attention or the output gate (shown under this control).
fn concerns_attention_kind(error: &RequestError) -> bool {
    match error {
        RequestError::Config(ConfigError::NotWithLinear { .. }) => true,
        RequestError::Config(config) => config.field().starts_with("linear"),
        RequestError::Input { field, .. } => matches!(*field, "linear" | "output_gate"),
        _ => false,
    }
}

#[component]
pub fn AttentionKindControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().linear;
    let linear = Memo::new(move |_| lab.request.with(|r| r.linear));
    let selected = Signal::derive(move || lab.request.with(AttentionChoice::of));
    let gated = Memo::new(move |_| lab.request.with(|r| r.output_gate.unwrap_or(false)));
    let select = Callback::new(move |choice: AttentionChoice| {
        lab.edit(|r| r.linear = choice.request(r.linear));
    });
    let set_chunk = move |chunk: usize| {
        lab.edit(|r| {
            if let Some(l) = r.linear.as_mut() {
                l.chunk = Some(chunk);
            }
        })
    };
    let trained = super::shown::trained(lab);
    // The shipped hybrid or a Qwen3-Next folder: what its layers are; a gated Llama (the sink
    // twin): its gate.
    let fixed = move || {
        let model = crate::ui::state::model::in_use(lab.request, lab.model_status);
        let every = model.as_ref().and_then(|m| m.config.hybrid_every);
        let gated = model.is_some_and(|m| m.config.output_gate);
        (words().fixed)(every, gated)
    };
    let error = move || {
        let lang = lab.lang.get();
        lab.error()
            .filter(concerns_attention_kind)
            .map(|e| lang.request_error(&e))
    };
    view! {
        <div data-testid="attention-kind-control">
        <h2>{move || words().section}</h2>
        <Show
            when=move || !trained.get()
            fallback=move || view! {
                <p class="help block" data-testid="attention-kind-fixed">{fixed}</p>
            }
        >
            <div class="control">
                <Segmented selected=selected lang=lab.lang test_id="attention-kind" on_select=select
                    label=Signal::derive(move || words().section.to_string()) />
                <p class="help block">{move || words().control_help}</p>
                <Show when=move || linear.get().is_some()>
                    <label class="control-row field-label">
                        {move || words().chunk} " "
                        <input type="number" min="1" max=MAX_CHUNK.to_string() data-testid="attention-chunk"
                            prop:value=move || linear.get().map_or(DEFAULT_CHUNK, |l: LinearRequest| l.chunk.unwrap_or(DEFAULT_CHUNK)).to_string()
                            on:change=move |ev| {
                                // Out of range is the core's to refuse, with its message below;
                                // what is no whole number is put back as it was.
                                match parse::<usize>(&event_target_value(&ev)) {
                                    Some(chunk) => set_chunk(chunk),
                                    None => {
                                        let now = linear.get_untracked().and_then(|l| l.chunk).unwrap_or(DEFAULT_CHUNK);
                                        event_target::<web_sys::HtmlInputElement>(&ev).set_value(&now.to_string());
                                    }
                                }
                            } />
                    </label>
                </Show>
            </div>
            <div class="control">
                <label class="checkbox">
                    <input type="checkbox" data-testid="output-gate"
                        prop:checked=move || gated.get()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            lab.edit(|r| r.output_gate = on.then_some(true));
                        } />
                    {move || words().gate}
                </label>
                <p class="help block">{move || words().gate_help}</p>
            </div>
            {move || error().map(|message| view! {
                <p class="note error-inline" role="status" data-testid="attention-kind-error">{message}</p>
            })}
        </Show>
        </div>
    }
}
