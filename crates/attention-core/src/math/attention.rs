//! Standard scaled dot-product attention, head by head, as in "Attention Is All You Need":
//! Attention(Q, K, V) = softmax(QKᵀ / (√d_k · T) + M) V, the scores shaped as
//! [`crate::math::scoring`] says (positions, a soft-cap, a sink logit) when asked.

use crate::math::gemm::linear;
use ndarray::{Array2, ArrayView2, Axis, s};

use crate::math::gemm::{Operand, matmul_nn, matmul_nt};
use crate::math::mask::Mask;
use crate::math::scoring::{Scoring, Shaping, Side};
use crate::math::softmax::masked_softmax_row;
use crate::math::weights::{Dims, Weights};

/// Q, K and V of every head: the inputs multiplied by W_Q, W_K and W_V once.
#[derive(Debug, Clone, PartialEq)]
pub struct Projections {
    /// [seq_len, n_heads·d_k] = X_q · W_Q (+ b_q)
    pub q: Array2<f32>,
    /// [key_len, n_kv_heads·d_k] = X_kv · W_K
    pub k: Array2<f32>,
    /// [key_len, n_kv_heads·d_v] = X_kv · W_V
    pub v: Array2<f32>,
}

impl Projections {
    /// `x_q` gives the queries; `x_kv` the keys and values (the same matrix in self-attention).
    pub fn new(x_q: ArrayView2<f32>, x_kv: ArrayView2<f32>, weights: &Weights) -> Self {
        let mut projections = Self {
            q: linear(x_q, weights.w_q.view()),
            k: linear(x_kv, weights.w_k.view()),
            v: linear(x_kv, weights.w_v.view()),
        };
        if let Some(biases) = &weights.biases {
            projections.q += &biases.q;
            projections.k += &biases.k;
            projections.v += &biases.v;
        }
        projections
    }

    /// What head `head` reads: its K/V group, its queries [seq_len, d_k], and that group's keys
    /// [key_len, d_k] and values [key_len, d_v].
    pub fn head(
        &self,
        dims: &Dims,
        head: usize,
    ) -> (
        usize,
        ArrayView2<'_, f32>,
        ArrayView2<'_, f32>,
        ArrayView2<'_, f32>,
    ) {
        let group = dims.kv_group(head);
        (
            group,
            self.head_q(dims, head),
            self.group_k(dims, group),
            self.group_v(dims, group),
        )
    }

    /// [seq_len, d_k]: columns h·d_k..(h+1)·d_k of Q, like PyTorch's `view(n, h, d_k)`.
    pub fn head_q(&self, dims: &Dims, head: usize) -> ArrayView2<'_, f32> {
        self.q.slice(s![.., head * dims.d_k..(head + 1) * dims.d_k])
    }

    /// [key_len, d_k]: the keys of K/V head `group`.
    pub fn group_k(&self, dims: &Dims, group: usize) -> ArrayView2<'_, f32> {
        self.k
            .slice(s![.., group * dims.d_k..(group + 1) * dims.d_k])
    }

    /// [key_len, d_v]: the values of K/V head `group`.
    pub fn group_v(&self, dims: &Dims, group: usize) -> ArrayView2<'_, f32> {
        self.v
            .slice(s![.., group * dims.d_v..(group + 1) * dims.d_v])
    }
}

/// Q and K as the scores read them: each head's rows through QK-norm and RoPE when those apply
/// (see [`crate::math::scoring`]); else the projections themselves. Queries and keys sit at their
/// row indices (cross-attention's keys at their own), plus the offset.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredQk {
    pub q: Option<Array2<f32>>,
    pub k: Option<Array2<f32>>,
}

impl ScoredQk {
    pub fn new(projections: &Projections, shaping: &Shaping, d_k: usize) -> Self {
        Self {
            q: shaping.prepare(projections.q.view(), d_k, 0, Side::Query),
            k: shaping.prepare(projections.k.view(), d_k, 0, Side::Key),
        }
    }

    /// Head `head`'s queries as scored [seq_len, d_k].
    pub fn q<'a>(
        &'a self,
        projections: &'a Projections,
        dims: &Dims,
        head: usize,
    ) -> ArrayView2<'a, f32> {
        match &self.q {
            Some(q) => q.slice(s![.., head * dims.d_k..(head + 1) * dims.d_k]),
            None => projections.head_q(dims, head),
        }
    }

    /// K/V head `group`'s keys as scored [key_len, d_k].
    pub fn k<'a>(
        &'a self,
        projections: &'a Projections,
        dims: &Dims,
        group: usize,
    ) -> ArrayView2<'a, f32> {
        match &self.k {
            Some(k) => k.slice(s![.., group * dims.d_k..(group + 1) * dims.d_k]),
            None => projections.group_k(dims, group),
        }
    }
}

