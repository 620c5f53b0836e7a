//! Heads knocked out and who wrote a prediction, on the trained model: a switch on each head of
//! "every head at a glance" (kept in the request's `ablate`, so in links), the line that says
//! what changed (the next character and the sentence's mean loss, before → after), and the
//! bars of "Who wrote this prediction?" under "What comes next".

use std::sync::Arc;

use leptos::prelude::*;

use crate::ui::logic::visible;
use crate::ui::logic::why::{knocked_out, signed, who_wrote};
use crate::ui::state::Lab;
use crate::ui::state::model::{ForwardRef, ModelStatus, pass_request, run};
use attention_core::api::{AblateRequest, KnockoutRequest, Request};
use attention_core::models::{Forward, Model};

/// The trained model in use, when it is loaded.
pub(super) fn model(lab: Lab) -> Option<Arc<Model>> {
    lab.model_status.with(|s| match s {
        ModelStatus::Ready(m) => Some(m.0.clone()),
        _ => None,
    })
}

/// The heads switched off in the request.
fn ablated(lab: Lab) -> Vec<AblateRequest> {
    lab.request.with(|r| r.ablate.clone().unwrap_or_default())
}

/// The heads switched off, as a memo for a grid of heads to share (and given to its switches as
/// [`Ablated`]): each cell subscribes to it, not to the whole request, which every typed
/// character changes (a grid of GPT-2 small's 144 heads re-ran four closures a cell at every
/// keystroke, each leaving and joining the request's long list of subscribers).
pub fn ablated_memo(lab: Lab) -> Memo<Vec<AblateRequest>> {
    let memo = Memo::new(move |_| ablated(lab));
    provide_context(Ablated(memo));
    memo
}

/// The switched-off heads' memo of the grid a switch is in.
#[derive(Clone, Copy)]
pub struct Ablated(pub Memo<Vec<AblateRequest>>);

/// Switches head `head` of layer `layer` (from 0) off or back on, by zero or its mean.
fn toggle(lab: Lab, layer: usize, head: usize, mean: bool) {
    let (layer, head) = (layer + 1, head + 1);
    lab.edit(|request| {
        let mut list = request.ablate.take().unwrap_or_default();
        if let Some(at) = list.iter().position(|a| a.layer == layer && a.head == head) {
            list.remove(at);
        } else {
            list.push(AblateRequest {
                layer,
                head,
                how: if mean {
                    KnockoutRequest::Mean
                } else {
                    KnockoutRequest::Zero
                },
            });
        }
        request.ablate = (!list.is_empty()).then_some(list);
    });
}

/// Whether knocked-out heads are replaced by their mean (rather than zero), shared by the
/// switches and the checkbox.
#[derive(Clone, Copy)]
pub struct MeanAblation(pub RwSignal<bool>);

/// The switch under one head's small multiple.
#[component]
pub fn KnockOut(layer: usize, head: usize) -> impl IntoView {
    let lab = expect_context::<Lab>();
    // Under "every head at a glance" of random weights there is no zero-or-mean choice: zero.
    let mean = use_context::<MeanAblation>().map_or_else(|| RwSignal::new(false), |m| m.0);
    let t = move || lab.lang.get().text().circuits;
    let ablated = use_context::<Ablated>().map_or_else(|| ablated_memo(lab), |a| a.0);
    let on = move || ablated.with(|a| a.iter().any(|a| a.layer == layer + 1 && a.head == head + 1));
    view! {
        <button type="button" class="knock" class:on=on data-testid=format!("knock-{layer}-{head}")
            aria-pressed=move || if on() { "true" } else { "false" }
            aria-label=move || (t().knock_label)(layer + 1, head + 1)
            on:click=move |_| toggle(lab, layer, head, mean.get_untracked())>
            {move || t().knock_out}
        </button>
    }
}

/// Above the grid: zero or mean, switch all back on, and what the knocked-out heads changed.
#[component]
pub fn AblationControls() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let mean = expect_context::<MeanAblation>().0;
    let t = move || lab.lang.get().text().circuits;
    let any = move || {
        lab.request
            .with(|r| r.ablate.as_ref().is_some_and(|a| !a.is_empty()))
    };
    let set_mean = move |on: bool| {
        mean.set(on);
        lab.edit(|request| {
            if let Some(list) = request.ablate.as_mut() {
                for a in list {
                    a.how = if on {
                        KnockoutRequest::Mean
                    } else {
                        KnockoutRequest::Zero
                    };
                }
            }
        });
    };
    // The same sentence with every head on, to compare with: once its own pass has landed (a
    // model's pass on every character typed would freeze the page while the worker computes).
    // A user's model computes it in its worker, asked once the pass the page shows has landed
    // (by the effect below), keyed as that pass is (`pass_request`: on the same backend, so
    // that the difference is the heads knocked out, not two backends' rounding); the lab's own
    // (small) models here.
    let compared_input = Memo::new(move |_| {
        any().then(|| {
            lab.request.with(|r| {
                pass_request(&Request {
                    ablate: None,
                    ..r.clone()
                })
            })
        })
    });
    Effect::new(move |_| {
        let Some(input) = compared_input.get() else {
            return;
        };
        let Some(model) = model(lab) else {
            return;
        };
        let shown = lab.request.with(pass_request);
        let landed = matches!(lab.model_jobs.last(&shown), Some((_, true)));
        if landed && lab.model_jobs.serves(&model) {
            untrack(|| lab.model_jobs.compare(input, model));
        }
    });
    let whole = Memo::new(move |previous: Option<&Option<ForwardRef>>| {
        if !any() {
            return None;
        }
        let model = model(lab)?;
        if lab.model_jobs.serves(&model) {
            let input = compared_input.get()?;
            return lab.model_jobs.compared.with(|c| match c {
                Some((r, Ok(forward))) if *r == input => Some(forward.clone()),
                _ => None,
            });
        }
        if lab.outcome.with(|o| o.pending) {
            return previous.cloned().flatten();
        }
        let request = lab.request.with(|r| Request {
            ablate: None,
            ..r.clone()
        });
        run(&model, &request).ok()
    });
    let changed = move || {
        let lang = lab.lang.get();
        if !any() {
            return lang.text().circuits.no_change.to_string();
        }
        let after = lab
            .forward
            .with(|f| f.as_ref().and_then(|f| f.as_ref().ok()).cloned());
        match (model(lab), after, whole.get()) {
            // The same text on both sides (a comparison pass of an earlier sentence is not
            // compared while the new one is computed).
            (Some(model), Some(after), Some(before)) if before.0.ids == after.0.ids => change_line(
                &model,
                &before.0,
                &after.0,
                &knocked_out(&ablated(lab), lang),
                lang,
            ),
            _ => String::new(),
        }
    };
    view! {
        <div class="ablation" data-testid="ablation">
            <div class="control-row">
                <label class="check">
                    <input type="checkbox" data-testid="ablate-mean" prop:checked=move || mean.get()
                        on:change=move |ev| set_mean(event_target_checked(&ev)) />
                    " " {move || t().mean_ablation}
                </label>
                <button type="button" class="button" data-testid="ablate-restore" disabled=move || !any()
                    on:click=move |_| lab.edit(|r| r.ablate = None)>{move || t().restore_all}</button>
            </div>
            <p class="help">{move || t().mean_help}</p>
            <p class="note" data-testid="ablation-change" aria-live="polite">{changed}</p>
        </div>
    }
}

