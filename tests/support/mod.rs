//! Helpers shared by the test binaries: one `check` per kind of assertion (`assert_close` for a
//! matrix, `assert_trace_close` for a whole trace), the engines a test body runs on, and seeded
//! random configurations for property tests.

#![allow(dead_code)]

use attention_core::math::rng::SplitMix64;
use attention_core::{Config, Input, LayerNormMode, MaskSpec, Params, Trace};
use ndarray::{Array2, ArrayView2};

/// Asserts |a − b| ≤ atol + rtol·|b| elementwise, naming the first cell that differs.
pub fn assert_close(
    what: &str,
    actual: ArrayView2<f32>,
    expected: ArrayView2<f32>,
    atol: f32,
    rtol: f32,
) {
    assert_eq!(actual.dim(), expected.dim(), "{what}: shapes differ");
    for ((i, j), &a) in actual.indexed_iter() {
        let e = expected[[i, j]];
        assert!(
            (a - e).abs() <= atol + rtol * e.abs(),
            "{what}[{i}][{j}]: got {a}, expected {e} (|Δ| = {})",
            (a - e).abs()
        );
    }
}

pub fn matrix(rows: &[&[f32]]) -> Array2<f32> {
    let cols = rows.first().map_or(0, |r| r.len());
    Array2::from_shape_fn((rows.len(), cols), |(i, j)| rows[i][j])
}

/// Explicit-input parameters around `x`, with the other fields at their defaults.
pub fn params_for_x(x: Array2<f32>) -> Params {
    Params {
        input: Input::X(x),
        ..Params::sentence("")
    }
}

/// A random but valid configuration: shapes, masks, temperatures, GQA, cross-attention, LayerNorm
/// and uneven block sizes all vary with `seed`; 2017's scores.
pub fn random_config(seed: u64) -> Config {
    random_params(seed)
        .validate()
        .unwrap_or_else(|e| panic!("random config {seed} should be valid: {e}"))
}

/// [`random_config`] with random score options as well: a position scheme (RoPE with either
/// pairing, ALiBi, none), an offset, a soft-cap, QK-norm and sink logits, each on or off.
pub fn random_shaped_config(seed: u64) -> Config {
    random_shaped_params(seed)
        .validate()
        .unwrap_or_else(|e| panic!("random shaped config {seed} should be valid: {e}"))
}

/// The parameters of [`random_shaped_config`].
pub fn random_shaped_params(seed: u64) -> Params {
    use attention_core::math::scoring::{Pairing, Position, Shaping};
    let mut params = random_params(seed);
    let mut rng = SplitMix64::new(seed ^ 0x5ca1_ab1e);
    let mut pick = |n: usize| (rng.next_u64() % n as u64) as usize;
    let position = match pick(4) {
        0 => Position::Absolute,
        1 => Position::None,
        2 => Position::Alibi,
        _ => Position::Rope {
            base: [10_000.0, 500.0, 2.0][pick(3)],
            pairing: [Pairing::Half, Pairing::Interleaved][pick(2)],
        },
    };
    if matches!(position, Position::Rope { .. }) {
        params.d_k = params.d_k.map(|d| 2 * d.div_ceil(2));
    }
    params.shaping = Shaping {
        position,
        offset: [0, 3, 1000][pick(3)],
        softcap: (pick(2) == 0).then(|| [0.5, 5.0, 30.0][pick(3)]),
        qk_norm: pick(2) == 0,
        qk_gain: None,
        sink_logits: (pick(2) == 0).then(|| {
            (0..params.n_heads)
                .map(|_| [-3.0, 0.0, 1.5, 8.0][pick(4)])
                .collect()
        }),
    };
    params
}

