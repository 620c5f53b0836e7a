//! Generation with a KV cache, on the three trained models: every step's logits equal a recompute of
//! the whole text without the cache (within 10⁻⁴), after short and long prefills and over many
//! steps; without the cache the same characters come; the cache holds what its formula says;
//! bad requests are refused with a message. Natively and in the browser.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::math::mask::MaskSpec;
use attention_core::models::generate::{
    Decoder, GenerateError, GenerateSpec, KvCache, Sampling, cache_bytes_per_token, generate,
};
use attention_core::models::{Layout, Model, ModelRun};

const TOLERANCE: f32 = 1e-4;

fn gpt2() -> Model {
    Model::from_files(
        include_bytes!("../assets/gpt2/model.safetensors"),
        include_str!("../assets/gpt2/config.json"),
        include_str!("../assets/gpt2/vocab.json"),
    )
    .unwrap()
}

fn llama() -> Model {
    Model::from_files(
        include_bytes!("../assets/llama/model.safetensors"),
        include_str!("../assets/llama/config.json"),
        include_str!("../assets/llama/vocab.json"),
    )
    .unwrap()
}

/// The hybrid: its cache holds states for the linear layers and keys and values for the full.
fn hybrid() -> Model {
    Model::from_files(
        include_bytes!("../assets/hybrid/model.safetensors"),
        include_str!("../assets/hybrid/config.json"),
        include_str!("../assets/hybrid/vocab.json"),
    )
    .unwrap()
}

const TEXT: &str = "The cat sat on the mat because it was tired, and the dog sat beside it. \
                    Then the cat got up and went to sleep in the sun.";

fn spec(steps: usize, cache: bool, sampling: Sampling) -> GenerateSpec {
    GenerateSpec {
        steps,
        cache,
        sampling,
        check: true,
    }
}

/// (prefill, steps): natively many steps; in the browser's debug build fewer, so that no test
/// blocks the page for the 30 s after which the test driver gives up on it (each checked step
/// runs the traced forward pass over the whole text).
#[cfg(not(target_arch = "wasm32"))]
const PLAN: [(usize, usize); 3] = [(3, 48), (16, 40), (64, 32)];
#[cfg(target_arch = "wasm32")]
const PLAN: [(usize, usize); 3] = [(3, 10), (16, 8), (64, 6)];

/// Cached decoding against the full recompute at every step, after prefills of 3, 16 and 64
/// characters (decoding from 16 and from 64 cached positions).
fn cached_equals_recompute(model: &Model) {
    for (prefill, steps) in PLAN {
        let prompt: String = TEXT.chars().take(prefill).collect();
        let generation = generate(
            model,
            &prompt,
            &spec(steps, true, Sampling::Greedy),
            1.0,
            &|| 0.0,
        )
        .unwrap();
        assert_eq!(generation.steps.len(), steps);
        for (i, step) in generation.steps.iter().enumerate() {
            let delta = step.max_delta.unwrap();
            assert!(
                delta <= TOLERANCE,
                "{:?} prefill {prefill}, step {i}: max |Δ| {delta}",
                model.config.layout
            );
            assert_eq!(step.cache_len, prefill + i + 1);
            assert_eq!(step.top.len(), 5);
            assert_ne!(step.id, 0, "<unk> is never generated");
            assert!(step.top.windows(2).all(|w| w[0].p >= w[1].p));
        }
        let worst = generation
            .steps
            .iter()
            .filter_map(|s| s.max_delta)
            .fold(0.0f32, f32::max);
        eprintln!(
            "{:?}, prefill {prefill}: {:?} … worst |Δ| {worst:e}",
            model.config.layout,
            generation.text()
        );
    }
}

#[test]
fn gpt2_cached_decoding_equals_the_recompute_at_every_step() {
    cached_equals_recompute(&gpt2());
}

#[test]
fn llama_cached_decoding_equals_the_recompute_at_every_step() {
    cached_equals_recompute(&llama());
}

#[test]
fn hybrid_cached_decoding_equals_the_recompute_at_every_step() {
    cached_equals_recompute(&hybrid());
}

