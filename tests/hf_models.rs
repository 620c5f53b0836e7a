//! Hugging Face model folders, as `save_pretrained` writes them (tests/fixtures/hf, made by
//! tools/hf/make_fixtures.py with transformers and tokenizers): GPT-2, Llama (untied, sharded
//! into four files; and tied in bf16), Mistral (a sliding window of 6), Qwen2 (biases on q, k, v;
//! an embedding padded past the tokenizer), Qwen3 (QK-norm, heads wider than hidden / heads),
//! Gemma 2 and 3, Qwen3-Next (the hybrid: Gated DeltaNet layers among gated full attention).
//! The lab's ids are `tokenizers`' on English, Chinese and emoji; its logits are transformers'
//! within 10⁻⁴ at every position; its greedy generation with the KV cache is transformers'
//! `generate`. And a bad folder is refused naming the file. Natively and in the browser.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use std::collections::BTreeMap;

use attention_core::MaskSpec;
use attention_core::api::Request;
use attention_core::io::hf_folder::{
    Held, MAX_PARAMETERS, check_page_memory, header_held, header_parameters,
};
use attention_core::math::scoring::{Pairing, Position};
use attention_core::models::generate::{GenerateSpec, Sampling, generate};
use attention_core::models::hf::from_folder;
use attention_core::models::{Model, ModelError, ModelRun};
use serde_json::{Value, json};

const TOLERANCE: f32 = 1e-4;

/// A fixture folder's files, name → bytes, and its expected.json.
macro_rules! folder {
    ($name:literal, [$($file:literal),*]) => {{
        let mut files = BTreeMap::new();
        files.insert("config.json".to_string(), include_bytes!(concat!("fixtures/hf/", $name, "/config.json")).to_vec());
        files.insert("tokenizer.json".to_string(), include_bytes!(concat!("fixtures/hf/", $name, "/tokenizer.json")).to_vec());
        files.insert("tokenizer_config.json".to_string(), include_bytes!(concat!("fixtures/hf/", $name, "/tokenizer_config.json")).to_vec());
        $(files.insert($file.to_string(), include_bytes!(concat!("fixtures/hf/", $name, "/", $file)).to_vec());)*
        let expected: Value = serde_json::from_str(include_str!(concat!("fixtures/hf/", $name, "/expected.json"))).unwrap();
        ($name, files, expected)
    }};
}

