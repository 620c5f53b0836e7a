//! The gqa chapter's experiment, drawn: what sharing K/V saves.

use leptos::prelude::*;

use attention_core::teaching::Experiment;

use crate::ui::state::Lab;

use super::parts::texts;

fn bytes(n: usize) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Gqa(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let kind = |kv: usize| {
            if kv == e.n_heads {
                x.kinds[0]
            } else if kv == 1 {
                x.kinds[2]
            } else {
                x.kinds[1]
            }
        };
        view! {
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="lesson-result">
                    <thead><tr><th>{x.kv_heads}</th><th>{x.kind}</th><th>{x.kv_parameters}</th><th>{x.parameters}</th><th>{x.cache_per_token}</th><th>{x.cache_4096}</th></tr></thead>
                    <tbody>
                        {e.rows.iter().map(|r| view! {
                            <tr class:current=r.current>
                                <td>{r.kv_heads}{if r.current { format!(" ({})", x.current) } else { String::new() }}</td>
                                <td>{kind(r.kv_heads)}</td>
                                <td>{r.kv_parameters}</td>
                                <td>{r.parameters}</td>
                                <td>{bytes(r.cache_bytes_per_token)}</td>
                                <td>{bytes(r.cache_bytes_per_token * 4096)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}
