//! The page's pipeline, one section after another, each with its stages (formula, caption,
//! heatmap): tokens → X → Q, K, V → QKᵀ → ÷ (√d_k · T) → + M → softmax → · V → concat → W_O, then
//! FlashAttention; with a trained model, its next token, generation, streaming and overview
//! first. Only this file composes the sections; what they share is below them.

use leptos::prelude::*;

use super::controls::Segmented;
use super::flash::FlashView;
use super::generate::GenerateSection;
use super::head_view::HeadView;
use super::heads::{AllHeads, HeadSelector};
use super::linear::LinearSection;
use super::model_views::{ModelOverview, NextToken};
use super::section::{PresentBar, SectionHeading, UnlessSummarised, presented};
use super::shaping::ShapingSection;
use super::stage_card::{StageCard, StageSection};
use super::stream::StreamSection;
use crate::ui::logic::backend::computes_later;
use crate::ui::logic::format::format_ms;
use crate::ui::logic::roles::label;
use crate::ui::logic::sections::Section;
use crate::ui::logic::stages::Stage;
use crate::ui::state::Lab;

/// Softmax: the weights beside the head view, what a fully masked row means, and what random
/// weights mean for the picture.
#[component]
fn SoftmaxSection() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let fully_masked = move || {
        lab.shown.with(|t| {
            let trace = t.as_ref()?;
            let rows =
                &trace.0.heads[lab.selected_head().min(trace.0.heads.len() - 1)].fully_masked_rows;
            (!rows.is_empty()).then(|| {
                let list = rows
                    .iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                (text().fully_masked_note)(&list)
            })
        })
    };
    // Random weights make accidental patterns; a trained head's pattern is what it learned.
    let weights_note = move || {
        let learned = lab.forward.with(|f| {
            let run = f.as_ref()?.as_ref().ok()?;
            let (layer, head) = (lab.layer.get(), lab.selected_head());
            let roles = run.0.head_roles();
            let role = label(roles.get(layer)?.get(head)?, lab.lang.get());
            Some((text().model.learned_note)(layer + 1, head + 1, &role))
        });
        learned.unwrap_or_else(|| {
            let own = lab.request.with(|r| r.weights.is_some());
            if own {
                text().own_weights_note.to_string()
            } else {
                text().random_weights_note.to_string()
            }
        })
    };
    let section = Section::Softmax;
    view! {
        <section class="step" data-view=section.id() id="section-softmax"
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <div class="stage-row">
                <StageCard stage=Stage::Weights />
                <figure class="stage">
                    <figcaption>
                        <h3>{move || text().head_view_title}</h3>
                        <p class="caption">{move || text().head_view_help}</p>
                    </figcaption>
                    <UnlessSummarised test_id="head-view-note" why=|t| t.head_view>
                        <HeadView />
                    </UnlessSummarised>
                </figure>
            </div>
            <p class="note" data-testid="fully-masked-note">{fully_masked}</p>
            <p class="help block" data-testid="weights-note">{weights_note}</p>
        </section>
    }
}

