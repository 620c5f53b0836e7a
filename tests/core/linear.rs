//! Linear attention's three forms agree: token by token, in chunks of any size, and o = A·V
//! with the hidden matrix; the gated delta rule is transformers' own
//! (`torch_recurrent_gated_delta_rule`, tests/fixtures/gated_delta.json).

use attention_core::math::linear::{
    HeadInput, LinearKind, ROWS_AT_ONCE, chunked, decays, hidden_matrix, hidden_row_with,
    hidden_rows_with, prepared, recurrent,
};
use attention_core::math::rng::SplitMix64;
use ndarray::{Array1, Array2, ArrayView2};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const TOLERANCE: f32 = 1e-5;

fn worst(a: ArrayView2<f32>, b: ArrayView2<f32>) -> f32 {
    assert_eq!(a.dim(), b.dim());
    a.iter()
        .zip(b)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()))
}

/// A head of `len` tokens with random q, k, v, β ∈ (0, 1) and log α ∈ (−1, 0].
fn random_head(rng: &mut SplitMix64, len: usize, d_k: usize, d_v: usize) -> [Array2<f32>; 3] {
    let mut m =
        |cols: usize| Array2::from_shape_fn((len, cols), |_| rng.next_symmetric(1.5) as f32);
    [m(d_k), m(d_k), m(d_v)]
}

fn strip(rng: &mut SplitMix64, len: usize, f: impl Fn(f32) -> f32) -> Array1<f32> {
    Array1::from_shape_fn(len, |_| f(rng.next_unit() as f32))
}

/// A head's input from its q, k, v, β and log α.
fn head<'a>(
    kind: LinearKind,
    [q, k, v]: &'a [Array2<f32>; 3],
    beta: &'a Array1<f32>,
    log_alpha: &'a Array1<f32>,
) -> HeadInput<'a> {
    HeadInput {
        kind,
        q: q.view(),
        k: k.view(),
        v: v.view(),
        beta: beta.view(),
        log_alpha: log_alpha.view(),
    }
}

#[test]
fn token_by_token_in_chunks_and_as_a_times_v_agree() {
    let mut rng = SplitMix64::new(7);
    for kind in LinearKind::ALL {
        for len in [1, 2, 5, 16, 37, 100] {
            let qkv = random_head(&mut rng, len, 8, 6);
            let beta = match kind {
                LinearKind::Elu => Array1::ones(len),
                _ => strip(&mut rng, len, |u| u),
            };
            let log_alpha = match kind {
                LinearKind::GatedDelta => strip(&mut rng, len, |u| -u),
                _ => Array1::zeros(len),
            };
            let input = head(kind, &qkv, &beta, &log_alpha);
            let (qp, kp) = prepared(kind, input.q, input.k);
            let run = recurrent(&input, qp.view(), kp.view(), len);
            assert_eq!(run.states.len(), len);
            assert_eq!(run.states.last(), Some(&run.state));
            for c in [1, 4, 16, 64] {
                let (out, state) = chunked(&input, qp.view(), kp.view(), c);
                let d = worst(out.view(), run.output.view());
                assert!(
                    d <= TOLERANCE,
                    "{kind:?} T={len} c={c}: outputs differ by {d}"
                );
                // elu's state is a sum that grows with the text: compared relative to its size.
                let size = run.state.iter().fold(1.0f32, |m, x| m.max(x.abs()));
                let d = worst(state.view(), run.state.view()) / size;
                assert!(
                    d <= TOLERANCE,
                    "{kind:?} T={len} c={c}: states differ by {d} (relative)"
                );
            }
            let a = hidden_matrix(&input, qp.view(), kp.view());
            let d = worst(a.dot(&input.v).view(), run.output.view());
            assert!(d <= TOLERANCE, "{kind:?} T={len}: A·V differs by {d}");
            // Causal by construction: nothing above the diagonal.
            for t in 0..len {
                assert!(a.row(t).iter().skip(t + 1).all(|&x| x == 0.0));
            }
        }
    }
}

