//! Learn: the guided lessons. A list of chapters, and the current chapter: its text, a "try
//! this", a question to answer before the experiment reveals what happens, the experiment on the
//! learner's own sentence, and the lab's views that show it. A presentation mode fills the screen
//! with the chapter and moves with the arrow keys.

mod experiments;

use leptos::ev;
use leptos::prelude::*;

use attention_core::teaching::Chapter;

use super::flash::FlashView;
use super::head_view::HeadView;
use super::heads::{AllHeads, HeadSelector};
use super::shaping::ShapingSection;
use super::stage_card::StageCard;
use crate::ui::bridge::location;
use crate::ui::browser::{address, share};
use crate::ui::logic::lesson::{Progress, answer};
use crate::ui::logic::link::LinkState;
use crate::ui::logic::stages::Stage;
use crate::ui::logic::visible;
use crate::ui::state::Lab;

/// The lab's views a chapter shows under its experiment.
#[derive(Clone, Copy)]
enum LabView {
    Card(Stage),
    HeadLines,
    Heads,
    Player,
    /// The score options on the learner's numbers (shown when one is on).
    Shaping,
    /// The trained model's heads at a glance, with their knock-out switches.
    Model,
    /// The Linear attention section: the selected head as linear attention, its state.
    Linear,
}

fn lab_views(chapter: Chapter) -> &'static [LabView] {
    use LabView::{Card, HeadLines, Heads, Linear, Model, Player, Shaping};
    match chapter {
        Chapter::Tokens => &[
            Card(Stage::Embeddings),
            Card(Stage::Positions),
            Card(Stage::X),
        ],
        Chapter::Qkv => &[
            Card(Stage::Q),
            Card(Stage::K),
            Card(Stage::V),
            Card(Stage::Dot),
        ],
        Chapter::Scaling => &[Card(Stage::Dot), Card(Stage::Scaled)],
        Chapter::Softmax => &[Card(Stage::Weights), HeadLines],
        Chapter::Masks => &[Card(Stage::Masked), Card(Stage::Weights)],
        Chapter::Positions => &[Card(Stage::Scaled), Card(Stage::Weights), Shaping],
        Chapter::Windows => &[Card(Stage::Masked), Card(Stage::Weights)],
        Chapter::Taming => &[Card(Stage::Scaled), Card(Stage::Weights), Shaping],
        Chapter::Multihead => &[Heads, Card(Stage::Concat), Card(Stage::Projected)],
        Chapter::Gqa => &[Card(Stage::Q), Card(Stage::K), Card(Stage::V)],
        Chapter::Cross => &[Card(Stage::K), Card(Stage::V), Card(Stage::Weights)],
        Chapter::Layernorm => &[Card(Stage::X), Card(Stage::NormedX), Card(Stage::Output)],
        Chapter::Stability => &[Card(Stage::Scaled), Card(Stage::Weights)],
        Chapter::Complexity => &[],
        Chapter::Flash => &[Player],
        Chapter::KvCache => &[Card(Stage::Weights)],
        Chapter::Streaming => &[Card(Stage::Weights)],
        Chapter::Circuits => &[Card(Stage::Weights), Model],
        Chapter::Variants => &[Card(Stage::Weights)],
        Chapter::DeltaRule => &[Linear],
        Chapter::Hybrids => &[],
        Chapter::Exercises => &[],
    }
}

/// The section of the full lab a chapter opens ("open in the full lab").
fn lab_section(chapter: Chapter) -> &'static str {
    match chapter {
        Chapter::Tokens | Chapter::Layernorm => "tokens",
        Chapter::Qkv | Chapter::Gqa | Chapter::Cross => "qkv",
        Chapter::Scaling | Chapter::Stability | Chapter::Positions | Chapter::Taming => "scores",
        Chapter::Softmax | Chapter::Masks | Chapter::Windows | Chapter::Variants => "softmax",
        Chapter::KvCache => "generate",
        Chapter::Streaming => "stream",
        Chapter::Circuits => "model",
        Chapter::Multihead => "all-heads",
        Chapter::Complexity | Chapter::Flash => "flash",
        Chapter::DeltaRule => "linear",
        Chapter::Hybrids => "stream",
        Chapter::Exercises => "tokens",
    }
}

