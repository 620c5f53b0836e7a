//! The Llama model's twin shipped in assets/llama-gated: the same layout, size, text and
//! characters, with a sigmoid gate σ(x·W_g) on each head's output (Qiu et al., 2025), stored as
//! `self_attn.g_proj.weight` beside Hugging Face's Llama tensors. The lab's forward pass
//! reproduces the logits and attention weights the training framework (JAX) computed, within
//! 10⁻⁴; requests name it `"llama-gated"`, and its gate is its own. Natively and in the browser.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::api::Request;
use attention_core::models::{Layout, Model, Shipped};
use serde_json::{Value, json};

mod support;

const SAFETENSORS: &[u8] = include_bytes!("../assets/llama-gated/model.safetensors");
const CONFIG: &str = include_str!("../assets/llama-gated/config.json");
const VOCAB: &str = include_str!("../assets/llama-gated/vocab.json");
const TWIN_CONFIG: &str = include_str!("../assets/llama/config.json");
const TWIN_VOCAB: &str = include_str!("../assets/llama/vocab.json");
const FIXTURES: &str = include_str!("fixtures/llama-gated.json");
const TOLERANCE: f32 = 1e-4;

fn model() -> Model {
    Model::from_files(SAFETENSORS, CONFIG, VOCAB).expect("the shipped gated Llama loads")
}

#[test]
fn the_twin_is_the_llama_layout_with_a_gate_on_every_head() {
    assert!(
        SAFETENSORS.len() <= 5_000_000,
        "{} bytes",
        SAFETENSORS.len()
    );
    let config: Value = serde_json::from_str(CONFIG).unwrap();
    assert_eq!(config["model_type"], "llama");
    assert_eq!(config["attention_output_gate"], true);
    let model = model();
    let shape = model.config;
    assert_eq!(shape.layout, Layout::Llama);
    assert!(shape.output_gate);
    assert_eq!(model.name, "llama-gated");
    assert_eq!(
        Shipped::of(shape.layout, shape.output_gate),
        Shipped::LlamaGated
    );
    assert!(shape.context >= 256, "context {}", shape.context);
    // Twins: the Llama model's shape and vocabulary (its context may be longer: the twins train
    // on 512-character windows), and one tensor more per layer.
    let twin: Value = serde_json::from_str(TWIN_CONFIG).unwrap();
    for key in [
        "hidden_size",
        "intermediate_size",
        "num_hidden_layers",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "vocab_size",
        "rope_theta",
    ] {
        assert_eq!(config[key], twin[key], "{key}: the twins differ");
    }
    assert_eq!(
        serde_json::from_str::<Value>(VOCAB).unwrap(),
        serde_json::from_str::<Value>(TWIN_VOCAB).unwrap(),
        "the Llama model's vocabulary"
    );
    let names = support::tensor_names(SAFETENSORS);
    assert_eq!(names.len(), 2 + 10 * shape.n_layers);
    for layer in 0..shape.n_layers {
        assert!(names.contains(&format!("model.layers.{layer}.self_attn.g_proj.weight")));
    }
    assert!(model.blocks.iter().all(|b| b.gate.is_some()));
}

#[test]
fn the_forward_pass_reproduces_the_training_frameworks_logits() {
    let model = model();
    let fixtures: Value = serde_json::from_str(FIXTURES).unwrap();
    let fixtures = fixtures["fixtures"].as_array().unwrap();
    assert!(fixtures.len() >= 3);
    let mut longest = 0;
    for fixture in fixtures {
        let text = fixture["text"].as_str().unwrap();
        let (forward, _, worst) = support::check_fixture(&model, fixture, 0, TOLERANCE);
        longest = longest.max(forward.ids.len());
        eprintln!("{text}: largest logit difference {worst:e}");
    }
    assert!(longest >= 200, "a fixture reaches far positions: {longest}");
}

/// A request names it, its trace carries each head's gate (in (0, 1), the output already
/// multiplied by it), and turning its gate off is refused as a setting the model fixes.
#[test]
fn requests_name_the_twin_and_its_gate_is_its_own() {
    let request = |value: Value| -> Request { serde_json::from_value(value).unwrap() };
    let named = request(json!({"model": "llama-gated", "sentence": "the cat sat"}));
    assert_eq!(named.shipped_model(), Some(Shipped::LlamaGated));
    assert_eq!(named.trained_layout(), Some(Layout::Llama));
    assert_eq!(
        serde_json::to_value(&named).unwrap()["model"],
        "llama-gated",
        "written back under its name"
    );
    let (text, run) = named.trained_run().unwrap();
    let model = model();
    let forward = model.read(&text, &run).unwrap();
    let json = attention_core::api::forward_json(&model, &forward).unwrap();
    let trace: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(trace["model"], "llama-gated");
    for layer in trace["layers"].as_array().unwrap() {
        assert_eq!(layer["output_gate"], true);
    }
    let gates = &forward.layers[0].attention.gates;
    assert_eq!(gates.len(), model.config.n_heads);
    assert!(
        gates
            .iter()
            .flat_map(|g| g.iter())
            .all(|&g| g > 0.0 && g < 1.0),
        "σ lies in (0, 1)"
    );

    let ungated = request(json!({"model": "llama-gated", "sentence": "ab", "output_gate": false}));
    assert_eq!(ungated.fixed_by_model(), Some("output_gate"));
    let gated = request(json!({"model": "llama-gated", "sentence": "ab", "output_gate": true}));
    assert_eq!(gated.fixed_by_model(), None);
    let llama = request(json!({"model": "llama", "sentence": "ab", "output_gate": true}));
    assert_eq!(
        llama.fixed_by_model(),
        Some("output_gate"),
        "the other twin has none"
    );
}

