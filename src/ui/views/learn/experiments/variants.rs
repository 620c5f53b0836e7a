//! The variants chapter's experiment, drawn: sparse and linear attention.

use leptos::prelude::*;

use attention_core::teaching::{Chapter, Experiment};

use crate::ui::state::Lab;

use super::parts::texts;

/// Sparse patterns are drawn cell by cell up to this many tokens.
const DRAWN_PATTERN: usize = 48;

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
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
            <button type="button" class="table-toggle" data-testid="variants-delta-rule"
                on:click=move |_| lab.lesson.set(Some(Chapter::DeltaRule))>
                {format!("{} — {}", x.go_to, lab.lang.get_untracked().text().learn.chapters[Chapter::DeltaRule.index()].title)}
            </button>
            <button type="button" class="table-toggle" data-testid="variants-hybrids"
                on:click=move |_| lab.lesson.set(Some(Chapter::Hybrids))>
                {move || {
                    let learn = lab.lang.get().text().learn;
                    format!("{} — {}", learn.x.go_to, learn.chapters[Chapter::Hybrids.index()].title)
                }}
            </button>
        }
        .into_any()
    }
}
