//! The hybrid model shipped in assets/hybrid: its files are Hugging Face's Qwen3-Next
//! (`Qwen3NextForCausalLM`, dense: no experts), three Gated DeltaNet layers to each gated
//! full-attention layer; it shares the other models' vocabulary; and the lab's forward pass
//! reproduces what the training framework (JAX) computed within 10⁻⁴: the logits, the full
//! layer's attention weights, and the first linear layer's β, α and output before its gate (A·V).
//! Natively and in the browser.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::api::Request;
use attention_core::math::scoring::{Pairing, Position};
use attention_core::models::{Layout, Model, ModelError};
use serde_json::{Value, json};

mod support;

const SAFETENSORS: &[u8] = include_bytes!("../assets/hybrid/model.safetensors");
const CONFIG: &str = include_str!("../assets/hybrid/config.json");
const VOCAB: &str = include_str!("../assets/hybrid/vocab.json");
const GPT2_VOCAB: &str = include_str!("../assets/gpt2/vocab.json");
const FIXTURES: &str = include_str!("fixtures/hybrid.json");
const TOLERANCE: f32 = 1e-4;

fn model() -> Model {
    Model::from_files(SAFETENSORS, CONFIG, VOCAB).expect("the shipped hybrid loads")
}

#[test]
fn the_shipped_files_hold_a_qwen3_next_in_hugging_faces_layout() {
    assert!(
        SAFETENSORS.len() <= 5_000_000,
        "{} bytes",
        SAFETENSORS.len()
    );
    let config: Value = serde_json::from_str(CONFIG).unwrap();
    assert_eq!(config["model_type"], "qwen3_next");
    assert_eq!(config["architectures"], json!(["Qwen3NextForCausalLM"]));
    assert_eq!(config["num_experts"], 0, "dense: no mixture of experts");
    assert_eq!(config["tie_word_embeddings"], true);
    assert_eq!(
        serde_json::from_str::<Value>(VOCAB).unwrap(),
        serde_json::from_str::<Value>(GPT2_VOCAB).unwrap(),
        "the GPT-2 model's vocabulary"
    );
    let model = model();
    let shape = model.config;
    assert_eq!(shape.layout, Layout::Hybrid);
    assert_eq!(model.name, "hybrid");
    assert!(shape.context >= 256, "context {}", shape.context);
    assert!(
        shape.n_heads >= 2 * shape.n_kv_heads,
        "grouped-query attention in the full layers: {} query heads, {} K/V heads",
        shape.n_heads,
        shape.n_kv_heads
    );
    // 3 : 1, the last layer full.
    assert!(shape.n_layers >= 4 && shape.n_layers.is_multiple_of(4));
    for layer in 0..shape.n_layers {
        assert_eq!(
            shape.is_linear(layer),
            (layer + 1) % 4 != 0,
            "layer {layer}"
        );
    }
    // RoPE on a quarter of each head, on the full layers only.
    let quarter = shape.d_head() / 4;
    assert_eq!(shape.rotary_dims, Some(quarter));
    assert!(matches!(shape.position_at(0), Position::None));
    assert!(matches!(
        shape.position_at(3),
        Position::Rope { pairing: Pairing::HalfOf(r), base, .. } if r == quarter && base == 10_000.0
    ));
    assert!(model.position_embedding.is_none(), "no learned positions");
    for (i, block) in model.blocks.iter().enumerate() {
        assert!(block.attention.biases.is_none(), "no biases");
        assert!(block.attention_norm.rms && block.mlp_norm.rms, "RMSNorm");
        assert_eq!(block.linear.is_some(), shape.is_linear(i), "layer {i}");
        assert!(
            block.gate.is_some(),
            "layer {i}: every layer's output is gated"
        );
    }
    // The parameters transformers and the model card count.
    let metrics: Value =
        serde_json::from_str(include_str!("../assets/hybrid/metrics.json")).unwrap();
    assert_eq!(
        model.parameter_count() as u64,
        metrics["parameters"].as_u64().unwrap()
    );
}