/// The parameters of [`random_config`].
pub fn random_params(seed: u64) -> Params {
    let mut rng = SplitMix64::new(seed);
    let mut pick = |n: usize| (rng.next_u64() % n as u64) as usize;
    let seq_len = 1 + pick(12);
    let cross = pick(4) == 0;
    let key_len = if cross { 1 + pick(12) } else { seq_len };
    let d_model = 1 + pick(12);
    let n_kv_heads = 1 + pick(3);
    let n_heads = n_kv_heads * (1 + pick(3));
    let d_k = 1 + pick(6);
    let d_v = 1 + pick(6);
    let mask = match pick(6) {
        0 => MaskSpec::None,
        1 if !cross => MaskSpec::Causal,
        5 if !cross => MaskSpec::Sliding {
            radius: pick(seq_len),
            sink_tokens: pick(seq_len + 1),
        },
        2 => MaskSpec::Padding {
            valid_len: pick(key_len + 1),
        },
        3 => MaskSpec::Window { radius: pick(4) },
        _ => {
            let flags: Vec<bool> = (0..seq_len * key_len).map(|_| pick(3) != 0).collect();
            MaskSpec::Custom {
                allowed: Array2::from_shape_vec((seq_len, key_len), flags).unwrap(),
            }
        }
    };
    let layer_norm = [LayerNormMode::None, LayerNormMode::Pre, LayerNormMode::Post][pick(3)];
    let temperature = [0.05, 0.3, 1.0, 2.5, 10.0][pick(5)];
    let tokens = |n: usize, prefix: &str| (0..n).map(|i| format!("{prefix}{}", i % 5)).collect();
    Params {
        shaping: Default::default(),
        input: Input::Tokens(tokens(seq_len, "t")),
        source: cross.then(|| Input::Tokens(tokens(key_len, "s"))),
        d_model: Some(d_model),
        n_heads,
        d_k: Some(d_k),
        d_v: Some(d_v),
        n_kv_heads: Some(n_kv_heads),
        temperature,
        seed,
        mask,
        weights: None,
        block_rows: Some(1 + pick(5)),
        block_cols: Some(1 + pick(5)),
        layer_norm,
        norm: None,
        post_norm: None,
        model_layer: None,
        trace: true,
        linear: None,
        output_gate: false,
        linear_weights: None,
        gate_weights: None,
    }
}

/// How close two traces must be: |a − b| ≤ atol + rtol·|b|.
#[derive(Debug, Clone, Copy)]
pub struct Tolerance {
    pub atol: f32,
    pub rtol: f32,
}

/// Every number of a trace that another computation must reproduce. NaN marks a cell not to
/// compare (a masked score, which the JSON fixtures write as null).
#[derive(Debug, Clone)]
pub struct Expected {
    pub heads: Vec<ExpectedHead>,
    /// [seq_len, n_heads·d_v]
    pub concat: Array2<f32>,
    /// [seq_len, d_model]: the output of standard attention; flash must give the same.
    pub output: Array2<f32>,
}

#[derive(Debug, Clone)]
pub struct ExpectedHead {
    pub kv_group: usize,
    pub q: Array2<f32>,
    pub k: Array2<f32>,
    pub v: Array2<f32>,
    pub scores: Array2<f32>,
    pub weights: Array2<f32>,
    pub output: Array2<f32>,
    pub fully_masked_rows: Vec<usize>,
    /// q and k as the scores read them (after QK-norm and RoPE), when the reference has them.
    pub q_scored: Option<Array2<f32>>,
    pub k_scored: Option<Array2<f32>>,
}

impl Expected {
    /// What a reference trace computed (masked scores are not compared).
    pub fn from_trace(trace: &Trace) -> Self {
        Self {
            heads: trace
                .heads
                .iter()
                .map(|h| {
                    let mut scores = h.scores.clone();
                    scores.zip_mut_with(&trace.mask, |s, &allowed| {
                        if !allowed {
                            *s = f32::NAN;
                        }
                    });
                    ExpectedHead {
                        kv_group: h.kv_group,
                        q: h.q.clone(),
                        k: h.k.clone(),
                        v: h.v.clone(),
                        scores,
                        weights: h.weights.clone(),
                        output: h.output.clone(),
                        fully_masked_rows: h.fully_masked_rows.clone(),
                        q_scored: h.q_scored.clone(),
                        k_scored: h.k_scored.clone(),
                    }
                })
                .collect(),
            concat: trace.concat.clone(),
            output: trace.output.clone(),
        }
    }

    /// What the numpy reference wrote (`tests/fixtures/attention.json`, a case's `expected`).
    pub fn from_json(expected: &serde_json::Value) -> Self {
        let matrix = |value: &serde_json::Value| {
            let rows = value.as_array().expect("a matrix is an array of rows");
            let cols = rows
                .first()
                .and_then(serde_json::Value::as_array)
                .map_or(0, Vec::len);
            Array2::from_shape_fn((rows.len(), cols), |(i, j)| {
                rows[i][j].as_f64().map_or(f32::NAN, |v| v as f32)
            })
        };
        Self {
            heads: expected["heads"]
                .as_array()
                .expect("heads")
                .iter()
                .map(|h| ExpectedHead {
                    kv_group: h["kv_group"].as_u64().expect("kv_group") as usize,
                    q: matrix(&h["q"]),
                    k: matrix(&h["k"]),
                    v: matrix(&h["v"]),
                    scores: matrix(&h["scores"]),
                    weights: matrix(&h["weights"]),
                    output: matrix(&h["output"]),
                    fully_masked_rows: serde_json::from_value(h["fully_masked_rows"].clone())
                        .expect("fully_masked_rows"),
                    q_scored: h.get("q_scored").map(matrix),
                    k_scored: h.get("k_scored").map(matrix),
                })
                .collect(),
            concat: matrix(&expected["concat"]),
            output: matrix(&expected["output"]),
        }
    }
}

