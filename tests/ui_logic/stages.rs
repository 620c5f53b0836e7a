//! What each stage shows, and how a tooltip explains a cell, checked against the trace's own numbers.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn every_stage_has_a_matrix_with_matching_labels() {
    let t = trace(Params {
        layer_norm: LayerNormMode::Pre,
        n_heads: 4,
        n_kv_heads: Some(2),
        ..Params::sentence("the cat sat on the mat")
    });
    for stage in Stage::ALL {
        assert!(stage.is_shown(&t), "{stage:?} is shown under Pre-LN");
        for head in 0..4 {
            let m = stage.matrix(&t, head);
            assert_eq!(m.nrows(), stage.row_labels(&t).len(), "{stage:?} rows");
            assert_eq!(m.ncols(), stage.col_labels(&t).len(), "{stage:?} cols");
        }
    }
    // Head 3 reads K/V group 1: its K is that group's.
    assert_eq!(Stage::K.matrix(&t, 3), t.heads[3].k);
    assert_eq!(t.heads[3].kv_group, 1);
}

#[test]
fn optional_stages_follow_the_trace() {
    let plain = trace(Params::sentence("one two three"));
    assert!(!Stage::NormedX.is_shown(&plain));
    assert!(!Stage::Output.is_shown(&plain));
    let post = trace(Params {
        layer_norm: LayerNormMode::Post,
        ..Params::sentence("one two three")
    });
    assert!(Stage::Output.is_shown(&post) && !Stage::NormedX.is_shown(&post));
}

#[test]
fn masked_scores_are_minus_infinity_and_weights_explain_why() {
    let t = trace(Params {
        mask: MaskSpec::Causal,
        ..Params::sentence("a b c d")
    });
    let masked = Stage::Masked.matrix(&t, 0);
    assert_eq!(masked[[0, 3]], f32::NEG_INFINITY);
    assert!(masked[[3, 0]].is_finite());
    let info = explain(&t, Stage::Weights, 0, 0, 3, Lang::En);
    assert_eq!(info.value, "0");
    assert!(info.lines.iter().any(|l| l.contains("causal")), "{info:?}");
    let zh = explain(&t, Stage::Masked, 0, 0, 3, Lang::Zh);
    assert!(zh.lines.iter().any(|l| l.contains("因果")), "{zh:?}");
}

/// The tooltip's arithmetic is the trace's: the weight it shows and the sum it reports agree with
/// the weights and scores the core computed.
#[test]
fn tooltips_spell_out_the_actual_numbers() {
    let t = trace(Params {
        temperature: 0.5,
        ..Params::sentence("the cat sat on the mat")
    });
    let h = &t.heads[1];
    let (i, j) = (2, 4);

    let weight = explain(&t, Stage::Weights, 1, i, j, Lang::En);
    assert_eq!(weight.value, format!("{:.3}", h.weights[[i, j]]));
    assert!(
        weight.position.contains("“sat”") && weight.position.contains("“the”"),
        "{weight:?}"
    );
    let scores = h.scores.row(i);
    let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert!(
        weight.lines[1].contains(&format!("{:.3}", max)),
        "{weight:?}"
    );
    let sum: f32 = scores.iter().map(|s| (s - max).exp()).sum();
    assert!(weight.lines[1].contains(&format!("{sum:.3}")), "{weight:?}");

    let score = explain(&t, Stage::Scaled, 1, i, j, Lang::En);
    assert_eq!(score.value, format!("{:.3}", h.scores[[i, j]]));
    // √d_k · T with d_k = 8 and T = 0.5.
    assert!(score.lines[1].contains("√8 · 0.500 = 1.414"), "{score:?}");

    let output = explain(&t, Stage::HeadOutput, 1, i, 0, Lang::En);
    assert_eq!(output.value, format!("{:.3}", h.output[[i, 0]]));
    assert!(output.lines[0].contains("Σ_j w"), "{output:?}");
    assert!(
        output.lines[0].contains(&format!("{:.3}", h.weights[[i, 0]])),
        "{output:?}"
    );
}

/// An uneven head split is said where it shows (the review: d_model 10 over 3 heads gave heads 3
/// wide without a word): the concatenation's and W_O's captions give the widths, in both
/// languages; an even split says nothing more.
#[test]
fn an_uneven_head_split_is_said_under_the_concatenation() {
    let uneven = trace(Params {
        d_model: Some(10),
        n_heads: 3,
        ..Params::sentence("the cat sat")
    });
    assert_eq!(uneven.concat.ncols(), 9);
    for stage in [Stage::Concat, Stage::Projected] {
        let en = stage.caption(&uneven, Lang::En);
        assert!(
            en.contains("⌊10 / 3⌋ = 3") && en.contains("9 numbers"),
            "{en}"
        );
        assert!(
            stage
                .caption(&uneven, Lang::Zh)
                .contains("不能被 3 个头整除")
        );
    }
    let wide = trace(Params {
        d_model: Some(8),
        n_heads: 2,
        d_k: Some(6),
        ..Params::sentence("the cat sat")
    });
    let en = Stage::Concat.caption(&wide, Lang::En);
    assert!(
        en.contains("12 numbers per token, not 8") && !en.contains('⌊'),
        "{en}"
    );
    let even = trace(Params {
        d_model: Some(12),
        n_heads: 3,
        ..Params::sentence("the cat sat")
    });
    assert_eq!(
        Stage::Concat.caption(&even, Lang::En),
        Stage::Concat.text(Lang::En).caption
    );
}