/// A's rows computed four at a time (what the matrix and a long input's overview use) are the
/// rows computed one by one, to the bit: from any first row, fewer than four at the end, and
/// with decays strong enough that a row stops walking back early (10⁻³⁰, checked every 64 keys),
/// with d_k a multiple of four and not (in the browser's build the four rows are SIMD lanes).
#[test]
fn a_rows_computed_together_are_the_rows_computed_alone() {
    let mut rng = SplitMix64::new(11);
    for kind in LinearKind::ALL {
        // d_k 6 leaves two components past the dot products' groups of four.
        for (len, decay, d_k) in [(7, 1.0, 8), (70, 1.0, 6), (300, 40.0, 8), (150, 40.0, 6)] {
            let qkv = random_head(&mut rng, len, d_k, 6);
            let beta = strip(&mut rng, len, |u| u);
            let log_alpha = match kind {
                LinearKind::GatedDelta => strip(&mut rng, len, |u| -u * decay),
                _ => Array1::zeros(len),
            };
            let input = head(kind, &qkv, &beta, &log_alpha);
            let (qp, kp) = prepared(kind, input.q, input.k);
            let alpha = decays(&input);
            let mut stopped = false;
            for first in [0, 1, 3, len.saturating_sub(2), len - 1] {
                let count = ROWS_AT_ONCE.min(len - first);
                let mut together = vec![f32::NAN; count * len];
                hidden_rows_with(&input, &alpha, qp.view(), kp.view(), first, &mut together);
                for j in 0..count {
                    let mut alone = Array1::<f32>::zeros(len);
                    hidden_row_with(
                        &input,
                        &alpha,
                        qp.view(),
                        kp.view(),
                        first + j,
                        alone.view_mut(),
                    );
                    let row = &together[j * len..(j + 1) * len];
                    assert!(
                        row.iter()
                            .zip(&alone)
                            .all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{kind:?} T={len} row {}: {row:?} against {alone:?}",
                        first + j
                    );
                    stopped |= first + j > 64 && alone[0] == 0.0 && alone[first + j] != 0.0;
                }
            }
            if kind == LinearKind::GatedDelta && decay > 1.0 {
                assert!(
                    stopped,
                    "no row stopped early: the test does not reach that path"
                );
            }
        }
    }
}

#[test]
fn the_hidden_matrix_is_not_a_softmax() {
    // elu's rows are distributions (positive, summing to 1); the delta rule's are not.
    let mut rng = SplitMix64::new(3);
    let len = 24;
    let [q, k, v] = random_head(&mut rng, len, 4, 4);
    let ones = Array1::ones(len);
    let zeros = Array1::zeros(len);
    let input = |kind| HeadInput {
        kind,
        q: q.view(),
        k: k.view(),
        v: v.view(),
        beta: ones.view(),
        log_alpha: zeros.view(),
    };
    let elu = input(LinearKind::Elu);
    let (qp, kp) = prepared(LinearKind::Elu, q.view(), k.view());
    let a = hidden_matrix(&elu, qp.view(), kp.view());
    for (t, row) in a.rows().into_iter().enumerate() {
        assert!((row.sum() - 1.0).abs() < 1e-5, "row {t}");
        assert!(row.iter().take(t + 1).all(|&x| x > 0.0));
    }
    let delta = input(LinearKind::Delta);
    let (qp, kp) = prepared(LinearKind::Delta, q.view(), k.view());
    let a = hidden_matrix(&delta, qp.view(), kp.view());
    assert!(
        a.iter().any(|&x| x < 0.0),
        "the delta rule erases: negative weights"
    );
    assert!(
        a.rows().into_iter().any(|r| (r.sum() - 1.0).abs() > 0.1),
        "rows need not sum to 1"
    );
}

