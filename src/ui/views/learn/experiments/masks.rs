//! The masks chapter's experiment, drawn: −∞ against a large negative number.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::logic::visible;
use crate::ui::state::Lab;

use super::parts::{texts, weights_list};

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
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
            <div class="table-scroll" tabindex="0">
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
