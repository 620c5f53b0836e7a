//! The KV cache and streaming chapters' experiments, drawn: on the learner's trace, why a step
//! needs only the new row (no weight on a later key, the last row recomputed from the cache),
//! what the cache costs, and each head's weight on the first key; then the trained model live,
//! generating with its cache or reading past its context.

use leptos::prelude::*;

use attention_core::api::{ModelChoice, Request};
use attention_core::models::Layout;
use attention_core::teaching::Experiment;

use crate::ui::logic::format::group_digits;
use crate::ui::state::Lab;
use crate::ui::views::generate::GenerateSection;
use crate::ui::views::stream::StreamSection;

fn texts(lab: Lab) -> &'static crate::ui::i18n::learn::CacheLessonTexts {
    &lab.lang.get().text().learn.cache
}

/// The trained model's own view when one is chosen (`wanted`: the Llama model only), else a
/// button that chooses the Llama model.
fn live(lab: Lab, llama_only: bool, inner: fn() -> AnyView) -> impl IntoView {
    let ready = move || match lab.request.with(|r| r.trained_layout()) {
        // Streaming needs keys to drop: a RoPE model with softmax in every layer.
        Some(layout) => !llama_only || layout == Layout::Llama,
        None => false,
    };
    let choose = move |_| {
        lab.change(Request {
            model: Some(ModelChoice::Llama),
            ..Request::default()
        })
    };
    move || {
        if ready() {
            inner()
        } else {
            view! {
                <p class="help block">{texts(lab).try_model}</p>
                <button type="button" class="button" data-testid="lesson-use-llama" on:click=choose>
                    {texts(lab).try_llama}
                </button>
            }
            .into_any()
        }
    }
}

pub(super) fn view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let numbers = move || {
        let Some(Experiment::KvCache(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let bytes = format!("{} B", group_digits(e.bytes_per_token as u64));
        view! {
            <p class="help block" data-testid="lesson-result">{(x.future)(e.future_weight, e.causal)}</p>
            <p class="help block" data-testid="kv-last-row">
                {match e.last_row_delta {
                    Some(d) => (x.last_row)(e.query, e.head + 1, d),
                    None => x.last_row_shaped.to_string(),
                }}
            </p>
            <p class="help block">{(x.bytes)(&bytes, e.kv_heads, e.d_k, e.d_v)}</p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="kv-costs">
                    <caption>{x.cost_title}</caption>
                    <thead><tr>{x.cost_columns.iter().map(|c| view! { <th>{*c}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {e.costs.iter().map(|c| view! {
                            <tr>
                                <td>{c.n}</td>
                                <td>{group_digits(c.with_cache)}</td>
                                <td>{group_digits(c.without_cache)}</td>
                                <td>{format!("{:.0}×", c.without_cache as f64 / c.with_cache.max(1) as f64)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    };
    view! {
        {numbers}
        {live(lab, false, || view! { <GenerateSection /> }.into_any())}
    }
}

pub(super) fn streaming_view(lab: Lab, e: Memo<Option<Experiment>>) -> impl IntoView {
    let numbers = move || {
        let Some(Experiment::Streaming(e)) = e.get() else {
            return ().into_any();
        };
        let x = texts(lab);
        let (head, most) = e
            .first_share
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or((0, 0.0), |(h, &s)| (h + 1, s));
        // A summarised long trace has no per-head shares: then nothing is said of them.
        let share = (!e.first_share.is_empty()).then(|| (x.share)(e.even_share, most, head, e.n));
        view! {
            <p class="help block" data-testid="stream-share">{share}</p>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="lesson-result">
                    <thead><tr>{x.share_columns.iter().map(|c| view! { <th>{*c}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {e.first_share.iter().enumerate().map(|(h, s)| view! {
                            <tr><td>{h + 1}</td><td>{format!("{:.1}%", s * 100.0)}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <div class="table-scroll" tabindex="0">
                <table class="lesson-table" data-testid="stream-kept">
                    <caption>{(x.kept_title)(e.window, e.sink_tokens)}</caption>
                    <thead><tr>{x.kept_columns.iter().map(|c| view! { <th>{*c}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {e.kept.iter().map(|&(n, full, rolling)| view! {
                            <tr><td>{n}</td><td>{full}</td><td>{rolling}</td></tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        }
        .into_any()
    };
    view! {
        {numbers}
        {live(lab, true, || view! { <StreamSection /> }.into_any())}
    }
}
