//! The hybrids chapter's experiment, drawn: what four layers of the learner's heads hold as they
//! read, for four mixes of linear and softmax layers (a chart and its numbers in words), then the
//! Llama twins read through one rolling cache (the Streaming section's comparison, on the
//! section's sample text).

use leptos::prelude::*;

use attention_core::models::stream::SAMPLE_TEXT;
use attention_core::teaching::{Experiment, HYBRID_LENGTHS, HybridsExperiment};

use crate::ui::logic::format::group_digits;
use crate::ui::logic::line_chart::{COLORS, LineChart, Series};
use crate::ui::state::Lab;
use crate::ui::views::chart::paint;
use crate::ui::views::stream_twins::StreamTwins;

/// Bytes against tokens, both axes logarithmic, one line per mix; the length where the 3 : 1
/// stack passes below the all-softmax one marked. (An all-linear stack's line is flat.)
fn chart(e: &HybridsExperiment, labels: [&str; 7], ink: (u8, u8, u8)) -> LineChart {
    let colors = [COLORS[1], COLORS[3], COLORS[0], COLORS[2]];
    let series = e
        .mixes
        .iter()
        .zip(&labels[3..])
        .zip(colors)
        .map(|((mix, label), color)| Series {
            label: (*label).to_string(),
            points: HYBRID_LENGTHS
                .iter()
                .map(|&n| (n as f64, mix.bytes(n) as f64))
                .collect(),
            color,
            reference: false,
            points_only: false,
        })
        .collect();
    LineChart {
        title: labels[0].to_string(),
        x_label: labels[1].to_string(),
        y_label: labels[2].to_string(),
        x_log: true,
        y_log: true,
        series,
        marker: Some(e.crossover as f64),
        ink,
    }
}

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let texts = move || &lab.lang.get().text().learn.hybrids;
    let experiment = Memo::new(move |_| match e.get() {
        Some(Experiment::Hybrids(h)) => Some(h),
        _ => None,
    });
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |_| {
        let _ = lab.scheme();
        if let (Some(canvas), Some(e)) = (canvas.get(), experiment.get()) {
            paint(&canvas, chart(&e, texts().chart, (0, 0, 0)), 520);
        }
    });
    let said = move || {
        let e = experiment.get()?;
        let longest = *HYBRID_LENGTHS.last()?;
        let bytes = |i: usize| e.mixes.get(i).map(|m| group_digits(m.bytes(longest)));
        Some((texts().crossover)(
            &group_digits(e.crossover),
            &bytes(2)?,
            &bytes(0)?,
            &group_digits(longest),
            e.heads,
            e.kv_heads,
            e.d_k,
            e.d_v,
        ))
    };
    // The twins read the Streaming section's sample text with its defaults (a window of 64, 4
    // sink tokens), the numbers their model cards state.
    let text = RwSignal::new(SAMPLE_TEXT.to_string());
    let (window, sinks) = (RwSignal::new(64usize), RwSignal::new(4usize));
    view! {
        <Show when=move || experiment.with(Option::is_some)>
            <figure class="stage">
                <canvas class="memory-chart" node_ref=canvas data-testid="hybrids-memory-chart" role="img"
                    aria-label=move || format!("{}: {}", texts().chart[0], said().unwrap_or_default())></canvas>
            </figure>
            <p class="lesson-result" data-testid="lesson-result">{said}</p>
        </Show>
        <StreamTwins text=text window=window sinks=sinks lesson=true />
    }
}
