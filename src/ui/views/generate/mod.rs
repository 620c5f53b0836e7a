//! The trained model generating, step by step, with its KV cache: play, step or run at once;
//! every step's new query row against the growing cache (per layer, per K/V head); what the
//! cache holds for this model and for MHA, GQA, MQA and MLA; characters per second with and
//! without the cache, measured here. The core's `Decoder` does the work, one step per call, so
//! the page draws between steps and never blocks; a user's model steps in the worker that holds
//! it.
//!
//! [`run`] holds a generation's state and takes its steps; [`in_worker`] starts them in the
//! model's worker; [`strips`] draws the step on view; [`readout`] says it in numbers; this file
//! lays out the controls and the parts.

mod in_worker;
mod readout;
mod run;
mod strips;

use std::time::Duration;

use leptos::prelude::*;

use super::section::{SectionHeading, presented};
use crate::ui::browser::canvas::prefers_reduced_motion;
use crate::ui::logic::link::GenerationView;
use crate::ui::logic::motion::generate_pace;
use crate::ui::logic::sections::Section;
use crate::ui::logic::visible;
use crate::ui::state::Lab;
use crate::ui::state::model::{ModelKey, trained_request};
use attention_core::api::Request;
use readout::{CacheReadout, StepReadout};
use run::Generation;
pub use run::{model, random_draw};
use strips::Strips;

#[component]
pub fn GenerateSection() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let section = Section::Generate;
    view! {
        <section class="step generate-view" data-view=section.id() data-testid="generator"
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <Generator />
        </section>
    }
}

