//! The Llama model reading a text longer than its context through a rolling KV cache, with and
//! without sink tokens, beside a sliding-window recompute: the loss curves, their means, each
//! head's share of attention on the first character, and what these numbers say. The rolling
//! runs are fast and land at once; the recompute (a forward pass per position) lands a frame's
//! worth at a time, the curve filling in. A model folder of one's own (rotary positions) reads
//! in its worker (`ModelJobs::stream`), its progress shown, the same numbers coming back.

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;

use super::chart::Chart;
use super::section::{SectionHeading, presented};
use super::stream_twins::{StreamTwins, shows_twins};
use crate::ui::browser::clock::now_ms;
use crate::ui::i18n::model_errors::ModelProblem;
use crate::ui::logic::line_chart::{COLORS, LineChart, Series};
use crate::ui::logic::sections::Section;
use crate::ui::state::{Lab, Streamed};
use attention_core::models::stream::{
    SAMPLE_TEXT, SHARE_TOKENS, StreamError, StreamSpec, first_token_share, recompute_at, rolling,
    stream_ids,
};
use attention_core::models::{Layout, Model};

/// The recompute runs for this long before the page draws.
const FRAME_BUDGET_MS: f64 = 12.0;
/// The curves' moving average, in positions.
const SMOOTH: usize = 32;

/// One reading of a text.
#[derive(Clone, PartialEq)]
struct Reading {
    window: usize,
    sinks: usize,
    with_sinks: Vec<f32>,
    without_sinks: Vec<f32>,
    recompute: Vec<f32>,
    /// Positions of the recompute still to come.
    total: usize,
    share: Vec<Vec<f32>>,
}

fn mean(values: &[f32]) -> f32 {
    values.iter().sum::<f32>() / values.len().max(1) as f32
}

/// A trailing moving average, as (position, value) points from the first full window on.
fn smoothed(losses: &[f32]) -> Vec<(f64, f64)> {
    let mut points = Vec::new();
    let mut sum = 0.0f64;
    for (i, &l) in losses.iter().enumerate() {
        sum += f64::from(l);
        if i >= SMOOTH {
            sum -= f64::from(losses[i - SMOOTH]);
        }
        if i + 1 >= SMOOTH.min(losses.len()) {
            points.push(((i + 1) as f64, sum / (i + 1).min(SMOOTH) as f64));
        }
    }
    points
}

/// What the model's worker read, into the view's signals: the reading's progress, both rolling
/// runs and the share at once, then the recompute as it comes.
fn from_worker(
    answer: Streamed,
    spec: StreamSpec,
    total: usize,
    reading: RwSignal<Option<Reading>>,
    progress: RwSignal<Option<(usize, usize, usize)>>,
    ended: RwSignal<bool>,
) {
    match answer {
        Streamed::Reading { phase, done, total } => {
            progress.try_set(Some((phase, done, total)));
        }
        Streamed::Read {
            with_sinks,
            without_sinks,
            share,
        } => {
            progress.try_set(None);
            reading.try_set(Some(Reading {
                window: spec.window,
                sinks: spec.sink_tokens,
                total,
                with_sinks,
                without_sinks,
                recompute: Vec::new(),
                share,
            }));
        }
        Streamed::Recomputed { from, losses } => {
            reading.try_update(|r| {
                if let Some(r) = r
                    && r.recompute.len() == from
                {
                    r.recompute.extend(losses);
                }
            });
        }
        Streamed::Ended => {
            progress.try_set(None);
            let whole = reading
                .try_with_untracked(|r| r.as_ref().is_some_and(|r| r.recompute.len() == r.total));
            ended.try_set(whole == Some(false));
        }
    }
}

