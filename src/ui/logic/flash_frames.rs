//! FlashAttention's tile steps as animation frames, with the pseudocode line each one executes and
//! the counters that make the algorithm's point. Pure functions of a trace: replaying a frame
//! never recomputes anything, and this module is tested without a browser.

use attention_core::Mask;
use attention_core::math::flash::FlashHead;

/// What a frame shows happening.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// A query block begins: load Q_i; m ← −∞, l ← 0, O_i ← 0.
    Start,
    /// The mask hides the whole tile: nothing is loaded or computed.
    Skip,
    /// Load K_j, V_j; S = Q_i K_jᵀ / (√d_k · T), masked cells −∞.
    Scores,
    /// m_new = max(m, rowmax S).
    Max,
    /// P = exp(S − m_new).
    Exp,
    /// l ← exp(m − m_new) · l + rowsum P.
    Sum,
    /// O_i ← exp(m − m_new) · O_i + P V_j.
    Accumulate,
    /// O_i ← O_i / l; write O_i.
    Normalize,
}

impl Phase {
    /// The line of the pseudocode (numbered from 1) this phase executes.
    pub fn line(self) -> usize {
        match self {
            Self::Start => 3,
            Self::Skip => 5,
            Self::Scores => 6,
            Self::Max => 7,
            Self::Exp => 8,
            Self::Sum => 9,
            Self::Accumulate => 10,
            Self::Normalize => 11,
        }
    }
}

/// One frame of the animation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub row_block: usize,
    /// The key/value block, for frames about one tile.
    pub col_block: Option<usize>,
    pub phase: Phase,
    /// The tile step of the trace this frame shows (for Start: the block's first step; for
    /// Normalize: its last).
    pub step: usize,
}

impl Frame {
    /// What identifies a position across traces (to keep it when a parameter changes).
    pub fn key(&self) -> (usize, Option<usize>, Phase) {
        (self.row_block, self.col_block, self.phase)
    }
}

/// The frames of one head's trace, in order.
pub fn frames(head: &FlashHead) -> Vec<Frame> {
    let mut frames = Vec::new();
    let steps = &head.steps;
    let mut index = 0;
    while index < steps.len() {
        let row_block = steps[index].row_block;
        frames.push(Frame {
            row_block,
            col_block: None,
            phase: Phase::Start,
            step: index,
        });
        while index < steps.len() && steps[index].row_block == row_block {
            let step = &steps[index];
            let tile = |phase| Frame {
                row_block,
                col_block: Some(step.col_block),
                phase,
                step: index,
            };
            if step.skipped {
                frames.push(tile(Phase::Skip));
            } else {
                for phase in [
                    Phase::Scores,
                    Phase::Max,
                    Phase::Exp,
                    Phase::Sum,
                    Phase::Accumulate,
                ] {
                    frames.push(tile(phase));
                }
            }
            index += 1;
        }
        frames.push(Frame {
            row_block,
            col_block: None,
            phase: Phase::Normalize,
            step: index - 1,
        });
    }
    frames
}

/// Where to be in `frames` after the trace changed, given the old position's key: the same
/// block and phase if it still exists, else as far as the old position was, clamped.
pub fn keep_position(
    frames: &[Frame],
    key: Option<(usize, Option<usize>, Phase)>,
    old_index: usize,
) -> usize {
    key.and_then(|key| frames.iter().position(|f| f.key() == key))
        .unwrap_or(old_index)
        .min(frames.len().saturating_sub(1))
}

/// The sizes the counters depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    pub seq_len: usize,
    pub key_len: usize,
    pub d_k: usize,
    pub d_v: usize,
    pub block_rows: usize,
    pub block_cols: usize,
}

/// Counts, up to and including a frame, under the model of the FlashAttention paper: slow memory
/// (HBM) holds Q, K, V and O; fast memory (SRAM) holds one tile's worth. Counted in floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    pub tiles_done: usize,
    pub tiles_skipped: usize,
    pub tiles_total: usize,
    /// Floats read from slow memory: Q_i once per query block, K_j and V_j once per tile computed.
    pub reads: u64,
    /// Floats written to slow memory: O_i, l_i and m_i once per query block.
    pub writes: u64,
}

