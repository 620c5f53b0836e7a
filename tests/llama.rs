//! The Llama-layout model shipped in assets/llama: its files are Hugging Face's Llama (config,
//! tensor names, tied embeddings, no biases), it shares the GPT-2 model's vocabulary, and the
//! lab's forward pass (RMSNorm, RoPE and grouped-query attention in the core's own attention,
//! layer by layer) reproduces the logits and attention weights the training framework (JAX)
//! computed, within 10⁻⁴. Natively and in the browser.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::api::Request;
use attention_core::math::scoring::Position;
use attention_core::models::llama::silu;
use attention_core::models::{Layout, Mlp, Model, ModelError, ModelRun};
use serde_json::{Value, json};

mod support;

const SAFETENSORS: &[u8] = include_bytes!("../assets/llama/model.safetensors");
const CONFIG: &str = include_str!("../assets/llama/config.json");
const VOCAB: &str = include_str!("../assets/llama/vocab.json");
const GPT2_VOCAB: &str = include_str!("../assets/gpt2/vocab.json");
const FIXTURES: &str = include_str!("fixtures/llama.json");
const TOLERANCE: f32 = 1e-4;

fn model() -> Model {
    Model::from_files(SAFETENSORS, CONFIG, VOCAB).expect("the shipped Llama loads")
}

#[test]
fn the_shipped_files_hold_a_llama_in_hugging_faces_layout() {
    assert!(
        SAFETENSORS.len() <= 5_000_000,
        "{} bytes",
        SAFETENSORS.len()
    );
    let config: Value = serde_json::from_str(CONFIG).unwrap();
    assert_eq!(config["model_type"], "llama");
    assert_eq!(config["architectures"], json!(["LlamaForCausalLM"]));
    assert_eq!(config["tie_word_embeddings"], true);
    assert_eq!(config["rope_theta"], 10000.0);
    let model = model();
    let shape = model.config;
    assert_eq!(shape.layout, Layout::Llama);
    assert!(shape.context >= 256, "context {}", shape.context);
    assert!(
        shape.n_heads >= 2 * shape.n_kv_heads,
        "grouped-query attention: {} query heads, {} K/V heads",
        shape.n_heads,
        shape.n_kv_heads
    );
    assert_eq!(
        serde_json::from_str::<Value>(VOCAB).unwrap(),
        serde_json::from_str::<Value>(GPT2_VOCAB).unwrap(),
        "the GPT-2 model's vocabulary"
    );
    assert!(model.position_embedding.is_none(), "no learned positions");
    for block in &model.blocks {
        assert!(block.attention.biases.is_none(), "no biases");
        assert!(block.attention_norm.rms && block.mlp_norm.rms, "RMSNorm");
        assert!(matches!(block.mlp, Mlp::SwiGlu { .. }));
    }
    let names = support::tensor_names(SAFETENSORS);
    assert!(
        names.iter().all(|n| n.starts_with("model.")),
        "LlamaForCausalLM's names, the LM head tied: {names:?}"
    );
    assert!(names.contains(&"model.layers.0.self_attn.q_proj.weight".to_string()));
    assert_eq!(names.len(), 2 + 9 * shape.n_layers);
    assert_eq!(
        model.parameter_count(),
        shape.vocab_size * shape.d_model
            + shape.d_model
            + shape.n_layers
                * (2 * shape.d_model
                    + 2 * shape.d_model * shape.n_heads * shape.d_head()
                    + 2 * shape.d_model * shape.n_kv_heads * shape.d_head()
                    + 3 * shape.d_model * shape.d_ff)
    );
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
    assert!(
        longest >= 200,
        "a fixture reaches far positions (RoPE's angles grow with them): {longest}"
    );
}

