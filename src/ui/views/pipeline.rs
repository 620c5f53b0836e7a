//! The pipeline, one stage after another, each with its formula, a caption and its matrix as a
//! heatmap: tokens → X → Q, K, V → QKᵀ → ÷ (√d_k · T) → + M → softmax → · V → concat → W_O.

use leptos::prelude::*;

use super::flash::FlashView;
use super::head_view::HeadView;
use super::heatmap::{CellPick, Heatmap, Look};
use crate::ui::i18n::StepTexts;
use crate::ui::model::matrix::MatrixView;
use crate::ui::model::stages::Stage;
use crate::ui::state::{ActiveCell, Lab};

/// The language and theme every heatmap of the lab follows.
pub fn look(lab: Lab) -> Look {
    Look {
        lang: lab.lang.into(),
        theme: lab.theme.into(),
    }
}

/// The heatmap of one stage, for the selected head where the stage is per head. A memo: when a
/// change leaves this matrix as it was (a new temperature does not change Q), nothing redraws.
fn stage_data(lab: Lab, stage: Stage) -> Signal<Option<MatrixView>> {
    Memo::new(move |_| {
        let trace = lab.shown.get()?;
        if !stage.is_shown(&trace.0) {
            return None;
        }
        let head = if stage.is_per_head() {
            lab.selected_head()
        } else {
            0
        };
        let values = stage.matrix(&trace.0, head);
        Some(MatrixView {
            scale: stage.scale(&values),
            values,
            row_labels: stage.row_labels(&trace.0),
            col_labels: stage.col_labels(&trace.0),
        })
    })
    .into()
}

/// One stage: title, formula, caption and heatmap; hidden when the trace has no such matrix.
#[component]
pub fn StageCard(stage: Stage) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || stage.text(lab.lang.get());
    let shown = move || {
        lab.shown
            .with(|t| t.as_ref().is_some_and(|t| stage.is_shown(&t.0)))
    };
    let on_cell = Callback::new(move |pick: Option<CellPick>| match pick {
        Some(pick) => lab.active.set(Some(ActiveCell {
            stage,
            head: if stage.is_per_head() {
                lab.selected_head()
            } else {
                0
            },
            row: pick.row,
            col: pick.col,
            x: pick.x,
            y: pick.y,
        })),
        None => {
            if lab.active.get_untracked().is_some_and(|a| a.stage == stage) {
                lab.active.set(None);
            }
        }
    });
    view! {
        <Show when=shown>
            <figure class="stage" data-stage=stage.id()>
                <figcaption>
                    <h3>{move || text().title}</h3>
                    <p class="formula">{move || text().formula}</p>
                    <p class="caption">{move || text().caption}</p>
                </figcaption>
                <div class="heatmap-frame">
                    <Heatmap
                        data=stage_data(lab, stage)
                        look=look(lab)
                        test_id=format!("heatmap-{}", stage.id())
                        label=Signal::derive(move || text().title.to_string())
                        on_cell=on_cell
                        on_drawn=Callback::new(move |_| lab.drawn())
                    />
                </div>
            </figure>
        </Show>
    }
}

/// A row of stages under a step heading.
#[component]
fn Step(
    number: usize,
    /// The step's name in links (`view=…`).
    id: &'static str,
    #[prop(into)] title: Signal<String>,
    stages: Vec<Stage>,
) -> impl IntoView {
    view! {
        <section class="step" data-view=id>
            <h2 class="step-title">
                <span class="step-number">{number}</span>
                {title}
            </h2>
            <div class="stage-row">
                {stages.into_iter().map(|stage| view! { <StageCard stage=stage /> }).collect_view()}
            </div>
        </section>
    }
}

/// Buttons to choose the head the per-head views show.
#[component]
fn HeadSelector() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let heads = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().map_or(0, |t| t.0.heads.len()))
    });
    let group = move || {
        lab.shown.with(|t| {
            t.as_ref().map_or(0, |t| {
                t.0.heads[lab.selected_head().min(t.0.heads.len() - 1)].kv_group
            })
        })
    };
    view! {
        <div class="head-selector" role="tablist" data-testid="head-selector">
            <span class="field-label">{move || text().head_label}</span>
            {move || {
                (0..heads.get())
                    .map(|h| {
                        view! {
                            <button
                                type="button"
                                role="tab"
                                data-testid=format!("head-tab-{h}")
                                aria-selected=move || (lab.selected_head() == h).to_string()
                                class:active=move || lab.selected_head() == h
                                on:click=move |_| lab.head.set(h)
                            >
                                {h + 1}
                            </button>
                        }
                    })
                    .collect_view()
            }}
            <span class="help">"K/V " {move || group() + 1}</span>
        </div>
    }
}