fn lab_view(view: LabView) -> AnyView {
    match view {
        LabView::Card(stage) => view! { <StageCard stage=stage /> }.into_any(),
        LabView::HeadLines => view! {
            <super::linear::SoftmaxOnly><figure class="stage"><HeadView /></figure></super::linear::SoftmaxOnly>
        }
        .into_any(),
        LabView::Heads => view! { <div class="lesson-wide"><AllHeads /></div> }.into_any(),
        LabView::Player => view! {
            <super::linear::SoftmaxOnly><div class="lesson-wide"><FlashView /></div></super::linear::SoftmaxOnly>
        }
        .into_any(),
        LabView::Shaping => view! { <div class="lesson-wide"><ShapingSection /></div> }.into_any(),
        LabView::Linear => {
            view! { <div class="lesson-wide"><super::linear::LinearSection /></div> }.into_any()
        }
        LabView::Model => {
            let lab = expect_context::<Lab>();
            let trained = move || lab.request.with(|r| r.is_trained());
            view! {
                <Show when=trained>
                    <div class="lesson-wide"><super::model_views::ModelOverview /></div>
                </Show>
            }
            .into_any()
        }
    }
}

/// Moves to the chapter before or after the current one.
fn go(lab: Lab, forward: bool) {
    let Some(chapter) = lab.lesson.get_untracked() else {
        return;
    };
    let next = if forward {
        chapter.next()
    } else {
        chapter.previous()
    };
    if let Some(next) = next {
        lab.lesson.set(Some(next));
        if let Some(window) = web_sys::window() {
            window.scroll_to_with_x_and_y(0.0, 0.0);
        }
    }
}

/// The Learn mode of the full page: the chapter list beside the chapter.
#[component]
pub fn LearnMode() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let learn = move || lab.lang.get().text().learn;
    // A chapter opened counts as seen.
    Effect::new(move |_| {
        if let Some(chapter) = lab.lesson.get() {
            lab.progress.update(|p| p.see(chapter));
        }
    });
    // Presenting: ← and → move between chapters, Esc ends (not while typing in a field).
    let keys = window_event_listener(ev::keydown, move |event| {
        if !lab.presenting.get_untracked() {
            return;
        }
        let typing = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if typing {
            return;
        }
        match event.key().as_str() {
            "ArrowRight" | "PageDown" => go(lab, true),
            "ArrowLeft" | "PageUp" => go(lab, false),
            "Escape" => lab.presenting.set(false),
            _ => return,
        }
        event.prevent_default();
    });
    on_cleanup(move || keys.remove());
    view! {
        <div class="learn" data-testid="learn">
            <nav class="chapter-list" aria-label=move || learn().contents>
                <h2>{move || learn().contents}</h2>
                <ol>
                    {Chapter::ALL.into_iter().map(|chapter| {
                        let title = move || learn().chapters[chapter.index()].title;
                        let state = move || lab.progress.with(|p| {
                            match (p.answered(chapter), answer(chapter)) {
                                (Some(a), Some(right)) if a == right => "✓",
                                (Some(_), Some(_)) => "•",
                                _ if p.has_seen(chapter) => "·",
                                _ => "",
                            }
                        });
                        view! {
                            <li>
                                <button type="button" data-testid=format!("chapter-{}", chapter.id())
                                    class:active=move || lab.lesson.get() == Some(chapter)
                                    aria-current=move || (lab.lesson.get() == Some(chapter)).then_some("page")
                                    on:click=move |_| lab.lesson.set(Some(chapter))>
                                    <span class="chapter-mark" aria-hidden="true">{state}</span>
                                    {title}
                                </button>
                            </li>
                        }
                    }).collect_view()}
                </ol>
                <p class="help" data-testid="lesson-score">{move || {
                    let (right, all) = lab.progress.with(Progress::score);
                    (learn().score)(right, all)
                }}</p>
                <p class="help">{move || learn().stored_here}</p>
                <button type="button" class="table-toggle" data-testid="lesson-reset"
                    on:click=move |_| lab.progress.set(Progress::default())>
                    {move || learn().reset}
                </button>
            </nav>
            <ChapterPage />
        </div>
    }
}

/// The current chapter (also what an embed of `?lesson=<id>` shows).
#[component]
pub fn ChapterPage() -> impl IntoView {
    let lab = expect_context::<Lab>();
    move || {
        let chapter = lab.lesson.get()?;
        Some(view! { <ChapterView chapter=chapter /> })
    }
}

