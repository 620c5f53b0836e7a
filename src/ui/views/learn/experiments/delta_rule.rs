//! The delta-rule chapter's experiment, drawn: how well a state of fixed size gives back what
//! was written into it under each rule (a chart and its numbers in words), and the learner's
//! sentence computed in chunks against token by token.

use leptos::prelude::*;

use attention_core::teaching::{DeltaRuleExperiment, Experiment, RECALL_ALPHA};

use crate::ui::logic::line_chart::{COLORS, LineChart, Series};
use crate::ui::state::Lab;
use crate::ui::views::chart::paint;

/// The recall chart: error against pairs written, one line per rule, d_k marked.
fn chart(e: &DeltaRuleExperiment, labels: [&str; 6], ink: (u8, u8, u8)) -> LineChart {
    let line = |label: &str, color: usize, errors: &[f64]| Series {
        label: label.to_string(),
        points: e
            .pairs
            .iter()
            .zip(errors)
            .map(|(&n, &err)| (n as f64, err))
            .collect(),
        color: COLORS[color],
        reference: false,
        points_only: false,
    };
    LineChart {
        title: labels[0].to_string(),
        x_label: labels[1].to_string(),
        y_label: labels[2].to_string(),
        x_log: true,
        y_log: false,
        series: vec![
            line(labels[3], 1, &e.additive),
            line(labels[4], 0, &e.delta),
            line(labels[5], 2, &e.gated),
        ],
        marker: Some(e.d_k as f64),
        ink,
    }
}

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let texts = move || &lab.lang.get().text().learn.delta;
    let experiment = Memo::new(move |_| match e.get() {
        Some(Experiment::DeltaRule(d)) => Some(d),
        _ => None,
    });
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |_| {
        let _ = lab.scheme();
        if let (Some(canvas), Some(e)) = (canvas.get(), experiment.get()) {
            paint(&canvas, chart(&e, texts().chart, (0, 0, 0)), 520);
        }
    });
    let f = |x: f64| format!("{x:.3}");
    let at_capacity = move || {
        let e = experiment.get()?;
        let i = e.pairs.iter().position(|&n| n == e.d_k)?;
        Some((texts().at_capacity)(
            e.d_k,
            &f(e.additive[i]),
            &f(e.delta[i]),
            &f(e.gated[i]),
            &format!("{:.1e}", e.delta_newest[i]),
        ))
    };
    let past_capacity = move || {
        let e = experiment.get()?;
        let i = e.pairs.len().checked_sub(1)?;
        Some((texts().past_capacity)(
            e.pairs[i],
            (e.d_k / 4).max(1),
            &f(e.delta_recent[i]),
            &f(e.gated_recent[i]),
            &format!("{RECALL_ALPHA}"),
        ))
    };
    let chunks = move || {
        let e = experiment.get()?;
        let items = e
            .chunk_diffs
            .as_ref()?
            .iter()
            .map(|(chunk, d)| format!("{chunk}: {d:.1e}"))
            .collect::<Vec<_>>()
            .join(", ");
        Some((texts().chunks)(e.head + 1, &items))
    };
    view! {
        <Show when=move || experiment.with(Option::is_some)>
            <figure class="stage">
                <canvas class="memory-chart" node_ref=canvas data-testid="delta-recall-chart" role="img"
                    aria-label=move || texts().chart[0]></canvas>
            </figure>
            <p class="lesson-result" data-testid="lesson-result">{at_capacity}</p>
            <p class="lesson-result" data-testid="delta-past-capacity">{past_capacity}</p>
            <p class="flash-check" data-testid="delta-chunks">{chunks}</p>
        </Show>
    }
}
