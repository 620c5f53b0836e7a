//! The FlashAttention player's replay: one head's tile steps (the lab's, or a file's head), the
//! query blocks replayed, its frames, and where each tile stands at a frame. What it shows at
//! each frame is [`super::flash_frame_views`].

use std::ops::Range;
use std::sync::Arc;

use ndarray::Array2;

use super::TraceRef;
use super::colormap::{Scale, ScaleMode};
use super::flash_frames::{Counters, Frame, Phase, Sizes, counters, earlier_blocks, frames};
use super::format::format_value;
use super::imported::Part;
use super::matrix::{Legend, MatrixView};
use super::stages::Stage;
use attention_core::io::imported::ImportedRun;
use attention_core::math::mask::Mask;
use attention_core::pipeline::overview::FULL_HEAD_CELLS;

/// Above this many tokens, the score grid shows one cell per tile.
pub const SUMMARISE_ABOVE: usize = 128;

/// The numbers a replay stands on: the lab's own trace, or a user's file that brought Q, K and
/// V (computed under the lab's mask and temperature).
#[derive(Clone)]
pub enum Origin {
    Trace(TraceRef),
    Imported {
        run: Arc<ImportedRun>,
        layer: usize,
        /// The colour scales of the head's whole weights and scores, which its tiles take
        /// (found once, not on every step).
        scales: [(Scale, Legend); 2],
    },
}

impl PartialEq for Origin {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Origin::Trace(a), Origin::Trace(b)) => a == b,
            (
                Origin::Imported {
                    run: a, layer: l, ..
                },
                Origin::Imported {
                    run: b, layer: m, ..
                },
            ) => Arc::ptr_eq(a, b) && l == m,
            _ => false,
        }
    }
}

/// One head's FlashAttention with its frames: what the player walks through.
#[derive(Clone)]
pub struct Replay {
    pub origin: Origin,
    pub head: usize,
    /// The query blocks replayed: every one, or, for a long input (a summarised trace), the one
    /// chosen. Each query block's pass is independent of the others, so its steps are the whole
    /// run's.
    pub blocks: Range<usize>,
    /// The head's FlashAttention with every tile step of `blocks`: the trace's, or replayed here
    /// when the trace kept only the output.
    flash: Arc<attention_core::math::flash::FlashHead>,
    /// The mask the head was computed under.
    pub(super) mask: Mask,
    /// [query blocks, key blocks]: the tiles the mask hides entirely (skipped by the algorithm).
    pub(super) hidden: Arc<Array2<bool>>,
    /// The counts of the query blocks before `blocks`, as if they had been played.
    pub earlier: Counters,
    /// The colour scales the tiles are drawn on.
    pub mode: ScaleMode,
    pub frames: Arc<Vec<Frame>>,
    pub sizes: Sizes,
}

impl PartialEq for Replay {
    fn eq(&self, other: &Self) -> bool {
        self.origin == other.origin
            && self.head == other.head
            && self.mode == other.mode
            && self.blocks == other.blocks
    }
}

/// The query blocks a replay covers: every one, or only `chosen` (clamped) for a long input.
fn replayed_blocks(partial: bool, chosen: usize, down: usize) -> Range<usize> {
    if partial {
        let block = chosen.min(down.saturating_sub(1));
        block..block + 1
    } else {
        0..down
    }
}

