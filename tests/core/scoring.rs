//! Scores beyond 2017's formula: every score option keeps FlashAttention equal, RoPE and ALiBi ignore an offset, RoPE's two pairings agree once permuted.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// With every score option (RoPE of either pairing, ALiBi, no positions, offsets, soft-caps,
/// QK-norm, sink logits) on random shapes and masks: FlashAttention equals the standard pass,
/// the untraced path equals the traced one, masked weights are 0, a row sums to 1, or to less
/// with a sink logit, and nothing is NaN.
#[test]
fn every_score_option_keeps_flash_equal_and_rows_honest() {
    for seed in 0..80 {
        let config = random_shaped_config(seed);
        let trace = compute_trace(&config);
        let sinks = config.shaping().sink_logits.is_some();
        for head in &trace.heads {
            for (i, row) in head.weights.outer_iter().enumerate() {
                let sum: f32 = row.sum();
                if head.fully_masked_rows.contains(&i) {
                    assert_eq!(sum, 0.0, "seed {seed}: fully masked row {i}");
                } else if sinks {
                    // A large sink logit can take (in f32) all of it: the head attends to nothing.
                    assert!(
                        (0.0..=1.0 + 1e-6).contains(&sum),
                        "seed {seed}: row {i} sums to {sum}"
                    );
                } else {
                    assert!(
                        (sum - 1.0).abs() < 1e-5,
                        "seed {seed}: row {i} sums to {sum}"
                    );
                }
                for (j, &w) in row.iter().enumerate() {
                    if !trace.mask[[i, j]] {
                        assert_eq!(w, 0.0, "seed {seed}: masked weight [{i}][{j}]");
                    }
                }
            }
            if let Some(cap) = config.shaping().softcap {
                let t = config.temperature();
                assert!(
                    head.scores
                        .iter()
                        .all(|&z| (z * t).abs() <= cap * (1.0 + 1e-6)),
                    "seed {seed}: a score past the cap"
                );
            }
        }
        assert!(
            trace.flash.max_abs_diff <= 1e-5,
            "seed {seed} ({:?}): flash differs from standard by {}",
            config.shaping(),
            trace.flash.max_abs_diff
        );
        assert!(trace.output.iter().all(|v| v.is_finite()), "seed {seed}");
        let outputs = compute_outputs(&config);
        assert_close(
            "untraced",
            outputs.output.view(),
            trace.output.view(),
            1e-5,
            1e-5,
        );
    }
}

/// RoPE and ALiBi depend on positions only through i − j: moving every position by an offset
/// changes no score. RoPE keeps each vector's norm, and position 0 is no rotation.
#[test]
fn rope_and_alibi_scores_do_not_move_with_an_offset() {
    use attention_core::math::scoring::{Pairing, Position, Shaping};
    for position in [
        Position::Rope {
            base: 10_000.0,
            pairing: Pairing::Half,
        },
        Position::Rope {
            base: 100.0,
            pairing: Pairing::Interleaved,
        },
        Position::Alibi,
    ] {
        let at = |offset: usize| {
            compute_trace(
                &Params {
                    d_model: Some(16),
                    n_heads: 2,
                    mask: MaskSpec::Causal,
                    shaping: Shaping {
                        position,
                        offset,
                        ..Shaping::default()
                    },
                    ..Params::sentence("the cat sat on the mat because it was tired")
                }
                .validate()
                .unwrap(),
            )
        };
        let base = at(0);
        for offset in [1, 7, 1000] {
            let moved = at(offset);
            for (a, b) in base.heads.iter().zip(&moved.heads) {
                assert_close("scores", b.scores.view(), a.scores.view(), 2e-4, 1e-4);
            }
        }
        if let Position::Rope { .. } = position {
            for head in &base.heads {
                let (q, turned) = (&head.q, head.q_scored.as_ref().unwrap());
                assert_eq!(q.row(0), turned.row(0), "position 0 turns nothing");
                for (a, b) in q.outer_iter().zip(turned.outer_iter()) {
                    assert!((a.dot(&a).sqrt() - b.dot(&b).sqrt()).abs() < 1e-4);
                }
            }
        }
    }
}

/// Half and interleaved pairings rotate different pairs: with the same weights they give
/// different scores, and the same ones once W_Q's and W_K's columns are permuted to match
/// (dimension p ↔ 2p, p + d_k/2 ↔ 2p + 1 within each head).
#[test]
fn half_and_interleaved_pairings_agree_once_the_columns_are_permuted() {
    use attention_core::math::scoring::{Pairing, Position, Shaping};
    let d_k = 8;
    let x =
        ndarray::Array2::from_shape_fn((6, 8), |(i, j)| ((i * 5 + j * 3) % 7) as f32 / 3.0 - 1.0);
    let w = |seed: usize| {
        ndarray::Array2::from_shape_fn((8, 8), |(i, j)| {
            ((i * 7 + j * 11 + seed) % 13) as f32 / 6.0 - 1.0
        })
    };
    let (w_q, w_k, w_v, w_o) = (w(1), w(2), w(3), w(4));
    // Column c of the half layout holds what column perm[c] of the interleaved one holds.
    let perm: Vec<usize> = (0..d_k)
        .map(|c| {
            if c < d_k / 2 {
                2 * c
            } else {
                2 * (c - d_k / 2) + 1
            }
        })
        .collect();
    let permuted = |m: &ndarray::Array2<f32>| {
        ndarray::Array2::from_shape_fn(m.dim(), |(i, c)| m[[i, perm[c]]])
    };
    let run = |pairing, w_q: ndarray::Array2<f32>, w_k: ndarray::Array2<f32>| {
        let mut params = params_for_x(x.clone());
        params.n_heads = 1;
        params.d_k = Some(d_k);
        params.weights = Some(std::sync::Arc::new(
            attention_core::math::weights::Weights {
                w_q,
                w_k,
                w_v: w_v.clone(),
                w_o: w_o.clone(),
                biases: None,
            },
        ));
        params.shaping = Shaping {
            position: Position::Rope {
                base: 10_000.0,
                pairing,
            },
            ..Shaping::default()
        };
        compute_trace(&params.validate().unwrap())
    };
    let half = run(Pairing::Half, w_q.clone(), w_k.clone());
    let interleaved = run(Pairing::Interleaved, w_q.clone(), w_k.clone());
    let differ = half.heads[0]
        .scores
        .iter()
        .zip(interleaved.heads[0].scores.iter())
        .any(|(a, b)| (a - b).abs() > 1e-3);
    assert!(
        differ,
        "the same weights, different pairings: different scores"
    );
    let matched = run(Pairing::Half, permuted(&w_q), permuted(&w_k));
    assert_close(
        "scores",
        matched.heads[0].scores.view(),
        interleaved.heads[0].scores.view(),
        1e-5,
        1e-5,
    );
}
