//! The trained model shipped in assets/gpt2: its files load, and the lab's forward pass (the
//! core's attention, layer by layer) reproduces the logits and attention weights the training
//! framework (JAX) computed for the same inputs, within 10⁻⁴. Natively and in the browser.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::models::gpt2::gelu;
use attention_core::models::{Model, ModelRun, UNK, normalise};
use serde_json::Value;

mod support;

const SAFETENSORS: &[u8] = include_bytes!("../assets/gpt2/model.safetensors");
const CONFIG: &str = include_str!("../assets/gpt2/config.json");
const VOCAB: &str = include_str!("../assets/gpt2/vocab.json");
const FIXTURES: &str = include_str!("fixtures/gpt2.json");
const TOLERANCE: f32 = 1e-4;

fn model() -> Model {
    Model::from_files(SAFETENSORS, CONFIG, VOCAB).expect("the shipped model loads")
}

#[test]
fn the_shipped_files_hold_a_gpt2_of_at_most_five_megabytes() {
    assert!(
        SAFETENSORS.len() <= 5_000_000,
        "{} bytes",
        SAFETENSORS.len()
    );
    let model = model();
    let config: Value = serde_json::from_str(CONFIG).unwrap();
    assert_eq!(config["model_type"], "gpt2");
    assert_eq!(
        model.blocks.len(),
        config["n_layer"].as_u64().unwrap() as usize
    );
    assert_eq!(model.vocab[0], UNK);
    assert!(
        model.vocab.iter().skip(1).all(|t| t.chars().count() == 1),
        "one character per token"
    );
}

#[test]
fn the_forward_pass_reproduces_the_training_frameworks_logits() {
    let model = model();
    let fixtures: Value = serde_json::from_str(FIXTURES).unwrap();
    let fixtures = fixtures["fixtures"].as_array().unwrap();
    assert!(fixtures.len() >= 3);
    for fixture in fixtures {
        let text = fixture["text"].as_str().unwrap();
        let (_, _, worst) = support::check_fixture(&model, fixture, 0, TOLERANCE);
        eprintln!("{text}: largest logit difference {worst:e}");
    }
}

#[test]
fn the_model_tokenizes_characters_as_it_was_trained() {
    let model = model();
    assert_eq!(normalise("Ａ１\t\t b\n\n\n\nc"), "A1 b\n\nc");
    let tokens = model.tokenize("猫 sat");
    assert_eq!(tokens.len(), 5);
    assert!(tokens.iter().all(|(_, id)| *id != 0), "{tokens:?}");
    assert_eq!(
        model.tokenize("\u{10FFFF}")[0].1,
        0,
        "unknown characters are <unk>"
    );
    assert!((gelu(1.0) - 0.841_192).abs() < 1e-5);
}

/// A text longer than the model's context (128 characters) is read as the model reads a long
/// text: its last 128 characters, the ones before counted in `dropped`, exactly the forward pass
/// of those 128 alone; a custom mask for the whole text is cut to the window. (The page used to
/// refuse it and blank the trained model's views.)
#[test]
fn a_text_longer_than_the_context_is_read_through_its_last_window() {
    let model = model();
    let context = model.config.context;
    let text = "The cat sat on the mat. ".repeat(8);
    let whole = text.chars().count();
    assert!(whole > context);
    let read = model.read(&text, &ModelRun::default()).unwrap();
    assert_eq!(read.dropped, whole - context);
    assert_eq!(read.tokens.len(), context);
    let window: String = text.chars().skip(whole - context).collect();
    let alone = model.read(&window, &ModelRun::default()).unwrap();
    assert_eq!(alone.dropped, 0);
    assert_eq!(read.tokens, alone.tokens);
    assert_eq!(model.all_logits(&read), model.all_logits(&alone));
    // A custom mask over the whole text keeps its window's cells.
    let allowed = ndarray::Array2::from_shape_fn((whole, whole), |(i, j)| j <= i && i - j < 5);
    let run = ModelRun {
        mask: attention_core::MaskSpec::Custom { allowed },
        ..ModelRun::default()
    };
    let masked = model.read(&text, &run).unwrap();
    let weights = &masked.layers[0].attention.heads[0].weights;
    assert_eq!(weights[[10, 4]], 0.0, "six back: masked");
    assert!(weights[[10, 6]] > 0.0, "four back: allowed");
}