/// The hybrid's mixed cache: a state of a fixed size per linear layer, and two rows per K/V
/// head of its full layers for each position.
#[test]
fn the_hybrids_cache_grows_only_in_its_full_layers() {
    use attention_core::models::generate::CacheSizes;
    let model = hybrid();
    let shape = model.config;
    let generation = generate(
        &model,
        "abc",
        &spec(4, true, Sampling::Greedy),
        1.0,
        &|| 0.0,
    )
    .unwrap();
    let sizes = CacheSizes::of(&shape);
    let full = (0..shape.n_layers).filter(|&l| !shape.is_linear(l)).count();
    assert_eq!(sizes.linear_layers, shape.n_layers - full);
    let steps = &generation.steps;
    for pair in steps.windows(2) {
        assert_eq!(
            pair[1].cache_bytes - pair[0].cache_bytes,
            cache_bytes_per_token(full, shape.n_kv_heads, shape.d_head(), 4),
            "one position adds keys and values to the full layers only"
        );
    }
    let last = steps.last().unwrap();
    assert_eq!(last.cache_bytes, sizes.hybrid_bytes(7));
    assert!(sizes.state_bytes > 0);
}

#[test]
fn without_the_cache_the_same_characters_come() {
    for model in [gpt2(), llama(), hybrid()] {
        for sampling in [
            Sampling::Greedy,
            Sampling::Temperature {
                temperature: 0.8,
                seed: 7,
            },
        ] {
            let run = |cache| {
                let spec = GenerateSpec {
                    check: false,
                    ..spec(24, cache, sampling)
                };
                generate(&model, "the cat ", &spec, 1.0, &|| 0.0).unwrap()
            };
            let (with, without) = (run(true), run(false));
            assert_eq!(with.text(), without.text(), "{sampling:?}");
            assert_eq!(without.steps[5].cache_bytes, 0, "no cache kept");
            for (a, b) in with.steps.iter().zip(&without.steps) {
                assert!((a.top[0].p - b.top[0].p).abs() < 1e-4);
            }
        }
    }
}

/// What the view draws at each step, the new query row against the cache in every layer and
/// head, is the last row of the traced forward pass's weights over the whole text; stepping a
/// [`Decoder`] by hand gives what [`generate`] gives.
#[test]
fn each_steps_query_row_is_the_traced_forward_passs_last_row() {
    for model in [gpt2(), llama()] {
        let shape = model.config;
        let spec = GenerateSpec {
            check: false,
            ..spec(6, true, Sampling::Greedy)
        };
        let mut decoder = Decoder::new(&model, "the cat ", &spec, 1.0, &|| 0.0).unwrap();
        let mut stepped = Vec::new();
        while let Some(step) = decoder.step(&model, &|| 0.0) {
            stepped.push(step);
        }
        assert!(decoder.done() && decoder.step(&model, &|| 0.0).is_none());
        let generation = generate(&model, "the cat ", &spec, 1.0, &|| 0.0).unwrap();
        assert_eq!(stepped, generation.steps);
        let mut ids = decoder.prompt().to_vec();
        for step in &stepped {
            ids.push(step.id);
            let tokens: Vec<String> = ids
                .iter()
                .map(|&i| model.vocab[i as usize].clone())
                .collect();
            let run = ModelRun {
                mask: MaskSpec::Causal,
                ..ModelRun::default()
            };
            let forward = model.forward(&tokens, &ids, &run).unwrap();
            assert_eq!(step.attention.len(), shape.n_layers);
            for (layer, rows) in forward.layers.iter().zip(&step.attention) {
                assert_eq!(rows.len(), shape.n_heads);
                for (head, row) in layer.attention.heads.iter().zip(rows) {
                    assert_eq!(row.len(), ids.len(), "one weight per cached position");
                    let traced = head.weights.row(ids.len() - 1);
                    for (a, b) in row.iter().zip(traced.iter()) {
                        assert!((a - b).abs() < 1e-5, "{:?}: {a} vs {b}", shape.layout);
                    }
                }
            }
        }
    }
}

#[test]
fn the_cache_holds_two_rows_per_layer_and_kv_head_for_each_position() {
    let model = llama();
    let shape = model.config;
    assert_eq!(shape.layout, Layout::Llama);
    let generation = generate(
        &model,
        "abc",
        &spec(4, true, Sampling::Greedy),
        1.0,
        &|| 0.0,
    )
    .unwrap();
    let per_token = cache_bytes_per_token(shape.n_layers, shape.n_kv_heads, shape.d_head(), 4);
    assert_eq!(
        per_token,
        2 * shape.n_layers * shape.n_kv_heads * shape.d_head() * 4
    );
    let last = generation.steps.last().unwrap();
    assert_eq!(last.cache_len, 7);
    assert_eq!(last.cache_bytes, 7 * per_token);
    // Grouped-query attention caches n_kv_head heads, not n_head: this much smaller than MHA.
    let mha = cache_bytes_per_token(shape.n_layers, shape.n_heads, shape.d_head(), 4);
    assert_eq!(mha / per_token, shape.n_heads / shape.n_kv_heads);
    let cache = KvCache::new(&model);
    assert_eq!((cache.len, cache.bytes()), (0, 0));
}

