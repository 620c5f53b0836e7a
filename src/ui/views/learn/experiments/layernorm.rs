//! The layernorm chapter's experiment, drawn: the stream and its gradient through Pre-LN and Post-LN blocks.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::logic::visible;
use crate::ui::state::Lab;
use crate::ui::views::chart::Chart;

use super::parts::{chart, series, texts};

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
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
            <div class="table-scroll" tabindex="0">
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
