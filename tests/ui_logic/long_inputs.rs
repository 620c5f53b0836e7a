//! Long inputs: computed after a paint, shown as overviews whose zoomed cells are exact.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn large_traces_are_computed_after_a_paint() {
    use attention_lab::ui::logic::backend::{LATER_CELLS, computes_later};
    assert!(
        !computes_later(8, 128, 128),
        "the 128-token goal stays synchronous"
    );
    assert!(computes_later(4, 256, 256));
    assert!(computes_later(1, 4096, 4096));
    assert!(!computes_later(2, 11, 11));
    assert_eq!(LATER_CELLS, 4 * 256 * 256);
    assert!(computes_later(usize::MAX, 2, 2), "no overflow");
}

/// A long input's keyed stages are overviews: each block the largest (or mean) of its cells,
/// labelled by the tokens it spans, with the reduction said in the legend; the zoomed region and
/// every tooltip give the full trace's numbers, recomputed; the download holds the outputs only.
#[test]
fn long_inputs_show_overviews_with_exact_zooms() {
    use attention_core::pipeline::overview::Reduction;
    use attention_core::{Backend, FlashDetail, compute_parts_with, trace_from};
    use attention_lab::ui::logic::TraceRef;
    use attention_lab::ui::logic::colormap::ScaleMode;
    use attention_lab::ui::logic::explain::explain_block;
    use ndarray::s;
    let words = ["the", "cat", "sat", "on", "a", "warm", "mat", "猫"];
    let sentence: Vec<&str> = (0..600).map(|i| words[i % words.len()]).collect();
    let config = Params {
        mask: MaskSpec::Causal,
        d_model: Some(16),
        trace: false,
        ..Params::sentence(sentence.join(" "))
    }
    .validate()
    .unwrap();
    let full = compute_trace(&config);
    let parts = compute_parts_with(&config, true, &mut |_, _| {});
    let long = trace_from(&config, parts, Backend::Cpu, FlashDetail::Steps);
    assert!(long.is_summarised() && !full.is_summarised());
    assert!(
        long.flash.heads.iter().all(|h| h.steps.is_empty()),
        "no tiles kept"
    );
    for stage in [Stage::Dot, Stage::Scaled, Stage::Masked, Stage::Weights] {
        assert!(stage.is_overview(&long) && !stage.is_overview(&full));
    }
    assert!(!Stage::Q.is_overview(&long));

    let max = Stage::Weights.view_reduced(&long, 1, ScaleMode::Honest, Reduction::Max);
    assert_eq!(max.values.dim(), (200, 200));
    assert_eq!(max.row_labels[1], "3–5");
    assert_eq!(max.col_labels[199], "597–599");
    let block = full.heads[1].weights.slice(s![30..33, 12..15]);
    let largest = block.iter().copied().fold(0.0f32, f32::max);
    assert!((max.values[[10, 4]] - largest).abs() < 1e-6);
    assert!(
        max.note(Lang::En).contains("the largest of 3 × 3 cells"),
        "{}",
        max.note(Lang::En)
    );
    let mean = Stage::Weights.view_reduced(&long, 1, ScaleMode::Honest, Reduction::Mean);
    assert!((mean.values[[10, 4]] - block.sum() / 9.0).abs() < 1e-6);
    assert!(mean.note(Lang::Zh).contains("平均值"));
    // Above the diagonal every cell is masked: −∞ in the masked overview, 0 in the weights.
    let masked = Stage::Masked.view_reduced(&long, 0, ScaleMode::Honest, Reduction::Max);
    assert_eq!(masked.values[[0, 5]], f32::NEG_INFINITY);
    // The scores keep the full trace's shared scale.
    for stage in [Stage::Dot, Stage::Weights] {
        assert_eq!(
            stage.view(&long, 0, ScaleMode::Honest).scale,
            stage.view(&full, 0, ScaleMode::Honest).scale,
            "{stage:?}"
        );
    }

    let zoom = Stage::Weights.region(&long, 1, ScaleMode::Honest, 100..132, 80..112);
    assert_eq!(zoom.row_labels[0], full.config.tokens()[100]);
    for ((r, c), &w) in zoom.values.indexed_iter() {
        assert!((w - full.heads[1].weights[[100 + r, 80 + c]]).abs() < 1e-6);
    }
    let zoom = Stage::Masked.region(&long, 1, ScaleMode::Honest, 100..132, 80..112);
    assert_eq!(
        zoom.values[[0, 31]],
        f32::NEG_INFINITY,
        "query 100 cannot see key 111"
    );

    for (stage, col) in [
        (Stage::Scaled, 250),
        (Stage::Masked, 250),
        (Stage::Masked, 301),
        (Stage::Weights, 250),
        (Stage::HeadOutput, 3),
    ] {
        let a = explain(&long, stage, 1, 300, col, Lang::En);
        let b = explain(&full, stage, 1, 300, col, Lang::En);
        assert_eq!((a.value, a.position), (b.value, b.position), "{stage:?}");
    }
    let tip = explain_block(&long, Stage::Weights, 1, 10, 4, Lang::En);
    assert_eq!(tip.position, "queries 30–32 × keys 12–14");
    assert!(tip.lines[0].contains("of 9 cells"), "{tip:?}");

    let json = TraceRef::new(long).to_json().unwrap();
    assert!(
        json.contains("\"output\"") && !json.contains("\"heads\""),
        "outputs only"
    );
}