/// Small multiples: every head's weights side by side; a click selects the head.
#[component]
pub fn AllHeads() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    // Only a new number of heads rebuilds the grid; new weights just redraw it.
    let heads = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().map_or(0, |t| t.0.heads.len()))
    });
    view! {
        <section class="step" data-testid="all-heads" data-view="all-heads">
            <h2 class="step-title">{move || text().all_heads}</h2>
            <p class="caption">{move || text().all_heads_help}</p>
            <div class="small-multiples">
                {move || {
                    (0..heads.get())
                        .map(|h| {
                            let data = Memo::new(move |_| {
                                let trace = lab.shown.get()?;
                                let values = trace.0.heads.get(h)?.weights.clone();
                                Some(MatrixView {
                                    scale: Stage::Weights.scale(&values),
                                    values,
                                    row_labels: Vec::new(),
                                    col_labels: Vec::new(),
                                })
                            });
                            view! {
                                <button
                                    type="button"
                                    class="small-multiple"
                                    data-testid=format!("all-heads-{h}")
                                    class:active=move || lab.selected_head() == h
                                    on:click=move |_| lab.head.set(h)
                                >
                                    <span class="small-multiple-title">
                                        {move || text().head_label}
                                        " "
                                        {h + 1}
                                    </span>
                                    <div class="heatmap-frame">
                                        <Heatmap
                                            data=data
                                            look=look(lab)
                                            test_id=format!("heatmap-head-{h}")
                                            label=Signal::derive(move || format!("{} {}", text().head_label, h + 1))
                                            compact=true
                                            on_drawn=Callback::new(move |_| lab.drawn())
                                        />
                                    </div>
                                </button>
                            }
                        })
                        .collect_view()
                }}
            </div>
        </section>
    }
}

/// The whole pipeline.
#[component]
pub fn Pipeline() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let step = move |pick: fn(&StepTexts) -> &'static str| {
        Signal::derive(move || pick(&lab.lang.get().text().steps).to_string())
    };
    let flash = move || {
        lab.shown
            .with(|t| t.as_ref().map(|t| t.0.flash.max_abs_diff))
    };
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
    view! {
        <div class="pipeline">
            <h2 class="pipeline-title">{move || text().pipeline_title}</h2>
            <p class="help block">{move || text().cell_hint}</p>
            <Step
                number=1
                id="tokens"
                title=step(|s| s.tokens)
                stages=vec![Stage::Embeddings, Stage::Positions, Stage::X, Stage::NormedX]
            />
            <div class="sticky-heads">
                <HeadSelector />
            </div>
            <Step
                number=2
                id="qkv"
                title=step(|s| s.qkv)
                stages=vec![Stage::Q, Stage::K, Stage::V]
            />
            <Step
                number=3
                id="scores"
                title=step(|s| s.scores)
                stages=vec![Stage::Dot, Stage::Scaled, Stage::Masked]
            />
            <section class="step" data-view="softmax">
                <h2 class="step-title">
                    <span class="step-number">4</span>
                    {step(|s| s.softmax)}
                </h2>
                <div class="stage-row">
                    <StageCard stage=Stage::Weights />
                    <figure class="stage">
                        <figcaption>
                            <h3>{move || text().head_view_title}</h3>
                            <p class="caption">{move || text().head_view_help}</p>
                        </figcaption>
                        <HeadView />
                    </figure>
                </div>
                <p class="note" data-testid="fully-masked-note">{fully_masked}</p>
            </section>
            <Step
                number=5
                id="values"
                title=step(|s| s.values)
                stages=vec![Stage::HeadOutput]
            />
            <AllHeads />
            <Step
                number=6
                id="combine"
                title=step(|s| s.combine)
                stages=vec![Stage::Concat, Stage::Projected, Stage::Output]
            />
            <p class="flash-check" data-testid="flash-diff">
                {move || text().flash_equal}
                " "
                {move || flash().map(|d| format!("{d:.1e}")).unwrap_or_default()}
            </p>
            <FlashView />
        </div>
    }
}