/// Each layer's attention is the lab's own, with RoPE and grouped-query attention: the query
/// heads of one group read the same K and V, and moving every position by an offset (the
/// position request's `offset`) leaves the scores as they were.
#[test]
fn each_layer_is_the_labs_attention_with_rope_and_shared_kv_heads() {
    let model = model();
    let text = "the cat sat on the mat; the cat sat";
    let forward = model.read(text, &ModelRun::default()).unwrap();
    let layer = &forward.layers[1].attention;
    assert!(matches!(
        layer.config.shaping().position,
        Position::Rope { base, .. } if base == 10_000.0
    ));
    let group = model.config.n_heads / model.config.n_kv_heads;
    assert_eq!(layer.heads[0].k, layer.heads[group - 1].k, "one K/V head");
    assert_ne!(layer.heads[0].k, layer.heads[group].k, "the next group's");
    assert!(
        forward.positions.iter().all(|&p| p == 0.0),
        "no position vector"
    );

    let request = |position: Value| -> Request {
        serde_json::from_value(json!({"model": "llama", "sentence": text, "position": position}))
            .unwrap()
    };
    let (_, moved) = request(json!({"kind": "rope", "offset": 100}))
        .trained_run()
        .unwrap();
    let shifted = model.read(text, &moved).unwrap();
    let (a, b) = (model.all_logits(&forward), model.all_logits(&shifted));
    let worst = (&a - &b).iter().fold(0.0f32, |m, v| m.max(v.abs()));
    assert!(worst < 1e-3, "RoPE sees only distances: {worst}");
    for position in [
        json!({"kind": "absolute"}),
        json!({"kind": "rope", "pairing": "interleaved"}),
    ] {
        let refused = request(position.clone())
            .trained_run()
            .unwrap_err()
            .to_string();
        assert!(refused.contains("position"), "{position}: {refused}");
    }
    let gpt2: Request = serde_json::from_value(json!({"model": "gpt2", "sentence": text})).unwrap();
    assert_eq!(
        gpt2.trained_layout(),
        Some(Layout::Gpt2),
        "\"gpt2\" names the first"
    );
}

#[test]
fn a_config_that_does_not_fit_is_refused_by_name() {
    let mut config: Value = serde_json::from_str(CONFIG).unwrap();
    config["head_dim"] = json!(7);
    let error = Model::from_files(SAFETENSORS, &config.to_string(), VOCAB).unwrap_err();
    assert!(
        matches!(error, ModelError::Config(ref m) if m.contains("head_dim")),
        "{error}"
    );
    let mut config: Value = serde_json::from_str(CONFIG).unwrap();
    config["num_key_value_heads"] = json!(3);
    let error = Model::from_files(SAFETENSORS, &config.to_string(), VOCAB).unwrap_err();
    assert!(error.to_string().contains("K/V heads"), "{error}");
    let mut config: Value = serde_json::from_str(CONFIG).unwrap();
    config["model_type"] = json!("mistral");
    let error = Model::from_files(SAFETENSORS, &config.to_string(), VOCAB).unwrap_err();
    assert!(error.to_string().contains("mistral"), "{error}");
    assert!((silu(1.0) - 0.731_058_6).abs() < 1e-6);
    assert!(silu(-100.0).abs() < 1e-30);
}

/// The layer view names what this layout does: RMSNorm, not LayerNorm, and an input with no
/// position vector added (X = E, not E + P with P = 0); its later inputs' formula is in the
/// reader's language.
#[test]
fn the_layer_view_names_rmsnorm_and_no_position_vector() {
    use attention_lab::ui::i18n::Lang;
    use attention_lab::ui::logic::stages::Stage;
    let forward = model().read("the cat sat", &ModelRun::default()).unwrap();
    let (first, second) = (&forward.layers[0].attention, &forward.layers[1].attention);
    for lang in [Lang::En, Lang::Zh] {
        assert_eq!(Stage::NormedX.title(Some(first), lang), "RMSNorm(X)");
        assert_eq!(Stage::X.formula(first, lang), "X = E");
        assert_eq!(Stage::Positions.formula(first, lang), "P = 0");
        assert!(Stage::NormedX.formula(first, lang).contains("mean(x²)"));
        assert!(
            Stage::X.caption(first, lang).contains("RoPE"),
            "the caption says why P is 0"
        );
    }
    assert_eq!(Stage::X.formula(second, Lang::Zh), "X = 残差流");
}
