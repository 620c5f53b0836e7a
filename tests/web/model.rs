//! The trained model in the page: chosen by a link or `set`, run on the user's sentence, its
//! layers and heads shown, its predictions and head roles, the continue button, and the settings
//! it fixes refused with a message.

use attention_core::models::Model;
use attention_lab::ui::App;
use attention_lab::ui::bridge::model_files;
use leptos::mount::mount_to;
use leptos::task::tick;
use leptos::view;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

use super::dom::*;

/// The shipped model, handed to the lab directly (the test server has no `model/` folder).
fn provide_model() {
    let gpt = Model::from_files(
        include_bytes!("../../assets/gpt2/model.safetensors"),
        include_str!("../../assets/gpt2/config.json"),
        include_str!("../../assets/gpt2/vocab.json"),
    )
    .unwrap();
    model_files::provide(gpt);
}

#[wasm_bindgen_test]
async fn the_trained_model_runs_on_the_sentence_with_its_views() {
    provide_model();
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let answer = api(
        "set",
        Some(json!({"model": "trained", "sentence": "xq7kb@ xq7kb"})),
    );
    assert_eq!(answer, json!({"ok": true}));
    let s = until_state("the trained model", |s| {
        s["model_status"] == "ready" && s["predictions"].is_array()
    })
    .await;
    assert_eq!(s["model"], "trained");
    assert_eq!(
        s["mask"],
        json!({"kind": "causal"}),
        "GPT-2 starts under its causal mask"
    );
    assert_eq!(
        s["tokens"].as_array().unwrap().len(),
        12,
        "one token per character"
    );
    // After "xq7kb" seen once before, the induction head points at what followed it: "@".
    let next = &s["predictions"][0];
    assert_eq!(next["token"], "@", "{}", s["predictions"]);

    // Every layer and head at a glance, with their roles; a layer selector beside the heads.
    tick().await;
    assert_eq!(
        host.query_selector_all("[data-testid^=model-head-]")
            .unwrap()
            .length(),
        12
    );
    assert_eq!(
        host.query_selector_all("[data-testid=head-roles] tbody tr")
            .unwrap()
            .length(),
        12
    );
    let labels = texts(&host, "[data-testid=role-label]");
    assert!(
        labels.iter().any(|l| l.starts_with("induction head")),
        "{labels:?}"
    );
    click(&host, "[data-testid=layer-tab-1]");
    tick().await;
    assert_eq!(state()["layer"], 2);
    assert!(
        find(&host, "[data-testid=formula-q]")
            .text_content()
            .unwrap()
            .contains("LN₁(X) W_Q + b_Q")
    );
    // Under a trained head's weights, what it learned, not the random-weights note.
    click(&host, "[data-testid=model-head-1-3]");
    tick().await;
    let note = text_of(&host, "[data-testid=weights-note]");
    assert!(
        note.starts_with("Learned weights: layer 2, head 4") && note.contains("induction head"),
        "{note}"
    );
    click(&host, "[data-testid=model-head-2-3]");
    tick().await;
    assert_eq!(
        (state()["layer"].clone(), state()["head"].clone()),
        (json!(3), json!(4))
    );

    // Continue appends the most likely character.
    click(&host, "[data-testid=continue]");
    let s = until_state("the sentence to grow", |s| {
        s["sentence"]
            .as_str()
            .is_some_and(|t| t.chars().count() == 13)
    })
    .await;
    assert_eq!(
        s["sentence"].as_str().unwrap().chars().count(),
        13,
        "{}",
        s["sentence"]
    );

    // What the model fixes is refused, naming it.
    let refused = api("set", Some(json!({"d_model": 32})));
    assert_eq!(refused["ok"], false);
    assert!(
        refused["error"].as_str().unwrap().contains("d_model"),
        "{refused}"
    );
    // The temperature acts on every layer: at T = 10 the predictions are far less sure.
    let sure = state()["predictions"][0]["p"].as_f64().unwrap();
    api("set", Some(json!({"temperature": 10.0})));
    let flat = until_state("a new forward pass", |s| s["temperature"] == 10.0).await;
    assert_ne!(flat["predictions"][0]["p"].as_f64().unwrap(), sure);

    // Back to random weights: the random shape is there again.
    api(
        "set",
        Some(json!({"model": "random", "sentence": "the cat sat"})),
    );
    let s = until_state("random weights", |s| s["model"] == "random").await;
    assert_eq!(
        s["tokens"].as_array().unwrap().len(),
        3,
        "the word tokenizer again"
    );
    drop(app);
}

