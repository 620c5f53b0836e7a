//! The Llama twins side by side in the Streaming section: the Llama model and its twin with a
//! sigmoid gate on each head's output, reading the section's text through the same rolling
//! cache, their shares and activations over the same characters (the shorter context). Three signs of an attention sink for each (the strongest head's share on
//! the first character, the largest activation, what dropping the sink tokens costs) and what
//! they say together (`attention_core::models::sinks`). The twin not in use is fetched once,
//! when asked for, without changing the page's model.

use leptos::prelude::*;

use crate::ui::bridge::model_files;
use crate::ui::i18n::model_errors::ModelProblem;
use crate::ui::state::Lab;
use attention_core::models::Shipped;
use attention_core::models::sinks::{SINK_SHARE, SinkReport, sink_report_over, twin_verdict};
use attention_core::models::stream::{StreamError, StreamSpec};

/// Both twins' measures, each one's context, the characters the shares were read over, and the
/// sink tokens kept.
#[derive(Clone, PartialEq)]
struct Compared {
    ungated: SinkReport,
    gated: SinkReport,
    contexts: (usize, usize),
    span: usize,
    sinks: usize,
}

/// Lets the page draw (the "Loading" line) before a long computation on its thread.
async fn pause() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

#[derive(Clone, PartialEq)]
enum State {
    Idle,
    Loading,
    Done(Box<Compared>),
    /// The settings cannot stream (the section's own checks, said the same way).
    Problem(StreamError),
    /// The other twin's files did not come.
    Failed(String),
}

/// Whether the page's model is one of the twins.
pub fn shows_twins(lab: Lab) -> bool {
    lab.request.with(|r| {
        matches!(
            r.shipped_model(),
            Some(Shipped::Llama | Shipped::LlamaGated)
        )
    })
}

#[component]
pub fn StreamTwins(
    text: RwSignal<String>,
    window: RwSignal<usize>,
    sinks: RwSignal<usize>,
    /// In the hybrids chapter, where the text and the cache are not shown.
    #[prop(optional)]
    lesson: bool,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || lab.lang.get().text().twins;
    let state = RwSignal::new(State::Idle);
    let read_with = RwSignal::new(None::<(String, usize, usize)>);
    let stale = move || {
        state.with(|s| matches!(s, State::Done(_)))
            && read_with.with(|r| {
                r.as_ref().is_some_and(|(t, w, k)| {
                    text.with(|now| now != t) || window.get() != *w || sinks.get() != *k
                })
            })
    };
    let compare = move |_| {
        let spec = StreamSpec {
            window: window.get_untracked(),
            sink_tokens: sinks.get_untracked(),
        };
        let text = text.get_untracked();
        read_with.set(Some((text.clone(), spec.window, spec.sink_tokens)));
        state.set(State::Loading);
        leptos::task::spawn_local(async move {
            let ungated = model_files::shipped(Shipped::Llama).await;
            let gated = model_files::shipped(Shipped::LlamaGated).await;
            let (ungated, gated) = match (ungated, gated) {
                (Ok(u), Ok(g)) => (u, g),
                (Err(why), _) | (_, Err(why)) => {
                    state.try_set(State::Failed(why));
                    return;
                }
            };
            // Each reading stops the page for a moment: draw "Loading" first, and stop if the
            // view has gone meanwhile.
            pause().await;
            if state.try_with_untracked(|_| ()).is_none() {
                return;
            }
            let span = ungated.config.context.min(gated.config.context);
            let measured = sink_report_over(&ungated, &text, spec, span)
                .and_then(|u| sink_report_over(&gated, &text, spec, span).map(|g| (u, g)));
            state.try_set(match measured {
                Ok((u, g)) => State::Done(Box::new(Compared {
                    ungated: u,
                    gated: g,
                    contexts: (ungated.config.context, gated.config.context),
                    span,
                    sinks: spec.sink_tokens,
                })),
                Err(e) => State::Problem(e),
            });
        });
    };
    let table = move |c: &Compared| {
        let t = texts();
        let share = |r: &SinkReport| {
            let s = r.strongest();
            (t.share_cell)(s.share, s.layer + 1, s.head + 1)
        };
        let activation = |r: &SinkReport| {
            r.largest().map_or_else(String::new, |(layer, a)| {
                (t.activation_cell)(
                    a.value.abs(),
                    a.value.abs() / a.mean_abs.max(1e-12),
                    layer + 1,
                )
            })
        };
        let loss = |x: f32| format!("{x:.3}");
        let rows: [(String, String, String); 5] = [
            (t.share_row.into(), share(&c.ungated), share(&c.gated)),
            (
                t.activation_row.into(),
                activation(&c.ungated),
                activation(&c.gated),
            ),
            (
                (t.with_row)(c.sinks),
                loss(c.ungated.with_sinks),
                loss(c.gated.with_sinks),
            ),
            (
                t.without_row.into(),
                loss(c.ungated.without_sinks),
                loss(c.gated.without_sinks),
            ),
            (
                t.cost_row.into(),
                format!("{:+.3}", c.ungated.drop_cost()),
                format!("{:+.3}", c.gated.drop_cost()),
            ),
        ];
        view! {
            <table class="share-table twins-table" data-testid="stream-twins-table">
                <caption>{(t.caption)(c.span)}</caption>
                <thead><tr>
                    {t.columns.iter().map(|c| view! { <th scope="col">{*c}</th> }).collect_view()}
                </tr></thead>
                <tbody>
                    {rows.into_iter().map(|(head, a, b)| view! {
                        <tr><th scope="row">{head}</th><td>{a}</td><td>{b}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
        }
    };
    let outcome = move || {
        match state.get() {
        State::Idle => None,
        State::Loading => Some(
            view! { <p class="help block" data-testid="stream-twins-loading">{texts().loading}</p> }
                .into_any(),
        ),
        State::Failed(why) => Some(
            view! { <p class="error" role="alert" data-testid="stream-twins-error">{(texts().failed)(&why)}</p> }
                .into_any(),
        ),
        State::Problem(e) => Some(
            view! { <p class="error" role="alert" data-testid="stream-twins-error">{move || lab.lang.get().model_problem(&ModelProblem::Stream(e.clone()))}</p> }
                .into_any(),
        ),
        State::Done(c) => {
            let t = texts();
            let verdict = (t.verdict)(
                twin_verdict(&c.ungated, &c.gated),
                c.ungated.strongest().share,
                c.gated.strongest().share,
                c.ungated.drop_cost(),
                c.gated.drop_cost(),
                SINK_SHARE,
            );
            Some(
                view! {
                    {table(&c)}
                    <p class="block" data-testid="stream-twins-verdict">{verdict}</p>
                    <p class="help block" data-testid="stream-twins-tried">{(t.tried)(c.contexts.0, c.contexts.1)}</p>
                }
                .into_any(),
            )
        }
    }
    };
    view! {
        <div class="stream-twins" data-testid="stream-twins">
            <h3>{move || texts().title}</h3>
            <p class="help block">{move || if lesson { texts().lesson_help } else { texts().help }}</p>
            <button type="button" class="button" data-testid="stream-twins-run" on:click=compare
                disabled=move || state.with(|s| *s == State::Loading)>{move || texts().run}</button>
            <Show when=stale>
                <p class="note" role="status" data-testid="stream-twins-stale">{move || texts().stale}</p>
            </Show>
            // One live region, there from the start: what came of the comparison is announced.
            <div aria-live="polite">{outcome}</div>
        </div>
    }
}
