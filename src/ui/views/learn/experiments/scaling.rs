//! The scaling chapter's experiment, drawn: why √d_k: the curves, the learner's heads raw and standardised, the histograms.

use leptos::prelude::*;

use attention_core::teaching::{Experiment, SCALING_DIMS};

use crate::ui::i18n::learn::HeadVariances;
use crate::ui::state::Lab;
use crate::ui::views::chart::Chart;

use super::parts::{chart, series, texts};

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

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
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
            <div class="table-scroll" tabindex="0">
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