#[component]
fn ChapterView(chapter: Chapter) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let learn = move || lab.lang.get().text().learn;
    let text = move || &learn().chapters[chapter.index()];
    let embedded = lab.embed.get_untracked().is_some();
    let revealed = RwSignal::new(false);
    let answered = move || lab.progress.with(|p| p.answered(chapter));
    let open = move || answer(chapter).is_none() || answered().is_some() || revealed.get();
    let open_in_lab = move |_| {
        lab.presenting.set(false);
        lab.lesson.set(None);
        lab.view.set(Some(lab_section(chapter).to_string()));
    };
    view! {
        <article class="chapter" data-testid="chapter" data-chapter=chapter.id()>
            <header class="chapter-head">
                <p class="help">{move || (learn().chapter_of)(chapter.index() + 1, Chapter::ALL.len())}</p>
                <h2 data-testid="chapter-title">{move || text().title}</h2>
                <div class="chapter-tools">
                    <button type="button" class="button" data-testid="chapter-previous"
                        disabled=chapter.previous().is_none() on:click=move |_| go(lab, false)>
                        {move || learn().previous}
                    </button>
                    <button type="button" class="button" data-testid="chapter-next"
                        disabled=chapter.next().is_none() on:click=move |_| go(lab, true)>
                        {move || learn().next}
                    </button>
                    {(!embedded).then(|| view! {
                        <button type="button" class="button" data-testid="present"
                            aria-pressed=move || lab.presenting.get().to_string()
                            on:click=move |_| lab.presenting.update(|p| *p = !*p)>
                            {move || if lab.presenting.get() { learn().end_present } else { learn().present }}
                        </button>
                        <ChapterShare chapter=chapter />
                    })}
                </div>
                <Show when=move || lab.presenting.get()>
                    <p class="help" data-testid="present-help">{move || learn().present_help}</p>
                </Show>
            </header>
            <div class="chapter-body">
                {move || text().body.iter().map(|p| view! { <p>{*p}</p> }).collect_view()}
            </div>
            {(chapter == Chapter::Exercises).then(|| view! { <Exercises /> })}
            {(chapter != Chapter::Exercises).then(|| view! {
                <Focus />
                <p class="try-this" data-testid="try-this"><strong>{move || learn().try_this} ": "</strong>{move || text().try_this}</p>
            })}
            {answer(chapter).map(|right| view! { <Question chapter=chapter right=right revealed=revealed /> })}
            {(chapter != Chapter::Exercises).then(|| view! {
                <section class="lesson-experiment" data-testid="lesson-experiment">
                    <h3>{move || learn().experiment}</h3>
                    <Show when=open fallback=move || view! {
                        <p class="help" data-testid="answer-first">{move || learn().answer_first}</p>
                    }>
                        <div data-testid="experiment-open">{experiments::view(lab, chapter)}</div>
                    </Show>
                </section>
            })}
            {(!lab_views(chapter).is_empty()).then(|| view! {
                <section class="lesson-views">
                    <h3>
                        {move || learn().views}
                        {(!embedded).then(|| view! {
                            " " <button type="button" class="table-toggle" data-testid="open-in-lab" on:click=open_in_lab>
                                {move || learn().open_in_lab}
                            </button>
                        })}
                    </h3>
                    <div class="stage-row">
                        {lab_views(chapter).iter().map(|&v| lab_view(v)).collect_view()}
                    </div>
                </section>
            })}
        </article>
    }
}

/// The head and the query the chapter's experiment looks at.
#[component]
fn Focus() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let tokens = Memo::new(move |_| {
        lab.shown.with(|t| {
            t.as_ref()
                .map(|t| t.0.config.tokens().to_vec())
                .unwrap_or_default()
        })
    });
    let query = move || {
        lab.lesson_query
            .get()
            .min(tokens.with(|t| t.len().saturating_sub(1)))
    };
    view! {
        <div class="lesson-focus">
            <HeadSelector />
            <label class="field-label">
                {move || lab.lang.get().text().learn.query} " "
                <select data-testid="lesson-query"
                    on:change=move |ev| {
                        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                            lab.lesson_query.set(i);
                        }
                    }>
                    {move || tokens.get().iter().enumerate().map(|(i, t)| view! {
                        <option value=i.to_string() selected=move || query() == i>{format!("{} {}", i, visible(t))}</option>
                    }).collect_view()}
                </select>
            </label>
        </div>
    }
}

