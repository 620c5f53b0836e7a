//! FlashAttention's steps as the player's frames.

use attention_core::{MaskSpec, Params, compute_trace};
use attention_lab::ui::logic::flash_frames::{
    Phase, Sizes, counters, frames, keep_position, scores_held, standard_accesses,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn sizes(n: usize, d: usize, block: usize) -> Sizes {
    Sizes {
        seq_len: n,
        key_len: n,
        d_k: d,
        d_v: d,
        block_rows: block,
        block_cols: block,
    }
}

#[test]
fn frames_follow_the_algorithm() {
    let t = compute_trace(
        &Params {
            n_heads: 1,
            d_model: Some(4),
            mask: MaskSpec::Causal,
            block_rows: Some(2),
            block_cols: Some(2),
            ..Params::sentence("a b c d e")
        }
        .validate()
        .unwrap(),
    );
    let head = &t.flash.heads[0];
    let f = frames(head);
    // 3 query blocks; each: start, its tiles, normalise.
    assert_eq!(f.iter().filter(|f| f.phase == Phase::Start).count(), 3);
    assert_eq!(f.iter().filter(|f| f.phase == Phase::Normalize).count(), 3);
    // Causal, 2×2 tiles over 5 tokens: tiles strictly above the diagonal are skipped:
    // (0,1) (0,2) (1,2) = 3 of 9.
    assert_eq!(f.iter().filter(|f| f.phase == Phase::Skip).count(), 3);
    // Every computed tile has its five phases in order.
    let computed = head.steps.iter().filter(|s| !s.skipped).count();
    assert_eq!(
        f.iter().filter(|f| f.phase == Phase::Accumulate).count(),
        computed
    );
    assert_eq!(f.len(), 3 + 3 + 3 + 5 * computed);
    assert_eq!(f[0].phase.line(), 3);
    assert_eq!(f[1].phase, Phase::Scores);
    let c = counters(head, &f, f.len() - 1, &sizes(5, 2, 2));
    assert_eq!((c.tiles_done, c.tiles_skipped, c.tiles_total), (9, 3, 9));
}

#[test]
fn counters_grow_with_the_frames_and_flash_moves_less_than_standard() {
    let n = 64;
    let sentence = vec!["w"; n].join(" ");
    let t = compute_trace(
        &Params {
            n_heads: 1,
            d_model: Some(16),
            block_rows: Some(16),
            block_cols: Some(16),
            ..Params::sentence(sentence)
        }
        .validate()
        .unwrap(),
    );
    let head = &t.flash.heads[0];
    let f = frames(head);
    let s = sizes(n, 16, 16);
    let mut last = counters(head, &f, 0, &s);
    for i in 1..f.len() {
        let now = counters(head, &f, i, &s);
        assert!(now.reads >= last.reads && now.writes >= last.writes);
        last = now;
    }
    // 4 query blocks × 4 tiles: Q once (64·16), K and V four times (4·64·32), O, l, m once.
    assert_eq!(last.reads, 64 * 16 + 4 * 64 * 32);
    assert_eq!(last.writes, 64 * 18);
    let (reads, writes) = standard_accesses(&s);
    assert!(
        last.reads + last.writes < reads + writes,
        "flash moves fewer floats at n = 64"
    );
    assert_eq!(scores_held(&s), (256, 4096));
}

/// A long input's player replays one query block: its steps and frames are those of the
/// whole run's block, its counters the whole run's at the same point, and the grid shows the
/// blocks before it done and the blocks after it not yet.
#[test]
fn a_long_input_replays_one_query_block_exactly() {
    use attention_core::{Backend, FlashDetail, compute_parts_with, trace_from};
    use attention_lab::ui::logic::TraceRef;
    use attention_lab::ui::logic::colormap::ScaleMode;
    use attention_lab::ui::logic::flash_frame_views::grid;
    use attention_lab::ui::logic::flash_views::Replay;
    let sentence = (0..600).map(|i| format!("w{}", i % 13)).collect::<Vec<_>>();
    let config = Params {
        mask: MaskSpec::Causal,
        d_model: Some(8),
        n_heads: 2,
        trace: false,
        ..Params::sentence(sentence.join(" "))
    }
    .validate()
    .unwrap();
    let (block_rows, _) = config.block();
    let full = compute_trace(&config);
    let parts = compute_parts_with(&config, true, &mut |_, _| {});
    let long = TraceRef::new(trace_from(&config, parts, Backend::Cpu, FlashDetail::Steps));
    let whole = Replay::new(TraceRef::new(full.clone()), 1, ScaleMode::Honest, 0);
    assert!(!whole.partial() && whole.blocks == (0..600usize.div_ceil(block_rows)));
    for block in [0, 4, 9, 1000] {
        let replay = Replay::new(long.clone(), 1, ScaleMode::Honest, block);
        let block = block.min(whole.blocks.end - 1);
        assert!(replay.partial());
        assert_eq!(
            replay.blocks,
            block..block + 1,
            "clamped to the blocks there are"
        );
        let expected: Vec<_> = full.flash.heads[1]
            .steps
            .iter()
            .filter(|s| s.row_block == block)
            .collect();
        assert_eq!(replay.flash().steps.iter().collect::<Vec<_>>(), expected);
        // Frame by frame, the counters equal the whole replay's at the same frame.
        let offset = whole
            .frames
            .iter()
            .position(|f| f.row_block == block)
            .unwrap();
        assert_eq!(
            &whole.frames[offset..offset + replay.frames.len()]
                .iter()
                .map(|f| f.key())
                .collect::<Vec<_>>(),
            &replay.frames.iter().map(|f| f.key()).collect::<Vec<_>>()
        );
        for i in 0..replay.frames.len() {
            assert_eq!(replay.counters(i), whole.counters(offset + i), "frame {i}");
        }
        // The tile grid: blocks before are done (2, 3), after not yet (0, 1), the skipped
        // tiles above the diagonal masked.
        let frame = replay.frames[1];
        let (view, span) = grid(&replay, &frame);
        let (tiles, _) = view.values.dim();
        assert_eq!(span.unwrap().rows, block..block + 1);
        if block > 0 {
            assert!(view.values[[0, 0]] >= 2.0, "an earlier block is done");
        }
        if block + 1 < tiles {
            assert!(
                view.values[[tiles - 1, 0]] < 2.0,
                "a later block is not yet"
            );
        }
        assert_eq!(view.values[[0, tiles - 1]], f32::NEG_INFINITY, "skipped");
        // Going to a tile of another block: its first frame is where that replay starts.
        assert_eq!(replay.tile_key(3, 1).0, 3);
        assert_eq!(
            replay
                .frame_of_tile(block, 0)
                .map(|i| replay.frames[i].col_block),
            Some(Some(0))
        );
    }
}

#[test]
fn the_position_is_kept_when_the_trace_changes() {
    let trace = |text: &str| {
        compute_trace(
            &Params {
                n_heads: 1,
                block_rows: Some(2),
                block_cols: Some(2),
                ..Params::sentence(text)
            }
            .validate()
            .unwrap(),
        )
    };
    let small = trace("a b c d");
    let big = trace("a b c d e f");
    let (fs, fb) = (frames(&small.flash.heads[0]), frames(&big.flash.heads[0]));
    let at = 7;
    let kept = keep_position(&fb, Some(fs[at].key()), at);
    assert_eq!(fb[kept].key(), fs[at].key(), "the same block and phase");
    assert_eq!(
        keep_position(&fs, Some(fb[fb.len() - 1].key()), fb.len() - 1),
        fs.len() - 1,
        "clamped"
    );
}
