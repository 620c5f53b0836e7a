//! FlashAttention's query blocks replayed alone equal the whole run.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

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