#[test]
fn bad_requests_are_refused_by_name() {
    let model = gpt2();
    let greedy = |steps| spec(steps, true, Sampling::Greedy);
    let run = |prompt: &str, spec: GenerateSpec| generate(&model, prompt, &spec, 1.0, &|| 0.0);
    assert_eq!(run("", greedy(3)).unwrap_err(), GenerateError::EmptyPrompt);
    assert!(matches!(
        run("abc", greedy(0)),
        Err(GenerateError::Steps { .. })
    ));
    let error = run("abc", greedy(126)).unwrap_err();
    assert!(error.to_string().contains("context of 128"), "{error}");
    let error = run("a🙂b🙂", greedy(3)).unwrap_err();
    assert_eq!(
        error,
        GenerateError::UnknownCharacters("\"🙂\"".into()),
        "named once"
    );
    let cold = spec(
        3,
        true,
        Sampling::Temperature {
            temperature: 0.0,
            seed: 1,
        },
    );
    assert!(matches!(
        run("abc", cold),
        Err(GenerateError::SamplingTemperature(_))
    ));
    let unchecked = GenerateSpec {
        check: false,
        ..greedy(125)
    };
    assert!(run("abc", unchecked).is_ok(), "up to the context exactly");
}

/// What a model's worker does for the page: the page checks the request with
/// [`Decoder::prompt_for`] (the same refusals as [`Decoder::new`], the same prompt), the worker
/// starts from those ids ([`Decoder::from_ids`], refusing ids past the vocabulary), checks only
/// the steps it is told to, and each step travels as JSON, unchanged.
#[test]
fn the_workers_steps_are_the_pages_checked_when_asked_and_travel_unchanged() {
    let model = llama();
    let greedy = |steps| spec(steps, true, Sampling::Greedy);
    for (prompt, asked) in [
        ("", greedy(3)),
        ("abc", greedy(0)),
        ("abc", greedy(model.config.context)),
        ("a🙂", greedy(3)),
    ] {
        let refused =
            Decoder::new(&model, prompt, &asked, 1.0, &|| 0.0).map(|d| d.prompt().to_vec());
        assert_eq!(
            Decoder::prompt_for(&model, prompt, &asked),
            refused,
            "{prompt:?}"
        );
        assert!(refused.is_err(), "{prompt:?}");
    }
    let asked = GenerateSpec {
        check: false,
        ..greedy(5)
    };
    let mut page = Decoder::new(&model, "the cat ", &greedy(5), 1.0, &|| 0.0).unwrap();
    // The worker is given the page's ids (it holds no tokenizer).
    let ids = Decoder::prompt_for(&model, "the cat ", &asked).unwrap();
    let mut worker = Decoder::from_ids(&model, ids.clone(), &asked, 1.0, &|| 0.0).unwrap();
    assert_eq!(ids, page.prompt());
    let past = model.vocab.len() as u32;
    let refused = Decoder::from_ids(&model, vec![1, past], &asked, 1.0, &|| 0.0).map(|_| ());
    assert_eq!(
        refused,
        Err(GenerateError::UnknownCharacters(format!("#{past}")))
    );
    let refused = Decoder::from_ids(&model, Vec::new(), &asked, 1.0, &|| 0.0).map(|_| ());
    assert_eq!(refused, Err(GenerateError::EmptyPrompt));
    for i in 0..5 {
        let checked = page.step(&model, &|| 0.0).unwrap();
        let last = i == 4;
        let step = worker.step_checked(&model, &|| 0.0, last).unwrap();
        assert_eq!(step.max_delta.is_some(), last, "step {i}");
        assert!(checked.max_delta.unwrap() < TOLERANCE);
        assert_eq!(
            (step.id, &step.attention, &step.top),
            (checked.id, &checked.attention, &checked.top)
        );
        let json = attention_core::api::step_json(Some(step.clone()));
        let back = attention_core::api::step_from_json(&json).unwrap();
        assert_eq!(back.as_ref(), Some(&step), "f32s survive JSON exactly");
    }
    assert!(worker.step_checked(&model, &|| 0.0, true).is_none());
    let done = attention_core::api::step_json(None);
    assert_eq!(
        (done.as_str(), attention_core::api::step_from_json(&done)),
        ("null", Ok(None))
    );
}