#[test]
fn with_beta_one_the_delta_rule_recalls_the_last_value_written_at_a_key() {
    // β = 1 overwrites: after writing v at k, reading with q = k gives v back exactly (k
    // normalised), whatever was written at k before. A sum (elu) would blend the two.
    let d = 4;
    let k = Array2::from_shape_fn((3, d), |(t, j)| if j == t.min(1) { 1.0 } else { 0.0 });
    // Tokens 0 and 2 write at e₀ and e₁... token 1 and 2 share the key e₁.
    let v = ndarray::array![[1.0f32, 0.0], [2.0, 5.0], [-3.0, 4.0]];
    let beta = Array1::ones(3);
    let zeros = Array1::zeros(3);
    let input = HeadInput {
        kind: LinearKind::Delta,
        q: k.view(),
        k: k.view(),
        v: v.view(),
        beta: beta.view(),
        log_alpha: zeros.view(),
    };
    let (_, kp) = prepared(LinearKind::Delta, k.view(), k.view());
    let run = recurrent(&input, kp.view(), kp.view(), 0);
    let read = run.state.t().dot(&kp.row(1));
    assert!(
        (read[0] + 3.0).abs() < 1e-5 && (read[1] - 4.0).abs() < 1e-5,
        "{read}"
    );
    let read = run.state.t().dot(&kp.row(0));
    assert!(
        (read[0] - 1.0).abs() < 1e-5 && read[1].abs() < 1e-5,
        "{read}"
    );
}

#[test]
fn the_gated_delta_rule_is_transformers() {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/gated_delta.json")).unwrap();
    let matrix = |v: &serde_json::Value| {
        let rows: Vec<Vec<f32>> = serde_json::from_value(v.clone()).unwrap();
        let cols = rows[0].len();
        Array2::from_shape_vec((rows.len(), cols), rows.concat()).unwrap()
    };
    let strip = |v: &serde_json::Value| -> Array1<f32> {
        Array1::from(serde_json::from_value::<Vec<f32>>(v.clone()).unwrap())
    };
    for head in fixture["heads"].as_array().unwrap() {
        let (q, k, v) = (matrix(&head["q"]), matrix(&head["k"]), matrix(&head["v"]));
        let (beta, log_alpha) = (strip(&head["beta"]), strip(&head["log_alpha"]));
        let input = HeadInput {
            kind: LinearKind::GatedDelta,
            q: q.view(),
            k: k.view(),
            v: v.view(),
            beta: beta.view(),
            log_alpha: log_alpha.view(),
        };
        let (qp, kp) = prepared(LinearKind::GatedDelta, q.view(), k.view());
        let run = recurrent(&input, qp.view(), kp.view(), 0);
        let d = worst(run.output.view(), matrix(&head["output"]).view());
        assert!(d <= TOLERANCE, "outputs differ from transformers' by {d}");
        let d = worst(run.state.view(), matrix(&head["state"]).view());
        assert!(
            d <= TOLERANCE,
            "the state differs from transformers' by {d}"
        );
    }
}

