//! The qkv chapter's experiment, drawn: what the selected query matches.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::logic::visible;
use crate::ui::state::Lab;

use super::parts::texts;

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Qkv(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        view! {
            <p class="lesson-result" data-testid="lesson-result">{(x.qkv_intro)(&visible(&e.query_token), e.head + 1, e.d_k)}</p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table">
                    <thead><tr><th>{x.key}</th><th>{x.dot}</th><th></th></tr></thead>
                    <tbody>
                        {e.matches.iter().map(|m| view! {
                            <tr class:masked=!m.allowed>
                                <td>{format!("{} {}", m.key, visible(&m.token))}</td>
                                <td>{format!("{:.3}", m.dot)}</td>
                                <td>{if m.allowed { "" } else { x.masked }}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}
