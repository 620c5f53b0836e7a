//! Hand-worked cases, and properties on random configurations: rows sum to 1, masked weights are exactly 0, FlashAttention equals the standard pass.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Two tokens, identity projections: QKᵀ = XXᵀ = I, so the numbers can be checked on paper.
/// With T = 1: scores = I/√2; softmax row 0 = [e^0.7071, 1] / (e^0.7071 + 1) = [0.66976, 0.33024].
/// With T = 2: scores = I/(2√2); row 0 = [e^0.35355, 1] / (e^0.35355 + 1) = [0.58748, 0.41252].
#[test]
fn hand_worked_two_tokens() {
    let identity = matrix(&[&[1.0, 0.0], &[0.0, 1.0]]);
    for (temperature, w) in [(1.0, 0.669_762_f32), (2.0, 0.587_479)] {
        let params = Params {
            n_heads: 1,
            temperature,
            weights: Some(std::sync::Arc::new(Weights {
                w_q: identity.clone(),
                w_k: identity.clone(),
                w_v: identity.clone(),
                w_o: identity.clone(),
                biases: None,
            })),
            ..params_for_x(identity.clone())
        };
        let trace = compute_trace(&params.validate().unwrap());
        let s = 1.0 / (2.0f32.sqrt() * temperature as f32);
        let head = &trace.heads[0];
        assert_close(
            "scores",
            head.scores.view(),
            matrix(&[&[s, 0.0], &[0.0, s]]).view(),
            1e-6,
            0.0,
        );
        let expected = matrix(&[&[w, 1.0 - w], &[1.0 - w, w]]);
        assert_close("weights", head.weights.view(), expected.view(), 1e-6, 0.0);
        // V = X = I, W_O = I: the output is the weights themselves.
        assert_close("output", trace.output.view(), expected.view(), 1e-6, 0.0);
        assert_close(
            "flash",
            trace.flash.output.view(),
            expected.view(),
            1e-6,
            0.0,
        );
    }
}

/// Three tokens under a causal mask: token 0 sees only itself, so its weight on itself is 1.
#[test]
fn hand_worked_causal_three_tokens() {
    let x = matrix(&[&[1.0, 0.0], &[0.0, 1.0], &[1.0, 1.0]]);
    let identity = matrix(&[&[1.0, 0.0], &[0.0, 1.0]]);
    let params = Params {
        n_heads: 1,
        mask: MaskSpec::Causal,
        weights: Some(std::sync::Arc::new(Weights {
            w_q: identity.clone(),
            w_k: identity.clone(),
            w_v: identity.clone(),
            w_o: identity,
            biases: None,
        })),
        ..params_for_x(x)
    };
    let trace = compute_trace(&params.validate().unwrap());
    let w = &trace.heads[0].weights;
    // Row 1: scores [0, 1/√2] → [1, e^0.7071] / (1 + e^0.7071) = [0.33024, 0.66976].
    // Row 2: scores [1, 1, 2]/√2 → e^[0.7071, 0.7071, 1.4142] / 8.1695 = [0.24826, 0.24826, 0.50349].
    let expected = matrix(&[
        &[1.0, 0.0, 0.0],
        &[0.330_238, 0.669_762, 0.0],
        &[0.248_255, 0.248_255, 0.503_490],
    ]);
    assert_close("causal weights", w.view(), expected.view(), 1e-5, 0.0);
    assert_eq!(w[[0, 1]], 0.0, "masked weights are exactly zero");
}

#[test]
fn every_key_masked_gives_zero_rows_and_no_nan() {
    let params = Params {
        mask: MaskSpec::Padding { valid_len: 0 },
        ..Params::sentence("nobody can see anything")
    };
    let trace = compute_trace(&params.validate().unwrap());
    for head in &trace.heads {
        assert_eq!(head.fully_masked_rows, vec![0, 1, 2, 3]);
        assert!(head.weights.iter().all(|&w| w == 0.0));
        assert!(head.output.iter().all(|&o| o == 0.0));
    }
    for flash in &trace.flash.heads {
        assert_eq!(flash.fully_masked_rows, vec![0, 1, 2, 3]);
        assert!(flash.steps.iter().all(|step| step.skipped));
    }
    assert!(
        trace
            .output
            .iter()
            .chain(&trace.flash.output)
            .all(|v| v.is_finite())
    );
}

#[test]
fn properties_hold_on_random_configurations() {
    for seed in 0..60 {
        let config = random_config(seed);
        let trace = compute_trace(&config);
        for head in &trace.heads {
            for (i, row) in head.weights.outer_iter().enumerate() {
                let sum: f32 = row.sum();
                if head.fully_masked_rows.contains(&i) {
                    assert_eq!(
                        sum, 0.0,
                        "seed {seed}: fully masked row {i} must be all zero"
                    );
                } else {
                    assert!(
                        (sum - 1.0).abs() < 1e-5,
                        "seed {seed}: row {i} sums to {sum}"
                    );
                }
                for (j, &w) in row.iter().enumerate() {
                    if !trace.mask[[i, j]] {
                        assert_eq!(w, 0.0, "seed {seed}: masked weight [{i}][{j}] is {w}");
                    }
                }
            }
        }
        assert!(
            trace.flash.max_abs_diff <= 1e-5,
            "seed {seed}: flash differs from standard by {}",
            trace.flash.max_abs_diff
        );
        assert!(
            trace.output.iter().all(|v| v.is_finite()),
            "seed {seed}: non-finite output"
        );
        // The memory-lean path gives the same numbers as the traced one.
        let outputs = compute_outputs(&config);
        assert_close(
            "untraced output",
            outputs.output.view(),
            trace.output.view(),
            1e-5,
            1e-5,
        );
        assert_close(
            "untraced flash",
            outputs.flash_output.view(),
            trace.flash.output.view(),
            1e-5,
            1e-5,
        );
    }
}
