//! FlashAttention (Dao et al. 2022): the same result as [`crate::math::attention::attend`] without ever
//! holding the [seq_len, key_len] score matrix.
//!
//! Queries are cut into blocks of `block_rows`, keys and values into blocks of `block_cols`. For
//! each query block we walk the key blocks once, keeping per row a running maximum m, a running
//! sum l of exp(s − m), and an unnormalised output accumulator. When a new tile raises the maximum
//! from m_old to m_new, everything summed so far is rescaled by exp(m_old − m_new), so after the
//! last tile acc / l equals softmax(S)·V exactly (the online softmax). Tiles that the mask hides
//! entirely are skipped. The loop order (query blocks outside) is that of FlashAttention-2; the
//! arithmetic is Algorithm 1 of the first paper with the division by l deferred to the end.

use std::ops::Range;

use ndarray::{Array2, ArrayView2, s};

use crate::math::fastmath::{exp, larger};
use crate::math::gemm::{NR, Panels, gemm, matmul_nn, matmul_nt, tiled};
use crate::math::mask::Mask;
use crate::math::scoring::Scoring;
use crate::math::softmax::{masked_exp, masked_max, with_row_slices};

/// One tile visit: query block `row_block` against key/value block `col_block`.
#[derive(Debug, Clone, PartialEq)]
pub struct FlashStep {
    pub row_block: usize,
    pub col_block: usize,
    /// The query rows of this tile.
    pub rows: Range<usize>,
    /// The key columns of this tile.
    pub cols: Range<usize>,
    /// The mask hides the whole tile: nothing was read or computed.
    pub skipped: bool,
    /// [rows, cols] S = Q_i K_jᵀ · scale (or the shaped scores), before the mask (empty when
    /// skipped).
    pub scores: Array2<f32>,
    /// [rows, cols] P = exp(S − m_new), 0 where masked (empty when skipped).
    pub probs: Array2<f32>,
    /// Running maximum per row before this tile (−∞ before any allowed key; the sink logit with
    /// one).
    pub m_prev: Vec<f32>,
    /// Running maximum per row after this tile.
    pub m: Vec<f32>,
    /// Running sum per row before this tile.
    pub l_prev: Vec<f32>,
    /// Running sum per row after: l = exp(m_prev − m) · l_prev + Σ_j P.
    pub l: Vec<f32>,
    /// exp(m_prev − m) per row: how much the old sum and accumulator shrink.
    pub rescale: Vec<f32>,
    /// [rows, d_v] the unnormalised output after this tile: acc = rescale · acc_prev + P · V_j.
    pub acc: Array2<f32>,
}

/// One head's FlashAttention result.
#[derive(Debug, Clone, PartialEq)]
pub struct FlashHead {
    /// [seq_len, d_v] = acc / l per row (zero for fully masked rows).
    pub output: Array2<f32>,
    /// Every tile visit in order; empty unless recording was asked for.
    pub steps: Vec<FlashStep>,
    pub fully_masked_rows: Vec<usize>,
}

/// Tiled attention of one head. q: [seq_len, d_k], k: [key_len, d_k], v: [key_len, d_v];
/// `scoring` turns q·k into scores (1 / (√d_k · T) in 2017's attention; an ALiBi bias and a
/// soft-cap computed per tile from the indices; a sink logit as the online softmax's starting m
/// and l); `block` = (block_rows, block_cols), both ≥ 1.
/// With `record` false, extra memory is O(block_rows · (block_cols + d_v)).
pub fn flash_attention(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
    block: (usize, usize),
    record: bool,
) -> FlashHead {
    run(q, k, v, scoring, mask, block, record, 0..usize::MAX)
}

/// FlashAttention for the query blocks `query_blocks` only (clamped to the blocks there are),
/// recording every tile step. Each query block's pass reads all of K and V but nothing of the
/// other query blocks (FlashAttention-2's loop order), so these steps and these rows of the output
/// are exactly those of the whole run; the other rows of `output` stay zero. This is how a long
/// input's tiles are replayed without recording the whole run's n² scores.
pub fn replay_query_blocks(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
    block: (usize, usize),
    query_blocks: Range<usize>,
) -> FlashHead {
    run(q, k, v, scoring, mask, block, true, query_blocks)
}

/// FlashAttention's output rows `rows` only ([rows, d_v]), no steps recorded: the query blocks
/// that hold them, exactly those rows of [`flash_attention`]'s output (a query block needs nothing
/// from the others). `rows` starts on a query block's first row and ends on one or at the last
/// query: how one of the page's workers computes a band of a long head.
pub fn flash_attention_rows(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
    block: (usize, usize),
    rows: Range<usize>,
) -> Array2<f32> {
    let block_rows = block.0.max(1);
    assert!(
        rows.start.is_multiple_of(block_rows)
            && (rows.end.is_multiple_of(block_rows) || rows.end == q.nrows()),
        "whole query blocks: {rows:?} in blocks of {block_rows}"
    );
    let blocks = rows.start / block_rows..rows.end.div_ceil(block_rows);
    let head = run(q, k, v, scoring, mask, block, false, blocks);
    head.output.slice(s![rows, ..]).to_owned()
}

