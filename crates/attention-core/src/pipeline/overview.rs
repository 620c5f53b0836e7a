//! A head's n² matrices too large to keep (4096 tokens: 64 MiB each), summarised while they are
//! computed, row by row, without ever holding them: an overview of at most [`OVERVIEW_BINS`]²
//! blocks of cells (each block's largest and mean value), and, per query, the two numbers of its
//! softmax (the largest allowed score and 1 / Σ exp(s − max)), from which any one weight is
//! recomputed exactly from its query and key — the same trick FlashAttention's backward pass
//! uses. [`cell`] and [`region`] give any cells at full resolution.

use std::ops::Range;

use ndarray::{Array2, ArrayView2, Axis, s};

use crate::math::fastmath::{exp, larger, smaller};
use crate::math::gemm::Operand;
use crate::math::mask::{Mask, MaskSpec, RowKeys};
use crate::math::scoring::Scoring;
use crate::math::softmax::{masked_exp, masked_max};
use crate::pipeline::config::Config;

/// Blocks per side an overview has at most.
pub const OVERVIEW_BINS: usize = 256;

/// Above this many cells per head (queries × keys: 512 × 512), the page keeps overviews instead
/// of every head's scores and weights.
pub const FULL_HEAD_CELLS: usize = 1 << 18;

/// Whether a trace of `config` keeps overviews rather than full matrices.
pub fn summarises(config: &Config) -> bool {
    config.seq_len() * config.key_len() > FULL_HEAD_CELLS
}

/// How a block of cells is reduced to one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reduction {
    Max,
    Mean,
}

/// One head's n² matrices, summarised.
#[derive(Debug, Clone, PartialEq)]
pub struct Overview {
    /// Queries per block row and keys per block column.
    pub row_step: usize,
    pub col_step: usize,
    /// Scaled scores QKᵀ·scale over every cell of a block: max and mean, [row blocks, col blocks].
    pub scores_max: Array2<f32>,
    pub scores_mean: Array2<f32>,
    /// The masked scores: over the allowed cells of a block only; −∞ where none is allowed.
    pub masked_max: Array2<f32>,
    pub masked_mean: Array2<f32>,
    /// The weights over every cell of a block (masked ones are 0).
    pub weights_max: Array2<f32>,
    pub weights_mean: Array2<f32>,
    /// Per query: the largest allowed scaled score (−∞ when every key is masked), and the inverse
    /// of its softmax's sum, so that w_ij = exp(s_ij − row_max_i) · row_inverse_i.
    pub row_max: Vec<f32>,
    pub row_inverse: Vec<f32>,
    /// The largest |scaled score| of every cell (what an honest colour scale reaches).
    pub abs_max: f32,
}

impl Overview {
    /// The step (cells per block) that gives at most [`OVERVIEW_BINS`] blocks for `len` cells.
    pub fn step(len: usize) -> usize {
        len.div_ceil(OVERVIEW_BINS).max(1)
    }

    /// The block matrices in the order of [`Overview::MATRICES`].
    pub fn matrices(&self) -> [&Array2<f32>; 6] {
        [
            &self.scores_max,
            &self.scores_mean,
            &self.masked_max,
            &self.masked_mean,
            &self.weights_max,
            &self.weights_mean,
        ]
    }

    pub const MATRICES: usize = 6;

    /// The block matrix of `stage`'s values reduced by `reduction`: scores, masked or weights.
    pub fn blocks(&self, values: OverviewOf, reduction: Reduction) -> &Array2<f32> {
        match (values, reduction) {
            (OverviewOf::Scores, Reduction::Max) => &self.scores_max,
            (OverviewOf::Scores, Reduction::Mean) => &self.scores_mean,
            (OverviewOf::Masked, Reduction::Max) => &self.masked_max,
            (OverviewOf::Masked, Reduction::Mean) => &self.masked_mean,
            (OverviewOf::Weights, Reduction::Max) => &self.weights_max,
            (OverviewOf::Weights, Reduction::Mean) => &self.weights_mean,
        }
    }
}

/// Which matrix an overview block summarises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OverviewOf {
    Scores,
    Masked,
    Weights,
}

/// How many query rows are computed at once: [ROW_CHUNK, key_len] of scratch.
const ROW_CHUNK: usize = 64;

/// One head's output (weights · V) and the overview of its scores and weights, computed in chunks
/// of rows: O(key_len) memory per row, never a [seq_len, key_len] matrix.
pub fn attend_overview(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
) -> (Array2<f32>, Overview) {
    attend_overview_rows(q, k, v, scoring, mask, 0..q.nrows())
}

