//! Each chapter's experiment, drawn: the numbers come from `attention_core::teaching` on the
//! current trace (the same function the CLI calls); here they become tables, charts and
//! sentences in the reader's language. One module per chapter, as in the core.

use leptos::prelude::*;

mod parts;

mod circuits;
mod complexity;
mod cross;
mod delta_rule;
mod flash;
mod gqa;
mod hybrids;
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

use attention_core::teaching::{Chapter, Experiment, Focus, experiment};

use crate::ui::state::Lab;

/// The chapter's experiment on the shown trace, recomputed when the trace or the focus changes.
pub fn current(lab: Lab, chapter: Chapter) -> Memo<Option<Experiment>> {
    Memo::new(move |_| {
        let focus = Focus {
            head: lab.selected_head(),
            query: lab.lesson_query.get(),
            factor: lab.lesson_factor.get(),
            shift: lab.lesson_shift.get(),
        };
        // A summarised trace (a long input) keeps no weights to experiment on; a hybrid's
        // linear layer has none but for the delta-rule chapter (and the hybrids chapter reads
        // its shape alone).
        lab.shown.with(|t| {
            t.as_ref()
                .filter(|t| !t.0.is_summarised())
                .filter(|t| {
                    matches!(chapter, Chapter::DeltaRule | Chapter::Hybrids)
                        || t.0.config.linear().is_none()
                })
                .map(|t| experiment(chapter, &t.0, &focus))
        })
    })
}

/// The chapter's experiment view.
pub fn view(lab: Lab, chapter: Chapter) -> AnyView {
    let too_long = move || {
        crate::ui::views::section::summarised(lab).map(|n| {
            let most = crate::ui::views::section::MOST_TRACED;
            view! { <p class="note" data-testid="lesson-too-long">{(lab.lang.get().text().overview.lesson)(n, most)}</p> }
        })
    };
    let linear = move || {
        let linear = lab
            .shown
            .with(|t| t.as_ref().is_some_and(|t| t.0.config.linear().is_some()));
        let own = matches!(
            chapter,
            Chapter::DeltaRule | Chapter::Circuits | Chapter::Hybrids
        );
        (linear && !own).then(|| {
            let layer = lab
                .request
                .with(|r| r.is_trained())
                .then(|| lab.layer.get() + 1);
            view! { <p class="note" data-testid="lesson-linear-layer">{(lab.lang.get().text().learn.delta.linear_layer)(layer)}</p> }
        })
    };
    view! { {too_long} {linear} {chapter_view(lab, chapter)} }.into_any()
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
        Chapter::Circuits => circuits::view(lab).into_any(),
        Chapter::Variants => variants::view(lab, e).into_any(),
        Chapter::DeltaRule => delta_rule::view(lab, e).into_any(),
        Chapter::Hybrids => hybrids::view(lab, e).into_any(),
        Chapter::Exercises => ().into_any(),
    }
}