/// Asserts that `actual` reproduces `expected` within `tolerance`, naming the first number that
/// differs; and what every trace must satisfy: finite numbers, masked weights exactly 0, masked
/// cells where the reference has them, flash output equal to standard output. Scores grow with
/// 1/T, so they are compared relative to the largest of their row block.
pub fn assert_trace_close(name: &str, actual: &Trace, expected: &Expected, tolerance: Tolerance) {
    let check = |what: &str, a: ArrayView2<f32>, e: ArrayView2<f32>, scale: f32| {
        assert_eq!(a.dim(), e.dim(), "{name}: {what} shape");
        for ((i, j), &want) in e.indexed_iter() {
            let got = a[[i, j]];
            if want.is_nan() {
                continue;
            }
            assert!(got.is_finite(), "{name}: {what}[{i}][{j}] = {got}");
            assert!(
                (got - want).abs() <= (tolerance.atol + tolerance.rtol * want.abs()) * scale,
                "{name}: {what}[{i}][{j}] = {got}, expected {want} (|Δ| = {:e})",
                (got - want).abs()
            );
        }
    };
    assert_eq!(actual.heads.len(), expected.heads.len(), "{name}: heads");
    for (h, (head, want)) in actual.heads.iter().zip(&expected.heads).enumerate() {
        assert_eq!(head.kv_group, want.kv_group, "{name}: head {h} K/V group");
        check(&format!("head {h} q"), head.q.view(), want.q.view(), 1.0);
        check(&format!("head {h} k"), head.k.view(), want.k.view(), 1.0);
        check(&format!("head {h} v"), head.v.view(), want.v.view(), 1.0);
        for (what, got, expected) in [
            ("q_scored", &head.q_scored, &want.q_scored),
            ("k_scored", &head.k_scored, &want.k_scored),
        ] {
            match (got, expected) {
                (Some(got), Some(expected)) => check(
                    &format!("head {h} {what}"),
                    got.view(),
                    expected.view(),
                    1.0,
                ),
                (None, None) => {}
                _ => panic!("{name}: head {h} {what}: one side has it, the other not"),
            }
        }
        let score_scale = want
            .scores
            .iter()
            .filter(|s| s.is_finite())
            .fold(1.0f32, |m, s| m.max(s.abs()));
        check(
            &format!("head {h} scores"),
            head.scores.view(),
            want.scores.view(),
            score_scale,
        );
        check(
            &format!("head {h} weights"),
            head.weights.view(),
            want.weights.view(),
            1.0,
        );
        check(
            &format!("head {h} output"),
            head.output.view(),
            want.output.view(),
            1.0,
        );
        check(
            &format!("head {h} flash output"),
            actual.flash.heads[h].output.view(),
            want.output.view(),
            1.0,
        );
        assert_eq!(
            head.fully_masked_rows, want.fully_masked_rows,
            "{name}: head {h} fully masked rows"
        );
        for ((i, j), &w) in head.weights.indexed_iter() {
            assert_eq!(
                actual.mask[[i, j]],
                !want.scores[[i, j]].is_nan(),
                "{name}: mask [{i}][{j}]"
            );
            assert!(
                actual.mask[[i, j]] || w == 0.0,
                "{name}: head {h} weight [{i}][{j}] = {w} on a masked key"
            );
        }
    }
    check("concat", actual.concat.view(), expected.concat.view(), 1.0);
    check("output", actual.output.view(), expected.output.view(), 1.0);
    check(
        "flash output",
        actual.flash.output.view(),
        expected.output.view(),
        1.0,
    );
    assert!(
        actual.flash.max_abs_diff <= 1e-4,
        "{name}: flash against standard {}",
        actual.flash.max_abs_diff
    );
}

/// Something that computes traces: the CPU core, or a GPU backend. Test bodies are written once
/// against it and run on every engine.
#[allow(async_fn_in_trait)]
pub trait TestBackend {
    fn name(&self) -> String;
    async fn trace(&mut self, config: &Config) -> Trace;
}

/// The CPU core.
pub struct Cpu;

impl TestBackend for Cpu {
    fn name(&self) -> String {
        "cpu".into()
    }

    async fn trace(&mut self, config: &Config) -> Trace {
        attention_core::compute_trace(config)
    }
}