/// [`attend_overview`] for the queries `rows` of the head only (a band, as one of the page's
/// workers computes it): the output's rows `rows` ([rows, d_v]) and an overview of the block
/// rows that hold them, with `row_max` and `row_inverse` of these queries. `rows` starts on a
/// block row's first query ([`Overview::step`] of all the head's queries) and ends on one or at
/// the last query, so that its blocks are whole: the bands of a head, stacked in order
/// ([`Overview::stack`]), are exactly the whole head's overview.
pub fn attend_overview_rows(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
    rows: Range<usize>,
) -> (Array2<f32>, Overview) {
    let (n, m) = (q.nrows(), k.nrows());
    let (row_step, col_step) = (Overview::step(n), Overview::step(m));
    assert!(
        rows.start.is_multiple_of(row_step)
            && (rows.end.is_multiple_of(row_step) || rows.end == n)
            && rows.end <= n,
        "a band of whole block rows: {rows:?} in steps of {row_step} of {n}"
    );
    let first_block = rows.start / row_step;
    let blocks = (
        rows.end.div_ceil(row_step) - first_block,
        m.div_ceil(col_step),
    );
    let mut acc = Accumulator::new(blocks, m, matches!(mask.spec(), MaskSpec::None));
    let mut output = Array2::zeros((rows.len(), v.ncols()));
    let mut row_max = vec![f32::NEG_INFINITY; rows.len()];
    let mut row_inverse = vec![0.0; rows.len()];
    let (keys, values) = (Operand::keys(k), Operand::values(v));
    // One chunk's scores and weights, reused by every chunk (every cell is written each time).
    let chunk_rows = ROW_CHUNK.min(rows.len());
    let mut scores_buffer = Array2::zeros((chunk_rows, m));
    let mut weights_buffer = Array2::<f32>::zeros((chunk_rows, m));
    let q_band = q.slice(s![rows.clone(), ..]);
    for (chunk, q_chunk) in q_band.axis_chunks_iter(Axis(0), ROW_CHUNK).enumerate() {
        let local = chunk * ROW_CHUNK;
        let first = rows.start + local;
        let here = s![..q_chunk.nrows(), ..];
        let mut scores = scores_buffer.slice_mut(here);
        keys.multiply(scoring.product_scale(), q_chunk, 0.0, &mut scores);
        scoring.finish(scores.view_mut(), first, 0);
        let mut weights = weights_buffer.slice_mut(here);
        for (r, (score_row, mut weight_row)) in scores
            .outer_iter()
            .zip(weights.outer_iter_mut())
            .enumerate()
        {
            let i = first + r;
            let keys = mask.row_keys(i, 0..m);
            #[expect(
                clippy::expect_used,
                reason = "the rows of a matrix made here in standard layout are contiguous"
            )]
            let (scores, weights) = (
                score_row.as_slice().expect("contiguous"),
                weight_row.as_slice_mut().expect("contiguous"),
            );
            let max = masked_max(scores, &keys);
            if max > f32::NEG_INFINITY {
                // A sink logit joins the row's softmax as an extra column (then dropped).
                let top = scoring.sink.map_or(max, |s| max.max(s));
                let sum = masked_exp(scores, &keys, top, weights)
                    + scoring.sink.map_or(0.0, |s| f64::from(exp(s - top)));
                let inverse = (1.0 / sum) as f32;
                weights.iter_mut().for_each(|w| *w *= inverse);
                (row_max[local + r], row_inverse[local + r]) = (top, inverse);
            } else {
                weights.fill(0.0);
            }
            acc.add_row(i / row_step - first_block, col_step, scores, weights, &keys);
        }
        // Weights · V over the keys up to the last these queries may see (under a causal mask,
        // half of the product): the weights after it are all zero.
        let seen = mask.visible_span(first..first + q_chunk.nrows()).end;
        values.multiply_leading(
            1.0,
            weights.slice(s![.., ..seen]),
            0.0,
            &mut output.slice_mut(s![local..local + q_chunk.nrows(), ..]),
        );
    }
    let overview = acc.finish(
        (row_step, col_step),
        (first_block, n),
        m,
        row_max,
        row_inverse,
    );
    (output, overview)
}

