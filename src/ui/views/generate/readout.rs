//! What the step on view says in numbers: which character, among which likeliest ones; what the
//! cache holds, for this model and as MHA, GQA, MQA and MLA would keep it; characters per second
//! with the cache and without, measured here; and the check against a recompute.

use leptos::prelude::*;

use super::run::{Generation, model};
use crate::ui::logic::format::group_digits;
use crate::ui::logic::visible;
use attention_core::models::generate::CacheSizes;

/// The step on view: its character, where it is, and the likeliest characters it was chosen
/// among.
#[component]
pub fn StepReadout(generation: Generation) -> impl IntoView {
    let g = generation;
    let lab = g.lab;
    let texts = move || &lab.lang.get().text().model.generate;
    let step_line = move || {
        let index = g.at()?;
        let config = g.config()?;
        g.steps.with(|s| {
            let step = s.get(index)?;
            Some((texts().step_line)(
                index + 1,
                &visible(&step.token),
                step.cache_len.max(g.prompt.with(Vec::len) + index + 1),
                config.context,
            ))
        })
    };
    let top = move || {
        let index = g.at()?;
        let model = model(lab)?;
        g.steps.with(|s| {
            let step = s.get(index)?;
            Some(
                step.top
                    .iter()
                    .map(|p| {
                        let token = model.vocab.get(p.id as usize).cloned().unwrap_or_default();
                        let chosen = p.id == step.id;
                        view! {
                            <li class:chosen=chosen>
                                <span class="prediction-token">{visible(&token)}</span>
                                <span class="prediction-p">{format!("{:.1}%", p.p * 100.0)}</span>
                            </li>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    view! {
        <p class="help block" data-testid="generate-step-line">{step_line}</p>
        <div class="chosen-among">
            <span class="help">{move || texts().chosen_among}</span>
            <ul class="predictions inline">{top}</ul>
        </div>
    }
}

/// What the cache holds at the step on view (for this model and the other ways of sharing K and
/// V), the speed with the cache and without, and the check against a recompute.
#[component]
pub fn CacheReadout(generation: Generation) -> impl IntoView {
    let g = generation;
    let lab = g.lab;
    let texts = move || &lab.lang.get().text().model.generate;
    let cache_line = move || {
        let config = g.config()?;
        let n = g.cached_now();
        (n > 0).then(|| {
            let sizes = CacheSizes::of(&config);
            let bytes = sizes.this_model * n;
            // A hybrid's linear layers cache no keys (their states are in the Linear attention
            // section's memory chart).
            (texts().cache_line)(
                n,
                config.context,
                sizes.layers_with_keys,
                config.n_kv_heads,
                config.d_head(),
                &group_digits(bytes as u64),
            )
        })
    };
    let bars = move || {
        let config = g.config()?;
        let n = g.cached_now();
        if n == 0 {
            return None;
        }
        let sizes = CacheSizes::of(&config);
        let t = texts();
        let mut bars = vec![(
            (t.this_model)(config.n_kv_heads, config.n_heads),
            sizes.this_model,
            true,
        )];
        if config.n_kv_heads != config.n_heads {
            bars.push((t.mha.to_string(), sizes.mha, false));
        } else {
            bars.push(((t.gqa)(sizes.gqa_kv_heads), sizes.gqa, false));
        }
        bars.push((t.mqa.to_string(), sizes.mqa, false));
        bars.push((t.mla.to_string(), sizes.mla_formula, false));
        let largest = bars.iter().map(|b| b.1).max().unwrap_or(1).max(1);
        Some(view! {
            <figure class="cache-bytes" data-testid="generate-memory">
                <figcaption>{(t.bytes_title)(n)}</figcaption>
                <ul>
                    {bars.into_iter().map(|(label, per, this)| view! {
                        <li class:this-model=this>
                            <span class="bytes-label">{label}</span>
                            <span class="bytes-bar" style=format!("width: {:.1}%", 100.0 * per as f64 / largest as f64)></span>
                            <span class="bytes-value">{format!("{} B", group_digits((per * n) as u64))}</span>
                        </li>
                    }).collect_view()}
                </ul>
            </figure>
        })
    };
    let checked = move || {
        let (delta, checked, taken) = g.steps.with(|s| {
            let deltas = || s.iter().filter_map(|s| s.max_delta);
            (deltas().reduce(f32::max), deltas().count(), s.len())
        });
        Some((texts().checked)(delta?, checked, taken))
    };
    view! {
        <p class="help block" data-testid="generate-cache-line">{cache_line}</p>
        {bars}
        <figure class="generate-speed" data-testid="generate-speed">
            <figcaption>{move || texts().speed_title}</figcaption>
            <p>{move || (texts().speed_row)(true, g.speed.get()[0])}</p>
            <p>{move || (texts().speed_row)(false, g.speed.get()[1])}</p>
            <p class="help">{move || texts().speed_help}</p>
        </figure>
        <p class="help block" data-testid="generate-check">{checked}</p>
    }
}
