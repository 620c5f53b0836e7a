//! The score options on the learner's numbers, between Q, K, V and the scores: RoPE's turned q
//! and k with the angle of every pair and the offset's (non-)effect, ALiBi's biases and slopes,
//! the soft-cap's curve with a row's scores on it, QK-norm's bound, and the weights with the
//! sink's column. Shown only when one of the options is on; the numbers come from
//! `ui::logic::shaping`.

use leptos::prelude::*;

use super::chart::Chart;
use super::heatmap::Look;
use super::heatmap::{CellPick, Heatmap};
use super::section::{MOST_TRACED, summarised};
use crate::ui::logic::format::{format_value, significant};
use crate::ui::logic::line_chart::{COLORS, LineChart, Series};
use crate::ui::logic::matrix::MatrixView;
use crate::ui::logic::shaping::{
    alibi_view, has_views, near_cap, offset_change, qk_norm_bound, rope_views, sink_view,
    slope_rows, softcap_points,
};
use crate::ui::state::Lab;

#[component]
pub fn ShapingSection() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().shaping;
    let shown = move || {
        lab.shown
            .with(|t| t.as_ref().is_some_and(|t| has_views(&t.0)))
    };
    // Memos: a new trace of the same length must not rebuild the cards (and their canvases).
    let shown = Memo::new(move |_| shown());
    let long = Memo::new(move |_| summarised(lab));
    let waiting = move || long.get().map(|n| (words().waiting)(n, MOST_TRACED));
    view! {
        <Show when=move || shown.get()>
            <section class="step shaping" data-view="shaping" id="section-shaping">
                <h2 class="step-title">{move || words().view_title}</h2>
                <p class="help block">{move || words().view_help}</p>
                {move || match waiting() {
                    Some(note) => view! { <p class="note" data-testid="shaping-waiting">{note}</p> }.into_any(),
                    None => view! {
                        <RopeCard />
                        <OffsetNote />
                        <AlibiCard />
                        <SoftcapCard />
                        <QkNormNote />
                        <SinkCard />
                    }
                    .into_any(),
                }}
            </section>
        </Show>
    }
}

/// A heatmap of this section, with a line under it saying what the hovered cell holds.
#[component]
fn Card(
    #[prop(into)] data: Signal<Option<MatrixView>>,
    #[prop(into)] title: Signal<String>,
    test_id: &'static str,
    /// What the hovered cell (row, column) holds.
    describe: fn(Lab, usize, usize) -> Option<String>,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let readout = RwSignal::new(None::<String>);
    let on_cell = Callback::new(move |pick: Option<CellPick>| {
        readout.set(pick.and_then(|p| describe(lab, p.row, p.col)));
    });
    view! {
        <Show when=move || data.with(Option::is_some)>
            <figure class="stage" data-testid=test_id>
                <figcaption><h3>{title}</h3></figcaption>
                <Heatmap
                    data=data
                    look=Look::of(lab)
                    test_id=format!("heatmap-{test_id}")
                    label=title
                    on_cell=on_cell
                />
                <p class="help readout" data-testid=format!("{test_id}-readout")>{readout}</p>
            </figure>
        </Show>
    }
}

/// The selected head, kept within the shown trace's heads.
fn head(lab: Lab) -> usize {
    let heads = lab
        .shown
        .with(|t| t.as_ref().map_or(1, |t| t.0.heads.len()));
    lab.selected_head().min(heads.saturating_sub(1))
}

#[component]
fn RopeCard() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().shaping;
    let views = Memo::new(move |_| {
        let head = head(lab);
        lab.shown.with(|t| {
            t.as_ref()
                .and_then(|t| rope_views(&t.0, head))
                .map(|v| (v.matrices, v.angles))
        })
    });
    let titles = move || {
        let normed = lab
            .shown
            .with(|t| t.as_ref().is_some_and(|t| t.0.config.shaping().qk_norm));
        if normed {
            words().normed_matrices
        } else {
            words().rope_matrices
        }
    };
    let matrix = move |i: usize| Signal::derive(move || views.get().map(|(m, _)| m[i].clone()));
    let title = move |i: usize| Signal::derive(move || titles()[i].to_string());
    let describe_angle = |lab: Lab, row: usize, col: usize| {
        let head = head(lab);
        lab.shown.with(|t| {
            let trace = &t.as_ref()?.0;
            let views = rope_views(trace, head)?;
            let (p, a, b, theta) = *views.pairs.get(col)?;
            let angle = *views.angles.values.get((row, col))?;
            let position = row + trace.config.shaping().offset;
            let words = lab.lang.get().text().shaping;
            Some((words.angle_cell)(
                position,
                p,
                a,
                b,
                &significant(theta as f32, 4),
                &format_value(angle),
            ))
        })
    };
    let cell = |lab: Lab, row: usize, col: usize| {
        let head = head(lab);
        lab.shown.with(|t| {
            let trace = &t.as_ref()?.0;
            let views = rope_views(trace, head)?;
            let value = views.matrices[1].values.get((row, col))?;
            Some(format!("[{row}, {col}] = {}", format_value(*value)))
        })
    };
    view! {
        <Show when=move || views.with(Option::is_some)>
            <h3 class="shaping-title">{move || words().rope_title}</h3>
            <p class="caption">{move || words().rope_caption}</p>
            <div class="rope-grid" data-testid="rope-matrices">
                <Card data=matrix(0) title=title(0) test_id="rope-q" describe=cell />
                <Card data=matrix(1) title=title(1) test_id="rope-q-turned" describe=cell />
                <Card data=matrix(2) title=title(2) test_id="rope-k" describe=cell />
                <Card data=matrix(3) title=title(3) test_id="rope-k-turned" describe=cell />
            </div>
            <div class="stage-row">
                <Card
                    data=Signal::derive(move || views.get().map(|(_, a)| a))
                    title=Signal::derive(move || words().angles_title.to_string())
                    test_id="rope-angles"
                    describe=describe_angle
                />
            </div>
            <p class="help block">{move || words().angles_caption}</p>
        </Show>
    }
}

