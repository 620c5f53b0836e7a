//! Each chapter's experiment, drawn: the numbers come from `attention_core::lessons` on the
//! current trace (the same function the CLI calls); here they become tables, charts and
//! sentences in the reader's language.

use leptos::prelude::*;

use attention_core::api::Request;
use attention_core::experiments::log_log_slope;
use attention_core::experiments::{BreakPoint, Breakdown};
use attention_core::lessons::{
    Chapter, CostPoint, Experiment, Focus, SCALING_DIMS, experiment, measure_cost,
};

use crate::ui::browser::clock::now_ms;
use crate::ui::i18n::learn::{ExperimentTexts, HeadVariances};
use crate::ui::model::format::significant;
use crate::ui::model::line_chart::{COLORS, LineChart, Series};
use crate::ui::model::visible;
use crate::ui::state::Lab;
use crate::ui::views::chart::Chart;

fn texts(lab: Lab) -> &'static ExperimentTexts {
    &lab.lang.get().text().learn.x
}

/// The chapter's experiment on the shown trace, recomputed when the trace or the focus changes.
pub fn current(lab: Lab, chapter: Chapter) -> Memo<Option<Experiment>> {
    Memo::new(move |_| {
        let focus = Focus {
            head: lab.selected_head(),
            query: lab.lesson_query.get(),
            factor: lab.lesson_factor.get(),
            shift: lab.lesson_shift.get(),
        };
        // A summarised trace (a long input) keeps no weights to experiment on.
        lab.shown.with(|t| {
            t.as_ref()
                .filter(|t| !t.0.is_summarised())
                .map(|t| experiment(chapter, &t.0, &focus))
        })
    })
}

fn series(label: &str, points: Vec<(f64, f64)>, color: usize, reference: bool) -> Series {
    Series {
        label: label.to_string(),
        points,
        color: COLORS[color],
        reference,
    }
}

fn chart(title: &str, x: &str, y: &str, logs: (bool, bool), series: Vec<Series>) -> LineChart {
    LineChart {
        title: title.to_string(),
        x_label: x.to_string(),
        y_label: y.to_string(),
        x_log: logs.0,
        y_log: logs.1,
        series,
        marker: None,
        ink: (0, 0, 0),
    }
}

fn weights_list(weights: &[f64]) -> String {
    weights
        .iter()
        .take(12)
        .map(|w| format!("{w:.3}"))
        .collect::<Vec<_>>()
        .join(" ")
        + if weights.len() > 12 { " …" } else { "" }
}

fn f32_cell(w: f32) -> String {
    if w.is_nan() {
        "NaN".into()
    } else if w.is_infinite() {
        "∞".into()
    } else {
        format!("{w:.4}")
    }
}

/// The chapter's experiment view.
pub fn view(lab: Lab, chapter: Chapter) -> AnyView {
    let too_long = move || {
        crate::ui::views::pipeline::summarised(lab).map(|n| {
            let most = crate::ui::views::pipeline::MOST_TRACED;
            view! { <p class="note" data-testid="lesson-too-long">{(lab.lang.get().text().overview.lesson)(n, most)}</p> }
        })
    };
    view! { {too_long} {chapter_view(lab, chapter)} }.into_any()
}

fn chapter_view(lab: Lab, chapter: Chapter) -> AnyView {
    let e = current(lab, chapter);
    match chapter {
        Chapter::Tokens => tokens(lab, e).into_any(),
        Chapter::Qkv => qkv(lab, e).into_any(),
        Chapter::Scaling => scaling(lab, e).into_any(),
        Chapter::Softmax => softmax(lab, e).into_any(),
        Chapter::Masks => masks(lab, e).into_any(),
        Chapter::Multihead => multihead(lab, e).into_any(),
        Chapter::Gqa => gqa(lab, e).into_any(),
        Chapter::Cross => cross(lab, e).into_any(),
        Chapter::Layernorm => layernorm(lab, e).into_any(),
        Chapter::Stability => stability(lab, e).into_any(),
        Chapter::Complexity => complexity(lab, e).into_any(),
        Chapter::Flash => flash(lab, e).into_any(),
        Chapter::Variants => variants(lab, e).into_any(),
        Chapter::Exercises => ().into_any(),
    }
}