#[allow(clippy::too_many_arguments)]
fn run(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
    block: (usize, usize),
    record: bool,
    query_blocks: Range<usize>,
) -> FlashHead {
    let (block_rows, block_cols) = block;
    let (seq_len, key_len, d_v) = (q.nrows(), k.nrows(), v.ncols());
    let mut output = Array2::zeros((seq_len, d_v));
    let mut steps = Vec::new();
    let mut fully_masked_rows = Vec::new();
    // Scratch for one tile (the "fast memory" of the paper), reused by every tile.
    let tile_shape = (block_rows.min(seq_len), block_cols.min(key_len));
    let mut scores_tile = Array2::<f32>::zeros(tile_shape);
    let mut probs_tile = Array2::<f32>::zeros(tile_shape);
    // In wasm, the head's K and V packed once for the tiles' products, when the tiles fall on
    // the panels' boundaries (else each tile packs its own, in `matmul_nt` and `matmul_nn`).
    let packed = (cfg!(target_arch = "wasm32")
        && block_cols.is_multiple_of(NR)
        && tiled(&q, &scores_tile.view_mut()))
    .then(|| (Panels::of_rows(k), Panels::of_columns(v)));

    let first = query_blocks.start;
    let count = query_blocks.end.saturating_sub(first);
    for (row_block, r0) in (0..seq_len)
        .step_by(block_rows)
        .enumerate()
        .skip(first)
        .take(count)
    {
        let rows = r0..(r0 + block_rows).min(seq_len);
        let n_rows = rows.len();
        let q_block = q.slice(s![rows.clone(), ..]);
        // A sink logit is a column every row holds from the start: m = sink, l = exp(0) = 1.
        let mut m = vec![scoring.sink.unwrap_or(f32::NEG_INFINITY); n_rows];
        let mut l = vec![if scoring.sink.is_some() { 1.0f32 } else { 0.0 }; n_rows];
        let mut seen = vec![false; n_rows];
        let mut acc = Array2::<f32>::zeros((n_rows, d_v));

        for (col_block, c0) in (0..key_len).step_by(block_cols).enumerate() {
            let cols = c0..(c0 + block_cols).min(key_len);
            if mask.hides_tile(rows.clone(), cols.clone()) {
                if record {
                    steps.push(FlashStep {
                        row_block,
                        col_block,
                        rows: rows.clone(),
                        cols,
                        skipped: true,
                        scores: Array2::zeros((0, 0)),
                        probs: Array2::zeros((0, 0)),
                        m_prev: m.clone(),
                        m: m.clone(),
                        l_prev: l.clone(),
                        l: l.clone(),
                        rescale: vec![1.0; n_rows],
                        acc: acc.clone(),
                    });
                }
                continue;
            }
            let previous = record.then(|| (m.clone(), l.clone()));
            let mut scores = scores_tile.slice_mut(s![..n_rows, ..cols.len()]);
            let mut probs = probs_tile.slice_mut(s![..n_rows, ..cols.len()]);
            // S = Q_i K_jᵀ · scale, or the dot products shaped (a bias, a cap) from the indices.
            match &packed {
                Some((keys, _)) => gemm(
                    scoring.product_scale(),
                    q_block,
                    keys.view().columns(cols.clone()),
                    0.0,
                    &mut scores,
                ),
                None => {
                    let keys = k.slice(s![cols.clone(), ..]);
                    matmul_nt(scoring.product_scale(), q_block, keys, 0.0, &mut scores);
                }
            }
            scoring.finish(scores.view_mut(), r0, cols.start);
            let mut rescale = vec![1.0f32; n_rows];
            for (r, (score_row, prob_row)) in
                scores.rows().into_iter().zip(probs.rows_mut()).enumerate()
            {
                let keys = mask.row_keys(r0 + r, cols.clone());
                let m_old = m[r];
                seen[r] |= keys.any();
                // P = exp(S − m_new) over the allowed keys, with m_new = max(m_old, max_j S).
                let update = with_row_slices(score_row, prob_row, |scores, probs| {
                    let m_new = larger(m_old, masked_max(scores, &keys));
                    if m_new == f32::NEG_INFINITY {
                        // No allowed key in this row yet: P, l and acc stay zero.
                        probs.fill(0.0);
                        return None;
                    }
                    Some((m_new, masked_exp(scores, &keys, m_new, probs) as f32))
                });
                let Some((m_new, row_sum)) = update else {
                    continue;
                };
                if m_new == m_old {
                    // The maximum held (most tiles after the first few): exp(0) = 1, nothing
                    // to rescale.
                    l[r] += row_sum;
                    continue;
                }
                // exp(−∞) = 0 when this is the row's first allowed key: nothing to rescale.
                rescale[r] = exp(m_old - m_new);
                l[r] = rescale[r] * l[r] + row_sum;
                m[r] = m_new;
                acc.row_mut(r).mapv_inplace(|a| a * rescale[r]);
            }
            // acc = diag(rescale) · acc + P · V_j
            match &packed {
                Some((_, values)) => gemm(
                    1.0,
                    probs.view(),
                    values.view().steps(cols.clone()),
                    1.0,
                    &mut acc.view_mut(),
                ),
                None => matmul_nn(
                    1.0,
                    probs.view(),
                    v.slice(s![cols.clone(), ..]),
                    1.0,
                    &mut acc.view_mut(),
                ),
            }
            if let Some((m_prev, l_prev)) = previous {
                steps.push(FlashStep {
                    row_block,
                    col_block,
                    rows: rows.clone(),
                    cols,
                    skipped: false,
                    scores: scores.to_owned(),
                    probs: probs.to_owned(),
                    m_prev,
                    m: m.clone(),
                    l_prev,
                    l: l.clone(),
                    rescale,
                    acc: acc.clone(),
                });
            }
        }

        // The deferred normalisation: O_i = acc / l, once per query block.
        for (r, &row_sum) in l.iter().enumerate() {
            if seen[r] && row_sum > 0.0 {
                let inverse = 1.0 / row_sum;
                output
                    .row_mut(r0 + r)
                    .zip_mut_with(&acc.row(r), |o, &a| *o = a * inverse);
            } else {
                fully_masked_rows.push(r0 + r);
            }
        }
    }
    FlashHead {
        output,
        steps,
        fully_masked_rows,
    }
}
