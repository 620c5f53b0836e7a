//! The positions chapter's experiment, drawn: each kind's scores under a shift of every position,
//! and RoPE's two pairings before and after permuting the columns.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::logic::format::{format_value, significant};
use crate::ui::state::Lab;

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Positions(e)) = e.get() else {
            return ().into_any();
        };
        let x = &lab.lang.get().text().learn.modern;
        if let Some(why) = e.why_not {
            let index = match why {
                "trained" => 0,
                "own_x" => 1,
                _ => 2,
            };
            return view! { <p class="note" data-testid="lesson-result">{x.why_not[index]}</p> }
                .into_any();
        }
        let keys = lab.shown.with(|t| {
            t.as_ref()
                .map(|t| t.0.config.key_sequence().tokens.clone())
                .unwrap_or_default()
        });
        let kind_name = |kind: &str| match kind {
            "absolute" => x.kinds[0],
            "none" => x.kinds[1],
            "rope" => x.kinds[2],
            _ => x.kinds[3],
        };
        let pairing = e
            .pairing_change
            .zip(e.permuted_change)
            .map(|(differ, permuted)| {
                let order = format!(
                    "[{}]",
                    e.permutation
                        .iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                (x.pairings)(&format!("{differ:.3}"), &format!("{permuted:.1e}"), &order)
            });
        view! {
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="positions-table">
                    <thead><tr>
                        <th>{x.kind}</th>
                        <th>{(x.shift_change)(e.shift)}</th>
                        <th>{(x.top_key)(e.query)}</th>
                    </tr></thead>
                    <tbody>
                        {e.kinds.iter().map(|k| {
                            let key = keys.get(k.top_key).map(|t| crate::ui::logic::visible(t)).unwrap_or_default();
                            view! {
                                <tr data-kind=k.kind>
                                    <td>{kind_name(k.kind)}</td>
                                    <td>{change(k.shift_change)}</td>
                                    <td>{format!("{} {} ({})", k.top_key, key, format_value(k.top_weight))}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            {(!e.kinds.iter().any(|k| k.kind == "rope")).then(|| view! {
                <p class="note">{(x.odd_d_k)(e.d_k)}</p>
            })}
            <p class="lesson-result" data-testid="lesson-result">{pairing}</p>
        }
        .into_any()
    }
}

/// A change of the scores: 0 as 0, rounding (below 10⁻³) in powers of ten, a real change in
/// three figures.
fn change(value: f32) -> String {
    if value == 0.0 {
        "0".into()
    } else if value < 1e-3 {
        format!("{value:.1e}")
    } else {
        significant(value, 3)
    }
}