/// A folder's name, its files (name → bytes) and what Hugging Face computed on it.
type Fixture = (&'static str, BTreeMap<String, Vec<u8>>, Value);

fn folders() -> Vec<Fixture> {
    vec![
        folder!("gpt2", ["model.safetensors"]),
        folder!(
            "llama",
            [
                "model.safetensors.index.json",
                "model-00001-of-00004.safetensors",
                "model-00002-of-00004.safetensors",
                "model-00003-of-00004.safetensors",
                "model-00004-of-00004.safetensors"
            ]
        ),
        folder!("llama-bf16", ["model.safetensors"]),
        folder!("mistral", ["model.safetensors"]),
        folder!("qwen2", ["model.safetensors"]),
        folder!("qwen3", ["model.safetensors"]),
        folder!("gemma2", ["model.safetensors"]),
        folder!("gemma3", ["model.safetensors"]),
        folder!("qwen3_next", ["model.safetensors"]),
    ]
}

fn open(name: &str, files: &BTreeMap<String, Vec<u8>>) -> Model {
    from_folder(name, files).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn ids(value: &Value) -> Vec<u32> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect()
}

#[test]
fn every_layout_gives_tokenizers_ids_and_transformers_logits() {
    for (name, files, expected) in folders() {
        let model = open(name, &files);
        assert_eq!(
            model
                .config
                .model_type
                .trim_end_matches("_text")
                .replace('_', ""),
            expected["class"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .trim_end_matches("forcausallm")
                .trim_end_matches("lmheadmodel"),
            "{name}"
        );
        let run = ModelRun {
            mask: MaskSpec::Causal,
            ..ModelRun::default()
        };
        for case in expected["cases"].as_array().unwrap() {
            let text = case["text"].as_str().unwrap();
            let want = ids(&case["ids"]);
            let got: Vec<u32> = model.tokenize(text).into_iter().map(|(_, id)| id).collect();
            assert_eq!(got, want, "{name}: ids of {text:?}");
            let forward = model.read(text, &run).unwrap();
            let logits = model.all_logits(&forward);
            let rows = case["logits"].as_array().unwrap();
            assert_eq!(rows.len(), logits.nrows(), "{name}");
            let mut worst = 0.0f32;
            for (i, row) in rows.iter().enumerate() {
                for (j, v) in row.as_array().unwrap().iter().enumerate() {
                    worst = worst.max((logits[[i, j]] - v.as_f64().unwrap() as f32).abs());
                }
            }
            assert!(worst <= TOLERANCE, "{name}: {text:?} logits off by {worst}");
        }
    }
}

#[test]
fn greedy_generation_with_the_cache_is_transformers_generate() {
    for (name, files, expected) in folders() {
        let model = open(name, &files);
        for case in expected["cases"].as_array().unwrap() {
            let text = case["text"].as_str().unwrap();
            let want = ids(&case["generated"]);
            let spec = GenerateSpec {
                steps: want.len(),
                cache: true,
                sampling: Sampling::Greedy,
                check: true,
            };
            let generation = generate(&model, text, &spec, 1.0, &|| 0.0).unwrap();
            let got: Vec<u32> = generation.steps.iter().map(|s| s.id).collect();
            assert_eq!(got, want, "{name}: generated after {text:?}");
            for step in &generation.steps {
                let delta = step.max_delta.unwrap();
                assert!(
                    delta <= TOLERANCE,
                    "{name}: the cache's step is {delta} off a recompute"
                );
            }
        }
    }
}

#[test]
fn pieces_read_as_text() {
    let (name, files, _) = folder!("gpt2", ["model.safetensors"]);
    let model = open(name, &files);
    let pieces: Vec<String> = model
        .tokenize("The cat 注")
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    // `Ġcat` reads " cat"; 注 is three bytes, in pieces that are not characters alone.
    assert_eq!(pieces[..3], ["T", "he", " c"]);
    assert_eq!(pieces.concat(), "The cat <0xE6><0xB3><0xA8>");
    assert_eq!(
        model.decode(
            &model
                .tokenize("The cat 注")
                .iter()
                .map(|p| p.1)
                .collect::<Vec<_>>()
        ),
        "The cat 注"
    );
    let (name, files, _) = folder!("llama-bf16", ["model.safetensors"]);
    let model = open(name, &files);
    let pieces: Vec<String> = model.tokenize("a b").into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        pieces,
        ["<s>", " ", "a", " ", "b"],
        "SentencePiece's ▁ reads as a space, <s> added"
    );
}

#[test]
fn the_config_decides_what_is_computed() {
    let all = folders();
    let model = |name: &str| {
        let (n, files, _) = all.iter().find(|f| f.0 == name).unwrap();
        open(n, files)
    };
    let llama = model("llama");
    assert!(
        llama.lm_head.is_some(),
        "tie_word_embeddings false: lm_head.weight"
    );
    let bf16 = model("llama-bf16");
    assert!(bf16.lm_head.is_none(), "tied");
    // The file's bf16 kept as bf16: the token embedding and the MLPs take 2 bytes a number.
    assert_eq!(bf16.token_embedding.dtype(), "bf16");
    assert!(
        bf16.blocks[0]
            .mlp
            .stored()
            .iter()
            .all(|m| m.dtype() == "bf16")
    );
    assert_eq!(llama.token_embedding.dtype(), "f32");
    let halves = bf16.token_embedding.len()
        + bf16
            .blocks
            .iter()
            .map(|b| b.mlp.stored().iter().map(|m| m.len()).sum::<usize>())
            .sum::<usize>();
    assert_eq!(
        bf16.bytes(),
        2 * halves + 4 * (bf16.parameter_count() - halves)
    );
    assert_eq!(llama.bytes(), 4 * llama.parameter_count());
    // What the page checks before building a model (its headers alone) is what the model holds.
    for name in ["llama-bf16", "llama", "gpt2", "qwen3"] {
        let (_, files, _) = all.iter().find(|f| f.0 == name).unwrap();
        let held = files
            .iter()
            .filter(|(f, _)| f.ends_with(".safetensors"))
            .map(|(f, bytes)| header_held(f, bytes).unwrap().unwrap())
            .fold(Held::default(), Held::and);
        assert_eq!(held.kept, model(name).bytes() as u64, "{name}");
    }
    assert_eq!(model("mistral").config.sliding_window, Some(6));
    let qwen2 = model("qwen2");
    assert!(qwen2.blocks[0].attention.biases.is_some());
    assert_eq!(
        qwen2.vocab.len(),
        qwen2.config.vocab_size,
        "padded past the tokenizer"
    );
    assert!(qwen2.vocab.last().unwrap().starts_with("<id "));
    let qwen3 = model("qwen3");
    assert_eq!((qwen3.config.d_model, qwen3.config.head_dim), (32, 16));
    assert!(qwen3.blocks[0].qk_norm.is_some());
    // Gemma 2: a sliding layer, then a full one; both soft-caps; q·k over √24, not √16.
    let gemma2 = model("gemma2").config;
    assert_eq!((gemma2.window(0), gemma2.window(1)), (Some(6), None));
    assert_eq!(
        (gemma2.attention_softcap, gemma2.logit_softcap),
        (Some(5.0), Some(8.0))
    );
    assert_eq!(gemma2.query_scale, Some((16.0f64 / 24.0).sqrt() as f32));
    assert_eq!(gemma2.embedding_scale, Some(32.0f32.sqrt()));
    assert!(
        model("gemma2")
            .blocks
            .iter()
            .all(|b| b.post_attention_norm.is_some()
                && b.post_mlp_norm.is_some()
                && matches!(&b.mlp, attention_core::models::Mlp::SwiGlu(m) if m.gelu))
    );
    // Gemma 3: two sliding layers with RoPE's local base, a full one with the global base.
    let gemma3 = model("gemma3").config;
    let base = |layer| match gemma3.position_at(layer) {
        attention_core::math::scoring::Position::Rope { base, .. } => base,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        (gemma3.window(0), gemma3.window(1), gemma3.window(2)),
        (Some(5), Some(5), None)
    );
    assert_eq!((base(0), base(1), base(2)), (10_000.0, 10_000.0, 1e6));
    assert!(gemma3.qk_norm && gemma3.attention_softcap.is_none());
}

/// `files` with one file changed (or removed when `None`).
fn edited(
    files: &BTreeMap<String, Vec<u8>>,
    name: &str,
    to: Option<Vec<u8>>,
) -> BTreeMap<String, Vec<u8>> {
    let mut files = files.clone();
    match to {
        Some(bytes) => files.insert(name.to_string(), bytes),
        None => files.remove(name),
    };
    files
}

fn refused(files: &BTreeMap<String, Vec<u8>>) -> String {
    match from_folder("bad", files) {
        Ok(_) => panic!("a bad folder was opened"),
        Err(e) => e.to_string(),
    }
}

fn config_with(
    files: &BTreeMap<String, Vec<u8>>,
    field: &str,
    value: Value,
) -> BTreeMap<String, Vec<u8>> {
    let mut config: Value = serde_json::from_slice(&files["config.json"]).unwrap();
    config[field] = value;
    edited(
        files,
        "config.json",
        Some(serde_json::to_vec(&config).unwrap()),
    )
}

#[test]
fn a_bad_folder_is_refused_naming_the_file() {
    let all = folders();
    let files = |name: &str| all.iter().find(|f| f.0 == name).unwrap().1.clone();
    let (gpt2, llama) = (files("gpt2"), files("llama"));
    let e = refused(&edited(&gpt2, "config.json", None));
    assert!(e.starts_with("config.json: missing"), "{e}");
    let e = refused(&edited(&gpt2, "model.safetensors", None));
    assert!(e.starts_with("model.safetensors: missing"), "{e}");
    let e = refused(&edited(
        &edited(&gpt2, "tokenizer.json", None),
        "tokenizer.model",
        Some(vec![1]),
    ));
    assert!(
        e.starts_with("tokenizer.json: missing") && e.contains("not tokenizer.model"),
        "{e}"
    );
    let e = refused(&edited(
        &gpt2,
        "tokenizer.json",
        Some(b"{\"version\": 1}".to_vec()),
    ));
    assert!(
        e.starts_with("tokenizer.json: not a tokenizers file"),
        "{e}"
    );
    let e = refused(&edited(&llama, "model-00003-of-00004.safetensors", None));
    assert!(e.starts_with("model-00003-of-00004.safetensors: missing: model.safetensors.index.json lists 4 shards, 1 of them"), "{e}");
    let e = refused(&config_with(&gpt2, "model_type", "bert".into()));
    assert!(e.contains("model_type \"bert\""), "{e}");
    let e = refused(&config_with(
        &llama,
        "rope_scaling",
        serde_json::json!({"rope_type": "llama3", "factor": 8.0}),
    ));
    assert!(e.contains("rope_scaling"), "{e}");
    let e = refused(&config_with(&llama, "hidden_act", "gelu".into()));
    assert!(e.contains("hidden_act"), "{e}");
    // More heads a layer than the lab draws: refused when opened, not at every pass.
    let wide = config_with(
        &config_with(&llama, "head_dim", 8.into()),
        "num_attention_heads",
        96.into(),
    );
    let e = refused(&wide);
    assert!(
        e.contains("num_attention_heads 96") && e.contains("at most 64"),
        "{e}"
    );
    // Gemma: what its config asks for that the lab does not run, by the field.
    let gemma3 = files("gemma3");
    let e = refused(&config_with(&gemma3, "model_type", "gemma3".into()));
    assert!(
        e.contains("model_type \"gemma3\"") && e.contains("gemma3_text"),
        "{e}"
    );
    let e = refused(&config_with(
        &gemma3,
        "layer_types",
        serde_json::json!(["full_attention", "sliding_attention", "full_attention"]),
    ));
    assert!(
        e.starts_with("config.json: layer_types: full layers at irregular places"),
        "{e}"
    );
    let e = refused(&config_with(
        &gemma3,
        "layer_types",
        serde_json::json!(["sliding_attention", "full_attention"]),
    ));
    assert!(e.contains("layer_types: 2 entries for 3 layers"), "{e}");
    let e = refused(&config_with(&gemma3, "hidden_activation", "gelu".into()));
    assert!(e.contains("hidden_activation: \"gelu\""), "{e}");
    let e = refused(&config_with(
        &files("gemma2"),
        "attn_logit_softcapping",
        (-1.0).into(),
    ));
    assert!(e.contains("attn_logit_softcapping: -1"), "{e}");
    let e = refused(&config_with(
        &gemma3,
        "use_bidirectional_attention",
        true.into(),
    ));
    assert!(e.contains("use_bidirectional_attention"), "{e}");
    // Shapes that disagree with the config: the tensor named, both shapes.
    let e = refused(&config_with(&gpt2, "n_embd", 48.into()));
    assert!(
        e.contains("wte.weight") && e.contains("[320, 48]") && e.contains("[320, 32]"),
        "{e}"
    );
    // A lying header: its offsets past the end of the file.
    let mut lying = gpt2["model.safetensors"].clone();
    lying.truncate(lying.len() - 100);
    let e = refused(&edited(&gpt2, "model.safetensors", Some(lying)));
    assert!(e.starts_with("model.safetensors: "), "{e}");
    // NaN weights: the file and the tensor.
    let mut nan = gpt2["model.safetensors"].clone();
    let len = nan.len();
    nan[len - 4..].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = refused(&edited(&gpt2, "model.safetensors", Some(nan)));
    assert!(
        e.starts_with("model.safetensors: ") && e.contains("NaN"),
        "{e}"
    );
    // Over the budget, from the header alone (a header whose data is not there at all).
    let header =
        br#"{"wte.weight":{"dtype":"BF16","shape":[50000,40000],"data_offsets":[0,4000000000]}}"#;
    let mut big = (header.len() as u64).to_le_bytes().to_vec();
    big.extend_from_slice(header);
    assert_eq!(
        header_parameters("model.safetensors", &big).unwrap(),
        Some(2_000_000_000)
    );
    let e = refused(&edited(&gpt2, "model.safetensors", Some(big)));
    assert!(
        e.contains("2000000000 parameters") && e.contains(&MAX_PARAMETERS.to_string()),
        "{e}"
    );
}

#[test]
fn the_request_names_a_folder_and_the_json_says_its_pieces() {
    let request: Request =
        serde_json::from_str(r#"{"sentence": "hi", "model": {"path": "tests/fixtures/hf/gpt2"}}"#)
            .unwrap();
    assert!(request.is_trained());
    assert_eq!(
        request.model.as_ref().unwrap().folder(),
        Some("tests/fixtures/hf/gpt2")
    );
    let e = serde_json::from_str::<Request>(r#"{"model": "bert"}"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown model \"bert\"") && e.contains("{\"path\""),
        "{e}"
    );
    let e = serde_json::from_str::<Request>(r#"{"model": {"folder": "x"}}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("folder") && e.contains("path"), "{e}");
    let (name, files, _) = folder!("gpt2", ["model.safetensors"]);
    let model = open(name, &files);
    let run = ModelRun {
        mask: MaskSpec::Causal,
        ..ModelRun::default()
    };
    let forward = model.read("The cat", &run).unwrap();
    let json: Value =
        serde_json::from_str(&attention_core::api::forward_json(&model, &forward).unwrap())
            .unwrap();
    assert_eq!(json["model"], "gpt2");
    assert_eq!(json["tokens"], serde_json::json!(["T", "he", " c", "at"]));
    assert_eq!(json["token_ids"], json["ids"]);
}

#[test]
fn a_model_error_is_a_model_error() {
    // The shipped models' errors keep their words.
    let e = Model::from_files(b"", "{}", "[]").unwrap_err();
    assert!(
        matches!(e, ModelError::Format(_) | ModelError::Config(_)),
        "{e}"
    );
}

#[test]
fn streaming_through_a_cache_as_wide_as_the_text_is_the_forward_pass() {
    use attention_core::models::stream::{StreamSpec, stream_eval};
    // RoPE layouts with biases (Qwen2), QK-norm (Qwen3) and neither (Llama), and Gemma's
    // sandwich norms, soft-caps, sliding layers and two RoPE bases: the rolling cache's own
    // arithmetic gives the forward pass's loss at every position.
    for (name, files, _) in folders()
        .into_iter()
        .filter(|f| ["llama", "qwen2", "qwen3", "gemma2", "gemma3"].contains(&f.0))
    {
        let model = open(name, &files);
        let text = "The cat sat on the mat. 注意力";
        let spec = StreamSpec {
            window: 100,
            sink_tokens: 0,
        };
        let eval = stream_eval(&model, text, spec).unwrap();
        let run = ModelRun {
            mask: MaskSpec::Causal,
            ..ModelRun::default()
        };
        let forward = model
            .forward(&vec![String::new(); eval.ids.len()], &eval.ids, &run)
            .unwrap();
        let logits = model.all_logits(&forward);
        for (i, &loss) in eval.with_sinks.losses.iter().enumerate() {
            let row = logits.row(i);
            let max = row.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
            let sum: f32 = row.iter().map(|v| (v - max).exp()).sum();
            let want = sum.ln() - (row[eval.ids[i + 1] as usize] - max);
            assert!(
                (loss - want).abs() <= TOLERANCE,
                "{name}: position {i}: {loss} vs {want}"
            );
        }
    }
}

/// The page's model worker holds its own copy of the model, built from the same files with only
/// the vocabulary's pieces for a tokenizer, and sends each layer's work as one flat buffer; the
/// page puts the forward pass together from it. It is the forward pass, bit for bit, whatever the
/// layout (biases, QK-norm, a window, grouped K/V) and with a head knocked out; each layer with
/// FlashAttention's steps is what tracing it afresh gives; and work that does not fit (another
/// input's) is computed again, not trusted.
#[test]
fn a_forward_pass_put_together_from_a_workers_numbers_is_the_forward_pass() {
    use attention_core::models::forward::knocked_in;
    use attention_core::models::hf::from_folder_with;
    use attention_core::models::remote::ForwardWork;
    use attention_core::models::tokenizer::{PiecesOnly, TextTokenizer};
    use attention_core::pipeline::knockout::HeadKnockout;
    use attention_core::pipeline::trace::{Backend, Knockout, compute_trace};
    use std::sync::Arc;
    for (name, files, _) in folders() {
        let page = open(name, &files);
        let pieces = page.vocab.clone();
        let worker = from_folder_with(name, &files, &|_| {
            Ok(Arc::new(PiecesOnly(pieces.clone())) as Arc<dyn TextTokenizer>)
        })
        .unwrap();
        assert_eq!(worker.vocab, page.vocab, "{name}");
        let runs = [
            ModelRun::default(),
            ModelRun {
                temperature: 0.7,
                ablate: vec![HeadKnockout {
                    layer: 1,
                    head: 0,
                    how: Knockout::Zero,
                }],
                ..ModelRun::default()
            },
        ];
        for run in runs {
            let reading = page.reading("The cat sat. 猫坐在垫子上 🐱", &run);
            let (tokens, ids) = (&reading.tokens, &reading.ids);
            let (worked, work) = worker.forward_work(tokens, ids, &reading.run).unwrap();
            let flat = work.to_flat();
            let work = ForwardWork::from_flat(&flat, "").unwrap();
            assert!(
                work.layers.iter().all(|l| l.backend == Backend::Cpu),
                "{name}: every layer computed on the CPU"
            );
            // The first layer's backend is the third number: 0 the CPU, 1 a GPU, nothing else.
            let mut other = flat.clone();
            other[2] = 1.0;
            let on_gpu = ForwardWork::from_flat(&other, "a GPU").unwrap();
            assert_eq!(
                on_gpu.layers[0].backend,
                Backend::Gpu {
                    adapter: "a GPU".into()
                }
            );
            other[2] = 2.0;
            assert!(ForwardWork::from_flat(&other, "").is_none(), "{name}");
            let expected = page.forward(tokens, ids, &reading.run).unwrap();
            assert_eq!(worked, expected, "{name}: the worker's own pass");
            // The worker's pass a block at a time, as it runs between its messages.
            let mut layered = worker.begin_work(tokens, ids, &reading.run).unwrap();
            let blocks = worker.config.n_layers;
            for done in 1..=blocks {
                assert_eq!(layered.layers_done(), done - 1, "{name}");
                assert_eq!(worker.work_layer(&mut layered).unwrap(), done == blocks);
            }
            assert!(
                worker.work_layer(&mut layered).unwrap(),
                "{name}: no block past the last"
            );
            assert_eq!(layered.layers_done(), blocks, "{name}");
            let (stepped, stepped_work) = worker.finish_work(layered).unwrap();
            assert_eq!(stepped, expected, "{name}: a block at a time");
            assert_eq!(stepped_work, work, "{name}: the same work kept");
            let half = worker.begin_work(tokens, ids, &reading.run).unwrap();
            assert_eq!(
                worker.finish_work(half).unwrap().0,
                expected,
                "{name}: finished at once"
            );
            assert!(worker.begin_work(tokens, &[], &reading.run).is_err());
            let together = page
                .forward_from(tokens, ids, &reading.run, work.clone())
                .unwrap();
            assert_eq!(together, expected, "{name}: put together");
            for layer in 0..together.layers.len() {
                let mut traced = compute_trace(&together.layers[layer].attention.config);
                traced.knock_out(&knocked_in(&run.ablate, layer));
                assert_eq!(together.layer_trace(layer), traced, "{name}: layer {layer}");
            }
            // Another input's work is not trusted: the pass is computed here.
            let shorter = page.reading("The cat", &run);
            let redone = page
                .forward_from(&shorter.tokens, &shorter.ids, &shorter.run, work)
                .unwrap();
            let fresh = page
                .forward(&shorter.tokens, &shorter.ids, &shorter.run)
                .unwrap();
            assert_eq!(redone, fresh, "{name}: another input's work");
        }
        assert!(ForwardWork::from_flat(&[1.0, 2.0], "").is_none());
    }
}

/// In the page (4 GB of WebAssembly memory) a folder's model reads at most the tokens whose
/// traced pass fits beside it. Measured in headless Chromium (benches/README.md): GPT-2 small's
/// shape (f32, 498 MB) reached 1.6 GB at 479 tokens, broke the page at 959, and with a head
/// knocked out (a second pass kept) reached 3.7 GB at 567; a billion-parameter bf16 model
/// (2.2 GB) reached 3.8 GB at 195 and broke the page at 385. The window sits under those; a
/// model too long is refused with its numbers; natively the window is the model's context; the
/// small fixtures read their whole context in the page.
#[test]
fn a_folders_model_reads_what_the_pages_memory_holds() {
    use attention_core::models::model::PassShape;
    let gpt2 = PassShape {
        layers: 12,
        heads: 12,
        d_model: 768,
        hidden: 3072,
    };
    let window = gpt2.window(498_000_000, 1024);
    assert!((400..567).contains(&window), "GPT-2 small: {window}");
    let billion = PassShape {
        layers: 12,
        heads: 32,
        d_model: 2048,
        hidden: 8192,
    };
    let window = billion.window(2_200_000_000, 131_072);
    assert!((100..195).contains(&window), "1 B: {window}");
    eprintln!(
        "windows: GPT-2 small {}, 1 B {window}",
        gpt2.window(498_000_000, 1024)
    );
    // Each window's pass fits, one more token's does not.
    let room = attention_core::io::hf_folder::PAGE_MEMORY - 2_200_000_000;
    assert!(billion.traced_bytes(window) <= room && billion.traced_bytes(window + 1) > room);
    // A context shorter than the memory's window is the window; a model that fills the page
    // still reads one token.
    assert_eq!(gpt2.window(498_000_000, 256), 256);
    assert_eq!(billion.window(u64::MAX, 4096), 1);
    for (name, files, _) in folders() {
        let model = open(name, &files);
        assert_eq!(model.page_window(), model.config.context, "{name}");
        assert_eq!(model.read_window(), model.config.context, "{name}");
        let message = model.pass_too_large(5000).to_string();
        assert!(
            message.contains("5000 tokens") && message.contains("MB"),
            "{name}: {message}"
        );
    }
}

/// A wide MLP random in bf16 or in f32: `hidden` units on the model's width, seeded.
fn widened(model: &Model, hidden: usize, half: bool, seed: u64) -> Model {
    use attention_core::math::rng::SplitMix64;
    use attention_core::models::gpt2::GeluMlp;
    use attention_core::models::llama::SwiGluMlp;
    use attention_core::models::model::Mlp;
    use attention_core::models::stored::{Half, Stored};
    use ndarray::{Array1, Array2};
    let d = model.config.d_model;
    let mut rng = SplitMix64::new(seed);
    let mut matrix = |rows: usize, cols: usize| {
        let values: Vec<f32> = (0..rows * cols)
            .map(|_| rng.next_symmetric(0.2) as f32)
            .collect();
        if half {
            let bits = values.iter().map(|v| (v.to_bits() >> 16) as u16).collect();
            Stored::half(bits, rows, cols, Half::Bf16).unwrap()
        } else {
            Stored::F32(Array2::from_shape_vec((rows, cols), values).unwrap())
        }
    };
    let mut wide = model.clone();
    for block in &mut wide.blocks {
        block.mlp = match &block.mlp {
            Mlp::Gelu(_) => Mlp::Gelu(GeluMlp {
                c_fc: (matrix(d, hidden), Array1::from_elem(hidden, 0.01)),
                c_proj: (matrix(hidden, d), Array1::from_elem(d, -0.02)),
            }),
            Mlp::SwiGlu(mlp) => Mlp::SwiGlu(SwiGluMlp {
                gate: matrix(d, hidden),
                up: matrix(d, hidden),
                down: matrix(hidden, d),
                gelu: mlp.gelu,
            }),
        };
    }
    wide
}

/// The model's worker runs a large block's MLP a slice of its hidden units at a time
/// (`Model::work_piece`), reading its messages between slices. Cut into slices of 256 units (a
/// 700-unit MLP: 256, 256 and 188), every layout's pass is the whole pass, to the bit, in bf16
/// and in f32 (the slices sum their inner dimension in the blocks the whole product does),
/// natively and in the page's kernels; the work it keeps is the same, and a pass finished at once
/// or put on a GPU's attention (`work_layer_with`) finishes the open block first.
#[test]
fn a_large_mlp_a_slice_at_a_time_is_the_block_computed_whole() {
    use attention_core::models::stored::BLOCK_ROWS;
    use attention_core::pipeline::trace::Backend;
    use attention_core::pipeline::units::compute_parts;
    for (name, files, _) in folders() {
        let small = open(name, &files);
        for half in [true, false] {
            let model = widened(&small, 700, half, 7);
            let reading = model.reading("The cat sat. 猫坐在垫子上 🐱", &ModelRun::default());
            let (tokens, ids, run) = (&reading.tokens, &reading.ids, &reading.run);
            let (whole, whole_work) = model.forward_work(tokens, ids, run).unwrap();
            assert_eq!(
                model.blocks[0].mlp.piece_width(tokens.len(), 1),
                Some(BLOCK_ROWS)
            );
            // The default piece: these models' MLPs are a piece whole.
            assert_eq!(
                model.blocks[0]
                    .mlp
                    .piece_width(tokens.len(), attention_core::models::model::PIECE_MACS),
                None
            );
            let mut work = model
                .begin_work(tokens, ids, run)
                .unwrap()
                .with_piece_macs(1);
            let mut pieces = 0;
            while !model.work_piece(&mut work).unwrap() {
                pieces += 1;
                // After a block's attention, and after each slice but its last, the block is open.
                assert_eq!(work.mid_block(), pieces % 4 != 0, "{name}: piece {pieces}");
                assert_eq!(work.layers_done(), pieces / 4, "{name}");
            }
            assert_eq!(
                pieces + 1,
                4 * model.config.n_layers,
                "{name}: the attention and 3 slices a block"
            );
            let (pieced, pieced_work) = model.finish_work(work).unwrap();
            assert_eq!(pieced, whole, "{name}: half {half}, a slice at a time");
            assert_eq!(
                pieced_work, whole_work,
                "{name}: half {half}, the same work"
            );
            // Finished at once mid-block, and the next attention asked for mid-block: the open
            // block's MLP is run first, so the next block reads the right input.
            let mut work = model
                .begin_work(tokens, ids, run)
                .unwrap()
                .with_piece_macs(1);
            model.work_piece(&mut work).unwrap();
            model.work_piece(&mut work).unwrap();
            assert!(work.mid_block(), "{name}");
            let config = model.next_attention(&mut work).unwrap().unwrap();
            assert!(!work.mid_block(), "{name}: the open block finished");
            assert_eq!(work.layers_done(), 1);
            assert!(
                !model
                    .work_layer_with(&mut work, compute_parts(&config), Backend::Cpu)
                    .unwrap()
            );
            assert!(
                work.mid_block(),
                "{name}: a GPU's attention leaves its MLP in slices"
            );
            let (given, _) = model.finish_work(work).unwrap();
            assert_eq!(
                given, whole,
                "{name}: half {half}, with the attention given"
            );
        }
    }
}

#[test]
fn a_model_the_pages_memory_cannot_hold_is_refused_with_its_numbers() {
    let held = |kept: u64, reading: u64| Held { kept, reading };
    // GPT-2 small in f32 (measured: the page's module 1 009 MB), and a 1 B model in bf16: its
    // attention in f32 and the rest in bf16 (2.7 GB), a 0.5 GB embedding read straight into it.
    assert!(check_page_memory(held(498_000_000, 10_000_000)).is_ok());
    assert!(check_page_memory(held(2_700_000_000, 100_000_000)).is_ok());
    // A 1 B model in f32: 4 GB held.
    let refused = check_page_memory(held(4_000_000_000, 200_000_000))
        .unwrap_err()
        .to_string();
    assert!(
        refused.starts_with("the model needs about 4.2 GB of the page's memory (4.0 GB held as it is computed, and 0.2 GB more while its largest tensor is read)"),
        "{refused}"
    );
    assert!(refused.contains("bf16"), "{refused}");
}

/// A file's bytes that count what is read of them: the most in one read, and in all.
struct Counted {
    bytes: Vec<u8>,
    largest: std::cell::Cell<usize>,
    total: std::cell::Cell<usize>,
}

impl attention_core::io::safetensors::ReadAt for Counted {
    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), String> {
        self.largest.set(self.largest.get().max(out.len()));
        self.total.set(self.total.get() + out.len());
        (&self.bytes.as_slice()).read_at(offset, out)
    }
}

#[test]
fn a_folders_weights_are_read_a_tensor_at_a_time_never_whole() {
    use attention_core::io::hf_folder::FolderFiles;
    use attention_core::io::safetensors::ReadAt;
    for (name, files, _) in folders() {
        let counted: BTreeMap<String, Counted> = files
            .iter()
            .map(|(f, bytes)| {
                let counted = Counted {
                    bytes: bytes.clone(),
                    largest: Default::default(),
                    total: Default::default(),
                };
                (f.clone(), counted)
            })
            .collect();
        let model = from_folder(name, &counted).unwrap();
        assert!(
            same_numbers(&model, &open(name, &files)),
            "{name}: the same model"
        );
        for (file, c) in counted.iter().filter(|(f, _)| f.ends_with(".safetensors")) {
            let header = 8 + u64::from_le_bytes(c.bytes[..8].try_into().unwrap()) as usize;
            // The header, then each tensor by itself (in reads of at most a megabyte): no read
            // holds the file, and no tensor is read twice.
            assert!(
                c.largest.get() < c.bytes.len().max(header + 1),
                "{name}/{file}"
            );
            assert!(c.largest.get() <= header.max(1 << 20), "{name}/{file}");
            let data = c.bytes.len() - header;
            assert!(
                c.total.get() <= data + 4 * header,
                "{name}/{file}: {} bytes read of {}",
                c.total.get(),
                c.bytes.len()
            );
        }
        assert!(counted.whole("config.json").is_some());
    }
    // A header-only reader sees a lying header as the whole-file reader does: offsets past the
    // data, named.
    let (_, gpt2, _) = folders().into_iter().next().unwrap();
    let mut cut = gpt2["model.safetensors"].clone();
    cut.truncate(cut.len() - 100);
    let header = attention_core::io::safetensors::header_bytes(&cut).unwrap();
    let e = attention_core::io::safetensors::SafetensorsHeader::parse(&header, cut.size())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("run past the end of the data"), "{e}");
    // A gap after the last tensor: more data than the header names.
    let mut long = gpt2["model.safetensors"].clone();
    long.extend([0u8; 8]);
    let header = attention_core::io::safetensors::header_bytes(&long).unwrap();
    let e = attention_core::io::safetensors::SafetensorsHeader::parse(&header, long.size())
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("the file ends early") || e.contains("bytes of data"),
        "{e}"
    );
}