/// How much the offset moves the scores: nothing (to rounding) with RoPE and ALiBi; everything
/// with absolute positions.
#[component]
fn OffsetNote() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let note = move || {
        let words = lab.lang.get().text().shaping;
        let head = head(lab);
        lab.shown.with(|t| {
            let trace = &t.as_ref()?.0;
            let shaping = trace.config.shaping();
            use attention_core::math::scoring::Position;
            match (shaping.position, shaping.offset) {
                (Position::Rope { .. } | Position::Alibi, 0) => Some(words.offset_zero.to_string()),
                (Position::Rope { .. } | Position::Alibi, _) => {
                    let change = offset_change(trace, head)?;
                    // Exactly 0 (ALiBi) is said as 0, not 0.0e0.
                    let change = if change == 0.0 {
                        "0".to_string()
                    } else {
                        format!("{change:.1e}")
                    };
                    Some((words.offset_delta)(shaping.offset, &change))
                }
                (Position::Absolute, offset) if offset > 0 => Some((words.offset_absolute)(offset)),
                _ => None,
            }
        })
    };
    view! {
        <p class="note offset-note" data-testid="offset-note">{note}</p>
    }
}

#[component]
fn AlibiCard() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().shaping;
    let view_of = Memo::new(move |_| {
        let head = head(lab);
        lab.shown
            .with(|t| t.as_ref().and_then(|t| alibi_view(&t.0, head)))
    });
    let slopes = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().map(|t| slope_rows(&t.0)).unwrap_or_default())
    });
    let describe = |lab: Lab, row: usize, col: usize| {
        let head = head(lab);
        lab.shown.with(|t| {
            let (view, slope) = alibi_view(&t.as_ref()?.0, head)?;
            let bias = view.values.get((row, col))?;
            let words = lab.lang.get().text().shaping;
            Some((words.alibi_cell)(
                row,
                col,
                &slope_text(slope),
                &format_value(*bias),
            ))
        })
    };
    view! {
        <Show when=move || view_of.with(Option::is_some)>
            <h3 class="shaping-title">{move || words().alibi_title}</h3>
            <p class="caption">{move || words().alibi_caption}</p>
            <div class="stage-row">
                <Card
                    data=Signal::derive(move || view_of.get().map(|(v, _)| v))
                    title=Signal::derive(move || {
                        let slope = view_of.get().map(|(_, m)| slope_text(m)).unwrap_or_default();
                        format!("−{slope} · |i − j|")
                    })
                    test_id="alibi-bias"
                    describe=describe
                />
                <figure class="stage">
                    <table class="slopes" data-testid="alibi-slopes">
                        <thead>
                            <tr>
                                {move || words().slope_columns.iter().map(|c| view! { <th>{*c}</th> }).collect_view()}
                            </tr>
                        </thead>
                        <tbody>
                            {move || slopes.get().into_iter().map(|(h, m, log, reach)| {
                                let selected = move || head(lab) + 1 == h;
                                view! {
                                    <tr class:active=selected>
                                        <td>{h}</td>
                                        <td>{slope_text(m)}</td>
                                        <td>{format!("2^{}", significant(log, 3))}</td>
                                        <td>{significant(reach, 3)}</td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                </figure>
            </div>
        </Show>
    }
}

#[component]
fn SoftcapCard() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().shaping;
    // The row on the curve: the hovered cell's query, else the last query.
    let row = move || {
        lab.active
            .get()
            .map(|a| a.row)
            .or_else(|| {
                lab.shown
                    .with(|t| t.as_ref().map(|t| t.0.config.seq_len().saturating_sub(1)))
            })
            .unwrap_or(0)
    };
    let data = Memo::new(move |_| {
        let (head, row) = (head(lab), row());
        lab.shown.with(|t| {
            let trace = &t.as_ref()?.0;
            let row = row.min(trace.config.seq_len().saturating_sub(1));
            let token = crate::ui::logic::visible(trace.config.tokens().get(row)?);
            softcap_points(trace, head, row).map(|(cap, points)| (cap, points, row, token))
        })
    });
    let chart = Signal::derive(move || {
        let words = lab.lang.get().text().shaping;
        data.get().map(|(cap, mut points, _, _)| {
            let cap = f64::from(cap);
            let reach = points
                .iter()
                .fold(3.0 * cap, |m, (z, _)| m.max(f64::from(z.abs()) * 1.1));
            let curve: Vec<(f64, f64)> = (0..=200)
                .map(|s| {
                    let z = -reach + 2.0 * reach * f64::from(s) / 200.0;
                    (z, cap * (z / cap).tanh())
                })
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            LineChart {
                title: words.softcap_title.into(),
                x_label: words.softcap_axes[0].into(),
                y_label: words.softcap_axes[1].into(),
                x_log: false,
                y_log: false,
                series: vec![
                    Series {
                        label: format!("c·tanh(z/c), c = {}", significant(cap as f32, 3)),
                        points: curve,
                        color: COLORS[0],
                        reference: false,
                        points_only: false,
                    },
                    Series {
                        label: "z".into(),
                        points: vec![(-cap * 1.2, -cap * 1.2), (cap * 1.2, cap * 1.2)],
                        color: COLORS[3],
                        reference: true,
                        points_only: false,
                    },
                    Series {
                        label: words.softcap_axes[1].into(),
                        points: points
                            .iter()
                            .map(|&(z, after)| (f64::from(z), f64::from(after)))
                            .collect(),
                        color: COLORS[1],
                        reference: false,
                        points_only: true,
                    },
                ],
                marker: None,
                ink: (0, 0, 0),
            }
        })
    });
    let note = move || {
        data.get().map(|(cap, points, row, token)| {
            (words().softcap_row)(row, &token, near_cap(cap, &points))
        })
    };
    view! {
        <Show when=move || data.with(Option::is_some)>
            <h3 class="shaping-title">{move || words().softcap_title}</h3>
            <p class="caption">
                {move || (words().softcap_caption)(&data.get().map(|d| significant(d.0, 3)).unwrap_or_default())}
            </p>
            <Chart chart=chart test_id="softcap-chart" />
            <p class="help block" data-testid="softcap-row">{note}</p>
        </Show>
    }
}

#[component]
fn QkNormNote() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let note = move || {
        let words = lab.lang.get().text().shaping;
        let head = head(lab);
        lab.shown.with(|t| {
            let trace = &t.as_ref()?.0;
            let (bound, largest) = qk_norm_bound(trace, head)?;
            Some((words.qk_norm_bound)(
                &significant(bound, 3),
                &significant(largest, 3),
                trace.config.dims().d_k,
            ))
        })
    };
    view! {
        <Show when=move || note().is_some()>
            <h3 class="shaping-title">{move || lab.lang.get().text().shaping.qk_norm_title}</h3>
            <p class="note" data-testid="qk-norm-bound">{note}</p>
        </Show>
    }
}

#[component]
fn SinkCard() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let words = move || lab.lang.get().text().shaping;
    let data = Memo::new(move |_| {
        let head = head(lab);
        let label = words().sink_column;
        lab.shown
            .with(|t| t.as_ref().and_then(|t| sink_view(&t.0, head, label)))
    });
    let describe = |lab: Lab, row: usize, col: usize| {
        let head = head(lab);
        let words = lab.lang.get().text().shaping;
        lab.shown.with(|t| {
            let view = sink_view(&t.as_ref()?.0, head, words.sink_column)?;
            let value = *view.values.get((row, col))?;
            Some(if col + 1 == view.values.ncols() {
                (words.sink_cell)(row, &format_value(value))
            } else {
                (words.key_cell)(row, col, &format_value(value))
            })
        })
    };
    view! {
        <Show when=move || data.with(Option::is_some)>
            <h3 class="shaping-title">{move || words().sink_title}</h3>
            <p class="caption">{move || words().sink_caption}</p>
            <div class="stage-row">
                <Card
                    data=Signal::derive(move || data.get())
                    title=Signal::derive(move || {
                        let head = head(lab) + 1;
                        format!("{} {head}: w + {}", lab.lang.get().text().head_label, words().sink_column)
                    })
                    test_id="sink-weights"
                    describe=describe
                />
            </div>
        </Show>
    }
}

/// A slope as the paper writes it: 1/2^k as a fraction, any other as a decimal.
fn slope_text(m: f32) -> String {
    let inverse = 1.0 / m;
    if inverse.fract() == 0.0 && inverse < 1e7 {
        format!("1/{inverse}")
    } else {
        significant(m, 4)
    }
}
