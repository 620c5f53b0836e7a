//! Helpers shared by the test binaries: one `check` per kind of assertion, and seeded random
//! configurations for property tests.

#![allow(dead_code)]

use attention_core::rng::SplitMix64;
use attention_core::{Config, Input, LayerNormMode, MaskSpec, Params};
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
/// and uneven block sizes all vary with `seed`.
pub fn random_config(seed: u64) -> Config {
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
    let mask = match pick(5) {
        0 => MaskSpec::None,
        1 if !cross => MaskSpec::Causal,
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
        block_rows: 1 + pick(5),
        block_cols: 1 + pick(5),
        layer_norm,
        trace: true,
    }
    .validate()
    .unwrap_or_else(|e| panic!("random config {seed} should be valid: {e}"))
}