/// One writer's bar: its name, a bar `fraction` (0 to 1) of the track, and its value in words.
pub(super) fn writer_bar(
    writer: String,
    fraction: f64,
    negative: bool,
    value: String,
) -> impl IntoView {
    view! {
        <li>
            <span class="who-writer">{writer}</span>
            <span class="who-track" aria-hidden="true">
                <span class="who-bar" class:negative=negative style=format!("width: {:.1}%", 100.0 * fraction.clamp(0.0, 1.0))></span>
            </span>
            <span class="who-value">{value}</span>
        </li>
    }
}

/// Random weights with heads knocked out: which, that the stages after them are computed
/// without them, and the way back.
#[component]
pub fn RandomKnockouts() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let t = move || lab.lang.get().text().circuits;
    let heads = move || {
        lab.request
            .with(|r| r.ablate.clone())
            .filter(|a| !a.is_empty())
            .map(|a| knocked_out(&a, lab.lang.get()))
    };
    move || {
        heads().map(|heads| {
            view! {
                <div class="control-row ablation" data-testid="random-ablation">
                    <p class="note" aria-live="polite">{(t().random_knocked)(&heads)}</p>
                    <button type="button" class="button" data-testid="ablate-restore"
                        on:click=move |_| lab.edit(|r| r.ablate = None)>{move || t().restore_all}</button>
                </div>
            }
        })
    }
}

/// "With L1·H2 off: the next character “e” 41.0% → “a” 30.2%; mean loss 2.10 → 2.45 nats."
fn change_line(
    model: &Model,
    before: &Forward,
    after: &Forward,
    heads: &str,
    lang: crate::ui::i18n::Lang,
) -> String {
    let last = before.ids.len().saturating_sub(1);
    let top = |f: &Forward| {
        model
            .predictions(f, last, 1)
            .first()
            .map(|p| {
                format!(
                    "“{}” {:.1}%",
                    visible(&model.vocab[p.id as usize]),
                    p.p * 100.0
                )
            })
            .unwrap_or_default()
    };
    let loss = |f: &Forward| {
        model
            .mean_loss(f)
            .map_or_else(|| "—".into(), |l| format!("{l:.3}"))
    };
    (lang.text().circuits.changed)(
        heads,
        &format!("{} → {}", top(before), top(after)),
        &loss(before),
        &loss(after),
    )
}

/// "Who wrote this prediction?": the direct parts of the likeliest character's logit after
/// `position`, as bars (largest |part| first, the eight largest).
#[component]
pub fn WhoWrote(#[prop(into)] position: Signal<usize>) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let t = move || lab.lang.get().text().circuits;
    let parts = Memo::new(move |_| {
        let lang = lab.lang.get();
        let model = model(lab)?;
        let forward = lab
            .forward
            .with(|f| f.as_ref().and_then(|f| f.as_ref().ok()).cloned())?;
        let at = position.get();
        let best = crate::ui::state::next_logits::predictions(&model, &forward.0, at, 1)
            .into_iter()
            .next()?;
        let character = model.vocab.get(best.id as usize)?.clone();
        let (logit, bars) = who_wrote(&model, &forward.0, at, &character, lang)?;
        Some((character, logit, bars))
    });
    view! {
        {move || parts.get().map(|(character, logit, bars)| {
            let largest = bars.iter().fold(0.0f64, |m, (_, v)| m.max(v.abs())).max(1e-9);
            view! {
                <div class="who-wrote" data-testid="who-wrote">
                    <h3>{move || t().who_title}</h3>
                    <p class="help">{(t().who_help)(&visible(&character), &logit)}</p>
                    <ul class="who-bars" data-testid="who-bars">
                        {bars.into_iter().take(8).map(|(writer, v)| {
                            writer_bar(writer, v.abs() / largest, v < 0.0, signed(v))
                        }).collect_view()}
                    </ul>
                </div>
            }
        })}
    }
}
