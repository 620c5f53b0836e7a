//! The weights: their seed, and a new random draw.

use leptos::prelude::*;

use super::widgets::parse;
use crate::ui::state::Lab;
use attention_core::api::Request;

#[component]
pub fn WeightsControl() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let seed = move || lab.request.with(|r| r.seed).unwrap_or(0);
    let set_seed = move |seed: u64| {
        lab.change(Request {
            seed: Some(seed),
            ..Request::default()
        })
    };
    let trained = super::shown::trained(lab);
    let own = move || lab.request.with(|r| r.weights.is_some());
    view! {
        // One's own weights: the seed draws nothing, so it gives way to a way back to draws.
        <Show when=move || !trained.get() && own()>
            <div class="control">
                <button type="button" class="button" data-testid="weights-reset"
                    on:click=move |_| lab.edit(|r| r.weights = None)>
                    {move || text().own_weights_reset}
                </button>
            </div>
        </Show>
        <Show when=move || !trained.get() && !own()>
        <div class="control">
            <label class="control-label" for="seed">{move || text().seed}</label>
            <div class="control-row">
                <input
                    type="number"
                    id="seed"
                    data-testid="seed"
                    min="0"
                    prop:value=move || seed().to_string()
                    on:change=move |ev| {
                        if let Some(seed) = parse::<u64>(&event_target_value(&ev)) {
                            set_seed(seed);
                        }
                    }
                />
                <button type="button" class="button" data-testid="reroll" on:click=move |_| set_seed(random_seed())>
                    {move || text().reroll}
                </button>
            </div>
        </div>
        </Show>
    }
}

/// A fresh seed for "re-roll": random in the browser, a counter elsewhere.
fn random_seed() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        (js_sys::Math::random() * 4_294_967_296.0) as u64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }
}