#[component]
pub fn StreamSection() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let section = Section::Stream;
    let texts = move || &lab.lang.get().text().model.stream;
    // The model in use, not every change of the request: a new sentence keeps the reading.
    let layout = Memo::new(move |_| lab.request.with(|r| r.trained_layout()));
    let layout = move || layout.get();
    // Which of the lab's models (the Llama twins share a layout).
    let shipped = Memo::new(move |_| lab.request.with(|r| r.shipped_model()));
    let model = move || -> Option<Arc<Model>> { super::generate::model(lab) };
    // Which folder (its layout is none of the lab's: another folder, or the same one opened
    // again, is another model); the lab's own models are told apart by their layout.
    let model_address = Memo::new(move |_| {
        let folder = lab
            .request
            .with(|r| r.model.as_ref().and_then(|m| m.folder()).is_some());
        folder
            .then(|| model().map(|m| Arc::as_ptr(&m) as usize))
            .flatten()
    });
    let text = RwSignal::new(SAMPLE_TEXT.to_string());
    let window = RwSignal::new(64usize);
    let sinks = RwSignal::new(4usize);
    let reading = RwSignal::new(None::<Reading>);
    let error = RwSignal::new(None::<ModelProblem>);
    // A folder's model reading in its worker: (phase, tokens done, all), and whether the worker
    // stopped before the end.
    let worker_reading = RwSignal::new(None::<(usize, usize, usize)>);
    let ended = RwSignal::new(false);
    let not_ready = RwSignal::new(false);
    // The view gone, what its worker reads is not wanted.
    on_cleanup(move || lab.model_jobs.stop_stream());
    // What the shown results were read with; when the inputs differ, the results say so.
    let read_with = RwSignal::new(None::<(String, usize, usize)>);
    let stale = move || {
        reading.with(Option::is_some)
            && read_with.with(|r| {
                r.as_ref().is_some_and(|(t, w, k)| {
                    text.with(|now| now != t) || window.get() != *w || sinks.get() != *k
                })
            })
    };
    // Each run has a number; a recompute of an older run stops.
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        // `get`, not `track`: with the memo only tracked, a reading was cleared just after it
        // landed (tests/web/model.rs caught it); read, the memo wakes this effect only when the
        // model changes.
        shipped.get();
        model_address.get();
        reading.set(None);
        not_ready.set(false);
        error.set(None);
        worker_reading.set(None);
        ended.set(false);
        // What an earlier model's reading still sends is not this one's.
        generation.update_value(|g| *g += 1);
    });
    fn recompute_more(
        reading: RwSignal<Option<Reading>>,
        generation: StoredValue<u64>,
        mine: u64,
        model: Arc<Model>,
        ids: Arc<Vec<u32>>,
    ) {
        if generation.get_value() != mine {
            return;
        }
        let began = now_ms();
        let Some((mut done, total, window)) =
            reading.with_untracked(|r| r.as_ref().map(|r| (r.recompute.len(), r.total, r.window)))
        else {
            return;
        };
        let mut fresh = Vec::new();
        while done < total && now_ms() - began < FRAME_BUDGET_MS {
            fresh.push(recompute_at(&model, &ids, done, window));
            done += 1;
        }
        reading.update(|r| {
            if let Some(r) = r {
                r.recompute.extend(fresh);
            }
        });
        if done < total {
            set_timeout(
                move || recompute_more(reading, generation, mine, model, ids),
                Duration::ZERO,
            );
        }
    }
    // A model folder of one's own: its layout is its config's, once it is loaded.
    let own = Memo::new(move |_| {
        lab.request
            .with(|r| r.model.as_ref().and_then(|m| m.folder()).is_some())
            .then(|| model().map(|m| m.config.layout))
    });
    let read = move |_| {
        let Some(model) = model() else { return };
        let spec = StreamSpec {
            window: window.get_untracked(),
            sink_tokens: sinks.get_untracked(),
        };
        let ids = match stream_ids(&model, &text.get_untracked(), spec) {
            Ok(ids) => ids,
            Err(e) => {
                // Results of other settings would stand under the message as if they were its.
                reading.set(None);
                error.set(Some(ModelProblem::Stream(e)));
                return;
            }
        };
        error.set(None);
        ended.set(false);
        not_ready.set(false);
        read_with.set(Some((text.get_untracked(), spec.window, spec.sink_tokens)));
        let mine = generation.get_value() + 1;
        generation.set_value(mine);
        if own.get_untracked().is_some() {
            // A folder's model reads in its worker, what it read coming back as it goes.
            reading.set(None);
            let total = ids.len() - 1;
            let on = move |answer: Streamed| {
                if generation.try_get_value() == Some(mine) {
                    from_worker(answer, spec, total, reading, worker_reading, ended);
                }
            };
            if lab.model_jobs.stream(&model, &ids, spec, on).is_none() {
                // Its worker has not had the folder yet (it is still being read).
                read_with.set(None);
                not_ready.set(true);
            }
            return;
        }
        let with_sinks = rolling(&model, &ids, spec).losses;
        let without_sinks = rolling(
            &model,
            &ids,
            StreamSpec {
                sink_tokens: 0,
                ..spec
            },
        )
        .losses;
        reading.set(Some(Reading {
            window: spec.window,
            sinks: spec.sink_tokens,
            total: ids.len() - 1,
            with_sinks,
            without_sinks,
            recompute: Vec::new(),
            share: first_token_share(&model, &ids),
        }));
        let ids = Arc::new(ids);
        set_timeout(
            move || recompute_more(reading, generation, mine, model, ids),
            Duration::ZERO,
        );
    };
    let chart = Signal::derive(move || {
        let t = texts();
        reading.with(|r| {
            let r = r.as_ref()?;
            let mut series = vec![
                Series {
                    label: (t.with_sinks)(r.sinks),
                    points: smoothed(&r.with_sinks),
                    color: COLORS[0],
                    reference: false,
                    points_only: false,
                },
                Series {
                    label: t.without_sinks.into(),
                    points: smoothed(&r.without_sinks),
                    color: COLORS[1],
                    reference: false,
                    points_only: false,
                },
            ];
            if !r.recompute.is_empty() {
                series.push(Series {
                    label: t.recompute.into(),
                    points: smoothed(&r.recompute),
                    color: COLORS[2],
                    reference: true,
                    points_only: false,
                });
            }
            Some(LineChart {
                title: if own.get().is_some() {
                    t.own_chart_title
                } else {
                    t.chart_title
                }
                .into(),
                x_label: t.x_label.into(),
                y_label: t.y_label.into(),
                x_log: false,
                y_log: false,
                series,
                marker: model().map(|m| m.config.context as f64),
                ink: (0, 0, 0),
            })
        })
    });
    let means = move || {
        reading.with(|r| {
            let r = r.as_ref()?;
            let done = r.recompute.len() == r.total;
            Some((texts().means)(
                mean(&r.with_sinks),
                mean(&r.without_sinks),
                done.then(|| mean(&r.recompute)),
                r.total,
            ))
        })
    };
    let progress = move || {
        if let Some((phase, done, all)) = worker_reading.get() {
            return Some((texts().reading)(phase, done, all));
        }
        reading.with(|r| {
            r.as_ref()
                .filter(|r| r.recompute.len() < r.total)
                .map(|r| (texts().progress)(r.recompute.len(), r.total))
        })
    };
    let finding = move || {
        let context = model()?.config.context;
        reading.with(|r| {
            let r = r.as_ref()?;
            let share = r.share.iter().flatten().copied().fold(0.0f32, f32::max);
            let read = (r.total + 1).min(context);
            if own.get().is_some() {
                let gain = mean(&r.with_sinks) - mean(&r.without_sinks);
                let read = read.min(SHARE_TOKENS);
                return Some((texts().own_finding)(gain, share, read, r.sinks));
            }
            Some((texts().finding)(
                mean(&r.with_sinks) - mean(&r.without_sinks),
                share,
                read,
                context,
            ))
        })
    };
    let shares = move || {
        reading.with(|r| {
            let r = r.as_ref()?;
            let heads = r.share.first().map_or(0, Vec::len);
            let t = texts();
            Some(view! {
                <table class="share-table" data-testid="stream-shares">
                    <thead><tr><th></th>
                        {(0..heads).map(|h| view! { <th scope="col">{(t.head)(h + 1)}</th> }).collect_view()}
                    </tr></thead>
                    <tbody>
                        {r.share.iter().enumerate().map(|(l, row)| view! {
                            <tr><th scope="row">{(t.layer)(l + 1)}</th>
                                {row.iter().map(|&s| view! {
                                    <td style=format!("--share: {:.3}", s)>{format!("{:.1}%", s * 100.0)}</td>
                                }).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            })
        })
    };
    let context = move || model().map_or(256, |m| m.config.context);
    let number = |signal: RwSignal<usize>| {
        move |ev| {
            if let Ok(v) = event_target_value(&ev).parse::<usize>() {
                signal.set(v);
            }
        }
    };
    let state = move || match (own.get(), layout()) {
        // A hybrid (the lab's or a folder's): its linear layers keep no keys to drop.
        (Some(Some(Layout::Hybrid)), _) | (None, Some(Layout::Hybrid)) => 5,
        // In its worker; without one, not on the page's thread.
        (Some(Some(layout)), _) if layout.streams() => {
            if model().is_some_and(|m| lab.model_jobs.serves(&m)) {
                0
            } else {
                3
            }
        }
        (Some(Some(_)), _) => 1,
        // Still being read.
        (Some(None), _) => 4,
        (None, Some(layout)) if layout.streams() => 0,
        (None, Some(_)) => 1,
        (None, None) => 2,
    };
    view! {
        <section class="step stream-view" data-view=section.id() data-testid="stream"
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <p class="help block">{move || if own.get().is_some() && state() == 0 { texts().own_help } else { texts().help }}</p>
            {move || match state() {
                1 => view! { <p class="help block" data-testid="stream-unavailable">{texts().learned_positions}</p> }.into_any(),
                2 => view! { <p class="help block" data-testid="stream-unavailable">{texts().need_model}</p> }.into_any(),
                3 => view! { <p class="help block" data-testid="stream-unavailable">{texts().own_model}</p> }.into_any(),
                4 => view! { <p class="help block" data-testid="stream-unavailable">{texts().own_loading}</p> }.into_any(),
                5 => view! { <p class="help block" data-testid="stream-unavailable">{move || lab.lang.get().model_problem(&ModelProblem::Stream(StreamError::Hybrid))}</p> }.into_any(),
                _ => view! {
                    <label class="field-label stream-text">
                        {move || texts().text}
                        <textarea rows="4" data-testid="stream-text" prop:value=move || text.get()
                            on:change=move |ev| text.set(event_target_value(&ev))></textarea>
                    </label>
                    <div class="control-row">
                        <label class="control-label">
                            {move || texts().window} " "
                            <input type="number" min="1" max=context data-testid="stream-window"
                                prop:value=move || window.get().to_string() on:change=number(window) />
                        </label>
                        <label class="control-label">
                            {move || texts().sinks} " "
                            <input type="number" min="0" max="16" data-testid="stream-sinks"
                                prop:value=move || sinks.get().to_string() on:change=number(sinks) />
                        </label>
                        <button type="button" class="button" data-testid="stream-run" on:click=read
                            disabled=move || model().is_none()>{move || texts().run}</button>
                    </div>
                    {move || error.get().map(|e| view! {
                        <p class="error" role="alert" data-testid="stream-error">{move || lab.lang.get().model_problem(&e)}</p>
                    })}
                    <Show when=move || reading.with(Option::is_none) && worker_reading.with(Option::is_some)>
                        <p class="help block" role="status" data-testid="stream-progress">{progress}</p>
                    </Show>
                    <Show when=move || ended.get()>
                        <p class="error" role="alert" data-testid="stream-ended">{move || texts().worker_ended}</p>
                    </Show>
                    <Show when=move || not_ready.get()>
                        <p class="note" role="status" data-testid="stream-not-ready">{move || texts().own_loading}</p>
                    </Show>
                    <Show when=stale>
                        <p class="note" role="status" data-testid="stream-stale">{move || texts().stale}</p>
                    </Show>
                    <Show when=move || reading.with(Option::is_some)>
                        <Chart chart=chart test_id="stream-chart" />
                        <p class="help block" data-testid="stream-progress">{progress}</p>
                        <p class="help block" data-testid="stream-means">{means}</p>
                        <p class="block" data-testid="stream-finding">{finding}</p>
                        <h3>{move || if own.get().is_some() { texts().own_share_title } else { texts().share_title }}</h3>
                        <p class="help block">{move || if own.get().is_some() { texts().own_share_help } else { texts().share_help }}</p>
                        {shares}
                    </Show>
                    <Show when=move || shows_twins(lab)>
                        <StreamTwins text=text window=window sinks=sinks />
                    </Show>
                }.into_any(),
            }}
        </section>
    }
}