impl Sizes {
    /// Query blocks × key blocks.
    pub fn tiles(&self) -> (usize, usize) {
        (
            self.seq_len.div_ceil(self.block_rows),
            self.key_len.div_ceil(self.block_cols),
        )
    }

    /// Floats read when a query block of `rows` starts: its Q_i.
    fn block_reads(&self, rows: u64) -> u64 {
        rows * self.d_k as u64
    }

    /// Floats read by a computed tile of `cols` keys: its K_j and V_j.
    fn tile_reads(&self, cols: u64) -> u64 {
        cols * (self.d_k + self.d_v) as u64
    }

    /// Floats written when a query block of `rows` ends: its O_i, l_i and m_i.
    fn block_writes(&self, rows: u64) -> u64 {
        rows * (self.d_v as u64 + 2)
    }
}

impl Counters {
    /// These counts after `earlier`'s (the query blocks run before these frames').
    pub fn following(self, earlier: Counters) -> Counters {
        Counters {
            tiles_done: earlier.tiles_done + self.tiles_done,
            tiles_skipped: earlier.tiles_skipped + self.tiles_skipped,
            tiles_total: self.tiles_total,
            reads: earlier.reads + self.reads,
            writes: earlier.writes + self.writes,
        }
    }
}

/// The counts of `frames` up to and including `upto`; `tiles_total` counts every tile of the run,
/// replayed or not.
pub fn counters(head: &FlashHead, frames: &[Frame], upto: usize, sizes: &Sizes) -> Counters {
    let (down, across) = sizes.tiles();
    let mut counters = Counters {
        tiles_total: down * across,
        ..Counters::default()
    };
    for frame in frames.iter().take(upto + 1) {
        let step = &head.steps[frame.step];
        let (rows, cols) = (step.rows.len() as u64, step.cols.len() as u64);
        match frame.phase {
            Phase::Start => counters.reads += sizes.block_reads(rows),
            Phase::Skip => {
                counters.tiles_skipped += 1;
                counters.tiles_done += 1;
            }
            Phase::Scores => counters.reads += sizes.tile_reads(cols),
            Phase::Accumulate => counters.tiles_done += 1,
            Phase::Normalize => counters.writes += sizes.block_writes(rows),
            Phase::Max | Phase::Exp | Phase::Sum => {}
        }
    }
    counters
}

/// The counts of the first `blocks` query blocks run to the end, from the mask alone (which tiles
/// it hides): where a replay of later blocks starts counting, so its counters are the whole run's.
pub fn earlier_blocks(mask: &Mask, sizes: &Sizes, blocks: usize) -> Counters {
    let (down, across) = sizes.tiles();
    let mut counters = Counters {
        tiles_total: down * across,
        ..Counters::default()
    };
    for row_block in 0..blocks.min(down) {
        let r0 = row_block * sizes.block_rows;
        let rows = r0..(r0 + sizes.block_rows).min(sizes.seq_len);
        counters.reads += sizes.block_reads(rows.len() as u64);
        counters.writes += sizes.block_writes(rows.len() as u64);
        for col_block in 0..across {
            let c0 = col_block * sizes.block_cols;
            let cols = c0..(c0 + sizes.block_cols).min(sizes.key_len);
            counters.tiles_done += 1;
            if mask.hides_tile(rows.clone(), cols.clone()) {
                counters.tiles_skipped += 1;
            } else {
                counters.reads += sizes.tile_reads(cols.len() as u64);
            }
        }
    }
    counters
}

/// Standard attention under the same model (Algorithm 0 of the paper): read Q and K, write S;
/// read S, write P = softmax(S); read P and V, write O. Returns (reads, writes) in floats.
pub fn standard_accesses(sizes: &Sizes) -> (u64, u64) {
    let (n, m) = (sizes.seq_len as u64, sizes.key_len as u64);
    let (d_k, d_v) = (sizes.d_k as u64, sizes.d_v as u64);
    let reads = n * d_k + m * d_k + n * m + n * m + m * d_v;
    let writes = n * m + n * m + n * d_v;
    (reads, writes)
}

/// Score-matrix elements held at once: (flash: one tile, standard: all of them).
pub fn scores_held(sizes: &Sizes) -> (usize, usize) {
    (
        sizes.block_rows.min(sizes.seq_len) * sizes.block_cols.min(sizes.key_len),
        sizes.seq_len * sizes.key_len,
    )
}