/// A request's trace with `linear` (and the output gate): per head, the hidden matrix A in
/// `matrix` with A·V the ungated output, the chunked form as FlashAttention's output, β, α,
/// the states; the outputs-only path gives the same outputs; the other weights are unchanged.
#[test]
fn a_linear_request_traces_its_hidden_matrix_its_strips_and_its_states() {
    use attention_core::api::{parse_request, trace_json};
    use attention_core::{compute_outputs, compute_trace};
    for (kind, gate) in [
        ("elu", false),
        ("delta", true),
        ("gated_delta", false),
        ("gated_delta", true),
    ] {
        let text = format!(
            r#"{{"sentence": "the cat sat on the mat and the cat sat down again", "d_model": 16,
                "n_heads": 4, "n_kv_heads": 2, "mask": {{"kind": "causal"}},
                "linear": {{"kind": "{kind}", "chunk": 3}}, "output_gate": {gate}}}"#
        );
        let request = parse_request(&text).unwrap();
        let config = request.to_params().unwrap().validate().unwrap();
        let trace = compute_trace(&config);
        let softmax = parse_request(r#"{"sentence": "the cat sat on the mat and the cat sat down again", "d_model": 16, "n_heads": 4, "n_kv_heads": 2}"#)
            .unwrap()
            .to_params()
            .unwrap()
            .validate()
            .unwrap();
        assert_eq!(
            config.weights(),
            softmax.weights(),
            "{kind}: W_Q, W_K, W_V, W_O unchanged"
        );
        let json: serde_json::Value = serde_json::from_str(&trace_json(&trace).unwrap()).unwrap();
        assert_eq!(json["linear"]["kind"], kind);
        assert_eq!(json["output_gate"], gate);
        let n = trace.config.seq_len();
        for (h, head) in json["heads"].as_array().unwrap().iter().enumerate() {
            let a = &trace.heads[h].weights;
            let ungated = a.dot(&trace.heads[h].v);
            let shown = &trace.heads[h].output;
            let want = match trace.gates.get(h) {
                Some(g) => {
                    assert!(g.iter().all(|&x| x > 0.0 && x < 1.0));
                    &ungated * g
                }
                None => ungated,
            };
            let d = worst(shown.view(), want.view());
            assert!(
                d <= TOLERANCE,
                "{kind} head {h}: A·V (gated) differs by {d}"
            );
            let d = worst(trace.flash.heads[h].output.view(), shown.view());
            assert!(d <= TOLERANCE, "{kind} head {h}: chunked differs by {d}");
            assert!(
                trace.flash.heads[h].steps.is_empty(),
                "no tiles for a linear head"
            );
            assert_eq!(head["beta"].as_array().unwrap().len(), n);
            assert_eq!(head["alpha"].is_array(), kind == "gated_delta");
            assert_eq!(head["matrix"].as_array().unwrap().len(), n);
            assert_eq!(head["states"].as_array().unwrap().len(), n);
            assert_eq!(head["state"].as_array().unwrap().len(), 4, "d_k rows");
            assert_eq!(head["gate"].is_array(), gate);
            if kind == "elu" {
                assert!(head["beta"].as_array().unwrap().iter().all(|b| b == 1.0));
            }
        }
        let outputs = compute_outputs(&config);
        let d = worst(outputs.output.view(), trace.output.view());
        assert!(
            d <= TOLERANCE,
            "{kind}: the outputs-only path differs by {d}"
        );
        assert_eq!(trace.config.mask().spec().kind(), "causal");
    }
}