/// Every intermediate of one head.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadAttention {
    /// [seq_len, key_len] = QKᵀ · scale (or the shaped scores), before the mask (masked cells
    /// keep their value here).
    pub scores: Array2<f32>,
    /// [seq_len, key_len] = softmax over the allowed keys; exactly 0 where masked.
    pub weights: Array2<f32>,
    /// [seq_len, d_v] = weights · V
    pub output: Array2<f32>,
    /// Queries whose every key is masked: their weights and output are all zero.
    pub fully_masked_rows: Vec<usize>,
}

/// One head with every intermediate kept; `scoring` turns q·k into scores (1 / (√d_k · T) in
/// 2017's attention). q: [seq_len, d_k], k: [key_len, d_k], v: [key_len, d_v], both already
/// through QK-norm and RoPE when those apply.
pub fn attend(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
) -> HeadAttention {
    let mut scores = Array2::zeros((q.nrows(), k.nrows()));
    matmul_nt(scoring.product_scale(), q, k, 0.0, &mut scores.view_mut());
    scoring.finish(scores.view_mut(), 0, 0);
    let mut weights = Array2::zeros(scores.raw_dim());
    let cols = 0..k.nrows();
    let fully_masked_rows = softmax_rows(scores.view(), 0, mask, cols, scoring.sink, &mut weights);
    let mut output = Array2::zeros((q.nrows(), v.ncols()));
    matmul_nn(1.0, weights.view(), v, 0.0, &mut output.view_mut());
    HeadAttention {
        scores,
        weights,
        output,
        fully_masked_rows,
    }
}

/// How many query rows the memory-lean path handles at once: [ROW_CHUNK, key_len] of scratch.
const ROW_CHUNK: usize = 64;

/// One head's output only, computed in chunks of rows so that no [seq_len, key_len] matrix is
/// ever held: O(key_len) extra memory per row, and only the keys a chunk's queries may see
/// ([`Mask::visible_span`]: under a causal mask, half the work). The numbers of [`attend`], up to
/// the order of the products' additions.
pub fn attend_output(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    scoring: &Scoring,
    mask: &Mask,
) -> (Array2<f32>, Vec<usize>) {
    let mut output = Array2::zeros((q.nrows(), v.ncols()));
    let mut fully_masked_rows = Vec::new();
    let whole = (Operand::keys(k), Operand::values(v));
    for (chunk, q_chunk) in q.axis_chunks_iter(Axis(0), ROW_CHUNK).enumerate() {
        let first_row = chunk * ROW_CHUNK;
        let rows = first_row..first_row + q_chunk.nrows();
        let span = mask.visible_span(rows.clone());
        if span.is_empty() {
            fully_masked_rows.extend(rows);
            continue; // every key hidden: these rows stay zero
        }
        // The keys and values of the span (the whole head's, packed once, when it is all keys).
        let part;
        let (keys, values) = if span == (0..k.nrows()) {
            (&whole.0, &whole.1)
        } else {
            part = (
                Operand::keys(k.slice(s![span.clone(), ..])),
                Operand::values(v.slice(s![span.clone(), ..])),
            );
            (&part.0, &part.1)
        };
        let mut scores = Array2::zeros((q_chunk.nrows(), span.len()));
        keys.multiply(
            scoring.product_scale(),
            q_chunk,
            0.0,
            &mut scores.view_mut(),
        );
        scoring.finish(scores.view_mut(), first_row, span.start);
        let mut weights = Array2::zeros(scores.raw_dim());
        fully_masked_rows.extend(softmax_rows(
            scores.view(),
            first_row,
            mask,
            span.clone(),
            scoring.sink,
            &mut weights,
        ));
        values.multiply(
            1.0,
            weights.view(),
            0.0,
            &mut output.slice_mut(s![rows, ..]),
        );
    }
    (output, fully_masked_rows)
}

/// Softmax of each row of `scores` (rows first_row.. of the full matrix, keys `cols`) into
/// `weights`; returns the rows whose every key is masked.
fn softmax_rows(
    scores: ArrayView2<f32>,
    first_row: usize,
    mask: &Mask,
    cols: std::ops::Range<usize>,
    sink: Option<f32>,
    weights: &mut Array2<f32>,
) -> Vec<usize> {
    let mut fully_masked_rows = Vec::new();
    for (r, (score_row, weight_row)) in scores
        .outer_iter()
        .zip(weights.outer_iter_mut())
        .enumerate()
    {
        let i = first_row + r;
        let keys = mask.row_keys(i, cols.clone());
        if !masked_softmax_row(score_row, &keys, sink, weight_row) {
            fully_masked_rows.push(i);
        }
    }
    fully_masked_rows
}
