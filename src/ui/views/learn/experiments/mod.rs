//! Each chapter's experiment, drawn: the numbers come from `attention_core::lessons` on the
//! current trace (the same function the CLI calls); here they become tables, charts and
//! sentences in the reader's language. One module per chapter, as in the core.

use leptos::prelude::*;

mod complexity;
mod cross;
mod flash;
mod gqa;
mod kv_cache;
mod layernorm;
mod masks;
mod multihead;
mod positions;
mod qkv;
mod scaling;
mod softmax;
mod stability;
mod taming;
mod tokens;
mod variants;
mod windows;

use attention_core::lessons::{Chapter, Experiment, Focus, experiment};

use crate::ui::i18n::learn::ExperimentTexts;
use crate::ui::model::line_chart::{COLORS, LineChart, Series};
use crate::ui::state::Lab;

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
        points_only: false,
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
        Chapter::Tokens => tokens::view(lab, e).into_any(),
        Chapter::Qkv => qkv::view(lab, e).into_any(),
        Chapter::Scaling => scaling::view(lab, e).into_any(),
        Chapter::Softmax => softmax::view(lab, e).into_any(),
        Chapter::Masks => masks::view(lab, e).into_any(),
        Chapter::Positions => positions::view(lab, e).into_any(),
        Chapter::Windows => windows::view(lab, e).into_any(),
        Chapter::Taming => taming::view(lab, e).into_any(),
        Chapter::Multihead => multihead::view(lab, e).into_any(),
        Chapter::Gqa => gqa::view(lab, e).into_any(),
        Chapter::Cross => cross::view(lab, e).into_any(),
        Chapter::Layernorm => layernorm::view(lab, e).into_any(),
        Chapter::Stability => stability::view(lab, e).into_any(),
        Chapter::Complexity => complexity::view(lab, e).into_any(),
        Chapter::Flash => flash::view(lab, e).into_any(),
        Chapter::KvCache => kv_cache::view(lab, e).into_any(),
        Chapter::Streaming => kv_cache::streaming_view(lab, e).into_any(),
        Chapter::Variants => variants::view(lab, e).into_any(),
        Chapter::Exercises => ().into_any(),
    }
}