/// The overview of a causal matrix given a row at a time (a linear head's hidden matrix A, which
/// a long input never holds whole): rows `rows` of `n` (whole blocks, as
/// [`attend_overview_rows`] takes them), `m` columns, row i filling keys 0 ..= i of the buffer
/// it is handed (the rest stay 0). The values stand for both the scores and the weights; it is
/// no softmax, so its `row_max` and `row_inverse` are 0 and 1.
pub fn overview_of_rows(
    n: usize,
    m: usize,
    rows: Range<usize>,
    mut row: impl FnMut(usize, &mut [f32]),
) -> Overview {
    let (row_step, col_step) = (Overview::step(n), Overview::step(m));
    let first_block = rows.start / row_step;
    let blocks = (
        rows.end.div_ceil(row_step) - first_block,
        m.div_ceil(col_step),
    );
    let mut acc = Accumulator::new(blocks, m, false);
    let mut buffer = vec![0.0f32; m];
    for i in rows.clone() {
        buffer.fill(0.0);
        row(i, &mut buffer);
        let keys = RowKeys::Range(0..(i + 1).min(m));
        acc.add_row(
            i / row_step - first_block,
            col_step,
            &buffer,
            &buffer,
            &keys,
        );
    }
    let mut overview = acc.finish(
        (row_step, col_step),
        (first_block, n),
        m,
        vec![0.0; rows.len()],
        vec![1.0; rows.len()],
    );
    // The weights' maxima start at 0 (a softmax's weights are never below it); these values
    // are signed, and their true maxima are the scores' (the same cells, from −∞).
    overview.weights_max = overview.scores_max.clone();
    overview
}

impl Overview {
    /// The overviews of a head's bands ([`attend_overview_rows`]), in order of their rows, as
    /// one: their block rows and queries one after the other, the largest |score| of all.
    /// `None` without bands or when their columns differ.
    pub fn stack(bands: &[Overview]) -> Option<Overview> {
        let first = bands.first()?;
        let stack = |pick: fn(&Overview) -> &Array2<f32>| {
            let views: Vec<_> = bands.iter().map(|b| pick(b).view()).collect();
            ndarray::concatenate(Axis(0), &views).ok()
        };
        Some(Overview {
            row_step: first.row_step,
            col_step: first.col_step,
            scores_max: stack(|b| &b.scores_max)?,
            scores_mean: stack(|b| &b.scores_mean)?,
            masked_max: stack(|b| &b.masked_max)?,
            masked_mean: stack(|b| &b.masked_mean)?,
            weights_max: stack(|b| &b.weights_max)?,
            weights_mean: stack(|b| &b.weights_mean)?,
            row_max: bands
                .iter()
                .flat_map(|b| b.row_max.iter().copied())
                .collect(),
            row_inverse: bands
                .iter()
                .flat_map(|b| b.row_inverse.iter().copied())
                .collect(),
            abs_max: bands.iter().fold(0.0, |m, b| larger(m, b.abs_max)),
        })
    }
}

/// Running block maxima, sums and counts. Within a row of blocks, each column keeps its own
/// running values, updated by plain loops over a row's cells (which vectorise); when the row of
/// blocks is complete, the columns are folded into blocks once. (Folding every row's cells into
/// blocks of 4–16 cells, as this did before, cost 900 ms a head at 4096 tokens in wasm.)
struct Accumulator {
    scores_max: Array2<f32>,
    scores_sum: Array2<f64>,
    masked_max: Array2<f32>,
    masked_sum: Array2<f64>,
    allowed: Array2<u32>,
    weights_max: Array2<f32>,
    weights_sum: Array2<f64>,
    abs_max: f32,
    /// The row of blocks the columns hold, if any, and how many queries of it they hold.
    block_row: Option<usize>,
    rows: u32,
    columns: Columns,
    /// No mask: every cell is allowed, so the masked values are the scores' own (kept once, not
    /// twice: a third of the work per cell).
    unmasked: bool,
}

/// Per key: running values over the queries of one row of blocks.
struct Columns {
    scores_max: Vec<f32>,
    scores_min: Vec<f32>,
    scores_sum: Vec<f32>,
    weights_max: Vec<f32>,
    weights_sum: Vec<f32>,
    masked_max: Vec<f32>,
    masked_sum: Vec<f32>,
    allowed: Vec<u32>,
}

impl Columns {
    fn new(m: usize) -> Self {
        Self {
            scores_max: vec![f32::NEG_INFINITY; m],
            scores_min: vec![f32::INFINITY; m],
            scores_sum: vec![0.0; m],
            weights_max: vec![0.0; m],
            weights_sum: vec![0.0; m],
            masked_max: vec![f32::NEG_INFINITY; m],
            masked_sum: vec![0.0; m],
            allowed: vec![0; m],
        }
    }

