//! The attention core: hand-worked cases, properties on random shapes, and determinism.
//! Runs natively (`cargo test`) and in headless Chromium (`cargo test --target wasm32-unknown-unknown`).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use attention_core::math::weights::{Dims, Weights};
use attention_core::pipeline::tokenize::{Tokens, tokenize};
use attention_core::{ConfigError, MaskSpec, Params, compute_outputs, compute_trace};
use support::{
    assert_close, matrix, params_for_x, random_config, random_shaped_config, random_shaped_params,
};

fn tokens(text: &str) -> Vec<String> {
    match tokenize(text, 4096) {
        Tokens::Fit(tokens) => tokens,
        Tokens::TooMany { at_least } => panic!("{at_least} tokens"),
    }
}

#[test]
fn tokenizer_splits_words_numbers_punctuation_cjk_and_emoji() {
    let cases: &[(&str, &[&str])] = &[
        ("The cat sat.", &["The", "cat", "sat", "."]),
        (
            "don't stop state-of-the-art",
            &["don't", "stop", "state-of-the-art"],
        ),
        (
            "pi is 3.14, or 1,000/318",
            &["pi", "is", "3.14", ",", "or", "1,000", "/", "318"],
        ),
        (
            "猫坐在垫子上。",
            &["猫", "坐", "在", "垫", "子", "上", "。"],
        ),
        ("I ❤️ 注意力!", &["I", "❤️", "注", "意", "力", "!"]),
        ("👨‍👩‍👧 family 👍🏽", &["👨‍👩‍👧", "family", "👍🏽"]),
        ("café naïve", &["café", "naïve"]),
        ("a\u{200B}b \u{FEFF}c", &["a", "b", "c"]),
        ("  \t\n ", &[]),
        ("GPT-4 的 attention", &["GPT-4", "的", "attention"]),
        (
            "end. -dash 'quote'",
            &["end", ".", "-", "dash", "'", "quote", "'"],
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(tokens(text), *expected, "tokenize({text:?})");
    }
}

#[test]
fn tokenizer_stops_early_on_enormous_input() {
    let text = "word ".repeat(100_000);
    assert_eq!(tokenize(&text, 4096), Tokens::TooMany { at_least: 4097 });
    let error = Params::sentence(text).validate().unwrap_err();
    assert!(
        matches!(error, ConfigError::TooManyTokens { max: 4096, .. }),
        "{error}"
    );
}

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
            weights: Some(Weights {
                w_q: identity.clone(),
                w_k: identity.clone(),
                w_v: identity.clone(),
                w_o: identity.clone(),
                biases: None,
            }),
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
        weights: Some(Weights {
            w_q: identity.clone(),
            w_k: identity.clone(),
            w_v: identity.clone(),
            w_o: identity,
            biases: None,
        }),
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
        params.weights = Some(attention_core::math::weights::Weights {
            w_q,
            w_k,
            w_v: w_v.clone(),
            w_o: w_o.clone(),
            biases: None,
        });
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

/// The same seed must give the same bits natively and in the browser: this checksum was computed
/// natively, and this test also runs under wasm-bindgen-test.
#[test]
fn seeded_weights_are_bit_identical_everywhere() {
    let dims = Dims {
        d_model: 8,
        n_heads: 2,
        n_kv_heads: 1,
        d_k: 4,
        d_v: 3,
    };
    let weights = Weights::xavier(42, &dims);
    let checksum = [&weights.w_q, &weights.w_k, &weights.w_v, &weights.w_o]
        .iter()
        .flat_map(|m| m.iter())
        .fold(0u64, |hash, v| {
            (hash ^ u64::from(v.to_bits())).wrapping_mul(0x100_0000_01B3)
        });
    assert_eq!(checksum, WEIGHTS_CHECKSUM, "weights for seed 42 changed");
    assert_eq!(
        weights,
        Weights::xavier(42, &dims),
        "same seed, same weights"
    );
    assert_ne!(
        weights,
        Weights::xavier(43, &dims),
        "another seed, other weights"
    );
}

const WEIGHTS_CHECKSUM: u64 = 12_427_391_076_719_514_113;

#[test]
fn same_word_same_vector() {
    let config = Params::sentence("The cat saw the cat").validate().unwrap();
    let (embeddings, _) = config.target().parts.as_ref().unwrap();
    assert_eq!(embeddings.row(0), embeddings.row(3), "'The' and 'the'");
    assert_eq!(embeddings.row(1), embeddings.row(4), "'cat' twice");
    assert_ne!(embeddings.row(0), embeddings.row(1));
    // Positions differ, so X rows of the same word differ.
    assert_ne!(config.x().row(1), config.x().row(4));
}

#[test]
fn impossible_parameters_are_typed_errors() {
    let base = || Params::sentence("a b c");
    let cases: Vec<(Params, &str)> = vec![
        (Params::sentence("   "), "sentence"),
        (
            Params {
                n_heads: 0,
                ..base()
            },
            "n_heads",
        ),
        (
            Params {
                n_heads: 4,
                n_kv_heads: Some(3),
                ..base()
            },
            "n_kv_heads",
        ),
        (
            Params {
                d_k: Some(0),
                ..base()
            },
            "d_k",
        ),
        (
            Params {
                d_model: Some(0),
                ..base()
            },
            "d_model",
        ),
        (
            Params {
                temperature: 0.0,
                ..base()
            },
            "temperature",
        ),
        (
            Params {
                temperature: f64::NAN,
                ..base()
            },
            "temperature",
        ),
        (
            Params {
                temperature: -1.0,
                ..base()
            },
            "temperature",
        ),
        (
            Params {
                block_rows: Some(0),
                ..base()
            },
            "block.rows",
        ),
        (
            Params {
                mask: MaskSpec::Padding { valid_len: 4 },
                ..base()
            },
            "mask",
        ),
        (
            Params {
                source: Some(attention_core::Input::Sentence("one two".into())),
                mask: MaskSpec::Causal,
                ..base()
            },
            "mask",
        ),
        (
            Params {
                mask: MaskSpec::Custom {
                    allowed: ndarray::Array2::from_elem((2, 3), true),
                },
                ..base()
            },
            "mask.allowed",
        ),
        (params_for_x(matrix(&[&[1.0, f32::INFINITY]])), "x"),
    ];
    for (params, field) in cases {
        let error = params.validate().expect_err(field);
        assert_eq!(error.field(), field, "{error}");
        assert!(!error.to_string().is_empty());
    }
}

#[test]
fn fast_exp_matches_libm() {
    use attention_core::math::fastmath::exp;
    let mut worst = 0.0f64;
    let mut x = -87.0f32;
    while x <= 88.0 {
        let reference = f64::from(x).exp();
        let relative = ((f64::from(exp(x)) - reference) / reference).abs();
        worst = worst.max(relative);
        x += 0.001_7;
    }
    assert!(worst < 3e-7, "worst relative error {worst:e}");
    println!("fast exp: worst relative error {worst:e}");
    assert_eq!(exp(0.0), 1.0);
    assert_eq!(exp(f32::NEG_INFINITY), 0.0);
    assert_eq!(exp(-100.0), 0.0);
    assert!(exp(1e6).is_finite());
}

/// The softmax's loop (in wasm, SIMD written out: eight lanes at a time, then four, then one)
/// gives exactly the scalar exp of each element, whatever the length, and their sum.
#[test]
fn exp_shifted_is_the_scalar_exp_element_by_element() {
    use attention_core::math::fastmath::{exp, exp_shifted};
    for len in (0..=21).chain([64, 4093]) {
        let xs: Vec<f32> = (0..len)
            .map(|i| match i % 7 {
                0 => f32::NEG_INFINITY,
                1 => -90.0,
                _ => -((i * 37 % 101) as f32) / 7.0,
            })
            .collect();
        let mut out = vec![f32::NAN; len];
        let sum = exp_shifted(&xs, 0.25, &mut out);
        for (i, (&o, &x)) in out.iter().zip(&xs).enumerate() {
            assert_eq!(
                o.to_bits(),
                exp(x - 0.25).to_bits(),
                "len {len}, element {i}"
            );
        }
        let reference: f64 = out.iter().map(|&v| f64::from(v)).sum();
        assert!(
            (sum - reference).abs() <= 1e-7 * reference.max(1e-30),
            "len {len}: sum {sum} against {reference}"
        );
    }
}

#[test]
fn fast_log2_matches_libm() {
    use attention_core::math::fastmath::log2;
    let mut worst = 0.0f64;
    // Every binade of the normal floats, 3 000 points in each of [2⁻¹²⁶, 2¹²⁸).
    let mut x = f32::MIN_POSITIVE;
    while x.is_finite() {
        for i in 0..3_000 {
            let v = x * (1.0 + i as f32 / 3_000.0);
            // Within 3·10⁻⁷, plus two f32 steps of the result where it is large.
            let reference = f64::from(v).log2();
            let error = (f64::from(log2(v)) - reference).abs();
            worst = worst.max(error / (3e-7 + 2.0 * f64::from(f32::EPSILON) * reference.abs()));
        }
        x *= 2.0;
    }
    assert!(worst < 1.0, "worst error {worst} of the bound");
    println!("fast log2: worst error {worst:.2} of the bound");
    assert_eq!(log2(1.0), 0.0);
    assert_eq!(log2(0.5), -1.0);
    assert_eq!(log2(1024.0), 10.0);
    assert_eq!(log2(0.0), f32::NEG_INFINITY);
    assert!(log2(-1.0).is_nan() && log2(f32::NAN).is_nan());
    assert_eq!(log2(f32::INFINITY), f32::INFINITY);
    assert!((log2(1e-40) - 1e-40f32.log2()).abs() < 1e-5, "subnormals");
}

/// Reusing a previous configuration must give exactly what validating from scratch gives.
#[test]
fn validate_reusing_equals_validate() {
    let base = Params {
        d_model: Some(12),
        seed: 3,
        ..Params::sentence("the cat sat on the mat")
    };
    let previous = base.validate().unwrap();
    let variants = [
        Params {
            temperature: 0.5,
            ..base.clone()
        },
        Params {
            seed: 4,
            ..base.clone()
        },
        Params {
            d_model: Some(8),
            ..base.clone()
        },
        Params {
            n_heads: 3,
            ..base.clone()
        },
        Params::sentence("a different sentence"),
        Params {
            source: Some(attention_core::Input::Sentence("源 句子".into())),
            ..base.clone()
        },
        // Typed at the end, cut short, changed in the middle: the rows the two share are
        // reused (E for the tokens both begin with, P for the positions both have).
        Params {
            d_model: Some(12),
            seed: 3,
            ..Params::sentence("the cat sat on the mat and the dog")
        },
        Params {
            d_model: Some(12),
            seed: 3,
            ..Params::sentence("the cat")
        },
        Params {
            d_model: Some(12),
            seed: 3,
            ..Params::sentence("the dog sat on the mat")
        },
        Params {
            d_model: Some(12),
            seed: 3,
            input: attention_core::Input::Tokens(vec!["the".into(), "cat".into(), "ran".into()]),
            ..base.clone()
        },
        Params {
            shaping: attention_core::math::scoring::Shaping {
                offset: 5,
                ..Default::default()
            },
            d_model: Some(12),
            ..Params::sentence("the cat sat on the mat today")
        },
        Params {
            shaping: attention_core::math::scoring::Shaping {
                position: attention_core::math::scoring::Position::Alibi,
                ..Default::default()
            },
            d_model: Some(12),
            ..Params::sentence("the cat sat on the mat today")
        },
    ];
    for params in variants {
        assert_eq!(
            params.validate_reusing(Some(&previous)),
            params.validate(),
            "{params:?}"
        );
    }
}

/// Without a tile size, FlashAttention cuts the input into a handful of tiles per side, so that
/// even the default sentence shows the tiling; an explicit choice is kept.
#[test]
fn the_tile_size_follows_the_input_unless_chosen() {
    use attention_core::pipeline::config::auto_block;
    let default = Params::sentence("The cat sat on the mat because it was tired.")
        .validate()
        .unwrap();
    assert_eq!(default.seq_len(), 11);
    assert_eq!(
        default.block(),
        (3, 3),
        "11 tokens in tiles of 3: 4 tiles per side"
    );
    let trace = compute_trace(&default);
    assert_eq!(trace.flash.heads[0].steps.len(), 16, "4 × 4 tiles");
    for (len, tiles) in [
        (1usize, 1usize),
        (2, 1),
        (3, 2),
        (6, 3),
        (11, 4),
        (16, 4),
        (40, 4),
        (256, 4),
        (4096, 64),
    ] {
        assert_eq!(len.div_ceil(auto_block(len)), tiles, "{len} tokens");
    }
    let chosen = Params {
        block_rows: Some(5),
        block_cols: Some(2),
        ..Params::sentence("The cat sat on the mat because it was tired.")
    }
    .validate()
    .unwrap();
    assert_eq!(chosen.block(), (5, 2));
    // Cross-attention: the key side follows the source's length.
    let cross = Params {
        source: Some(attention_core::Input::Sentence("a b c d e f g h".into())),
        ..Params::sentence("x y")
    }
    .validate()
    .unwrap();
    assert_eq!(cross.block(), (2, 2));
}

/// The page's workers send each unit of a computation as one flat buffer, and Q, K and V as
/// another: the page must read back exactly what was computed (cross-attention, GQA, every mask
/// and the score options among the shapes), refuse a buffer of another length or a unit the
/// config does not have rather than misread it, and assemble the parts, in any order, into
/// exactly the whole computation.
#[test]
fn units_round_trip_through_their_flat_buffers_and_assemble_into_the_whole() {
    use attention_core::pipeline::units::{Unit, UnitJob, UnitPart, projections_from_flat, units};
    use attention_core::{
        Backend, Computed, FlashDetail, compute_parts_with, compute_trace_with, trace_from,
    };
    for seed in 0..40 {
        let config = if seed % 2 == 0 {
            random_config(seed)
        } else {
            random_shaped_config(seed)
        };
        let heads = config.dims().n_heads;
        for summarise in [false, true] {
            let job = UnitJob::new(&config, summarise);
            let mut parts: Vec<UnitPart> = units(&config, summarise)
                .iter()
                .map(|unit| {
                    let part = job.compute(&config, unit);
                    let flat = part.to_flat();
                    assert_eq!(
                        UnitPart::from_flat(&config, &flat).as_ref(),
                        Some(&part),
                        "seed {seed}: {unit:?}"
                    );
                    let short = &flat[..flat.len() - 1];
                    assert_eq!(UnitPart::from_flat(&config, short), None, "seed {seed}");
                    let mut elsewhere = flat.clone();
                    elsewhere[1] = heads as f32; // a head the config does not have
                    assert_eq!(UnitPart::from_flat(&config, &elsewhere), None);
                    part
                })
                .collect();
            let flat = job.projections_to_flat();
            let projections = projections_from_flat(&config, &flat).expect("its own length");
            assert_eq!(projections_from_flat(&config, &flat[1..]), None);
            parts.reverse(); // the order they arrive in does not matter
            let whole = compute_parts_with(&config, summarise, &mut |_, _| {});
            let assembled =
                Computed::assemble(&config, 0..heads, projections.clone(), parts.clone());
            assert_eq!(assembled.as_ref(), Some(&whole), "seed {seed}");
            // A missing or a doubled part is refused.
            let mut missing = parts.clone();
            missing.pop();
            assert_eq!(
                Computed::assemble(&config, 0..heads, projections.clone(), missing),
                None
            );
            let mut doubled = parts.clone();
            doubled.push(parts[0].clone());
            assert_eq!(
                Computed::assemble(&config, 0..heads, projections.clone(), doubled),
                None
            );
            if summarise {
                assert!(whole.scores.is_empty() && whole.overviews.len() == heads);
                let summarised = trace_from(&config, whole, Backend::Cpu, FlashDetail::Steps);
                assert!(summarised.is_summarised());
                // Its n² mask matrix is built only when read, and then equals the mask's cells.
                assert!(!summarised.mask.is_built(), "seed {seed}");
                let (n, m) = summarised.mask.dim();
                assert!(summarised.mask.is_built());
                assert_eq!((n, m), (config.seq_len(), config.key_len()));
                for (i, j) in [
                    (0, 0),
                    (n - 1, m - 1),
                    (n / 2, m / 3),
                    (n - 1, 0),
                    (0, m - 1),
                ] {
                    assert_eq!(summarised.mask[[i, j]], summarised.mask.allows(i, j));
                    assert_eq!(summarised.mask[[i, j]], config.mask().allows(i, j));
                }
                let trace = compute_trace_with(&config, FlashDetail::OutputOnly);
                assert_close(
                    "summarised output",
                    summarised.output.view(),
                    trace.output.view(),
                    1e-6,
                    1e-5,
                );
            } else {
                let trace = trace_from(&config, whole, Backend::Cpu, FlashDetail::OutputOnly);
                assert_eq!(
                    trace,
                    compute_trace_with(&config, FlashDetail::OutputOnly),
                    "seed {seed}"
                );
                assert!(trace.flash.heads.iter().all(|h| h.steps.is_empty()));
            }
            // Every unit of a summarised head is a band: whole block rows and query blocks.
            let n = config.seq_len();
            for Unit { rows, .. } in units(&config, summarise) {
                assert!(rows.end <= n && !rows.is_empty());
                if summarise {
                    let step = attention_core::pipeline::overview::Overview::step(n);
                    assert_eq!(rows.start % step, 0, "seed {seed}");
                    assert_eq!(rows.start % config.block().0, 0, "seed {seed}");
                } else {
                    assert_eq!(rows, 0..n);
                }
            }
        }
    }
}

/// A long head's bands, each computed alone (its queries only), stacked, are exactly the whole
/// head: the overview's blocks (whose means count the cells of the whole head's edge blocks),
/// every row's softmax numbers, the standard output and FlashAttention's, under every mask and
/// the score options (ALiBi's bias and the masks read each query's own index).
#[test]
fn bands_of_a_long_head_equal_the_whole_head() {
    use attention_core::pipeline::overview::Overview;
    use attention_core::pipeline::units::{Unit, UnitJob, UnitMatrices, units};
    let mut checked = 0;
    for seed in 0..12 {
        let mut params = random_shaped_params(seed);
        // Long enough for several bands of several block rows, under every kind of mask.
        let n = [200, 300, 449][seed as usize % 3]; // 1, 2 and 2 queries per block row
        params.input =
            attention_core::Input::Tokens((0..n).map(|i| format!("t{}", i % 7)).collect());
        params.source = None;
        params.block_rows = [None, Some(7), Some(64)][(seed / 3) as usize % 3];
        params.mask = match seed % 6 {
            0 => MaskSpec::None,
            1 => MaskSpec::Causal,
            2 => MaskSpec::Padding { valid_len: 200 },
            3 => MaskSpec::Window { radius: 9 },
            4 => MaskSpec::Sliding {
                radius: 17,
                sink_tokens: 3,
            },
            _ => MaskSpec::Custom {
                allowed: ndarray::Array2::from_shape_fn((n, n), |(i, j)| (i * 7 + j) % 5 != 0),
            },
        };
        let Ok(config) = params.validate() else {
            continue; // an odd d_k with RoPE, say
        };
        checked += 1;
        let bands = units(&config, true);
        let job = UnitJob::new(&config, true);
        let n = config.seq_len();
        // Two heads are enough (each head is computed alike), and keep the browser's debug build quick.
        for head in 0..config.dims().n_heads.min(2) {
            let whole = job.compute(&config, &Unit { head, rows: 0..n });
            let parts: Vec<_> = bands
                .iter()
                .filter(|u| u.head == head)
                .map(|u| job.compute(&config, u))
                .collect();
            assert!(parts.len() > 1, "seed {seed}: {} bands", parts.len());
            let overviews: Vec<Overview> = parts
                .iter()
                .map(|p| match &p.matrices {
                    UnitMatrices::Summarised(o) => (**o).clone(),
                    UnitMatrices::Full { .. } => panic!("a summarised unit"),
                })
                .collect();
            let UnitMatrices::Summarised(expected) = &whole.matrices else {
                panic!("a summarised unit");
            };
            assert_eq!(
                Overview::stack(&overviews).as_ref(),
                Some(&**expected),
                "seed {seed}"
            );
            let stack =
                |pick: fn(&attention_core::pipeline::units::UnitPart) -> &ndarray::Array2<f32>| {
                    let views: Vec<_> = parts.iter().map(|p| pick(p).view()).collect();
                    ndarray::concatenate(ndarray::Axis(0), &views).unwrap()
                };
            assert_eq!(stack(|p| &p.output), whole.output, "seed {seed}");
            assert_eq!(
                stack(|p| &p.flash_output),
                whole.flash_output,
                "seed {seed}"
            );
        }
    }
    assert!(checked >= 9, "only {checked} configs were valid");
}

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

#[test]
fn replayed_query_blocks_equal_the_whole_run() {
    use attention_core::replay_flash;
    let custom = ndarray::Array2::from_shape_fn((37, 37), |(i, j)| (i + 2 * j) % 3 != 0);
    for mask in [
        MaskSpec::None,
        MaskSpec::Causal,
        MaskSpec::Window { radius: 4 },
        MaskSpec::Sliding {
            radius: 5,
            sink_tokens: 2,
        },
        MaskSpec::Custom { allowed: custom },
    ] {
        let sentence = (0..37).map(|i| format!("w{}", i % 11)).collect::<Vec<_>>();
        let config = Params {
            n_heads: 2,
            d_model: Some(8),
            mask: mask.clone(),
            block_rows: Some(8),
            block_cols: Some(5),
            ..Params::sentence(sentence.join(" "))
        }
        .validate()
        .unwrap();
        let whole = compute_trace(&config);
        // 37 rows in blocks of 8: blocks 0..=4, the last one 5 rows high.
        for blocks in [0..1, 2..4, 4..5, 3..9] {
            let replayed = replay_flash(&config, blocks.clone()).unwrap();
            for (head, replay) in whole.flash.heads.iter().zip(&replayed) {
                let expected: Vec<_> = head
                    .steps
                    .iter()
                    .filter(|s| blocks.contains(&s.row_block))
                    .collect();
                assert_eq!(replay.steps.len(), expected.len(), "{mask:?} {blocks:?}");
                for (got, want) in replay.steps.iter().zip(expected) {
                    assert_eq!(got, want, "{mask:?} {blocks:?}: the same step, bit for bit");
                }
                let rows = blocks.start * 8..(blocks.end * 8).min(37);
                let slice = ndarray::s![rows, ..];
                assert_eq!(replay.output.slice(slice), head.output.slice(slice));
            }
        }
    }
    let config = Params::sentence("a b c").validate().unwrap();
    assert_eq!(
        replay_flash(&config, 5..6).unwrap_err().to_string(),
        "replay_block must be at most 1 (got 5)"
    );
}

/// The products' kernels (`attention_core::math::gemm`: register-tiled SIMD in wasm, ndarray's GEMM
/// natively) against a plain loop in f64, on shapes that leave remainders of every kernel block,
/// and FlashAttention on tiles read from the head's packed panels against the standard pass.
#[test]
fn the_products_kernels_equal_a_plain_loop_on_ragged_shapes() {
    use attention_core::math::attention::attend;
    use attention_core::math::flash::flash_attention;
    use attention_core::math::gemm::{matmul_nn, matmul_nt};
    use attention_core::pipeline::kernel_case::KernelCase;
    use ndarray::Array2;
    for (n, d, m) in [
        (1, 1, 1),
        (7, 5, 13),
        (33, 24, 70),
        (130, 64, 9),
        (65, 300, 31),
    ] {
        let a = KernelCase::new(n, d.min(256), 1).unwrap().q;
        let b = KernelCase::new(m, d.min(256), 2).unwrap().k;
        let d = d.min(256);
        let plain = Array2::from_shape_fn((n, m), |(i, j)| {
            (0..d)
                .map(|t| f64::from(a[[i, t]]) * f64::from(b[[j, t]]))
                .sum::<f64>() as f32
        });
        let mut scores = Array2::zeros((n, m));
        matmul_nt(1.0, a.view(), b.view(), 0.0, &mut scores.view_mut());
        assert_close("a·bᵀ", scores.view(), plain.view(), 1e-5, 1e-5);
        let mut product = Array2::zeros((n, d));
        matmul_nn(1.0, scores.view(), b.view(), 0.0, &mut product.view_mut());
        let plain = Array2::from_shape_fn((n, d), |(i, t)| {
            (0..m)
                .map(|j| f64::from(scores[[i, j]]) * f64::from(b[[j, t]]))
                .sum::<f64>() as f32
        });
        assert_close("a·b", product.view(), plain.view(), 1e-4, 1e-5);
    }
    let case = KernelCase::new(203, 24, 3).unwrap();
    let standard = attend(
        case.q.view(),
        case.k.view(),
        case.v.view(),
        &case.scoring,
        &case.mask,
    );
    for block in [(16, 16), (64, 64), (5, 8), (7, 3)] {
        let flash = flash_attention(
            case.q.view(),
            case.k.view(),
            case.v.view(),
            &case.scoring,
            &case.mask,
            block,
            false,
        );
        assert_close(
            "flash",
            flash.output.view(),
            standard.output.view(),
            1e-5,
            1e-5,
        );
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
