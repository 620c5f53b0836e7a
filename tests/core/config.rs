//! The checks into a config: impossible parameters are typed errors, a config reused equals one made anew, the tile size.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

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
