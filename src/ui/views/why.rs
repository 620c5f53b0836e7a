//! "Why here?": under the weights, the weight the learner chose (a click, a tap, Enter or the
//! arrow keys on the heatmap) taken apart into what wrote its score: the terms as a heatmap of
//! query-side × key-side writers (with its table), the largest terms in sentences, and the
//! whole row as a table.

use leptos::prelude::*;

use super::heatmap::{Heatmap, Look};
use crate::ui::logic::why::{WhyCell, WhyRowLine, components_of, why_cell, why_row};
use crate::ui::state::Lab;

/// The cell and its row, taken apart on the shown trace (a trained model's layer reads its
/// forward pass for the earlier layers' heads).
type Shown = Option<(WhyCell, Option<(String, Vec<WhyRowLine>)>)>;

fn taken_apart(lab: Lab) -> Memo<Shown> {
    Memo::new(move |_| {
        let (query, key) = lab.why.get()?;
        let trace = lab.shown.get()?;
        let trace = &trace.0;
        // A summarised trace keeps no weights to take apart; a linear layer has no scores.
        if trace.is_summarised() || trace.config.linear().is_some() {
            return None;
        }
        let lang = lab.lang.get();
        let head = lab.selected_head();
        let forward = lab
            .forward
            .with(|f| f.as_ref().and_then(|f| f.as_ref().ok()).cloned());
        let model = lab.model_status.with(|s| match s {
            crate::ui::state::model::ModelStatus::Ready(m) => Some(m.0.clone()),
            _ => None,
        });
        let pair = match (&model, &forward) {
            (Some(m), Some(f)) if trace.config.model_layer().is_some() => Some((&**m, &*f.0)),
            _ => None,
        };
        let components = components_of(trace, pair)?;
        let cell = why_cell(trace, &components, head, query, key, lang)?;
        let row = why_row(trace, &components, head, query, lang);
        Some((cell, row))
    })
}

/// The panel, or the hint that opens it.
#[component]
pub fn WhyHere() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let t = move || lab.lang.get().text().circuits;
    let shown = taken_apart(lab);
    let matrix = Signal::derive(move || shown.with(|s| s.as_ref().map(|(c, _)| c.matrix.clone())));
    view! {
        <Show when=move || shown.with(Option::is_some)
            fallback=move || view! {
                // A linear head's A has no scores to take apart: no hint to a panel that cannot open.
                <Show when=move || !super::section::linear_heads(lab)>
                    <p class="help why-hint" data-testid="why-hint">{move || t().why_hint}</p>
                </Show>
            }>
            <section class="why" aria-labelledby="why-title" data-testid="why-here">
                <div class="why-head">
                    <h4 id="why-title">{move || t().why_title}</h4>
                    <button type="button" class="button quiet" data-testid="why-close"
                        on:click=move |_| lab.why.set(None)>{move || t().close}</button>
                </div>
                <p class="help">{move || t().why_help}</p>
                <p class="why-total" data-testid="why-cell" aria-live="polite">
                    <strong>{move || shown.with(|s| s.as_ref().map(|(c, _)| c.heading.clone()))}</strong>
                    " "
                    <span data-testid="why-total">{move || shown.with(|s| s.as_ref().map(|(c, _)| c.total.clone()))}</span>
                </p>
                {move || shown.with(|s| s.as_ref().and_then(|(c, _)| c.masked)).map(|m| view! {
                    <p class="note" data-testid="why-masked">{m}</p>
                })}
                {move || shown.with(|s| s.as_ref().map(|(c, _)| c.extras.clone()).unwrap_or_default()).into_iter().map(|e| view! {
                    <p class="help" data-testid="why-extra">{e}</p>
                }).collect_view()}
                <Heatmap data=matrix look=Look::of(lab) test_id="heatmap-why"
                    label=Signal::derive(move || t().matrix_label.to_string()) />
                <h5>{move || t().top_title}</h5>
                <ol class="why-top" data-testid="why-top">
                    {move || shown.with(|s| s.as_ref().map(|(c, _)| c.top.clone()).unwrap_or_default()).into_iter().map(|line| view! {
                        <li>{line}</li>
                    }).collect_view()}
                </ol>
                <details class="why-row" data-testid="why-row">
                    <summary>{move || t().row_title}</summary>
                    <p class="help" data-testid="why-row-summary">
                        {move || shown.with(|s| s.as_ref().and_then(|(_, r)| r.as_ref().map(|r| r.0.clone())))}
                    </p>
                    <div class="table-scroll" tabindex="0">
                        <table class="why-table">
                            <thead><tr>
                                {move || t().row_columns.iter().map(|c| view! { <th scope="col">{*c}</th> }).collect_view()}
                            </tr></thead>
                            <tbody>
                                {move || shown.with(|s| s.as_ref().and_then(|(_, r)| r.as_ref().map(|r| r.1.clone())).unwrap_or_default()).into_iter().map(|line| view! {
                                    <tr class:masked=line.masked>
                                        <td>{line.key}</td>
                                        <td>{line.token}</td>
                                        <td>{line.score}</td>
                                        <td>{line.weight}</td>
                                        <td>{line.strongest}</td>
                                    </tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                </details>
            </section>
        </Show>
    }
}
