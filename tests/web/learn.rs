//! Learn: every chapter renders in both languages on the learner's sentence; the experiment
//! stays hidden until the learner commits to an answer; the experiments show the numbers the core
//! computes; `set({lesson})` and `state().lesson` open and report a chapter.

use attention_core::teaching::Chapter;
use attention_lab::ui::App;
use attention_lab::ui::logic::lesson::answer;
use leptos::mount::mount_to;
use leptos::task::tick;
use leptos::view;
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;

use super::dom::*;

fn has_cjk(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

#[wasm_bindgen_test]
async fn every_chapter_renders_and_reveals_its_experiment_after_an_answer() {
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    assert_eq!(
        api(
            "set",
            Some(
                json!({"lesson": "tokens", "lang": "en", "sentence": "the cat saw the dog", "mask": {"kind": "causal"}})
            )
        ),
        json!({"ok": true})
    );
    frames().await;
    assert_eq!(state()["lesson"], "tokens");
    click(&host, "[data-testid=lesson-reset]");
    frames().await;
    assert!(
        host.query_selector("[data-testid=learn]")
            .unwrap()
            .is_some()
    );
    assert!(
        host.query_selector("[data-testid=flash-diff]")
            .unwrap()
            .is_none(),
        "the pipeline gives way to the chapter"
    );
    for chapter in Chapter::ALL {
        click(&host, &format!("[data-testid=chapter-{}]", chapter.id()));
        frames().await;
        let page = find(&host, "[data-testid=chapter]");
        assert_eq!(page.get_attribute("data-chapter").unwrap(), chapter.id());
        assert!(!text_of(&host, "[data-testid=chapter-title]").is_empty());
        assert_eq!(state()["lesson"], chapter.id());
        let Some(right) = answer(chapter) else {
            assert!(
                host.query_selector("[data-testid=exercises]")
                    .unwrap()
                    .is_some()
            );
            continue;
        };
        // Predict first: no experiment until an answer is chosen.
        assert!(
            host.query_selector("[data-testid=experiment-open]")
                .unwrap()
                .is_none(),
            "{}: the experiment waits for an answer",
            chapter.id()
        );
        assert!(!text_of(&host, "[data-testid=answer-first]").is_empty());
        click(&host, &format!("[data-testid=choice-{right}]"));
        frames().await;
        assert!(
            text_of(&host, "[data-testid=verdict]").starts_with("Right."),
            "{}",
            chapter.id()
        );
        find(&host, "[data-testid=experiment-open]");
        let result = text_of(&host, "[data-testid=lesson-result]");
        assert!(!result.is_empty(), "{}: a result", chapter.id());
        // No NaN as a value (the stability chapter explains, in words, that ∞ / ∞ = NaN).
        assert!(
            !result.replace("= NaN", "").contains("NaN"),
            "{}: {result}",
            chapter.id()
        );
    }
    assert!(
        text_of(&host, "[data-testid=lesson-score]").starts_with("21 of 21"),
        "{}",
        text_of(&host, "[data-testid=lesson-score]")
    );

    // The same chapters in Chinese: title, text and results translated, the answers kept.
    api("set", Some(json!({"lang": "zh"})));
    for id in ["scaling", "masks", "layernorm"] {
        api("set", Some(json!({"lesson": id})));
        frames().await;
        assert!(
            has_cjk(&text_of(&host, "[data-testid=chapter-title]")),
            "{id}"
        );
        assert!(
            text_of(&host, "[data-testid=verdict]").starts_with("答对了"),
            "{id}"
        );
        assert!(
            has_cjk(&text_of(&host, "[data-testid=lesson-result]")),
            "{id}"
        );
    }

    // Back to the lab.
    api("set", Some(json!({"lesson": null, "lang": "en"})));
    frames().await;
    assert_eq!(state()["lesson"], json!(null));
    assert!(
        host.query_selector("[data-testid=learn]")
            .unwrap()
            .is_none()
    );
    assert!(
        host.query_selector("[data-testid=heatmap-weights]")
            .unwrap()
            .is_some()
    );
    assert!(api("set", Some(json!({"lesson": "nonsense"})))["ok"] == json!(false));
    drop(app);
}

#[wasm_bindgen_test]
async fn the_experiments_show_the_learners_own_numbers() {
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    api(
        "set",
        Some(
            json!({"lesson": "tokens", "lang": "en", "sentence": "the cat saw the dog", "mask": {"kind": "none"}}),
        ),
    );
    frames().await;
    click(&host, "[data-testid=reveal]");
    frames().await;
    // "the" at positions 0 and 3 (as the chips number them): one embedding, two rows of X.
    let tokens = text_of(&host, "[data-testid=lesson-result]");
    assert!(tokens.contains("positions 0 and 3"), "{tokens}");
    assert!(tokens.contains("|ΔE| = 0.000"), "{tokens}");

    // A row with every key masked: zeros with −∞, 1/5 each with −10⁹.
    api("set", Some(json!({"lesson": "masks"})));
    frames().await;
    click(&host, "[data-testid=reveal]");
    frames().await;
    let masked = text_of(&host, "[data-testid=lesson-all-masked]");
    assert!(masked.contains("0.000 0.000 0.000 0.000 0.000"), "{masked}");
    assert!(masked.contains("0.200 0.200 0.200 0.200 0.200"), "{masked}");

    // Multiplying the scores by k ≈ 1000 breaks the naive f16 softmax, never the stable one.
    api("set", Some(json!({"lesson": "stability"})));
    frames().await;
    click(&host, "[data-testid=reveal]");
    frames().await;
    enter(&host, "[data-testid=lesson-factor]", "100");
    frames().await;
    assert_eq!(text_of(&host, "[data-testid=lesson-factor-value]"), "1000");
    let rows = texts(&host, "[data-testid=stability-table] tbody tr");
    assert_eq!(rows.len(), 5);
    let table = text_of(&host, "[data-testid=stability-table]");
    assert!(table.contains("NaN") || table.contains("∞"), "{table}");

    // The scaling chapter draws its curves.
    api("set", Some(json!({"lesson": "scaling"})));
    frames().await;
    click(&host, "[data-testid=reveal]");
    frames().await;
    // Charts draw only on screen: scrolled into view, it is drawn.
    let chart = find(&host, "[data-testid=chart-variance]");
    chart.scroll_into_view();
    until("the variance chart to be drawn", || {
        pixels(&chart).iter().any(|&p| p != 0)
    })
    .await;
    drop(app);
}