impl TestBackend for attention_gpu::GpuBackend {
    fn name(&self) -> String {
        format!("gpu ({})", self.info().name)
    }

    async fn trace(&mut self, config: &Config) -> Trace {
        let trace = attention_gpu::GpuBackend::trace(self, config)
            .await
            .unwrap_or_else(|e| panic!("the GPU failed: {e}"));
        assert!(
            matches!(trace.backend, attention_core::Backend::Gpu { .. }),
            "computed on the GPU"
        );
        trace
    }
}

/// The shipped GPT-2-layout model.
pub fn gpt2_model() -> attention_core::models::Model {
    attention_core::models::Model::from_files(
        include_bytes!("../../assets/gpt2/model.safetensors"),
        include_str!("../../assets/gpt2/config.json"),
        include_str!("../../assets/gpt2/vocab.json"),
    )
    .unwrap_or_else(|e| panic!("the GPT-2 model loads: {e}"))
}

/// The shipped Llama-layout model.
pub fn llama_model() -> attention_core::models::Model {
    attention_core::models::Model::from_files(
        include_bytes!("../../assets/llama/model.safetensors"),
        include_str!("../../assets/llama/config.json"),
        include_str!("../../assets/llama/vocab.json"),
    )
    .unwrap_or_else(|e| panic!("the Llama model loads: {e}"))
}

/// One fixture of the training program's (`tests/fixtures/gpt2.json`, `llama.json`,
/// `hybrid.json`) through `model`: its text tokenized as in training, the forward pass, the
/// logits at every kept position (`rows`, or all) within `tolerance` of JAX's (relative past 1),
/// and layer `layer`'s softmax weights there within `tolerance`. Returns the forward pass, the
/// kept positions and the largest logit difference.
pub fn check_fixture(
    model: &attention_core::models::Model,
    fixture: &serde_json::Value,
    layer: usize,
    tolerance: f32,
) -> (attention_core::models::Forward, Vec<usize>, f32) {
    let from = |key: &str| fixture[key].clone();
    let text = fixture["text"].as_str().unwrap();
    let ids: Vec<u32> = serde_json::from_value(from("ids")).unwrap();
    let pairs = model.tokenize(text);
    let tokenized: Vec<u32> = pairs.iter().map(|(_, id)| *id).collect();
    assert_eq!(tokenized, ids, "{text}: the same tokens as in training");
    let tokens: Vec<String> = pairs.into_iter().map(|(t, _)| t).collect();
    let run = attention_core::models::ModelRun::default();
    let forward = model.forward(&tokens, &ids, &run).unwrap();
    let logits = model.all_logits(&forward);
    let chosen: Vec<usize> = serde_json::from_value(from("token_ids")).unwrap();
    let expected: Vec<Vec<f32>> = serde_json::from_value(from("logits")).unwrap();
    // A long fixture keeps some positions only (`rows`); a short one every position.
    let rows: Vec<usize> = match fixture.get("rows") {
        Some(rows) => serde_json::from_value(rows.clone()).unwrap(),
        None => (0..expected.len()).collect(),
    };
    assert_eq!(rows.len(), expected.len());
    let mut worst = 0.0f32;
    for (&position, row) in rows.iter().zip(&expected) {
        for (&id, &logit) in chosen.iter().zip(row) {
            let got = logits[[position, id]];
            worst = worst.max((got - logit).abs());
            assert!(
                (got - logit).abs() <= tolerance * logit.abs().max(1.0),
                "{text}: logit of {:?} after position {position}: {got}, JAX {logit}",
                model.vocab[id]
            );
        }
    }
    let weights: Vec<Vec<Vec<f32>>> = serde_json::from_value(from("layer0_weights")).unwrap();
    assert_eq!(weights.len(), model.config.n_heads);
    for (h, head) in weights.iter().enumerate() {
        for (&i, row) in rows.iter().zip(head) {
            for (j, &w) in row.iter().enumerate() {
                let got = forward.layers[layer].attention.heads[h].weights[[i, j]];
                assert!(
                    (got - w).abs() <= tolerance,
                    "{text}: layer {} head {h} weight [{i}][{j}]: {got}, JAX {w}",
                    layer + 1
                );
            }
        }
    }
    (forward, rows, worst)
}

/// A safetensors file's tensor names, from its header.
pub fn tensor_names(safetensors: &[u8]) -> Vec<String> {
    let length = u64::from_le_bytes(safetensors[..8].try_into().unwrap()) as usize;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&safetensors[8..8 + length]).unwrap();
    header
        .keys()
        .filter(|k| *k != "__metadata__")
        .cloned()
        .collect()
}
