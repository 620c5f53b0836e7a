//! The tokens chapter's experiment, drawn: tokens become vectors: |E|, |P|, |X| and a word used twice.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::logic::visible;
use crate::ui::state::Lab;

use super::parts::texts;

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Tokens(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let repeated = match &e.repeated {
            Some(r) => (x.repeated)(
                &visible(&r.token),
                r.first,
                r.second,
                r.embedding_distance,
                r.x_distance,
            ),
            None => x.no_repeat.to_string(),
        };
        let show = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or_else(|| "—".into());
        view! {
            <p class="lesson-result" data-testid="lesson-result">{repeated}</p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table">
                    <thead><tr><th>{x.token}</th><th>"|E|"</th><th>"|P|"</th><th>"|X|"</th></tr></thead>
                    <tbody>
                        {e.norms.iter().map(|n| view! {
                            <tr><td>{visible(&n.token)}</td><td>{show(n.embedding)}</td><td>{show(n.position)}</td><td>{format!("{:.3}", n.x)}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}
