//! The multihead chapter's experiment, drawn: how differently the heads attend.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::state::Lab;

use super::parts::texts;

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
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
            <div class="table-scroll" tabindex="0">
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
