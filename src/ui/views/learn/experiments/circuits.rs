//! The circuits chapter's experiment: on the learner's text with the trained model in use, the
//! induction head and the previous-token head found, the induction head's score taken apart by
//! what its key read, their K-composition against a random baseline, and what knocking the
//! previous-token head out does. Each sentence carries its measured numbers; where this model's
//! circuit is not the textbook one, it says so.

use leptos::prelude::*;

use attention_core::api::{ModelChoice, Request};
use attention_core::teaching::{CircuitsRefusal, circuits_experiment};

use crate::ui::logic::why::circuit_findings;
use crate::ui::state::Lab;
use crate::ui::state::model::ModelStatus;

pub(super) fn view(lab: Lab) -> impl IntoView {
    let t = move || &lab.lang.get().text().learn.circuits;
    let measured = Memo::new(move |_| {
        let model = lab.model_status.with(|s| match s {
            ModelStatus::Ready(m) if lab.request.with(|r| r.is_trained()) => Some(m.0.clone()),
            _ => None,
        })?;
        let run = lab
            .request
            .with(|r| crate::ui::state::model::trained_request(r).trained_run());
        Some(match run {
            Ok((sentence, run)) => circuits_experiment(&model, &sentence, &run),
            Err(_) => Err(CircuitsRefusal::Text),
        })
    });
    let use_gpt2 = move |_| {
        lab.change(Request {
            model: Some(ModelChoice::Trained),
            sentence: Some("xq7kb@ xq7kb".into()),
            ..Request::default()
        });
    };
    move || {
        match measured.get() {
        None => view! {
            <p class="help block" data-testid="lesson-result">{move || t().needs_model}</p>
            <button type="button" class="button" data-testid="lesson-use-gpt2" on:click=use_gpt2>{move || t().use_gpt2}</button>
        }
        .into_any(),
        Some(Err(CircuitsRefusal::NoRepeat)) => view! {
            <p class="note" data-testid="lesson-result">{move || t().no_repeat}</p>
            <button type="button" class="button" data-testid="lesson-use-gpt2" on:click=use_gpt2>{move || t().use_gpt2}</button>
        }
        .into_any(),
        Some(Err(CircuitsRefusal::Hybrid)) => view! {
            <p class="note" data-testid="lesson-result">{move || t().needs_model}</p>
            <button type="button" class="button" data-testid="lesson-use-gpt2" on:click=use_gpt2>{move || t().use_gpt2}</button>
        }
        .into_any(),
        Some(Err(CircuitsRefusal::OneLayer)) => view! { <p class="note" data-testid="lesson-result">{move || t().needs_model}</p> }.into_any(),
        Some(Err(CircuitsRefusal::Text)) => view! { <p class="note" data-testid="lesson-result">{move || t().cannot_run}</p> }.into_any(),
        Some(Ok(e)) => {
            let (layer, head) = e.induction_head;
            let (query, target) = (e.query, e.target);
            // The induction head's score of the target, opened in "Why here?" under the weights.
            let take_apart = move |_| {
                lab.layer.set(layer);
                lab.head.set(head);
                lab.why.set(Some((query, target)));
            };
            view! {
                <ul class="lesson-findings" data-testid="lesson-result">
                    {move || circuit_findings(&e, lab.lang.get()).into_iter().map(|s| view! { <li>{s}</li> }).collect_view()}
                </ul>
                <button type="button" class="button" data-testid="lesson-take-apart" on:click=take_apart>{move || t().take_apart}</button>
            }
            .into_any()
        }
    }
    }
}