/// The Llama-layout model, the third choice: its layers read RMSNorm(X) with no biases, its
/// positions are RoPE inside attention, its query heads share K/V heads; switching between the
/// two trained models swaps the model and what the page says about it.
#[wasm_bindgen_test]
async fn the_llama_model_runs_beside_the_gpt2_one() {
    provide_model();
    model_files::provide(
        Model::from_files(
            include_bytes!("../../assets/llama/model.safetensors"),
            include_str!("../../assets/llama/config.json"),
            include_str!("../../assets/llama/vocab.json"),
        )
        .unwrap(),
    );
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let answer = api(
        "set",
        Some(json!({"model": "llama", "sentence": "the cat sat on the mat"})),
    );
    assert_eq!(answer, json!({"ok": true}));
    let s = until_state("the Llama model", |s| {
        s["model_status"] == "ready" && s["predictions"].is_array()
    })
    .await;
    assert_eq!(s["model"], "llama");
    assert_eq!(s["mask"], json!({"kind": "causal"}));
    tick().await;
    let status = text_of(&host, "[data-testid=model-status]");
    assert!(
        status.contains("Llama") && status.contains("K/V heads"),
        "{status}"
    );
    assert!(text_of(&host, "[data-testid=norm-fixed]").contains("RMSNorm"));
    let q = text_of(&host, "[data-testid=formula-q]");
    assert!(q.contains("RMSNorm(X) W_Q") && !q.contains("b_Q"), "{q}");
    assert_eq!(
        host.query_selector_all("[data-testid^=model-head-]")
            .unwrap()
            .length(),
        12
    );
    // It generates in the page, with the KV cache: every step equal to a recompute.
    let generated = api_awaited(
        "generate",
        Some(json!({"steps": 12, "cache": true, "sampling": "greedy"})),
    )
    .await;
    assert_eq!(generated["ok"], true, "{generated}");
    let steps = generated["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 12);
    assert!(
        steps
            .iter()
            .all(|s| s["max_delta"].as_f64().unwrap() <= 1e-4),
        "{generated}"
    );
    assert_eq!(steps[11]["cache_len"], 22 + 12);
    let refused = api_awaited("generate", Some(json!({"steps": 0}))).await;
    assert_eq!(refused["ok"], false);
    // The Generate view: all at once, a frame's worth of steps at a time; each step's query
    // row over the cache drawn per layer and K/V head; what the cache holds; every step checked.
    // What an element says, or nothing while it is not there (yet).
    let says = |selector: &str| {
        host.query_selector(selector)
            .unwrap()
            .and_then(|e| e.text_content())
            .unwrap_or_default()
    };
    enter(&host, "[data-testid=generate-steps]", "12");
    click(&host, "[data-testid=generate]");
    until("twelve steps", || {
        says("[data-testid=generate-at]") == "12 / 12"
    })
    .await;
    // One character a span, spaces shown as ␣.
    let generated = text_of(&host, "[data-testid=generated]").replace('␣', " ");
    assert!(
        generated.starts_with("the cat sat on the mat"),
        "{generated}"
    );
    let memory = text_of(&host, "[data-testid=generate-memory]");
    assert!(
        memory.contains("2 K/V heads for 4 query heads") && memory.contains("MLA"),
        "{memory}"
    );
    assert!(text_of(&host, "[data-testid=generate-check]").contains("equal a recompute"));
    assert!(text_of(&host, "[data-testid=generate-speed]").contains("with the cache: "));
    let line = text_of(&host, "[data-testid=generate-cache-line]");
    assert!(line.contains("34 of 256 positions"), "{line}");
    // One pixel per position of the context; rows: per layer its name, then query heads 1–2
    // (K/V head 1), a gap, heads 3–4 (K/V head 2). The 34 cached positions drawn, the rest clear.
    let strips = find(&host, "[data-testid=generate-strips]");
    let canvas: web_sys::HtmlCanvasElement = strips.clone().unchecked_into();
    assert_eq!((canvas.width(), canvas.height()), (256, 3 * 6));
    let px = pixels(&strips);
    let alpha = |row: usize, col: usize| px[(row * 256 + col) * 4 + 3];
    assert_eq!((alpha(1, 0), alpha(1, 33), alpha(1, 34)), (255, 255, 0));
    assert_eq!(
        (alpha(0, 0), alpha(3, 0), alpha(4, 0)),
        (0, 0, 255),
        "names and gaps clear"
    );
    // Back to step 3: its row reads 25 positions (links keep the steps: tests/e2e/llama.mjs).
    enter(&host, "[data-testid=generate-scrub]", "3");
    tick().await;
    assert_eq!(text_of(&host, "[data-testid=generate-at]"), "3 / 12");
    assert!(text_of(&host, "[data-testid=generate-step-line]").contains("25 positions"));
    click(&host, "[data-testid=generate-keep]");
    let grown = until_state("the generated text in the sentence", |s| {
        s["sentence"]
            .as_str()
            .is_some_and(|t| t.chars().count() == 22 + 12)
    })
    .await;
    assert!(
        grown["sentence"]
            .as_str()
            .unwrap()
            .starts_with("the cat sat on the mat")
    );
    // It streams through a rolling cache (a short text in this debug build): the curves, the
    // heads' shares.
    enter(&host, "[data-testid=stream-window]", "16");
    let text: web_sys::HtmlTextAreaElement =
        find(&host, "[data-testid=stream-text]").unchecked_into();
    text.set_value(&"the cat sat on the mat. ".repeat(4));
    fire(&text, "change");
    click(&host, "[data-testid=stream-run]");
    for _ in 0..200 {
        if says("[data-testid=stream-means]").contains("by the recompute") {
            break;
        }
        frames().await;
    }
    assert!(
        says("[data-testid=stream-means]").contains("by the recompute"),
        "error {:?}, progress {:?}, means {:?}, disabled {:?}, stream {:?}",
        says("[data-testid=stream-error]"),
        says("[data-testid=stream-progress]"),
        says("[data-testid=stream-means]"),
        find(&host, "[data-testid=stream-run]").get_attribute("disabled"),
        says("[data-testid=stream]")
            .chars()
            .take(300)
            .collect::<String>()
    );
    let means = text_of(&host, "[data-testid=stream-means]");
    assert!(means.contains("over 95 positions"), "{means}");
    assert_eq!(
        host.query_selector_all("[data-testid=stream-shares] td")
            .unwrap()
            .length(),
        12
    );
    assert!(!text_of(&host, "[data-testid=stream-finding]").is_empty());
    enter(&host, "[data-testid=stream-sinks]", "20");
    click(&host, "[data-testid=stream-run]");
    tick().await;
    assert!(text_of(&host, "[data-testid=stream-error]").contains("fewer than the window"));
    // The position a Llama may not change is refused, naming it.
    let refused = api("set", Some(json!({"position": {"kind": "alibi"}})));
    assert_eq!(refused["ok"], false, "{refused}");

    // Back to the GPT-2 model: its own status and norm.
    api("set", Some(json!({"model": "gpt2"})));
    until_state("the GPT-2 model", |s| {
        s["model"] == "trained" && s["model_status"] == "ready"
    })
    .await;
    tick().await;
    assert!(text_of(&host, "[data-testid=model-status]").starts_with("A GPT-2"));
    assert!(text_of(&host, "[data-testid=norm-fixed]").contains("LayerNorm"));
    drop(app);
}

/// The Llama twins: "llama-gated" is a model choice of its own (its gate said), and the
/// Streaming section reads one text through both, the numbers the core's sink measures.
#[wasm_bindgen_test]
async fn the_llama_twins_are_compared_in_the_streaming_section() {
    use attention_core::models::sinks::sink_report_over;
    use attention_core::models::stream::StreamSpec;
    let load =
        |bytes: &[u8], config: &str, vocab: &str| Model::from_files(bytes, config, vocab).unwrap();
    let llama = load(
        include_bytes!("../../assets/llama/model.safetensors"),
        include_str!("../../assets/llama/config.json"),
        include_str!("../../assets/llama/vocab.json"),
    );
    let gated = load(
        include_bytes!("../../assets/llama-gated/model.safetensors"),
        include_str!("../../assets/llama-gated/config.json"),
        include_str!("../../assets/llama-gated/vocab.json"),
    );
    let text = "the cat sat on the mat. ".repeat(3);
    let spec = StreamSpec {
        window: 16,
        sink_tokens: 4,
    };
    let span = llama.config.context.min(gated.config.context);
    let expected = (
        sink_report_over(&llama, &text, spec, span).unwrap(),
        sink_report_over(&gated, &text, spec, span).unwrap(),
    );
    model_files::provide(llama);
    model_files::provide(gated);
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    api(
        "set",
        Some(json!({"model": "llama-gated", "sentence": "the cat sat"})),
    );
    let s = until_state("the gated twin", |s| s["model_status"] == "ready").await;
    assert_eq!(s["model"], "llama-gated");
    tick().await;
    assert!(text_of(&host, "[data-testid=model-about]").contains("σ(x·W_g)"));
    let refused = api("set", Some(json!({"output_gate": false})));
    assert_eq!(refused["ok"], false, "{refused}");

    enter(&host, "[data-testid=stream-window]", "16");
    let area: web_sys::HtmlTextAreaElement =
        find(&host, "[data-testid=stream-text]").unchecked_into();
    area.set_value(&text);
    fire(&area, "change");
    click(&host, "[data-testid=stream-twins-run]");
    until("the twins' table", || {
        host.query_selector("[data-testid=stream-twins-table]")
            .unwrap()
            .is_some()
    })
    .await;
    let cells: Vec<String> = (0..10)
        .map(|i| {
            host.query_selector_all("[data-testid=stream-twins-table] td")
                .unwrap()
                .item(i)
                .unwrap()
                .text_content()
                .unwrap()
        })
        .collect();
    // Rows: share, activation, loss with sinks, without, the cost; columns: Llama, gated.
    assert_eq!(cells[4], format!("{:.3}", expected.0.with_sinks));
    assert_eq!(cells[5], format!("{:.3}", expected.1.with_sinks));
    assert_eq!(cells[8], format!("{:+.3}", expected.0.drop_cost()));
    assert_eq!(cells[9], format!("{:+.3}", expected.1.drop_cost()));
    assert!(
        cells[0].contains(&format!("{:.1}%", expected.0.strongest().share * 100.0)),
        "{cells:?}"
    );
    assert!(!text_of(&host, "[data-testid=stream-twins-verdict]").is_empty());
    // A change of the text marks the comparison as for the earlier one.
    area.set_value("the dog sat on the log. the dog sat.");
    fire(&area, "change");
    tick().await;
    assert!(
        host.query_selector("[data-testid=stream-twins-stale]")
            .unwrap()
            .is_some()
    );
    drop(app);
}