/// Predict, then reveal: the learner commits to a choice before the experiment shows.
#[component]
fn Question(chapter: Chapter, right: usize, revealed: RwSignal<bool>) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let learn = move || lab.lang.get().text().learn;
    let text = move || &learn().chapters[chapter.index()];
    let answered = move || lab.progress.with(|p| p.answered(chapter));
    view! {
        <section class="question" data-testid="question">
            <h3>{move || learn().predict}</h3>
            <p>{move || text().question}</p>
            <div class="choices" role="group">
                {(0..3).map(|i| view! {
                    <button type="button" class="choice" data-testid=format!("choice-{i}")
                        class:chosen=move || answered() == Some(i)
                        class:right=move || answered().is_some() && i == right
                        aria-pressed=move || (answered() == Some(i)).to_string()
                        on:click=move |_| lab.progress.update(|p| p.answer(chapter, i))>
                        {move || text().choices[i]}
                    </button>
                }).collect_view()}
            </div>
            <Show when=move || answered().is_none() && !revealed.get()>
                <button type="button" class="table-toggle" data-testid="reveal" on:click=move |_| revealed.set(true)>
                    {move || learn().reveal}
                </button>
            </Show>
            {move || answered().map(|a| view! {
                <p class="verdict" data-testid="verdict" class:right=a == right>
                    <strong>{if a == right { learn().right } else { learn().not_quite }}</strong>
                    " " {text().explain}
                </p>
            })}
            {move || (answered().is_none() && revealed.get()).then(|| view! {
                <p class="verdict" data-testid="verdict">{text().explain}</p>
            })}
        </section>
    }
}

/// The articles' exercises: each asks first, takes the learner's answer, and opens its worked
/// answer (each step pointing at a chapter) once they compare or ask to see it.
#[component]
fn Exercises() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let learn = move || lab.lang.get().text().learn;
    const LINKS: [&[Chapter]; 3] = [
        &[Chapter::Complexity, Chapter::Flash],
        &[Chapter::Multihead, Chapter::Gqa],
        &[Chapter::Layernorm],
    ];
    view! {
        <div class="exercises" data-testid="exercises">
            {(0..3).map(|i| {
                let answer = RwSignal::new(String::new());
                let open = RwSignal::new(false);
                view! {
                    <section class="exercise" data-testid=format!("exercise-{i}")>
                        <h3>{move || learn().exercises[i].title}</h3>
                        <ul class="exercise-asks">{move || learn().exercises[i].asks.iter().map(|a| view! { <li>{*a}</li> }).collect_view()}</ul>
                        <label class="exercise-answer">
                            <span class="help">{move || learn().your_answer}</span>
                            <textarea rows="4" data-testid=format!("exercise-answer-{i}")
                                prop:value=move || answer.get()
                                on:input=move |ev| answer.set(event_target_value(&ev))></textarea>
                        </label>
                        <Show when=move || !open.get()>
                            <p>
                                <button type="button" class="button" data-testid=format!("exercise-compare-{i}")
                                    disabled=move || answer.with(|a| a.trim().is_empty())
                                    on:click=move |_| open.set(true)>
                                    {move || learn().compare}
                                </button>
                                " "
                                <button type="button" class="table-toggle" data-testid=format!("exercise-show-{i}")
                                    on:click=move |_| open.set(true)>
                                    {move || learn().worked}
                                </button>
                            </p>
                        </Show>
                        <Show when=move || open.get()>
                            <ol data-testid=format!("exercise-steps-{i}")>{move || learn().exercises[i].steps.iter().map(|s| view! { <li>{*s}</li> }).collect_view()}</ol>
                            <p>
                                {LINKS[i].iter().map(|&c| view! {
                                    <button type="button" class="table-toggle" data-testid=format!("exercise-link-{}", c.id())
                                        on:click=move |_| lab.lesson.set(Some(c))>
                                        {move || format!("{} — {}", learn().x.go_to, learn().chapters[c.index()].title)}
                                    </button>
                                    " "
                                }).collect_view()}
                            </p>
                        </Show>
                    </section>
                }
            }).collect_view()}
        </div>
    }
}

/// A chapter's link and embed code (both keep the sentence and settings).
#[component]
fn ChapterShare(chapter: Chapter) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().share;
    let shown = RwSignal::new(None::<String>);
    let state = move || {
        let mut state = location::current(lab);
        state.view.lesson = Some(chapter);
        state.view.view = None;
        state
    };
    let copy = move |text: String| {
        shown.set(Some(text.clone()));
        leptos::task::spawn_local(async move {
            share::copy(&text).await;
        });
    };
    view! {
        <button type="button" class="table-toggle" data-testid="link-chapter"
            on:click=move |_| copy(address::href(&state()))>
            {move || texts().link_here}
        </button>
        <button type="button" class="table-toggle" data-testid="embed-chapter"
            on:click=move |_| copy(share::embed_code(&LinkState { ..state() }, &crate::ui::logic::sections::CHAPTER_PANELS))>
            {move || texts().embed_here}
        </button>
        {move || shown.get().map(|value| view! {
            <input type="text" class="share-text" readonly data-testid="share-text-chapter" prop:value=value />
        })}
        <crate::ui::views::share_warnings::ShareWarnings shared=shown.into() />
    }
}
