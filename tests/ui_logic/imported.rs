//! A user's own attention: its heads shown with their tokens and scales, replayed tile by tile, glanced at, and every refusal in both languages.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn an_imported_head_is_shown_with_its_tokens_and_the_right_scales() {
    use attention_core::io::import::read_value;
    use attention_core::io::imported::{ImportSettings, run_imported};
    use attention_lab::ui::logic::colormap::{Scale, ScaleMode};
    use attention_lab::ui::logic::imported::{Part, cell, view};
    use attention_lab::ui::state::imported::parse_tokens;

    let file = read_value(
        &serde_json::json!({
            "q": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
            "k": [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]],
            "v": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
            "tokens": ["a", " ", "c"]
        }),
        None,
    )
    .unwrap();
    let run = run_imported(&file, &ImportSettings::default()).unwrap();
    let weights = view(&run, 0, 0, Part::Weights, ScaleMode::Honest).unwrap();
    assert_eq!(weights.scale, Scale::UNIT);
    assert_eq!(weights.row_labels, ["a", "␣", "c"]);
    assert_eq!(weights.col_labels, ["a", "␣", "c"]);
    let q = view(&run, 0, 0, Part::Q, ScaleMode::Honest).unwrap();
    assert_eq!(q.col_labels, ["0", "1"]);
    let v = view(&run, 0, 0, Part::V, ScaleMode::Honest).unwrap();
    assert_eq!(v.values.dim(), (3, 3));
    assert!(matches!(v.scale, Scale::Diverging { limit } if limit == 9.0));
    let contrast = view(&run, 0, 0, Part::Weights, ScaleMode::Contrast).unwrap();
    assert_ne!(contrast.scale, Scale::UNIT);
    let (query, key, w) = cell(&run, 0, 0, Part::Weights, 2, 1).unwrap();
    assert_eq!((query.as_str(), key.as_str()), ("c", "␣"));
    assert_eq!(w, run.layers[0][0].weights[[2, 1]]);
    assert!(cell(&run, 0, 0, Part::Weights, 3, 0).is_none());

    // Weights alone have no Q, scores or output to show.
    let weights_only = read_value(
        &serde_json::json!({"attention": [[1.0, 0.0], [0.5, 0.5]], "tokens": ["x", "y"]}),
        None,
    )
    .unwrap();
    let run = run_imported(&weights_only, &ImportSettings::default()).unwrap();
    for part in [Part::Q, Part::K, Part::V, Part::Scores, Part::Output] {
        assert!(
            view(&run, 0, 0, part, ScaleMode::Honest).is_none(),
            "{part:?}"
        );
    }

    assert_eq!(parse_tokens("  "), None);
    assert_eq!(parse_tokens("the cat  sat").unwrap(), ["the", "cat", "sat"]);
    assert_eq!(parse_tokens(r#"["a b", "猫"]"#).unwrap(), ["a b", "猫"]);
    assert_eq!(parse_tokens("[not json").unwrap(), ["[not", "json"]);
}

/// FlashAttention's tile player replays a file's Q, K and V: its tiles under the lab's mask, the
/// file's tokens on every view, and the same output as the standard computation; a long file
/// replays one query block, as the lab's own long inputs do.
#[test]
fn an_imported_head_replays_flash_attentions_tiles() {
    use attention_core::MaskSpec;
    use attention_core::io::import::read_value;
    use attention_core::io::imported::{ImportSettings, run_imported};
    use attention_lab::ui::logic::colormap::{Scale, ScaleMode};
    use attention_lab::ui::logic::flash_frame_views::{accumulator, block_rows, grid, tile};
    use attention_lab::ui::logic::flash_frames::Phase;
    use attention_lab::ui::logic::flash_views::Replay;
    use attention_lab::ui::logic::stages::Stage;
    use std::sync::Arc;

    let q: Vec<Vec<f32>> = (0..5)
        .map(|i| vec![i as f32 * 0.3, 1.0 - i as f32 * 0.2])
        .collect();
    let k: Vec<Vec<f32>> = (0..5).map(|i| vec![(i as f32).sin(), 0.5]).collect();
    let v: Vec<Vec<f32>> = (0..5).map(|i| vec![i as f32, -(i as f32), 1.0]).collect();
    let tokens = ["a", "b", "c", "d", "e"];
    let file = read_value(
        &serde_json::json!({"q": [[q.clone()]], "k": [[k.clone()]], "v": [[v.clone()]], "tokens": tokens}),
        None,
    )
    .unwrap();
    let settings = ImportSettings {
        mask: MaskSpec::Causal,
        temperature: 1.0,
        block: (Some(2), Some(2)),
        rope: None,
    };
    let run = Arc::new(run_imported(&file, &settings).unwrap());
    let replay = Replay::imported(Arc::clone(&run), 0, 0, ScaleMode::Honest, 0).unwrap();
    assert!(!replay.partial() && replay.blocks == (0..3));
    assert_eq!(replay.tokens(), tokens);
    // Every query block ends with its rows divided by l: the head's own output.
    let output = run.layers[0][0].output.as_ref().unwrap();
    let (last, frame) = replay
        .frames
        .iter()
        .enumerate()
        .rfind(|(_, f)| f.phase == Phase::Normalize)
        .unwrap();
    assert_eq!(last, replay.frames.len() - 1);
    let (acc, final_rows) = accumulator(&replay, frame);
    assert!(final_rows);
    let rows = &replay.flash().steps[frame.step].rows;
    for (r, i) in rows.clone().enumerate() {
        for c in 0..3 {
            assert!((acc.values[[r, c]] - output[[i, c]]).abs() < 1e-5);
        }
    }
    // The grid hides the keys after each query (causal), and labels rows by the file's tokens.
    let (view, _) = grid(&replay, &replay.frames[0]);
    assert_eq!(view.row_labels, tokens);
    assert!(view.values[[0, 1]] == f32::NEG_INFINITY && view.values[[1, 0]].is_finite());
    // A tile's scores are masked past the diagonal, on the head's scores' scale.
    let scores = replay
        .frames
        .iter()
        .find(|f| f.phase == Phase::Scores)
        .unwrap();
    let (tile_view, probs) = tile(&replay, scores).unwrap();
    assert!(!probs && tile_view.values[[0, 1]] == f32::NEG_INFINITY);
    let head_scores = run.layers[0][0].scores.as_ref().unwrap();
    let limit = head_scores.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    assert!(matches!(tile_view.scale, Scale::Diverging { limit: l } if l == limit));
    assert_eq!(
        tile_view.legend,
        attention_lab::ui::logic::matrix::Legend::WholeHead
    );
    assert_eq!(block_rows(&replay, scores)[1].token, "b");
    // Q, K and V are the file's.
    let q_view = replay.input_view(Stage::Q).unwrap();
    assert_eq!(q_view.values[[4, 0]], q[4][0]);
    assert!(replay.input_view(Stage::Weights).is_none());
    // Weights read as they are have no Q, K or V to replay.
    let weights = read_value(
        &serde_json::json!({"attention": [[1.0, 0.0], [0.5, 0.5]], "tokens": ["x", "y"]}),
        None,
    )
    .unwrap();
    let read = Arc::new(run_imported(&weights, &ImportSettings::default()).unwrap());
    assert!(Replay::imported(read, 0, 0, ScaleMode::Honest, 0).is_none());

    // Past 512 × 512 cells, one query block (the chosen one, clamped) is replayed.
    let n: usize = 600;
    let long = read_value(
        &serde_json::json!({
            "q": (0..n).map(|i| vec![(i as f32 * 0.1).cos(), 0.2]).collect::<Vec<_>>(),
            "k": (0..n).map(|i| vec![(i as f32 * 0.1).sin(), 0.1]).collect::<Vec<_>>(),
            "v": (0..n).map(|i| vec![i as f32 / n as f32]).collect::<Vec<_>>(),
        }),
        None,
    )
    .unwrap();
    let run = Arc::new(
        run_imported(
            &long,
            &ImportSettings {
                mask: MaskSpec::Causal,
                ..ImportSettings::default()
            },
        )
        .unwrap(),
    );
    let rows_per_block = run.computed_under.as_ref().unwrap().block.0;
    let replay = Replay::imported(Arc::clone(&run), 0, 0, ScaleMode::Honest, 1_000).unwrap();
    assert!(replay.partial());
    let last = n.div_ceil(rows_per_block) - 1;
    assert_eq!(replay.blocks, last..last + 1);
    assert!(replay.flash().steps.iter().all(|s| s.row_block == last));
}

/// Every layer × head at a glance: a small head cell by cell; past 256 cells a side, each block
/// as its largest weight, so a sharp pattern stays sharp.
#[test]
fn a_long_imported_head_is_glanced_at_by_its_block_maxima() {
    use attention_core::io::import::read_value;
    use attention_core::io::imported::{ImportSettings, run_imported};
    use attention_lab::ui::logic::colormap::ScaleMode;
    use attention_lab::ui::logic::imported::{GLANCE_SIDE, glance};
    use attention_lab::ui::logic::matrix::Legend;
    // A head that looks one token back, over 600 tokens.
    let n = 600;
    let rows: Vec<Vec<f32>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    if j + 1 == i || (i == 0 && j == 0) {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let file = read_value(&serde_json::json!({"attention": rows}), None).unwrap();
    let run = run_imported(&file, &ImportSettings::default()).unwrap();
    let v = glance(&run, 0, 0, ScaleMode::Honest).unwrap();
    // 600 in blocks of 3: 200 × 200, every block on or just below the diagonal at its maximum 1.
    assert_eq!(v.values.dim(), (200, 200));
    assert!(v.values.dim().0 <= GLANCE_SIDE);
    assert!((1..200).all(|b| v.values[[b, b]] == 1.0 || v.values[[b, b - 1]] == 1.0));
    assert_eq!(v.values[[150, 10]], 0.0);
    assert!(v.row_labels.is_empty() && v.legend == Legend::Hidden);
    // A short head is shown cell by cell.
    let short = read_value(
        &serde_json::json!({"attention": [[1.0, 0.0], [0.5, 0.5]]}),
        None,
    )
    .unwrap();
    let run = run_imported(&short, &ImportSettings::default()).unwrap();
    assert_eq!(
        glance(&run, 0, 0, ScaleMode::Honest).unwrap().values,
        ndarray::array![[1.0, 0.0], [0.5, 0.5]]
    );
}

#[test]
fn every_import_refusal_reads_in_both_languages() {
    use attention_core::io::import::{Format, read};
    use attention_lab::ui::state::imported::{Refusal, open_bytes};
    let refusals = [
        open_bytes(
            "x.json",
            None,
            br#"{"attention": [[1, 0]], "tokens": ["a", "b", "c"]}"#,
            None,
            None,
        )
        .unwrap_err(),
        open_bytes("x.bin", None, b"\x01\x02", None, None).unwrap_err(),
        Refusal::Import(read(Format::Npz, b"PK\x03\x04", None, None, None).unwrap_err()),
        Refusal::Unreadable("NotReadableError".into()),
    ];
    for refusal in &refusals {
        let en = refusal.message(Lang::En);
        let zh = refusal.message(Lang::Zh);
        assert!(!en.is_empty() && !zh.is_empty() && en != zh, "{en} / {zh}");
        assert!(
            zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            "{zh}"
        );
    }
}

/// The chosen head of a long file (600 tokens, past 512 × 512): an overview of blocks, each its
/// largest or mean weight, on the whole head's scale, and any region at full resolution with
/// its tokens.
#[test]
fn a_long_imported_head_is_shown_as_an_overview_and_a_zoomed_region() {
    use attention_core::io::import::{Imported, Tensors};
    use attention_core::io::imported::{ImportSettings, run_imported};
    use attention_core::pipeline::overview::Reduction;
    use attention_lab::ui::logic::colormap::{Scale, ScaleMode};
    use attention_lab::ui::logic::imported::{Part, overview, region, summarised};
    let n = 600;
    let weights = ndarray::Array4::from_shape_fn((1, 1, n, n), |(_, _, i, j)| {
        if j <= i { 1.0 / (i + 1) as f32 } else { 0.0 }
    });
    let file = Imported {
        tensors: Tensors::Attention(weights.clone()),
        tokens: (0..n).map(|i| format!("t{i}")).collect(),
        key_tokens: None,
        notices: Vec::new(),
    };
    let run = run_imported(&file, &ImportSettings::default()).unwrap();
    assert!(summarised(&run));
    let max = overview(&run, 0, 0, Part::Weights, ScaleMode::Honest, Reduction::Max).unwrap();
    // 600 cells a side in blocks of 3: 200 blocks.
    assert_eq!(max.values.dim(), (200, 200));
    assert_eq!(max.row_labels[1], "3–5");
    assert_eq!(max.scale, Scale::UNIT);
    assert_eq!(max.values[[0, 0]], 1.0);
    let mean = overview(
        &run,
        0,
        0,
        Part::Weights,
        ScaleMode::Honest,
        Reduction::Mean,
    )
    .unwrap();
    let block: f32 = (3..6)
        .flat_map(|i| (0..3).map(move |j| (i, j)))
        .map(|(i, j)| weights[[0, 0, i, j]])
        .sum();
    assert!((mean.values[[1, 0]] - block / 9.0).abs() < 1e-6);
    let zoomed = region(
        &run,
        0,
        0,
        Part::Weights,
        ScaleMode::Honest,
        100..132,
        90..122,
    )
    .unwrap();
    assert_eq!(zoomed.values.dim(), (32, 32));
    assert_eq!(
        (
            zoomed.row_labels[0].as_str(),
            zoomed.col_labels[31].as_str()
        ),
        ("t100", "t121")
    );
    assert_eq!(zoomed.values[[0, 0]], weights[[0, 0, 100, 90]]);
    // A short file is drawn cell by cell.
    let short = Imported {
        tensors: Tensors::Attention(ndarray::Array4::from_elem((1, 1, 4, 4), 0.25)),
        tokens: (0..4).map(|i| i.to_string()).collect(),
        key_tokens: None,
        notices: Vec::new(),
    };
    assert!(!summarised(
        &run_imported(&short, &ImportSettings::default()).unwrap()
    ));
}
