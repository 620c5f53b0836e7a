//! The score options' views on the learner's numbers.

use super::*;

use attention_core::math::scoring::{Pairing, Position, Shaping};
use attention_lab::ui::logic::shaping::{
    alibi_view, has_views, near_cap, offset_change, qk_norm_bound, rope_views, sink_view,
    slope_rows, softcap_points, wrap,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn shaped(shaping: Shaping) -> attention_core::Trace {
    trace(Params {
        n_heads: 4,
        n_kv_heads: Some(2),
        mask: MaskSpec::Causal,
        shaping,
        ..Params::sentence("the cat sat on the mat because it was tired")
    })
}

#[test]
fn the_views_show_only_with_an_option() {
    assert!(!has_views(&shaped(Shaping::default())));
    assert!(has_views(&shaped(Shaping {
        softcap: Some(3.0),
        ..Shaping::default()
    })));
    // An absolute offset changes X: the section says so.
    assert!(has_views(&shaped(Shaping {
        offset: 5,
        ..Shaping::default()
    })));
}

#[test]
fn rope_turns_keep_lengths_and_angles_follow_the_positions() {
    let t = shaped(Shaping {
        position: Position::Rope {
            base: 10_000.0,
            pairing: Pairing::Interleaved,
        },
        offset: 7,
        ..Shaping::default()
    });
    let views = rope_views(&t, 3).unwrap();
    let [q, q_turned, k, k_turned] = &views.matrices;
    for (raw, turned) in [(q, q_turned), (k, k_turned)] {
        for (a, b) in raw.values.outer_iter().zip(turned.values.outer_iter()) {
            let (na, nb) = (a.dot(&a).sqrt(), b.dot(&b).sqrt());
            assert!((na - nb).abs() <= 1e-5 * na.max(1.0), "{na} vs {nb}");
        }
    }
    // Row r is position r + 7; pair 1 turns by base^(−2/d_k) per position.
    let d_k = t.config.dims().d_k as f64;
    let theta = 10_000f64.powf(-2.0 / d_k);
    assert_eq!(views.pairs[1], (1, 2, 3, theta));
    let angle = views.angles.values[[2, 1]];
    assert!((f64::from(angle) - wrap(9.0 * theta)).abs() < 1e-6);
    assert!(
        views
            .angles
            .values
            .iter()
            .all(|a| a.abs() <= std::f32::consts::PI)
    );
    // The offset does not move the scores.
    let change = offset_change(&t, 0).unwrap();
    assert!(change < 1e-4, "{change}");
    assert!(rope_views(&shaped(Shaping::default()), 0).is_none());
}

#[test]
fn the_offset_note_would_catch_scores_that_moved() {
    // With absolute positions the offset moves X, and the views give no Δ (they cannot
    // compute it from the trace): the note says that every score changes instead.
    let t = shaped(Shaping {
        offset: 9,
        ..Shaping::default()
    });
    assert_eq!(offset_change(&t, 0), None);
    // ALiBi's bias is the same at any offset: Δ = 0 exactly.
    let t = shaped(Shaping {
        position: Position::Alibi,
        offset: 1000,
        ..Shaping::default()
    });
    assert_eq!(offset_change(&t, 1), Some(0.0));
}

#[test]
fn alibi_shows_each_heads_bias_and_the_papers_slopes() {
    let t = shaped(Shaping {
        position: Position::Alibi,
        ..Shaping::default()
    });
    let (view, slope) = alibi_view(&t, 1).unwrap();
    assert_eq!(slope, 2f32.powi(-4));
    assert_eq!(view.values[[5, 2]], -3.0 * slope);
    assert_eq!(view.values[[2, 5]], -3.0 * slope);
    let rows = slope_rows(&t);
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0], (1, 0.25, -2.0, 4.0));
    assert_eq!(rows[3].1, 2f32.powi(-8));
    assert!(alibi_view(&shaped(Shaping::default()), 0).is_none());
}

#[test]
fn the_softcap_curve_holds_the_rows_scores_below_the_cap() {
    let t = shaped(Shaping {
        softcap: Some(0.5),
        ..Shaping::default()
    });
    let row = 6;
    let (cap, points) = softcap_points(&t, 2, row).unwrap();
    assert_eq!(cap, 0.5);
    // Causal: the visible keys of query 6 are 0..=6.
    assert_eq!(points.len(), 7);
    let scale = 1.0 / t.config.temperature();
    for (j, &(_, after)) in points.iter().enumerate() {
        assert!(after.abs() < cap);
        assert!((after * scale - t.heads[2].scores[[row, j]]).abs() < 1e-6);
    }
    assert!(near_cap(cap, &points) <= points.len());
}

#[test]
fn qk_norm_bounds_every_score_by_the_root_of_d_k() {
    let t = shaped(Shaping {
        qk_norm: true,
        ..Shaping::default()
    });
    for head in 0..4 {
        let (bound, largest) = qk_norm_bound(&t, head).unwrap();
        assert_eq!(bound, (t.config.dims().d_k as f32).sqrt());
        assert!(largest <= bound * (1.0 + 1e-5), "{largest} > {bound}");
        assert!(largest > 0.0);
    }
    assert!(qk_norm_bound(&shaped(Shaping::default()), 0).is_none());
}

#[test]
fn the_sink_column_is_what_each_row_gave_away() {
    let t = shaped(Shaping {
        sink_logits: Some(vec![0.0, 3.0, -2.0, 8.0]),
        ..Shaping::default()
    });
    for head in 0..4 {
        let view = sink_view(&t, head, "sink").unwrap();
        let (n, cols) = view.values.dim();
        assert_eq!(cols, t.config.key_len() + 1);
        assert_eq!(view.col_labels.last().map(String::as_str), Some("sink"));
        for i in 0..n {
            let row_sum: f32 = view.values.row(i).sum();
            assert!(
                (row_sum - 1.0).abs() < 1e-5,
                "head {head} row {i}: {row_sum}"
            );
            assert!(view.values[[i, cols - 1]] > 0.0);
        }
    }
    // A logit of 8 takes most of every row.
    let view = sink_view(&t, 3, "sink").unwrap();
    assert!(view.values[[0, t.config.key_len()]] > 0.99);
    assert!(sink_view(&shaped(Shaping::default()), 0, "sink").is_none());
}

#[test]
fn a_weights_tooltip_counts_the_sink_in_its_sum() {
    let t = shaped(Shaping {
        sink_logits: Some(vec![2.0, 2.0, 2.0, 2.0]),
        ..Shaping::default()
    });
    let info = explain(&t, Stage::Weights, 0, 4, 2, Lang::En);
    assert!(info.lines[0].contains("sink"), "{:?}", info.lines);
    // The shown sum makes the shown weight: w = exp(s − max) / sum.
    let numbers: Vec<f32> = info.lines[1]
        .split(['=', '/', '(', ')', '−', ' '])
        .filter_map(|p| p.trim().parse().ok())
        .collect();
    let (s, max, sum) = (numbers[0], numbers[1], numbers[2]);
    let w = t.heads[0].weights[[4, 2]];
    assert!(
        ((s - max).exp() / sum - w).abs() < 2e-3,
        "{numbers:?} vs {w}"
    );
}
