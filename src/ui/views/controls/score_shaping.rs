//! What happens to the scores beyond ÷ (√d_k · T): a soft-cap, QK-norm, and a sink logit per
//! head. Each takes effect as it changes; bad values (a cap ≤ 0, a logit that is not a number)
//! are the core's to refuse, and the page shows its message.

use leptos::prelude::*;

use super::widgets::parse;
use crate::ui::state::Lab;

/// The cap offered when the soft-cap is switched on: small enough to bend the lab's scores.
const DEFAULT_CAP: f64 = 2.0;

#[component]
pub fn ScoreShapingControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().shaping;
    // Memos: a change elsewhere in the request (the temperature) must not rewrite these inputs.
    let softcap = Memo::new(move |_| lab.request.with(|r| r.softcap));
    let softcap = move || softcap.get();
    let qk_norm = Memo::new(move |_| lab.request.with(|r| r.qk_norm.unwrap_or(false)));
    let sinks = Memo::new(move |_| lab.request.with(|r| r.sink_logits.clone()));
    let sinks = move || sinks.get();
    let heads = super::shown::shown_dims(lab);
    let set_cap = move |cap: Option<f64>| lab.edit(|r| r.softcap = cap);
    let set_sinks = move |logits: Option<Vec<f64>>| lab.edit(|r| r.sink_logits = logits);
    view! {
        <div data-testid="shaping-control">
        <h2>{move || words().section}</h2>
        <div class="control">
            <label class="checkbox">
                <input
                    type="checkbox"
                    data-testid="softcap-on"
                    prop:checked=move || softcap().is_some()
                    on:change=move |ev| {
                        set_cap(event_target_checked(&ev).then_some(DEFAULT_CAP));
                    }
                />
                {move || words().softcap}
            </label>
            <p class="help block">{move || words().softcap_help}</p>
            <Show when=move || softcap().is_some()>
                <div class="control-row">
                    <input
                        type="number"
                        data-testid="softcap"
                        aria-label=move || words().softcap
                        step="any"
                        prop:value=move || softcap().map(|c| c.to_string()).unwrap_or_default()
                        on:change=move |ev| {
                            if let Some(c) = parse::<f64>(&event_target_value(&ev)) {
                                set_cap(Some(c));
                            }
                        }
                    />
                </div>
            </Show>
        </div>
        <div class="control">
            <label class="checkbox">
                <input
                    type="checkbox"
                    data-testid="qk-norm"
                    prop:checked=qk_norm
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        lab.edit(|r| r.qk_norm = on.then_some(true));
                    }
                />
                {move || words().qk_norm}
            </label>
            <p class="help block">{move || words().qk_norm_help}</p>
        </div>
        <div class="control">
            <label class="checkbox">
                <input
                    type="checkbox"
                    data-testid="sinks-on"
                    prop:checked=move || sinks().is_some()
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        set_sinks(on.then(|| vec![0.0; heads.get_untracked().n_heads]));
                    }
                />
                {move || words().sink_logits}
            </label>
            <p class="help block">{move || words().sink_logits_help}</p>
            {move || {
                sinks().map(|logits| {
                    view! {
                        <div class="control-row sink-logits" data-testid="sink-logits">
                            {logits
                                .iter()
                                .enumerate()
                                .map(|(h, &value)| {
                                    view! {
                                        <label class="sink-logit">
                                            <span>{format!("h{}", h + 1)}</span>
                                            <input
                                                type="number"
                                                step="any"
                                                data-testid=format!("sink-logit-{h}")
                                                prop:value=value.to_string()
                                                on:change=move |ev| {
                                                    let Some(v) = parse::<f64>(&event_target_value(&ev)) else {
                                                        return;
                                                    };
                                                    lab.edit(|r| {
                                                        if let Some(l) = r.sink_logits.as_mut().and_then(|l| l.get_mut(h)) {
                                                            *l = v;
                                                        }
                                                    });
                                                }
                                            />
                                        </label>
                                    }
                                })
                                .collect_view()}
                        </div>
                    }
                })
            }}
        </div>
        </div>
    }
}