    fn clear(&mut self) {
        self.scores_max.fill(f32::NEG_INFINITY);
        self.scores_min.fill(f32::INFINITY);
        self.scores_sum.fill(0.0);
        self.weights_max.fill(0.0);
        self.weights_sum.fill(0.0);
        self.masked_max.fill(f32::NEG_INFINITY);
        self.masked_sum.fill(0.0);
        self.allowed.fill(0);
    }

    /// The allowed cells of `range` (keys `range`, their scores at the same indices).
    fn add_allowed(&mut self, scores: &[f32], range: std::ops::Range<usize>) {
        let kept = &scores[range.clone()];
        let n = kept.len();
        let max = &mut self.masked_max[range.clone()][..n];
        let sum = &mut self.masked_sum[range.clone()][..n];
        let allowed = &mut self.allowed[range][..n];
        for j in 0..n {
            max[j] = larger(max[j], kept[j]);
            sum[j] += kept[j];
            allowed[j] += 1;
        }
    }
}

impl Accumulator {
    fn new(blocks: (usize, usize), m: usize, unmasked: bool) -> Self {
        Self {
            scores_max: Array2::from_elem(blocks, f32::NEG_INFINITY),
            scores_sum: Array2::zeros(blocks),
            masked_max: Array2::from_elem(blocks, f32::NEG_INFINITY),
            masked_sum: Array2::zeros(blocks),
            allowed: Array2::zeros(blocks),
            weights_max: Array2::zeros(blocks),
            weights_sum: Array2::zeros(blocks),
            abs_max: 0.0,
            block_row: None,
            rows: 0,
            columns: Columns::new(m),
            unmasked,
        }
    }

    /// One query's scores and weights, in order of the queries.
    fn add_row(
        &mut self,
        block_row: usize,
        col_step: usize,
        scores: &[f32],
        weights: &[f32],
        keys: &RowKeys,
    ) {
        if self.block_row != Some(block_row) {
            self.flush(col_step);
            self.block_row = Some(block_row);
        }
        self.rows += 1;
        let c = &mut self.columns;
        // Every slice cut to one length, so that the loop has no bounds checks and vectorises.
        let m = scores.len();
        let weights = &weights[..m];
        let (s_max, s_min, s_sum) = (
            &mut c.scores_max[..m],
            &mut c.scores_min[..m],
            &mut c.scores_sum[..m],
        );
        let (w_max, w_sum) = (&mut c.weights_max[..m], &mut c.weights_sum[..m]);
        for j in 0..m {
            let (s, w) = (scores[j], weights[j]);
            s_max[j] = larger(s_max[j], s);
            s_min[j] = smaller(s_min[j], s);
            s_sum[j] += s;
            w_max[j] = larger(w_max[j], w);
            w_sum[j] += w;
        }
        // The allowed cells: a run of keys for every built-in mask, any cells for a custom one.
        if self.unmasked {
            return; // All of them: `flush` takes the scores' values.
        }
        match keys {
            RowKeys::Range(range) => c.add_allowed(scores, range.clone()),
            RowKeys::Two(first, second) => {
                c.add_allowed(scores, first.clone());
                c.add_allowed(scores, second.clone());
            }
            RowKeys::Explicit(_) => {
                for (j, &s) in scores.iter().enumerate() {
                    if keys.allows(j) {
                        c.masked_max[j] = larger(c.masked_max[j], s);
                        c.masked_sum[j] += s;
                        c.allowed[j] += 1;
                    }
                }
            }
        }
    }

