//! The cross chapter's experiment, drawn: queries from one sentence, keys and values from another.

use leptos::prelude::*;

use attention_core::api::Request;
use attention_core::teaching::Experiment;

use crate::ui::logic::visible;
use crate::ui::state::Lab;

use super::parts::texts;

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let add_source = move |_| {
        let source = lab.lang.get_untracked().text().learn.x.cross_source;
        lab.change(Request {
            source_sentence: Some(source.to_string()),
            ..Request::default()
        });
    };
    move || {
        let Some(Experiment::Cross(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let trained = lab.request.with(|r| r.is_trained());
        if !e.is_cross {
            return view! {
                <p class="lesson-result" data-testid="lesson-result">{x.not_cross}</p>
                {trained.then(|| view! { <p class="help">{lab.lang.get().text().model.no_cross}</p> })}
                <button type="button" class="button" data-testid="lesson-add-source" disabled=trained on:click=add_source>
                    {x.add_source}
                </button>
            }
            .into_any();
        }
        view! {
            <p class="lesson-result" data-testid="lesson-result">{(x.cross_result)(e.queries, e.keys)}</p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table">
                    <thead><tr><th>{x.token}</th><th>{x.source_token}</th><th>{x.weight}</th></tr></thead>
                    <tbody>
                        {e.best.iter().map(|m| view! {
                            <tr><td>{visible(&m.query_token)}</td><td>{visible(&m.source_token)}</td><td>{format!("{:.3}", m.weight)}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}