impl Replay {
    /// The replay of `head` of `trace` (clamped to its heads). A summarised trace replays query
    /// block `query_block` only (clamped to its blocks); any other, every block.
    pub fn new(trace: TraceRef, head: usize, mode: ScaleMode, query_block: usize) -> Self {
        let head = head.min(trace.0.flash.heads.len().saturating_sub(1));
        let config = &trace.0.config;
        let (block_rows, block_cols) = config.block();
        let sizes = Sizes {
            seq_len: config.seq_len(),
            key_len: config.key_len(),
            d_k: config.dims().d_k,
            d_v: config.dims().d_v,
            block_rows,
            block_cols,
        };
        let blocks = replayed_blocks(trace.0.is_summarised(), query_block, sizes.tiles().0);
        let recorded = &trace.0.flash.heads[head];
        let flash = if recorded.steps.is_empty() {
            let h = &trace.0.heads[head];
            attention_core::math::flash::replay_query_blocks(
                h.scored_q(),
                h.scored_k(),
                h.v.view(),
                &config.scoring(head),
                config.mask(),
                config.block(),
                blocks.clone(),
            )
        } else {
            recorded.clone()
        };
        let mask = config.mask().clone();
        Self::build(Origin::Trace(trace), head, mode, sizes, mask, blocks, flash)
    }

    /// The replay of head (`layer`, `head`) of a user's file, each clamped to what it has:
    /// `None` unless it brought Q, K and V. Above 512 × 512 cells only query block
    /// `query_block` is replayed, as for the lab's own long inputs.
    pub fn imported(
        run: Arc<ImportedRun>,
        layer: usize,
        head: usize,
        mode: ScaleMode,
        query_block: usize,
    ) -> Option<Self> {
        let layer = layer.min(run.layer_count().checked_sub(1)?);
        let head = head.min(run.head_count().checked_sub(1)?);
        let under = run.computed_under.as_ref()?;
        let shown = run.head(layer, head);
        let (q, v) = (shown.q.as_ref()?, shown.v.as_ref()?);
        let (block_rows, block_cols) = under.block;
        let sizes = Sizes {
            seq_len: run.tokens.len(),
            key_len: run.keys().len(),
            d_k: q.ncols(),
            d_v: v.ncols(),
            block_rows,
            block_cols,
        };
        let partial = sizes.seq_len * sizes.key_len > FULL_HEAD_CELLS;
        let blocks = replayed_blocks(partial, query_block, sizes.tiles().0);
        let flash = run.flash_replay(layer, head, blocks.clone())?;
        let mask = under.mask.clone();
        // The head's scores stretched over their range: a tile's colours are those of the same
        // cells in the whole matrix, and its legend says so.
        let scale_of = |part: Part| match super::imported::view(&run, layer, head, part, mode) {
            Some(whole) if whole.legend == Legend::OwnRange => (whole.scale, Legend::WholeHead),
            Some(whole) => (whole.scale, whole.legend),
            None => (Scale::UNIT, Legend::Fixed),
        };
        let scales = [scale_of(Part::Weights), scale_of(Part::Scores)];
        let origin = Origin::Imported {
            run: Arc::clone(&run),
            layer,
            scales,
        };
        Some(Self::build(origin, head, mode, sizes, mask, blocks, flash))
    }

    fn build(
        origin: Origin,
        head: usize,
        mode: ScaleMode,
        sizes: Sizes,
        mask: Mask,
        blocks: Range<usize>,
        flash: attention_core::math::flash::FlashHead,
    ) -> Self {
        let (down, across) = sizes.tiles();
        let (block_rows, block_cols) = (sizes.block_rows, sizes.block_cols);
        let hidden = Array2::from_shape_fn((down, across), |(r, c)| {
            let rows = r * block_rows..((r + 1) * block_rows).min(sizes.seq_len);
            let cols = c * block_cols..((c + 1) * block_cols).min(sizes.key_len);
            mask.hides_tile(rows, cols)
        });
        let earlier = earlier_blocks(&mask, &sizes, blocks.start);
        let frames = Arc::new(frames(&flash));
        Self {
            origin,
            head,
            blocks,
            flash: Arc::new(flash),
            mask,
            hidden: Arc::new(hidden),
            earlier,
            mode,
            frames,
            sizes,
        }
    }

    /// The queries' tokens.
    pub fn tokens(&self) -> &[String] {
        match &self.origin {
            Origin::Trace(trace) => trace.0.config.tokens(),
            Origin::Imported { run, .. } => &run.tokens,
        }
    }