/// While a large trace is computed after a paint: what is being computed (the views keep the
/// last result until it is done). Once a long input's result is shown the note keeps its place,
/// saying what was computed and in how long, so that the views below never move as it comes
/// and goes: they jumped by its height at each edit and at each result (and each jump laid the
/// whole column out and painted it again, in the frame of the keystroke).
#[component]
pub fn ComputingNote() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let note = Memo::new(move |_| {
        let (pending, later) = lab.outcome.with(|o| (o.pending, o.later));
        // A trained model's pass is said by its badge; this note would come and go with each
        // pass and move the column below it (and count the wrong tokens for a model's own).
        let trained = lab.request.with(|r| r.is_trained());
        (pending && later && !trained).then(|| {
            let (tokens, heads) = lab.request.with(|r| {
                (
                    r.lengths().0.unwrap_or(0),
                    r.n_heads
                        .unwrap_or(attention_core::pipeline::config::DEFAULT_N_HEADS),
                )
            });
            (lab.lang.get().text().computing_trace)(tokens, heads)
        })
    });
    // The shown result's tokens and heads, when it is one computed in the background.
    let long = Memo::new(move |_| {
        lab.shown.with(|t| {
            let config = &t.as_ref()?.0.config;
            let (tokens, keys, heads) = (config.seq_len(), config.key_len(), config.dims().n_heads);
            computes_later(heads, tokens, keys).then_some((tokens, heads))
        })
    });
    let done = move || {
        if note.with(Option::is_some) {
            return None;
        }
        let (tokens, heads) = long.get()?;
        let ms = lab
            .outcome
            .with(|o| (!o.pending && o.result.is_ok()).then_some(o.compute_ms))?;
        Some((lab.lang.get().text().computed_trace)(
            tokens,
            heads,
            &format_ms(ms),
        ))
    };
    // Updated by the worker after each head; not announced (the note above is).
    let progress = move || {
        let (pending, later) = lab.outcome.with(|o| (o.pending, o.later));
        let (done, heads) = lab.cpu_jobs.progress.get().filter(|_| pending && later)?;
        Some((lab.lang.get().text().computing_progress)(done, heads))
    };
    view! {
        <div class="computing-note" data-testid="computing-box"
            class:shown=move || note.with(Option::is_some)
            class:kept=move || long.with(Option::is_some)>
            <p role="status" data-testid="computing">{move || note.get()}</p>
            <p data-testid="computed">{done}</p>
            <p class="computing-progress" aria-hidden="true" data-testid="computing-progress">
                {progress}
            </p>
        </div>
    }
}

/// The whole pipeline.
#[component]
pub fn Pipeline() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let flash = move || {
        lab.shown
            .with(|t| t.as_ref().map(|t| t.0.flash.max_abs_diff))
    };
    // A layer of linear attention (a hybrid's Gated DeltaNet) has no scores and no softmax:
    // those steps are left out, said in their place.
    let linear = Memo::new(move |_| super::section::linear_heads(lab));
    let softmax = move || !linear.get();
    let gated = Memo::new(move |_| {
        lab.shown.with(|t| {
            t.as_ref()
                .is_some_and(|t| t.0.config.output_gate().is_some())
        })
    });
    view! {
        <div class="pipeline">
            <div class="pipeline-head">
                <h2 class="pipeline-title">{move || text().pipeline_title}</h2>
                <div class="scale-choice">
                    <span class="field-label">{move || text().scales.title}</span>
                    <Segmented selected=lab.scale_mode lang=lab.lang test_id="scale-mode"
                        on_select=Callback::new(move |mode| lab.scale_mode.set(mode)) />
                </div>
            </div>
            <p class="help block">{move || text().cell_hint} " " {move || text().scales.help}
                {move || linear.get().then(|| format!(" {}", text().linear.scale_note))}</p>
            <PresentBar />
            <ComputingNote />
            <Show when=move || lab.request.with(|r| r.is_trained())>
                <NextToken />
                <GenerateSection />
                <StreamSection />
                <ModelOverview />
            </Show>
            <StageSection section=Section::Tokens />
            <div class="sticky-heads">
                <HeadSelector />
            </div>
            <StageSection section=Section::Qkv />
            <Show when=softmax fallback=move || view! {
                <p class="note block" data-testid="linear-layer-note">
                    {move || {
                        let words = text().linear;
                        if lab.request.with(|r| r.is_trained()) {
                            (words.layer_note)(lab.layer.get() + 1)
                        } else {
                            // The kind of the heads shown (a new request may still be computing).
                            let kind = lab.shown.with(|t| t.as_ref().and_then(|t| t.0.config.linear().map(|(s, _)| s.kind)));
                            let label = kind.map_or("", |k| crate::ui::logic::controls::Choice::label(k, lab.lang.get()));
                            (words.page_note)(label)
                        }
                    }}
                </p>
            }>
                <ShapingSection />
                <StageSection section=Section::Scores />
                <SoftmaxSection />
            </Show>
            <StageSection section=Section::Values />
            <AllHeads />
            <StageSection section=Section::Combine />
            <p class="flash-check" data-testid="flash-diff">
                {move || if linear.get() { text().linear.chunked_equal } else { text().flash_equal }}
                " "
                {move || flash().map(|d| format!("{d:.1e}")).unwrap_or_default()}
            </p>
            // The tile player replays the ungated heads: a gated trace's outputs are not its.
            <Show when=move || softmax() && !gated.get()>
                <FlashView />
            </Show>
            <LinearSection />
        </div>
    }
}
