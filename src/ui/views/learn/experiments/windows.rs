//! The sliding windows chapter's experiment, drawn: the cells each mask computes, what the window
//! hides from each query, and the selected query's weights causal, windowed and with sinks.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::logic::format::format_value;
use crate::ui::logic::visible;
use crate::ui::state::Lab;

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Windows(e)) = e.get() else {
            return ().into_any();
        };
        let x = &lab.lang.get().text().learn.modern;
        if e.cross {
            return view! { <p class="note" data-testid="lesson-result">{x.not_cross}</p> }
                .into_any();
        }
        let keys = lab.shown.with(|t| {
            t.as_ref()
                .map(|t| t.0.config.key_sequence().tokens.clone())
                .unwrap_or_default()
        });
        let hidden_list = e
            .hidden_per_query
            .iter()
            .map(|h| h.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let query = e.query;
        let place = |j: usize| {
            if j < e.sink_tokens && j <= query {
                x.sink
            } else if j <= query && query - j > e.radius {
                x.hidden
            } else {
                ""
            }
        };
        view! {
            <p class="lesson-result" data-testid="lesson-result">
                {(x.window_cells)(e.radius, e.sink_tokens, e.causal_cells, e.window_cells, e.sink_cells)}
            </p>
            <p class="lesson-result" data-testid="window-mass">
                {(x.window_mass)(e.query, &format_value(e.hidden_mass), &format_value(e.sink_mass), &format_value(e.kept_mass))}
            </p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="windows-table">
                    <thead><tr>
                        <th>{lab.lang.get().text().learn.x.key}</th>
                        <th></th>
                        <th>{x.causal}</th>
                        <th>{x.window}</th>
                        <th>{x.with_sinks}</th>
                    </tr></thead>
                    <tbody>
                        {(0..e.causal.len()).map(|j| view! {
                            <tr>
                                <td>{format!("{} {}", j, keys.get(j).map(|k| visible(k)).unwrap_or_default())}</td>
                                <td class="help">{place(j)}</td>
                                <td>{format!("{:.4}", e.causal[j])}</td>
                                <td>{format!("{:.4}", e.window[j])}</td>
                                <td>{format!("{:.4}", e.with_sinks[j])}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p class="help block">{(x.hidden_per_query)(&hidden_list)}</p>
        }
        .into_any()
    }
}