fn tokens(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Tokens(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let repeated = match &e.repeated {
            Some(r) => (x.repeated)(
                &visible(&r.token),
                r.first,
                r.second,
                r.embedding_distance,
                r.x_distance,
            ),
            None => x.no_repeat.to_string(),
        };
        let show = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or_else(|| "—".into());
        view! {
            <p class="lesson-result" data-testid="lesson-result">{repeated}</p>
            <div class="table-scroll">
                <table class="lesson-table">
                    <thead><tr><th>{x.token}</th><th>"|E|"</th><th>"|P|"</th><th>"|X|"</th></tr></thead>
                    <tbody>
                        {e.norms.iter().map(|n| view! {
                            <tr><td>{visible(&n.token)}</td><td>{show(n.embedding)}</td><td>{show(n.position)}</td><td>{format!("{:.3}", n.x)}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}

fn qkv(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Qkv(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        view! {
            <p class="lesson-result" data-testid="lesson-result">{(x.qkv_intro)(&visible(&e.query_token), e.head + 1, e.d_k)}</p>
            <div class="table-scroll">
                <table class="lesson-table">
                    <thead><tr><th>{x.key}</th><th>{x.dot}</th><th></th></tr></thead>
                    <tbody>
                        {e.matches.iter().map(|m| view! {
                            <tr class:masked=!m.allowed>
                                <td>{format!("{} {}", m.key, visible(&m.token))}</td>
                                <td>{format!("{:.3}", m.dot)}</td>
                                <td>{if m.allowed { "" } else { x.masked }}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}

fn histogram(
    title: &'static str,
    counts: Vec<usize>,
    range: f64,
    test: &'static str,
) -> impl IntoView {
    let top = counts.iter().copied().max().unwrap_or(1).max(1);
    view! {
        <figure class="histogram-figure">
            <figcaption>{title}</figcaption>
            <div class="histogram" data-testid=test>
                {counts.iter().map(|&c| {
                    let height = format!("height: {:.1}%", c as f64 / top as f64 * 100.0);
                    view! { <span style=height title=c.to_string()></span> }
                }).collect_view()}
            </div>
            <div class="histogram-axis"><span>{format!("−{range}")}</span><span>"0"</span><span>{format!("{range}")}</span></div>
        </figure>
    }
}

fn scaling(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let variance = Signal::derive(move || {
        let Some(Experiment::Scaling(e)) = e.get() else {
            return None;
        };
        let x = texts(lab);
        let mut c = chart(
            x.variance_title,
            "d_k",
            x.variance_y,
            (true, true),
            vec![
                series(
                    x.raw,
                    e.random
                        .iter()
                        .map(|p| (p.d_k as f64, p.raw_variance))
                        .collect(),
                    0,
                    false,
                ),
                series(
                    x.scaled,
                    e.random
                        .iter()
                        .map(|p| (p.d_k as f64, p.scaled_variance))
                        .collect(),
                    1,
                    false,
                ),
                series(
                    x.theory,
                    SCALING_DIMS.iter().map(|&d| (d as f64, d as f64)).collect(),
                    3,
                    true,
                ),
            ],
        );
        c.marker = Some(e.d_k as f64);
        Some(c)
    });
    let saturation = Signal::derive(move || {
        let Some(Experiment::Scaling(e)) = e.get() else {
            return None;
        };
        let x = texts(lab);
        let mut c = chart(
            x.saturation_title,
            "d_k",
            x.saturation_y,
            (true, false),
            vec![
                series(
                    x.largest_raw,
                    e.random
                        .iter()
                        .map(|p| (p.d_k as f64, p.raw_largest))
                        .collect(),
                    0,
                    false,
                ),
                series(
                    x.largest_scaled,
                    e.random
                        .iter()
                        .map(|p| (p.d_k as f64, p.scaled_largest))
                        .collect(),
                    1,
                    false,
                ),
                series(
                    x.gradient_raw,
                    e.random
                        .iter()
                        .map(|p| (p.d_k as f64, p.raw_gradient))
                        .collect(),
                    0,
                    true,
                ),
                series(
                    x.gradient_scaled,
                    e.random
                        .iter()
                        .map(|p| (p.d_k as f64, p.scaled_gradient))
                        .collect(),
                    1,
                    true,
                ),
            ],
        );
        c.marker = Some(e.d_k as f64);
        Some(c)
    });
    let details = move || {
        let Some(Experiment::Scaling(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let (r, s) = (&e.row_raw, &e.row_scaled);
        let (d_model, queries, keys) = lab.shown.with(|t| {
            t.as_ref().map_or((0, 0, 0), |t| {
                let c = &t.0.config;
                (c.dims().d_model, c.seq_len(), c.key_len())
            })
        });
        let selected = lab.selected_head().min(e.heads.len().saturating_sub(1));
        let heads = e.heads.get(selected).map(|h| {
            if queries < 2 || keys < 2 {
                x.one_token.to_string()
            } else {
                (x.heads_result)(&HeadVariances {
                    head: h.head + 1,
                    d_model,
                    d_k: e.d_k,
                    xavier: 2.0 / (d_model + e.d_k) as f64,
                    q: h.q_component,
                    k: h.k_component,
                    raw: h.raw_variance,
                    standard: h.standard_variance,
                    scaled: h.standard_scaled_variance,
                    pairs: queries * keys,
                })
            }
        });
        view! {
            <p class="lesson-result" data-testid="lesson-result">
                {(x.row_result)([r.largest, r.entropy, r.gradient, s.largest, s.entropy, s.gradient])}
            </p>
            <div class="table-scroll">
                <table class="lesson-table" data-testid="scaling-heads">
                    <caption>{x.heads_caption}</caption>
                    <thead><tr>
                        <th>{x.head}</th><th>{x.var_q}</th><th>{x.var_k}</th><th>{x.var_raw}</th><th>{x.var_scaled}</th>
                        <th>{x.var_standard}</th><th>{x.var_standard_scaled}</th>
                    </tr></thead>
                    <tbody>
                        {e.heads.iter().map(|h| view! {
                            <tr>
                                <td>{h.head + 1}</td>
                                <td>{format!("{:.3}", h.q_component)}</td>
                                <td>{format!("{:.3}", h.k_component)}</td>
                                <td>{format!("{:.3}", h.raw_variance)}</td>
                                <td>{format!("{:.3}", h.scaled_variance)}</td>
                                <td>{format!("{:.2}", h.standard_variance)}</td>
                                <td>{format!("{:.3}", h.standard_scaled_variance)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p class="lesson-result" data-testid="scaling-heads-result">{heads}</p>
            <div class="histograms">
                {histogram(x.hist_raw, e.raw_histogram.clone(), e.range, "histogram-raw")}
                {histogram(x.hist_scaled, e.scaled_histogram.clone(), e.range, "histogram-scaled")}
            </div>
        }
        .into_any()
    };
    view! {
        <div class="lesson-charts">
            <Chart chart=variance test_id="chart-variance" />
            <Chart chart=saturation test_id="chart-saturation" />
        </div>
        {details}
    }
}

fn softmax(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let sweep = Signal::derive(move || {
        let Some(Experiment::Softmax(e)) = e.get() else {
            return None;
        };
        let x = texts(lab);
        let ln_n = e.uniform_entropy.max(f64::MIN_POSITIVE);
        let mut c = chart(
            x.sweep_title,
            x.temperature,
            x.sweep_y,
            (true, false),
            vec![
                series(
                    x.largest,
                    e.sweep.iter().map(|p| (p.temperature, p.largest)).collect(),
                    0,
                    false,
                ),
                series(
                    x.entropy_share,
                    e.sweep
                        .iter()
                        .map(|p| {
                            (
                                p.temperature,
                                if e.allowed > 1 { p.entropy / ln_n } else { 0.0 },
                            )
                        })
                        .collect(),
                    1,
                    false,
                ),
            ],
        );
        c.marker = Some(e.temperature);
        Some(c)
    });
    let result = move || {
        let Some(Experiment::Softmax(e)) = e.get() else {
            return String::new();
        };
        let token = e.argmax_token.as_deref().map(visible).unwrap_or_default();
        (texts(lab).sweep_result)(
            e.temperature,
            e.current.largest,
            e.current.entropy,
            e.uniform_entropy,
            &token,
        )
    };
    view! {
        <Chart chart=sweep test_id="chart-temperature" />
        <p class="lesson-result" data-testid="lesson-result">{result}</p>
    }
}

fn masks(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Masks(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let keys = lab.shown.with(|t| {
            t.as_ref()
                .map(|t| t.0.config.key_sequence().tokens.clone())
                .unwrap_or_default()
        });
        let fully = if e.fully_masked_rows.is_empty() {
            x.no_fully_masked.to_string()
        } else {
            (x.fully_masked)(
                &e.fully_masked_rows
                    .iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        };
        view! {
            <p class="lesson-result" data-testid="lesson-result">{fully}</p>
            <div class="table-scroll">
                <table class="lesson-table">
                    <thead><tr><th>{x.key}</th><th>{x.with_infinity}</th><th>{x.with_large_negative}</th></tr></thead>
                    <tbody>
                        {e.with_infinity.iter().zip(&e.with_large_negative).enumerate().map(|(j, (a, b))| view! {
                            <tr><td>{format!("{} {}", j, keys.get(j).map(|k| visible(k)).unwrap_or_default())}</td>
                                <td>{format!("{a:.4}")}</td><td>{format!("{b:.4}")}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p class="lesson-result" data-testid="lesson-all-masked">
                {(x.all_masked)(&weights_list(&e.all_masked_infinity), &weights_list(&e.all_masked_large_negative))}
            </p>
        }
        .into_any()
    }
}

fn multihead(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Multihead(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        view! {
            <p class="lesson-result" data-testid="lesson-result">
                {(x.head_parameters)(e.n_heads, e.d_model, e.split_parameters, e.single_parameters, e.current_parameters)}
                " "
                {(x.mean_distance)(e.mean_distance)}
            </p>
            <div class="table-scroll">
                <table class="lesson-table" data-testid="head-distances">
                    <caption>{x.distance_caption}</caption>
                    <thead><tr><th>{x.head}</th>{(0..e.n_heads).map(|h| view! { <th>{h + 1}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {e.distances.iter().enumerate().map(|(a, row)| view! {
                            <tr><th>{a + 1}</th>{row.iter().map(|d| view! { <td>{format!("{d:.2}")}</td> }).collect_view()}</tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}

fn bytes(n: usize) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

fn gqa(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Gqa(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let kind = |kv: usize| {
            if kv == e.n_heads {
                x.kinds[0]
            } else if kv == 1 {
                x.kinds[2]
            } else {
                x.kinds[1]
            }
        };
        view! {
            <div class="table-scroll">
                <table class="lesson-table" data-testid="lesson-result">
                    <thead><tr><th>{x.kv_heads}</th><th>{x.kind}</th><th>{x.kv_parameters}</th><th>{x.parameters}</th><th>{x.cache_per_token}</th><th>{x.cache_4096}</th></tr></thead>
                    <tbody>
                        {e.rows.iter().map(|r| view! {
                            <tr class:current=r.current>
                                <td>{r.kv_heads}{if r.current { format!(" ({})", x.current) } else { String::new() }}</td>
                                <td>{kind(r.kv_heads)}</td>
                                <td>{r.kv_parameters}</td>
                                <td>{r.parameters}</td>
                                <td>{bytes(r.cache_bytes_per_token)}</td>
                                <td>{bytes(r.cache_bytes_per_token * 4096)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}

fn cross(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let add_source = move |_| {
        let source = match lab.lang.get_untracked() {
            crate::ui::i18n::Lang::Zh => "那只猫很累，所以它坐下了。",
            crate::ui::i18n::Lang::En => "A tired cat sat down on the warm mat.",
        };
        lab.change(Request {
            source_sentence: Some(source.to_string()),
            ..Request::default()
        });
    };
    move || {
        let Some(Experiment::Cross(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let trained = lab.request.with(|r| r.is_trained());
        if !e.is_cross {
            return view! {
                <p class="lesson-result" data-testid="lesson-result">{x.not_cross}</p>
                {trained.then(|| view! { <p class="help">{lab.lang.get().text().model.no_cross}</p> })}
                <button type="button" class="button" data-testid="lesson-add-source" disabled=trained on:click=add_source>
                    {x.add_source}
                </button>
            }
            .into_any();
        }
        view! {
            <p class="lesson-result" data-testid="lesson-result">{(x.cross_result)(e.queries, e.keys)}</p>
            <div class="table-scroll">
                <table class="lesson-table">
                    <thead><tr><th>{x.token}</th><th>{x.source_token}</th><th>{x.weight}</th></tr></thead>
                    <tbody>
                        {e.best.iter().map(|m| view! {
                            <tr><td>{visible(&m.query_token)}</td><td>{visible(&m.source_token)}</td><td>{format!("{:.3}", m.weight)}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}

fn layernorm(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let stream = Signal::derive(move || {
        let Some(Experiment::Layernorm(e)) = e.get() else {
            return None;
        };
        let x = texts(lab);
        let points = |v: &[f64]| v.iter().enumerate().map(|(i, &r)| (i as f64, r)).collect();
        Some(chart(
            x.stream_title,
            x.blocks,
            x.stream_y,
            (false, false),
            vec![
                series(x.pre_ln, points(&e.pre_ln), 0, false),
                series(x.post_ln, points(&e.post_ln), 1, false),
            ],
        ))
    });
    let gradient = Signal::derive(move || {
        let Some(Experiment::Layernorm(e)) = e.get() else {
            return None;
        };
        let x = texts(lab);
        let points = |v: &[f64]| v.iter().enumerate().map(|(i, &r)| (i as f64, r)).collect();
        Some(chart(
            x.gradient_title,
            x.blocks,
            x.gradient_y,
            (false, true),
            vec![
                series(x.pre_ln, points(&e.pre_ln_gradient), 0, false),
                series(x.post_ln, points(&e.post_ln_gradient), 1, false),
            ],
        ))
    });
    let details = move || {
        let Some(Experiment::Layernorm(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let last = |v: &[f64]| v.last().copied().unwrap_or_default();
        let first = |v: &[f64]| v.first().copied().unwrap_or_default();
        let least = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let most = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        let (pre, post) = (&e.pre_ln_gradient, &e.post_ln_gradient);
        view! {
            <p class="lesson-result" data-testid="lesson-result">{(x.stream_result)(last(&e.pre_ln), last(&e.post_ln), e.depth)}</p>
            <p class="lesson-result" data-testid="gradient-result">
                {(x.gradient_result)(e.depth, first(pre), least(pre), first(post), least(post), most(post))}
            </p>
            <div class="table-scroll">
                <table class="lesson-table">
                    <thead><tr><th>{x.token}</th><th>{x.mean}</th><th>{x.std}</th><th>{x.after_mean}</th><th>{x.after_std}</th></tr></thead>
                    <tbody>
                        {e.tokens.iter().map(|t| view! {
                            <tr><td>{visible(&t.token)}</td><td>{format!("{:.3}", t.mean)}</td><td>{format!("{:.3}", t.std)}</td>
                                <td>{format!("{:.3}", t.normed_mean.abs())}</td><td>{format!("{:.3}", t.normed_std)}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    };
    view! {
        <div class="lesson-charts">
            <Chart chart=stream test_id="chart-stream" />
            <Chart chart=gradient test_id="chart-gradient" />
        </div>
        {details}
    }
}

/// The factors the stability slider offers, log-spaced from 1 to 1000.
fn factor_of(position: f64) -> f32 {
    let k = 10f64.powf(position / 100.0 * 3.0);
    // Three significant figures: the link and the box never show float noise.
    let digits = 10f64.powi(2 - k.log10().floor() as i32);
    ((k * digits).round() / digits) as f32
}

/// A precision's name and the state of its naive softmax, in words.
fn state(x: &ExperimentTexts, failure: Option<Breakdown>) -> &'static str {
    match failure {
        None => x.states[0],
        Some(Breakdown::Overflow) => x.states[1],
        Some(Breakdown::Underflow) => x.states[2],
    }
}

fn break_sentence(x: &ExperimentTexts, precision: &str, point: Option<BreakPoint>) -> String {
    match point {
        None => (x.never_breaks)(precision),
        Some(p) => {
            let k = significant(p.factor, 4);
            match p.kind {
                Breakdown::Overflow if p.sum_first => (x.breaks_sum)(precision, &k, p.exponent),
                Breakdown::Overflow => (x.breaks_overflow)(precision, &k, p.exponent),
                Breakdown::Underflow => (x.breaks_underflow)(precision, &k, p.exponent),
            }
        }
    }
}

fn stability(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let position = RwSignal::new(0.0f64);
    let details = move || {
        let Some(Experiment::Stability(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let tokens: Vec<String> = lab.shown.with(|t| {
            t.as_ref()
                .map(|t| t.0.config.tokens().iter().map(|k| visible(k)).collect())
                .unwrap_or_default()
        });
        let keys: Vec<String> = lab.shown.with(|t| {
            t.as_ref()
                .map(|t| {
                    let i = e.query.min(t.0.mask.nrows().saturating_sub(1));
                    t.0.config
                        .key_sequence()
                        .tokens
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| t.0.mask[[i, j]])
                        .map(|(_, k)| visible(k))
                        .collect()
                })
                .unwrap_or_default()
        });
        let row_top = e.scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        // A row of negative scores can only underflow as k grows: say so, and where to look.
        let only_underflow = (row_top < 0.0 && e.hottest_score > 0.0).then(|| {
            let q = e.hottest_query;
            let token = tokens.get(q).cloned().unwrap_or_default();
            view! {
                <p class="note" data-testid="stability-only-underflow">
                    {(x.only_underflow)(q, &token, e.hottest_score)} " "
                    <button type="button" class="table-toggle" data-testid="stability-hottest"
                        on:click=move |_| lab.lesson_query.set(q)>
                        {(x.choose_query)(q)}
                    </button>
                </p>
            }
        });
        let now = (x.now)(
            &significant(e.factor, 4),
            &significant(e.shift, 3),
            state(x, e.failure_f32),
            state(x, e.failure_f16),
            x.states[0],
        );
        view! {
            <p class="lesson-result" data-testid="lesson-result">
                {(x.largest_exponent)(e.largest)} " "
                {break_sentence(x, "f16", e.break_f16)} " "
                {break_sentence(x, "f32", e.break_f32)}
            </p>
            {only_underflow}
            <p class="lesson-result" data-testid="stability-now">{now}</p>
            <div class="table-scroll">
                <table class="lesson-table" data-testid="stability-table">
                    <thead><tr><th>{x.key}</th><th>"k · s + c"</th><th>{x.naive_f32}</th><th>{x.naive_f16}</th><th>{x.stable_f16}</th></tr></thead>
                    <tbody>
                        {(0..e.scores.len()).map(|j| view! {
                            <tr>
                                <td>{keys.get(j).cloned().unwrap_or_default()}</td>
                                <td>{format!("{:.2}", e.scores[j] * e.factor + e.shift)}</td>
                                <td class:broken=e.failure_f32.is_some()>{f32_cell(e.naive_f32[j])}</td>
                                <td class:broken=e.failure_f16.is_some()>{f32_cell(e.naive_f16[j])}</td>
                                <td>{f32_cell(e.stable_f16[j])}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p class="lesson-result">{(x.f16_error)(e.f16_abs_error, e.f16_rel_error)}</p>
        }
        .into_any()
    };
    view! {
        <label class="lesson-factor">
            <span>{move || texts(lab).factor} " = " <output data-testid="lesson-factor-value">{move || significant(lab.lesson_factor.get(), 4)}</output></span>
            <input type="range" min="0" max="100" step="1" data-testid="lesson-factor"
                prop:value=move || position.get()
                on:input=move |ev| {
                    let p = event_target_value(&ev).parse::<f64>().unwrap_or(0.0);
                    position.set(p);
                    lab.lesson_factor.set(factor_of(p));
                } />
        </label>
        <label class="lesson-factor">
            <span>{move || texts(lab).shift} " = " <output data-testid="lesson-shift-value">{move || significant(lab.lesson_shift.get(), 3)}</output></span>
            <input type="range" min="-20" max="20" step="0.5" data-testid="lesson-shift"
                prop:value=move || lab.lesson_shift.get().to_string()
                on:input=move |ev| {
                    if let Ok(c) = event_target_value(&ev).parse::<f32>() {
                        lab.lesson_shift.set(c);
                    }
                } />
        </label>
        {details}
    }
}

/// Sizes the complexity chapter times, up to the core's largest input.
const COST_SIZES: [usize; 7] = [64, 128, 256, 512, 1024, 2048, 4096];

fn complexity(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let points = RwSignal::new(Vec::<CostPoint>::new());
    let measuring = RwSignal::new(None::<usize>);
    // One size per task, so the page paints "measuring n = …" between sizes.
    fn step(points: RwSignal<Vec<CostPoint>>, measuring: RwSignal<Option<usize>>, index: usize) {
        let Some(&n) = COST_SIZES.get(index) else {
            measuring.set(None);
            return;
        };
        measuring.set(Some(n));
        set_timeout(
            move || {
                let clock = || now_ms();
                let measured = measure_cost(&[n], &clock);
                points.update(|p| p.extend(measured.points));
                step(points, measuring, index + 1);
            },
            std::time::Duration::from_millis(30),
        );
    }
    let start = move |_| {
        if measuring.get_untracked().is_none() {
            points.set(Vec::new());
            step(points, measuring, 0);
        }
    };
    let timing = Signal::derive(move || {
        let p = points.get();
        if p.is_empty() {
            return None;
        }
        let x = texts(lab);
        Some(chart(
            x.time_title,
            "n",
            x.time_y,
            (true, true),
            vec![
                series(
                    x.standard,
                    p.iter().map(|p| (p.n as f64, p.standard_ms)).collect(),
                    0,
                    false,
                ),
                series(
                    x.flash,
                    p.iter().map(|p| (p.n as f64, p.flash_ms)).collect(),
                    1,
                    false,
                ),
            ],
        ))
    });
    let slope = move || {
        let p = points.get();
        let large: Vec<&CostPoint> = p.iter().filter(|p| p.n >= 256).collect();
        (large.len() >= 2 && measuring.get().is_none()).then(|| {
            let fit = |f: fn(&CostPoint) -> f64| {
                log_log_slope(&large.iter().map(|p| (p.n as f64, f(p))).collect::<Vec<_>>())
            };
            (texts(lab).slope)(fit(|p| p.standard_ms), fit(|p| p.flash_ms))
        })
    };
    // FlashAttention is slower on a CPU: say why, from the measurement at the largest n.
    let flash_note = move || {
        let p = points.get();
        let last = p.last()?;
        (measuring.get().is_none() && last.standard_ms > 0.0)
            .then(|| (texts(lab).flash_on_cpu)(last.n, last.flash_ms / last.standard_ms))
    };
    let counts = move || {
        let Some(Experiment::Complexity(e)) = e.get() else {
            return String::new();
        };
        (texts(lab).counts)(
            e.n,
            e.cells,
            e.standard_bytes,
            e.flash_bytes,
            e.recurrent_path,
        )
    };
    view! {
        <p class="lesson-result" data-testid="lesson-result">{counts}</p>
        <p class="help">{move || texts(lab).measure_help}</p>
        <button type="button" class="button" data-testid="lesson-measure" disabled=move || measuring.get().is_some() on:click=start>
            {move || texts(lab).measure}
        </button>
        <span class="help" role="status" data-testid="lesson-measuring">{move || measuring.get().map(|n| (texts(lab).measuring)(n))}</span>
        <Show when=move || !points.with(Vec::is_empty)>
            <Chart chart=timing test_id="chart-cost" />
        </Show>
        <p class="lesson-result" data-testid="lesson-slope">{slope}</p>
        <p class="lesson-result" data-testid="lesson-flash-cpu">{flash_note}</p>
    }
}

fn flash(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let counts = move || {
        let Some(Experiment::Flash(e)) = e.get() else {
            return String::new();
        };
        (texts(lab).flash_counts)(
            e.tiles,
            e.skipped_tiles,
            e.standard_cells,
            e.tile_cells,
            e.max_abs_diff,
        )
    };
    view! { <p class="lesson-result" data-testid="lesson-result">{counts}</p> }
}

/// Sparse patterns are drawn cell by cell up to this many tokens.
const DRAWN_PATTERN: usize = 48;

fn variants(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Variants(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        view! {
            <div class="sparse-patterns">
                {e.sparse.iter().enumerate().map(|(i, s)| {
                    let name = x.patterns[i.min(1)];
                    let grid = (e.n <= DRAWN_PATTERN).then(|| {
                        let style = format!("grid-template-columns: repeat({}, 1fr)", e.n);
                        view! {
                            <div class="sparse-grid" style=style data-testid=format!("sparse-{}", s.pattern)>
                                {s.mask.iter().flat_map(|row| row.iter().map(|&a| view! { <span class:on=a == 1></span> })).collect_view()}
                            </div>
                        }
                    });
                    view! {
                        <figure class="sparse-figure">
                            {grid}
                            <figcaption>{(x.sparse_counts)(name, s.stride, s.cells, e.n_sqrt_n, e.causal_cells)}</figcaption>
                        </figure>
                    }
                }).collect_view()}
            </div>
            <p class="lesson-result" data-testid="lesson-result">
                {(x.linear)(e.linear_max_diff, e.linear_mean_diff, e.linear_cost, e.softmax_cost)}
            </p>
            <button type="button" class="table-toggle" data-testid="variants-gqa"
                on:click=move |_| lab.lesson.set(Some(Chapter::Gqa))>
                {format!("{} — {}", x.go_to, lab.lang.get_untracked().text().learn.chapters[Chapter::Gqa.index()].title)}
            </button>
        }
        .into_any()
    }
}