/// What linear attention cannot go with is refused, naming the field.
#[test]
fn what_linear_attention_cannot_do_is_refused_by_name() {
    use attention_core::api::parse_request;
    let error = |extra: &str| {
        let text = format!(r#"{{"sentence": "a b c d", {extra}}}"#);
        match parse_request(&text) {
            Err(e) => e.to_string(),
            Ok(request) => match request.to_params().map_err(|e| e.to_string()) {
                Err(e) => e,
                Ok(params) => params
                    .validate()
                    .map(|_| String::new())
                    .unwrap_or_else(|e| e.to_string()),
            },
        }
    };
    let cases = [
        (
            r#""linear": {"kind": "delta", "chunk": 0}"#,
            "linear.chunk must be at least 1",
        ),
        (
            r#""linear": {"kind": "delta", "chunk": 257}"#,
            "linear.chunk must be at most 256",
        ),
        (
            r#""linear": {"kind": "mamba"}"#,
            "linear.kind: unknown variant `mamba`",
        ),
        (
            r#""linear": {"kind": "delta"}, "mask": {"kind": "sliding", "radius": 1}"#,
            "mask: linear attention (delta) is causal by construction",
        ),
        (
            r#""linear": {"kind": "elu"}, "softcap": 5"#,
            "softcap: linear attention (elu) has no scores to shape",
        ),
        (
            r#""linear": {"kind": "elu"}, "position": {"kind": "rope"}"#,
            "position: linear attention",
        ),
        (
            r#""linear": {"kind": "delta"}, "temperature": 2"#,
            "temperature: linear attention (delta) has no softmax",
        ),
        (
            r#""linear": {"kind": "delta"}, "source_sentence": "x y""#,
            "source: linear attention",
        ),
    ];
    for (extra, want) in cases {
        let got = error(extra);
        assert!(got.starts_with(want), "{extra}: {got}");
    }
    // The GPT-2 and Llama models have softmax heads and no output gate: both fixed.
    for (extra, field) in [
        (r#""output_gate": true"#, "output_gate"),
        (r#""linear": {"kind": "delta"}"#, "linear"),
    ] {
        let request = parse_request(&format!(
            r#"{{"model": "llama", "sentence": "a b", {extra}}}"#
        ))
        .unwrap();
        assert_eq!(
            request.fixed_by(attention_core::models::Shipped::Llama),
            Some(field)
        );
    }
    let off =
        parse_request(r#"{"model": "llama", "sentence": "a b", "output_gate": false}"#).unwrap();
    assert_eq!(off.fixed_by(attention_core::models::Shipped::Llama), None);
    let long = vec!["a"; 513].join(" ");
    let text = format!(r#"{{"sentence": "{long}", "linear": {{"kind": "delta"}}}}"#);
    let params = parse_request(&text).unwrap().to_params().unwrap();
    let e = params.validate().unwrap_err().to_string();
    assert!(
        e.starts_with("linear: its hidden matrix is traced for at most 512 tokens (513 here)"),
        "{e}"
    );
    // The outputs alone are linear in the length: no limit there.
    let mut untraced = params.clone();
    untraced.trace = false;
    assert!(untraced.validate().is_ok());
}

/// The review's cases: elu's normaliser never divides by zero; a large state keeps fewer
/// states, never unbounded memory; what reads softmax scores refuses linear heads.
#[test]
fn elu_stays_finite_states_stay_bounded_and_explain_refuses_linear_heads() {
    use attention_core::api::parse_request;
    use attention_core::math::linear::{MAX_STATE_NUMBERS, states_kept};
    // Every q entry far below zero: φ(q) underflows to 0.
    let q = Array2::from_elem((4, 3), -200.0f32);
    let k = Array2::from_elem((4, 3), 0.5f32);
    let v = Array2::from_elem((4, 2), 1.0f32);
    let ones = Array1::ones(4);
    let zeros = Array1::zeros(4);
    let input = HeadInput {
        kind: LinearKind::Elu,
        q: q.view(),
        k: k.view(),
        v: v.view(),
        beta: ones.view(),
        log_alpha: zeros.view(),
    };
    let (qp, kp) = prepared(LinearKind::Elu, q.view(), k.view());
    let run = recurrent(&input, qp.view(), kp.view(), 4);
    assert!(run.output.iter().all(|x| x.is_finite()));
    let (out, _) = chunked(&input, qp.view(), kp.view(), 2);
    assert!(out.iter().all(|x| x.is_finite()));
    assert!(
        hidden_matrix(&input, qp.view(), kp.view())
            .iter()
            .all(|x| x.is_finite())
    );
    // States: 256 at most, fewer for a large state, the numbers within the budget.
    assert_eq!(states_kept(1000, 16, 16), 256);
    assert_eq!(states_kept(10, 16, 16), 10);
    assert_eq!(states_kept(1000, 1024, 1024), 1);
    assert!(states_kept(1000, 300, 500) * 300 * 500 <= MAX_STATE_NUMBERS);
    for (extra, field) in [
        (
            r#""linear": {"kind": "delta"}, "explain": {"head": 1, "query": 1, "key": 0}"#,
            "explain",
        ),
        (r#""output_gate": true, "replay_block": 0"#, "replay_block"),
    ] {
        let text = format!(r#"{{"sentence": "a b c d", {extra}}}"#);
        let e = parse_request(&text)
            .unwrap()
            .to_params()
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!("{field}: it takes softmax scores")),
            "{e}"
        );
    }
}
