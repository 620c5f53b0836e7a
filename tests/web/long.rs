//! Large traces: computed after the page has painted, the views saying so meanwhile, and only
//! the newest of several quick changes computed and shown.

use attention_lab::ui::App;
use leptos::mount::mount_to;
use leptos::task::tick;
use leptos::view;
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;

use super::dom::*;

fn sentence(n: usize) -> String {
    (0..n)
        .map(|i| ["the", "cat", "sat", "on", "a", "mat"][i % 6])
        .collect::<Vec<_>>()
        .join(" ")
}

fn tokens() -> usize {
    state()["tokens"].as_array().map_or(0, Vec::len)
}

#[wasm_bindgen_test]
async fn a_large_trace_is_computed_after_a_paint_and_only_the_newest_is_shown() {
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    api(
        "set",
        Some(json!({"sentence": sentence(12), "n_heads": 4, "lang": "en"})),
    );
    frames().await;
    assert_eq!(tokens(), 12);
    assert_eq!(text_of(&host, "[data-testid=computing]"), "");

    // 600 tokens × 4 heads: the change returns at once; the views keep the last result and say
    // what is being computed.
    assert_eq!(
        api("set", Some(json!({"sentence": sentence(600)}))),
        json!({"ok": true})
    );
    tick().await;
    let s = state();
    assert_eq!(s["pending"], true, "{s}");
    assert_eq!(tokens(), 12, "the last result until the new one is done");
    let note = text_of(&host, "[data-testid=computing]");
    assert!(note.contains("600 tokens × 4 heads"), "{note}");
    assert!(text_of(&host, "[data-testid=backend-badge]").contains("computing"));

    // Two more changes before it has run: only the newest is computed and drawn.
    api("set", Some(json!({"sentence": sentence(601)})));
    api("set", Some(json!({"sentence": sentence(602)})));
    let mut seen = Vec::new();
    for _ in 0..600 {
        let n = tokens();
        if !seen.contains(&n) {
            seen.push(n);
        }
        if n == 602 && state()["pending"] == false {
            break;
        }
        frames().await;
    }
    assert_eq!(seen, vec![12, 602], "a stale result was shown: {seen:?}");
    assert_eq!(text_of(&host, "[data-testid=computing]"), "");

    // Small changes stay immediate.
    api("set", Some(json!({"sentence": sentence(20)})));
    tick().await;
    assert_eq!(tokens(), 20);
    assert_eq!(state()["pending"], false);
    drop(app);
}
