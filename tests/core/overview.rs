//! Long inputs: overviews summarise the full matrices exactly, untraced outputs equal the trace.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A long input's heads are summarised without holding their n² matrices: every block of the
/// overview must be the max and mean of the full matrices' cells in that block (the masked
/// stage over allowed cells only), any cell recomputed from its query, key and the row's softmax
/// numbers must equal the full trace's, and the outputs must not change. 700 × 530 cells
/// (cross-attention, blocks of 3 × 3 with ragged edges) under each kind of mask.
#[test]
fn overviews_summarise_the_full_matrices_exactly() {
    use attention_core::Input;
    use attention_core::math::scoring::{Pairing, Position, Shaping};
    use attention_core::pipeline::overview::{OverviewOf, Reduction, attend_overview, region};
    use ndarray::{Array2, s};
    let (n, m) = (700, 530);
    let custom = Array2::from_shape_fn((n, m), |(i, j)| (i * 7 + j * 3) % 5 != 0 && j != 4);
    // Every score option once: RoPE with QK-norm, ALiBi with a soft-cap and sink logits.
    let shaped = [
        Shaping::default(),
        Shaping {
            position: Position::Rope {
                base: 10_000.0,
                pairing: Pairing::Half,
            },
            qk_norm: true,
            ..Shaping::default()
        },
        Shaping {
            position: Position::Alibi,
            softcap: Some(2.0),
            sink_logits: Some(vec![0.5, -1.0]),
            ..Shaping::default()
        },
        Shaping::default(),
    ];
    for (mask, shaping) in [
        MaskSpec::None,
        MaskSpec::Padding { valid_len: 400 },
        MaskSpec::Window { radius: 6 },
        MaskSpec::Custom { allowed: custom },
    ]
    .into_iter()
    .zip(shaped)
    {
        let config = Params {
            input: Input::Tokens((0..n).map(|i| format!("t{}", i % 9)).collect()),
            source: Some(Input::Tokens(
                (0..m).map(|i| format!("s{}", i % 7)).collect(),
            )),
            d_model: Some(8),
            n_heads: 2,
            temperature: 0.5,
            mask: mask.clone(),
            shaping,
            ..Params::sentence("")
        }
        .validate()
        .unwrap();
        let trace = compute_trace(&config);
        for (head, h) in trace.heads.iter().enumerate() {
            let scoring = config.scoring(head);
            let (output, overview) = attend_overview(
                h.scored_q(),
                h.scored_k(),
                h.v.view(),
                &scoring,
                config.mask(),
            );
            assert_eq!((overview.row_step, overview.col_step), (3, 3));
            assert_eq!(overview.scores_max.dim(), (234, 177));
            assert_close("output", output.view(), h.output.view(), 1e-6, 1e-5);
            for ((bi, bj), _) in overview.scores_max.indexed_iter() {
                let rows = bi * 3..(bi * 3 + 3).min(n);
                let cols = bj * 3..(bj * 3 + 3).min(m);
                let scores = h.scores.slice(s![rows.clone(), cols.clone()]);
                let weights = h.weights.slice(s![rows.clone(), cols.clone()]);
                let allowed = trace.mask.slice(s![rows, cols]);
                let max = |it: &mut dyn Iterator<Item = f32>| it.fold(f32::NEG_INFINITY, f32::max);
                let mean = |v: Vec<f32>| v.iter().sum::<f32>() / v.len() as f32;
                let kept: Vec<f32> = scores
                    .iter()
                    .zip(allowed.iter())
                    .filter(|(_, a)| **a)
                    .map(|(s, _)| *s)
                    .collect();
                let expect = [
                    (
                        OverviewOf::Scores,
                        Reduction::Max,
                        max(&mut scores.iter().copied()),
                    ),
                    (
                        OverviewOf::Scores,
                        Reduction::Mean,
                        mean(scores.iter().copied().collect()),
                    ),
                    (
                        OverviewOf::Weights,
                        Reduction::Max,
                        max(&mut weights.iter().copied()),
                    ),
                    (
                        OverviewOf::Weights,
                        Reduction::Mean,
                        mean(weights.iter().copied().collect()),
                    ),
                    (
                        OverviewOf::Masked,
                        Reduction::Max,
                        max(&mut kept.iter().copied()),
                    ),
                    (
                        OverviewOf::Masked,
                        Reduction::Mean,
                        if kept.is_empty() {
                            f32::NEG_INFINITY
                        } else {
                            mean(kept.clone())
                        },
                    ),
                ];
                for (of, reduction, want) in expect {
                    let got = overview.blocks(of, reduction)[[bi, bj]];
                    assert!(
                        got == want || (got - want).abs() <= 1e-5 * (1.0 + want.abs()),
                        "{mask:?} {of:?} {reduction:?} block ({bi}, {bj}): {got} vs {want}"
                    );
                }
            }
            let (scores, weights) = region(
                h.scored_q(),
                h.scored_k(),
                &scoring,
                config.mask(),
                &overview,
                300..340,
                0..530,
            );
            assert_close(
                "region scores",
                scores.view(),
                h.scores.slice(s![300..340, ..]),
                1e-5,
                1e-5,
            );
            assert_close(
                "region weights",
                weights.view(),
                h.weights.slice(s![300..340, ..]),
                1e-6,
                1e-4,
            );
        }
    }
}

/// The memory-lean path (each chunk of queries multiplied by the keys it may see only, the heads
/// on every processor natively) gives the traced path's numbers on inputs of several chunks,
/// under masks that hide part of each chunk's keys, including a chunk that sees none.
#[test]
fn untraced_outputs_of_long_inputs_equal_the_trace() {
    for mask in [
        MaskSpec::Causal,
        MaskSpec::Window { radius: 9 },
        MaskSpec::Sliding {
            radius: 17,
            sink_tokens: 3,
        },
        MaskSpec::Padding { valid_len: 100 },
        MaskSpec::Padding { valid_len: 0 },
    ] {
        let mut params = Params::sentence(vec!["the cat sat on the mat"; 40].join(" "));
        params.d_model = Some(32);
        params.n_heads = 4;
        params.mask = mask.clone();
        let config = params.validate().unwrap();
        assert!(config.seq_len() > 128, "several chunks of 64 queries");
        let trace = compute_trace(&config);
        let outputs = compute_outputs(&config);
        assert_close(
            "untraced output",
            outputs.output.view(),
            trace.output.view(),
            1e-6,
            1e-5,
        );
        assert_close(
            "untraced flash",
            outputs.flash_output.view(),
            trace.flash.output.view(),
            1e-6,
            1e-5,
        );
        assert!(outputs.max_abs_diff <= 1e-5, "{mask:?}");
    }
}