/// The command line reads a folder on disk a tensor at a time too: the same model.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn a_folder_on_disk_opens_as_its_bytes_do() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hf");
    for (name, files, _) in folders() {
        let disk = attention_core::io::hf_folder::read_folder(&dir.join(name)).unwrap();
        let model = from_folder(name, &disk).unwrap();
        assert!(same_numbers(&model, &open(name, &files)), "{name}");
    }
}

/// Whether two models hold the same numbers (their tokenizers are two readings of one file).
fn same_numbers(a: &Model, b: &Model) -> bool {
    a.config == b.config
        && a.vocab == b.vocab
        && a.token_embedding == b.token_embedding
        && a.position_embedding == b.position_embedding
        && a.blocks == b.blocks
        && a.final_norm == b.final_norm
        && a.lm_head == b.lm_head
}

/// Gemma's fields a file leaves out take transformers' defaults (q·k over √256; Gemma 2's caps
/// 50 and 30), null turns a cap off, and the logits are c·tanh(z/c) of the unembedding's z.
#[test]
fn gemma_reads_transformers_defaults_and_caps_its_logits() {
    let all = folders();
    let gemma2 = all.iter().find(|f| f.0 == "gemma2").unwrap().1.clone();
    let mut config: Value = serde_json::from_slice(&gemma2["config.json"]).unwrap();
    for field in [
        "query_pre_attn_scalar",
        "attn_logit_softcapping",
        "final_logit_softcapping",
    ] {
        config.as_object_mut().unwrap().remove(field);
    }
    let bare = edited(
        &gemma2,
        "config.json",
        Some(serde_json::to_vec(&config).unwrap()),
    );
    let model = open("bare", &bare);
    assert_eq!(
        model.config.query_scale,
        Some((16.0f64 / 256.0).sqrt() as f32)
    );
    assert_eq!(
        (model.config.attention_softcap, model.config.logit_softcap),
        (Some(50.0), Some(30.0))
    );
    let off = open(
        "off",
        &config_with(&gemma2, "final_logit_softcapping", Value::Null),
    );
    assert_eq!(off.config.logit_softcap, None);

    let model = open("gemma2", &gemma2);
    let forward = model
        .read("The cat sat on the mat", &ModelRun::default())
        .unwrap();
    let last = forward.ids.len() - 1;
    // The logits are c·tanh(z/c) of the unembedding's z (what a logit attribution's parts sum
    // to), with Gemma 2's c = 8 in this file.
    let z = model.unembedding().dot_vector(forward.final_norm.row(last));
    let capped = model.logits(&forward, last);
    let cap = 8.0f32;
    for (z, capped) in z.iter().zip(capped.iter()) {
        assert!((capped - cap * (z / cap).tanh()).abs() < 1e-5);
        assert!(capped.abs() < cap);
    }
}