#[test]
fn the_forward_pass_reproduces_the_training_frameworks_numbers() {
    let model = model();
    let fixtures: Value = serde_json::from_str(FIXTURES).unwrap();
    let fixtures = fixtures["fixtures"].as_array().unwrap();
    assert!(fixtures.len() >= 3);
    let mut longest = 0;
    for fixture in fixtures {
        let text = fixture["text"].as_str().unwrap();
        // The first full layer's softmax weights.
        let full = fixture["weights_layer"].as_u64().unwrap() as usize;
        assert!(!model.config.is_linear(full));
        let (forward, rows, worst) = support::check_fixture(&model, fixture, full, TOLERANCE);
        longest = longest.max(forward.ids.len());
        // Layer 1, Gated DeltaNet: β and α per head and token, and each head's output before
        // its gate, which is A·V with the hidden matrix the trace carries.
        let linear = &fixture["layer0_linear"];
        let first = &forward.layers[0].attention;
        let per_head =
            |name: &str| -> Vec<Vec<f32>> { serde_json::from_value(linear[name].clone()).unwrap() };
        for (h, (betas, alphas)) in per_head("beta").iter().zip(per_head("alpha")).enumerate() {
            let traced = &first.linear[h];
            let alpha = traced.alpha.as_ref().expect("gated: α");
            for (k, &i) in rows.iter().enumerate() {
                assert!(
                    (traced.beta[i] - betas[k]).abs() <= TOLERANCE,
                    "β head {h} token {i}"
                );
                assert!(
                    (alpha[i] - alphas[k]).abs() <= TOLERANCE,
                    "α head {h} token {i}"
                );
            }
        }
        let outputs: Vec<Vec<Vec<f32>>> = serde_json::from_value(linear["output"].clone()).unwrap();
        for (h, head) in outputs.iter().enumerate() {
            let traced = &first.heads[h];
            let ungated = traced.weights.dot(&traced.v);
            for (&i, row) in rows.iter().zip(head) {
                for (d, &o) in row.iter().enumerate() {
                    assert!(
                        (ungated[[i, d]] - o).abs() <= TOLERANCE * o.abs().max(1.0),
                        "{text}: head {h} A·V [{i}][{d}]: {}, JAX {o}",
                        ungated[[i, d]]
                    );
                }
            }
        }
        eprintln!("{text}: largest logit difference {worst:e}");
    }
    assert!(
        longest >= 200,
        "a fixture reaches far positions (RoPE's angles grow with them, the state fills): {longest}"
    );
}

/// What a request may and may not ask of the hybrid: the temperature acts on its full layers
/// only; what it fixes (its shape, its output gates, linear attention of another kind,
/// positions other than its RoPE) is refused by name.
#[test]
fn a_request_names_the_hybrid_and_what_it_fixes() {
    let model = model();
    let text = "the cat sat on the mat; the cat sat";
    let request = |extra: Value| -> Request {
        let mut r = json!({"model": "hybrid", "sentence": text});
        r.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        serde_json::from_value(r).unwrap()
    };
    assert_eq!(request(json!({})).trained_layout(), Some(Layout::Hybrid));
    let (_, run) = request(json!({"temperature": 0.5})).trained_run().unwrap();
    let forward = model.read(text, &run).unwrap();
    for (l, layer) in forward.layers.iter().enumerate() {
        let t = layer.attention.config.temperature();
        if model.config.is_linear(l) {
            assert_eq!(t, 1.0, "layer {}: linear, no temperature", l + 1);
            assert!(layer.attention.config.linear().is_some());
        } else {
            assert_eq!(t, 0.5, "layer {}", l + 1);
        }
    }
    // Its gates are its own: "output_gate": true is what it has, false is refused.
    assert!(request(json!({"output_gate": true})).trained_run().is_ok());
    for (extra, field) in [
        (json!({"output_gate": false}), "output_gate"),
        (json!({"linear": {"kind": "delta"}}), "linear"),
        (json!({"n_heads": 2}), "n_heads"),
        (json!({"position": {"kind": "absolute"}}), "position"),
    ] {
        let refused = request(extra.clone())
            .trained_run()
            .unwrap_err()
            .to_string();
        assert!(refused.contains(field), "{extra}: {refused}");
    }
    let (_, rope) = request(json!({"position": {"kind": "rope"}}))
        .trained_run()
        .unwrap();
    assert!(model.read(text, &rope).is_ok(), "its own RoPE may be named");
    // A config that asks for what the lab does not run is refused by name, as a folder's is.
    let mut config: Value = serde_json::from_str(CONFIG).unwrap();
    config["num_experts"] = json!(4);
    let error = Model::from_files(SAFETENSORS, &config.to_string(), VOCAB).unwrap_err();
    assert!(
        matches!(error, ModelError::Config(ref m) if m.contains("num_experts")),
        "{error}"
    );
}