#[component]
fn Generator() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().model.generate;
    let g = Generation::new(lab);
    // Every drawn step is kept in the link as it lands.
    Effect::new(move |_| {
        g.steps.track();
        if g.run.with_value(Option::is_some) {
            g.keep_link();
        }
    });
    // A new sentence, model or setting makes the run stale; the first time the model is ready,
    // a link's generation is run again (the same characters: greedy, or its seed).
    let key = Memo::new(move |_| {
        (
            trained_request(&lab.request.get()),
            g.cache.get(),
            g.sampling.get(),
            model(lab).map(|m| m.config.layout),
        )
    });
    let seen_ready = StoredValue::new(false);
    Effect::new(move |_| {
        let ready = key.with(|k| k.3.is_some());
        g.reset();
        if !ready {
            return;
        }
        if seen_ready.get_value() {
            if lab
                .generation
                .with_untracked(|v| *v != GenerationView::default())
            {
                lab.generation.set(GenerationView::default());
            }
            return;
        }
        seen_ready.set_value(true);
        let linked = lab.generation.get_untracked();
        if linked.steps > 0 {
            g.asked.set(g.asked.get_untracked().max(linked.steps));
            g.go(linked.steps, Duration::ZERO);
        }
    });
    let play = move |_| {
        if g.playing.get_untracked() {
            g.playing.set(false);
            g.target.set(g.taken());
            return;
        }
        if g.done() {
            g.reset();
        }
        g.draw_seed();
        g.playing.set(true);
        // A step every 120 ms, or one a second when reduced motion is asked for.
        g.go(
            g.asked.get_untracked(),
            generate_pace(prefers_reduced_motion()),
        );
    };
    let one = move |_| {
        g.playing.set(false);
        g.draw_seed();
        // One more than asked for so far: a step still on its way from the worker counts.
        g.go(g.target.get_untracked().max(g.taken()) + 1, Duration::ZERO);
    };
    let all = move |_| {
        g.playing.set(false);
        if g.done() {
            g.reset();
        }
        g.draw_seed();
        g.go(g.asked.get_untracked(), Duration::ZERO);
    };
    let restart = move |_| {
        g.playing.set(false);
        g.reset();
        lab.generation.set(GenerationView::default());
    };
    let keep = move |_| {
        let text: String = g
            .steps
            .with_untracked(|s| s.iter().map(|s| s.token.clone()).collect());
        let sentence = lab
            .request
            .with_untracked(|r| r.sentence.clone().unwrap_or_default());
        if !text.is_empty() {
            lab.change(Request {
                sentence: Some(format!("{sentence}{text}")),
                ..Request::default()
            });
        }
    };
    let set_asked = move |ev| {
        if let Ok(v) = event_target_value(&ev).parse::<usize>() {
            g.asked
                .set(v.clamp(1, attention_core::models::generate::MAX_STEPS));
            // A run asked for another number of steps starts again.
            g.playing.set(false);
            g.reset();
        }
    };
    let trained = move || lab.request.with(|r| r.is_trained());
    let loading = move || model(lab).is_none();
    let scrub = move |ev| {
        if let Ok(v) = event_target_value(&ev).parse::<usize>() {
            g.shown.set(Some(v.saturating_sub(1)));
        }
    };
    let (asked, cache, sampling, playing) = (g.asked, g.cache, g.sampling, g.playing);
    // A folder's model writes tokens, not characters.
    let own = move || matches!(lab.request.with(ModelKey::of), Some(ModelKey::Folder(_)));
    view! {
        <p class="help block">{move || {
            if own() { lab.lang.get().text().own_model.generate_help } else { texts().help }
        }}</p>
        <Show when=trained fallback=move || view! { <p class="help block">{move || texts().need_model}</p> }>
            <div class="control-row">
                <label class="control-label">
                    <input type="number" min="1" max="1024" data-testid="generate-steps"
                        prop:value=move || asked.get().to_string() on:change=set_asked />
                    " " {move || if own() { lab.lang.get().text().own_model.steps } else { texts().steps }}
                </label>
                <label class="control-label">
                    <input type="checkbox" data-testid="generate-cache" prop:checked=move || cache.get()
                        on:change=move |ev| cache.set(event_target_checked(&ev)) />
                    " " {move || texts().cache}
                </label>
                <label class="control-label">
                    {move || lab.lang.get().text().model.sampling}
                    " "
                    <input type="range" min="0" max="2" step="0.1" data-testid="generate-sampling"
                        prop:value=move || sampling.get().to_string()
                        on:change=move |ev| if let Ok(v) = event_target_value(&ev).parse() { sampling.set(v) } />
                    " "
                    <span class="help">{move || if sampling.get() == 0.0 { lab.lang.get().text().model.greedy.to_string() } else { format!("{:.1}", sampling.get()) }}</span>
                </label>
            </div>
            <div class="control-row">
                <button type="button" class="button" data-testid="generate-play" on:click=play disabled=loading>
                    {move || if playing.get() { texts().pause } else { texts().play }}
                </button>
                <button type="button" class="button" data-testid="generate-step" on:click=one disabled=loading>{move || texts().step}</button>
                <button type="button" class="button" data-testid="generate" on:click=all disabled=loading>{move || texts().all}</button>
                <button type="button" class="button" data-testid="generate-restart" on:click=restart
                    disabled=move || g.taken() == 0>{move || texts().restart}</button>
            </div>
            {move || loading().then(|| view! { <p class="help block">{lab.lang.get().text().model.loading}</p> })}
            {move || g.error.get().map(|e| view! {
                <p class="error" data-testid="generate-error" role="alert">{move || lab.lang.get().model_problem(&e)}</p>
            })}
            <Show when=move || { g.taken() > 0 }>
                <p class="generated" data-testid="generated">
                    {move || {
                        let n = g.prompt.with(Vec::len);
                        let now = g.at().map(|i| n + i);
                        let hovered = g.hover.get().map(|h| h.2);
                        g.characters().into_iter().enumerate().map(|(i, c)| {
                            let (new, current, hovered) = (i >= n, now == Some(i), hovered == Some(i));
                            view! {
                                <span class:generated-char=new class:current=current
                                    class:hovered=hovered>{visible(&c)}</span>
                            }
                        }).collect_view()
                    }}
                </p>
                <label class="control-label scrubber">
                    {move || texts().shown_step} " "
                    <input type="range" min="1" data-testid="generate-scrub"
                        prop:max=move || g.taken().to_string()
                        prop:value=move || g.at().map_or(1, |i| i + 1).to_string()
                        on:input=scrub />
                    " " <span data-testid="generate-at">{move || format!("{} / {}", g.at().map_or(0, |i| i + 1), g.taken())}</span>
                </label>
                <StepReadout generation=g />
                <Strips generation=g />
                <CacheReadout generation=g />
                <button type="button" class="button" data-testid="generate-keep" on:click=keep>{move || texts().keep}</button>
            </Show>
        </Show>
    }
}