#[test]
fn a_qwen3_next_hybrid_runs_its_linear_layers_as_gated_deltanet() {
    let all = folders();
    let (name, files, _) = all.iter().find(|f| f.0 == "qwen3_next").unwrap();
    let model = open(name, files);
    let config = model.config;
    // Three Gated DeltaNet layers, then one of gated full attention with RoPE on a quarter of
    // each head (16 × 0.25 = 4 dimensions).
    let linear: Vec<bool> = (0..4).map(|l| config.is_linear(l)).collect();
    assert_eq!(linear, [true, true, true, false]);
    assert_eq!(config.rotary_dims, Some(4));
    assert!(matches!(config.position_at(0), Position::None));
    assert!(matches!(
        config.position_at(3),
        Position::Rope {
            pairing: Pairing::HalfOf(4),
            ..
        }
    ));
    // transformers counts 89,992 parameters in this folder.
    assert_eq!(model.parameter_count(), 89_992);

    let run = ModelRun {
        mask: MaskSpec::Causal,
        temperature: 0.5,
        ..ModelRun::default()
    };
    let forward = model.read("The cat sat on the mat.", &run).unwrap();
    let first = &forward.layers[0].attention;
    assert!(first.config.linear().is_some(), "layer 0 is linear");
    assert_eq!(first.linear.len(), 4, "β, α and the state of every head");
    assert!(first.linear[0].alpha.is_some());
    assert!(
        first.linear[0]
            .beta
            .iter()
            .all(|&b| (0.0..=1.0).contains(&b))
    );
    // The hidden matrix: each head's output before its gate is A·V.
    let head = &first.heads[0];
    let ungated = head.weights.dot(&head.v);
    let gate = &first.gates[0];
    let worst = (&ungated * gate - &head.output)
        .iter()
        .fold(0.0f32, |m, d| m.max(d.abs()));
    assert!(worst < 1e-4, "A·V times the gate is the output: {worst}");
    // The temperature acts on the softmax layer only.
    assert_eq!(first.config.temperature(), 1.0);
    let last = &forward.layers[3].attention;
    assert!(last.config.linear().is_none() && last.config.temperature() == 0.5);
    assert_eq!(last.gates.len(), 4, "the full layer's sigmoid gate");
    assert!(last.gates[0].iter().all(|&g| (0.0..=1.0).contains(&g)));

    // The mixed cache: states of a fixed size for the linear layers, keys and values for the
    // full one.
    let mut cache = attention_core::models::generate::KvCache::new(&model);
    let ids: Vec<u32> = model
        .tokenize("The cat")
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    model.extend(&mut cache, &ids, 1.0);
    let states = cache.linear.iter().flatten().count();
    assert_eq!(states, 3);
    // What it holds is the sizes' formula: fixed states plus the full layer's keys and values.
    let sizes = attention_core::models::generate::CacheSizes::of(&model.config);
    assert_eq!(cache.bytes(), sizes.hybrid_bytes(cache.len));
    // Per linear layer 4 heads × 16 × 16 numbers and 3 convolution rows of q, k, v (3 × 64).
    assert_eq!(sizes.state_bytes, 3 * (4 * 16 * 16 + 3 * 3 * 64) * 4);
    // A softmax layer in a linear one's place would cache more from 26 tokens on.
    assert_eq!(sizes.crossover_tokens(), Some(26));
    assert!(sizes.all_softmax_bytes(26) > sizes.hybrid_bytes(26));
    assert!(sizes.all_softmax_bytes(25) <= sizes.hybrid_bytes(25));
    let before = cache.bytes();
    model.extend(&mut cache, &ids[..1], 1.0);
    // One more token adds one key and one value row (2 K/V heads × 16) to the full layer only.
    assert_eq!(cache.bytes() - before, 2 * 2 * 16 * 4);

    // What the lab cannot run is refused, naming the field.
    for (field, value, says) in [
        ("num_experts", json!(8), "num_experts"),
        (
            "layer_types",
            json!([
                "linear_attention",
                "full_attention",
                "linear_attention",
                "linear_attention"
            ]),
            "layer_types",
        ),
        ("linear_num_value_heads", json!(8), "linear_num_value_heads"),
        (
            "partial_rotary_factor",
            json!(0.01),
            "partial_rotary_factor",
        ),
    ] {
        let e = refused(&config_with(files, field, value));
        assert!(e.contains(says), "{field}: {e}");
    }
    // Past the 512 tokens a linear layer's hidden matrix is traced for, a clear refusal.
    let long = open(
        name,
        &config_with(files, "max_position_embeddings", json!(1024)),
    );
    let e = long.read(&"ab ".repeat(400), &run).unwrap_err().to_string();
    assert!(
        e.contains("layer 1 of this hybrid") && e.contains("shorten the text"),
        "{e}"
    );
    // A stream's rolling cache has no keys to drop in a linear layer: said, not run.
    let e = attention_core::models::stream::stream_check(
        &model,
        attention_core::models::stream::StreamSpec {
            window: 8,
            sink_tokens: 0,
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("hybrid"), "{e}");
}