    /// Folds the columns into their row of blocks, and clears them.
    fn flush(&mut self, col_step: usize) {
        let Some(block_row) = self.block_row.take() else {
            return;
        };
        let c = &self.columns;
        // Each fold in four lanes, then across them: one chain of dependent maxima or f64 sums
        // per block made this fold, once per 16 rows, an eighth of a long head's overview pass.
        let fold_max = |v: &[f32]| fold4(v, f32::NEG_INFINITY, larger);
        let fold_min = |v: &[f32]| fold4(v, f32::INFINITY, smaller);
        let fold_sum = |v: &[f32]| {
            let mut lanes = [0.0f64; 4];
            let chunks = v.chunks_exact(4);
            let rest = chunks
                .remainder()
                .iter()
                .map(|&x| f64::from(x))
                .sum::<f64>();
            for chunk in chunks {
                for (lane, &x) in lanes.iter_mut().zip(chunk) {
                    *lane += f64::from(x);
                }
            }
            (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + rest
        };
        let blocks = c.scores_max.len().div_ceil(col_step);
        for b in 0..blocks {
            let at = (block_row, b);
            let cols = b * col_step..((b + 1) * col_step).min(c.scores_max.len());
            let s_max = fold_max(&c.scores_max[cols.clone()]);
            let s_min = fold_min(&c.scores_min[cols.clone()]);
            self.abs_max = larger(larger(self.abs_max, s_max.abs()), s_min.abs());
            self.scores_max[at] = larger(self.scores_max[at], s_max);
            self.scores_sum[at] += fold_sum(&c.scores_sum[cols.clone()]);
            self.weights_max[at] =
                larger(self.weights_max[at], fold_max(&c.weights_max[cols.clone()]));
            self.weights_sum[at] += fold_sum(&c.weights_sum[cols.clone()]);
            if self.unmasked {
                self.masked_max[at] = larger(self.masked_max[at], s_max);
                self.masked_sum[at] += fold_sum(&c.scores_sum[cols.clone()]);
                self.allowed[at] += self.rows * cols.len() as u32;
            } else {
                self.masked_max[at] =
                    larger(self.masked_max[at], fold_max(&c.masked_max[cols.clone()]));
                self.masked_sum[at] += fold_sum(&c.masked_sum[cols.clone()]);
                self.allowed[at] += c.allowed[cols].iter().sum::<u32>();
            }
        }
        self.rows = 0;
        self.columns.clear();
    }

    /// The overview of the block rows from `first_block` on, of a head of `n` queries.
    fn finish(
        mut self,
        (row_step, col_step): (usize, usize),
        (first_block, n): (usize, usize),
        m: usize,
        row_max: Vec<f32>,
        row_inverse: Vec<f32>,
    ) -> Overview {
        self.flush(col_step);
        // Blocks at the far edges hold fewer cells.
        let cells = |(r, c): (usize, usize)| {
            let rows = row_step.min(n - (first_block + r) * row_step);
            let cols = col_step.min(m - c * col_step);
            (rows * cols) as f64
        };
        let mean = |sums: &Array2<f64>| {
            Array2::from_shape_fn(sums.dim(), |at| (sums[at] / cells(at)) as f32)
        };
        let masked_mean =
            Array2::from_shape_fn(self.masked_sum.dim(), |at| match self.allowed[at] {
                0 => f32::NEG_INFINITY,
                allowed => (self.masked_sum[at] / f64::from(allowed)) as f32,
            });
        Overview {
            row_step,
            col_step,
            scores_mean: mean(&self.scores_sum),
            scores_max: self.scores_max,
            masked_max: self.masked_max,
            masked_mean,
            weights_mean: mean(&self.weights_sum),
            weights_max: self.weights_max,
            row_max,
            row_inverse,
            abs_max: self.abs_max,
        }
    }
}

/// `v` folded by `pick` (a maximum or a minimum) from `init`, in four lanes and then across them.
#[inline(always)]
fn fold4(v: &[f32], init: f32, pick: fn(f32, f32) -> f32) -> f32 {
    let mut lanes = [init; 4];
    let chunks = v.chunks_exact(4);
    let rest = chunks.remainder().iter().fold(init, |m, &x| pick(m, x));
    for chunk in chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane = pick(*lane, x);
        }
    }
    pick(
        pick(pick(lanes[0], lanes[1]), pick(lanes[2], lanes[3])),
        rest,
    )
}

/// One cell of a summarised head, at full resolution: the score (before the mask) and the
/// weight, recomputed from query `i`'s and key `j`'s vectors (as the scores read them: after
/// QK-norm and RoPE) and the row's softmax numbers. Equal to what a full trace holds up to the
/// order of the dot product's additions.
pub fn cell(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
    overview: &Overview,
    (i, j): (usize, usize),
) -> (f32, f32) {
    let score = scoring.score(q.row(i).dot(&k.row(j)), i, j);
    let max = overview.row_max[i];
    let weight = if mask.allows(i, j) && max > f32::NEG_INFINITY {
        exp(score - max) * overview.row_inverse[i]
    } else {
        0.0
    };
    (score, weight)
}

/// The scaled scores and weights of `rows` × `cols` of a summarised head, at full resolution.
pub fn region(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
    overview: &Overview,
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
) -> (Array2<f32>, Array2<f32>) {
    let shape = (rows.len(), cols.len());
    let mut scores = Array2::zeros(shape);
    let mut weights = Array2::zeros(shape);
    for (r, i) in rows.enumerate() {
        for (c, j) in cols.clone().enumerate() {
            let (score, weight) = cell(q, k, scoring, mask, overview, (i, j));
            scores[[r, c]] = score;
            weights[[r, c]] = weight;
        }
    }
    (scores, weights)
}