    /// The keys' tokens.
    pub fn key_tokens(&self) -> &[String] {
        match &self.origin {
            Origin::Trace(trace) => &trace.0.config.key_sequence().tokens,
            Origin::Imported { run, .. } => run.keys(),
        }
    }

    /// Q, K or V of the head (`stage`), as the block inputs show them.
    pub fn input_view(&self, stage: Stage) -> Option<MatrixView> {
        match &self.origin {
            Origin::Trace(trace) => Some(stage.view(&trace.0, self.head, self.mode)),
            Origin::Imported { run, layer, .. } => {
                let part = match stage {
                    Stage::Q => Part::Q,
                    Stage::K => Part::K,
                    Stage::V => Part::V,
                    _ => return None,
                };
                super::imported::view(run, *layer, self.head, part, self.mode)
            }
        }
    }

    /// The colour scale of a tile's `values`, a piece of the head's weights or scaled scores
    /// (`stage`): the whole head's, so that the tile reads as a part of it.
    pub(super) fn tile_scale(&self, stage: Stage, values: &Array2<f32>) -> (Scale, Legend) {
        match &self.origin {
            Origin::Trace(trace) => stage.scale(&trace.0, self.head, values, self.mode),
            Origin::Imported { scales, .. } => scales[usize::from(stage != Stage::Weights)],
        }
    }

    /// Whether the score grid shows one cell per tile (a long input).
    pub fn summarised(&self) -> bool {
        self.sizes.seq_len.max(self.sizes.key_len) > SUMMARISE_ABOVE
    }

    /// Whether only some query blocks are replayed (a long input).
    pub fn partial(&self) -> bool {
        self.blocks.len() < self.sizes.tiles().0
    }

    pub fn flash(&self) -> &attention_core::math::flash::FlashHead {
        &self.flash
    }

    /// The counts up to and including frame `upto`, from the run's start.
    pub fn counters(&self, upto: usize) -> Counters {
        counters(&self.flash, &self.frames, upto, &self.sizes).following(self.earlier)
    }

    /// The first frame about tile (`row_block`, `col_block`), if it is replayed.
    pub fn frame_of_tile(&self, row_block: usize, col_block: usize) -> Option<usize> {
        self.frames
            .iter()
            .position(|f| f.row_block == row_block && f.col_block == Some(col_block))
    }

    /// The key of the first frame about a tile: where a replay of its query block starts.
    pub fn tile_key(&self, row_block: usize, col_block: usize) -> (usize, Option<usize>, Phase) {
        let phase = if self.hidden.get((row_block, col_block)) == Some(&true) {
            Phase::Skip
        } else {
            Phase::Scores
        };
        (row_block, Some(col_block), phase)
    }

    /// Which state tile (`r`, `c`) is in at `frame`: 2 current, 1 done, 0 not yet. Query blocks
    /// before the replayed ones are done, those after not yet.
    pub(super) fn tile_state(&self, r: usize, c: usize, frame: &Frame) -> u8 {
        if r < self.blocks.start {
            1
        } else if r >= self.blocks.end {
            0
        } else {
            tile_state((r - self.blocks.start) * self.sizes.tiles().1 + c, frame)
        }
    }
}

pub(super) fn value(v: f32) -> String {
    format_value(v)
}

/// Which state each tile is in at `frame`: done (< the frame's step), current, or not yet.
fn tile_state(tile_step: usize, frame: &Frame) -> u8 {
    let current = matches!(
        frame.phase,
        Phase::Skip | Phase::Scores | Phase::Max | Phase::Exp | Phase::Sum | Phase::Accumulate
    );
    let done_up_to = match frame.phase {
        Phase::Start => frame.step,
        Phase::Normalize => frame.step + 1,
        _ => frame.step,
    };
    if current && tile_step == frame.step {
        2
    } else if tile_step < done_up_to {
        1
    } else {
        0
    }
}
