//! The taming chapter's experiment, drawn: the row under a few soft-caps, every head's scores with
//! and without QK-norm (and with q and k grown), and the row with sink logits.

use leptos::prelude::*;

use attention_core::teaching::{Experiment, GROWTH};

use crate::ui::logic::format::{format_value, significant};
use crate::ui::state::Lab;

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    move || {
        let Some(Experiment::Taming(e)) = e.get() else {
            return ().into_any();
        };
        let x = &lab.lang.get().text().learn.modern;
        let growth = significant(GROWTH, 3);
        let num = |v: f32| significant(v, 4);
        view! {
            <p class="lesson-result">{(x.caps_intro)(e.query, e.head + 1)}</p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="caps-table">
                    <thead><tr><th>{x.cap}</th><th>{x.largest_score}</th><th>{x.top_weight}</th><th>{x.entropy}</th></tr></thead>
                    <tbody>
                        {e.caps.iter().map(|c| view! {
                            <tr>
                                <td>{c.cap.map_or(x.no_cap.to_string(), |c| significant(c, 3))}</td>
                                <td>{num(c.largest)}</td>
                                <td>{format_value(c.top_weight)}</td>
                                <td>{num(c.entropy)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p class="lesson-result" data-testid="lesson-result">
                {(x.qk_norm_intro)(e.d_k, &significant(e.bound, 3), &growth)}
            </p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="qk-norm-table">
                    <thead><tr>
                        <th>{lab.lang.get().text().learn.x.head}</th>
                        <th>{x.raw}</th><th>{x.normed}</th>
                        <th>{(x.raw_grown)(&growth)}</th><th>{(x.normed_grown)(&growth)}</th>
                    </tr></thead>
                    <tbody>
                        {e.qk_norm.iter().map(|r| view! {
                            <tr class:active=r.head == e.head>
                                <td>{r.head + 1}</td>
                                <td>{num(r.raw)}</td><td>{num(r.normed)}</td>
                                <td>{num(r.raw_grown)}</td><td>{num(r.normed_grown)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p class="lesson-result">{(x.sinks_intro)(&num(e.row_max))}</p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="sinks-table">
                    <thead><tr><th>{x.sink_logit}</th><th>{x.kept}</th><th>{x.top_weight}</th></tr></thead>
                    <tbody>
                        {e.sinks.iter().map(|s| view! {
                            <tr>
                                <td>{s.logit.map_or(x.no_sink.to_string(), |l| significant(l, 3))}</td>
                                <td>{format_value(s.kept)}</td>
                                <td>{format_value(s.top_weight)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    }
}