/// The Streaming section's defaults: a window of 64, 4 sink tokens.
const SPEC: attention_core::models::stream::StreamSpec =
    attention_core::models::stream::StreamSpec {
        window: 64,
        sink_tokens: 4,
    };

/// `model`'s sink measures on the page's sample text with the Streaming section's defaults, the
/// shares and activations over its first `span` characters, as `sinks.json` writes them.
fn sink_json(model: &Model, span: usize) -> Value {
    use attention_core::models::sinks::{SINK_SHARE, sink_report_over};
    use attention_core::models::stream::SAMPLE_TEXT;
    let r = sink_report_over(model, SAMPLE_TEXT, SPEC, span).unwrap();
    let strongest = r.strongest();
    json!({
        "text": "the Streaming section's sample text (attention_core::models::stream::SAMPLE_TEXT)",
        "window": SPEC.window,
        "sink_tokens": SPEC.sink_tokens,
        "share_tokens": span,
        "context": model.config.context,
        "with_sinks": r.with_sinks,
        "without_sinks": r.without_sinks,
        "drop_cost": r.drop_cost(),
        "first_token_share": r.first_token_share,
        "strongest_head": {"layer": strongest.layer + 1, "head": strongest.head + 1, "share": strongest.share},
        "threshold": SINK_SHARE,
        "has_sink": r.has_sink(),
        "largest_activation": r.largest_activation.iter().enumerate().map(|(l, a)| json!({
            "layer": l + 1, "value": a.value, "position": a.position, "dimension": a.dimension, "mean_abs": a.mean_abs,
        })).collect::<Vec<_>>(),
    })
}

/// The twins' sink measures on the page's sample text with the Streaming section's defaults
/// (a window of 64, 4 sink tokens), the shares and activations over the shorter twin's context
/// (as the page compares them), as each model card states them (`sinks.json` beside the
/// weights, which tools/train/model_card.py reads): rewritten with UPDATE_EXPECT=1.
#[test]
fn the_twins_sink_measures_are_the_ones_their_cards_state() {
    let llama = Model::from_files(
        include_bytes!("../assets/llama/model.safetensors"),
        TWIN_CONFIG,
        TWIN_VOCAB,
    )
    .unwrap();
    let span = llama.config.context.min(model().config.context);
    for (model, folder, stated) in [
        (llama, "llama", include_str!("../assets/llama/sinks.json")),
        (
            model(),
            "llama-gated",
            include_str!("../assets/llama-gated/sinks.json"),
        ),
    ] {
        let measured = sink_json(&model, span);
        #[cfg(not(target_arch = "wasm32"))]
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            let path = format!("{}/assets/{folder}/sinks.json", env!("CARGO_MANIFEST_DIR"));
            std::fs::write(
                &path,
                serde_json::to_string_pretty(&measured).unwrap() + "\n",
            )
            .unwrap();
            continue;
        }
        let stated: Value = serde_json::from_str(stated).unwrap();
        assert_json_close(&measured, &stated, folder);
    }
}

/// What the gated card says was tried (`assets/llama-gated/tried.json`): its column is this
/// model read over its whole context, as measured here (rewritten with UPDATE_EXPECT=1; the
/// column of the run without the gate, which is not shipped, was measured alike from its files).
#[test]
fn what_the_gated_card_says_was_tried_is_this_models_reading() {
    let model = model();
    let measured = sink_json(&model, model.config.context);
    let tried: Value =
        serde_json::from_str(include_str!("../assets/llama-gated/tried.json")).unwrap();
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let mut tried = tried;
        tried["gated"]["sinks"] = measured;
        let path = format!(
            "{}/assets/llama-gated/tried.json",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::write(&path, serde_json::to_string_pretty(&tried).unwrap() + "\n").unwrap();
        return;
    }
    assert_json_close(&measured, &tried["gated"]["sinks"], "tried.json");
    // Neither formed a sink, as the card and the page say.
    assert_eq!(tried["gated"]["sinks"]["has_sink"], false);
    assert_eq!(tried["ungated"]["sinks"]["has_sink"], false);
    assert_eq!(tried["ungated"]["sinks"]["context"], model.config.context);
}

/// Equal JSON, numbers within 10⁻⁴ (the page's and the native build's sums may differ in the
/// last bits).
fn assert_json_close(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-4 * y.abs().max(1.0), "{at}: {x} ≠ {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                assert_json_close(x, y, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: keys");
            for (k, x) in x {
                assert_json_close(x, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}
