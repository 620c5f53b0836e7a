//! A model's large matrices — its MLPs, its token embedding, its LM head — kept in the number
//! type their file stores them in (f32, or bf16 and f16 as 16 bits), and computed in f32: a
//! half-precision number is turned into f32 exactly as it is read, a block of rows at a time,
//! never the whole matrix. So a bf16 model takes half the memory a copy in f32 would (a 1 B
//! model: 2 GB, not 4 GB), and its numbers are the same: every product sees exactly the f32 value
//! of each stored number.
//!
//! The attention's own weights (the lab's [`crate::math::weights::Weights`], a fifth of a model
//! of GPT-2's shape and less of a Llama's) stay f32: every view of the pipeline reads them.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, s};

pub use crate::io::half::Half;
use crate::math::gemm::{STREAMED_ROWS, matmul_nn, matmul_nt};

/// Rows of a half-precision matrix turned into f32 at a time by its products (a 768-wide
/// block is 768 KiB).
pub const BLOCK_ROWS: usize = 256;

/// A matrix [rows, cols], row-major, in its file's number type.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    F32(Array2<f32>),
    Half {
        bits: Vec<u16>,
        rows: usize,
        cols: usize,
        kind: Half,
    },
}

impl From<Array2<f32>> for Stored {
    fn from(matrix: Array2<f32>) -> Self {
        Self::F32(matrix)
    }
}

impl Stored {
    /// `bits` [rows, cols], row-major, of type `kind`. `None` when their count is not rows × cols.
    pub fn half(bits: Vec<u16>, rows: usize, cols: usize, kind: Half) -> Option<Self> {
        (cols > 0 && rows.checked_mul(cols) == Some(bits.len())).then_some(Self::Half {
            bits,
            rows,
            cols,
            kind,
        })
    }

    /// (rows, cols)
    pub fn dim(&self) -> (usize, usize) {
        match self {
            Self::F32(m) => m.dim(),
            Self::Half { rows, cols, .. } => (*rows, *cols),
        }
    }

    pub fn nrows(&self) -> usize {
        self.dim().0
    }

    pub fn ncols(&self) -> usize {
        self.dim().1
    }

    /// How many numbers it holds.
    pub fn len(&self) -> usize {
        let (rows, cols) = self.dim();
        rows * cols
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes its numbers take in memory.
    pub fn bytes(&self) -> usize {
        match self {
            Self::F32(m) => m.len() * 4,
            Self::Half { bits, .. } => bits.len() * 2,
        }
    }

    /// The number type it keeps: "f32", "bf16" or "f16".
    pub fn dtype(&self) -> &'static str {
        match self {
            Self::F32(_) => "f32",
            Self::Half { kind, .. } => kind.name(),
        }
    }

    /// Row `i`, as f32.
    pub fn row(&self, i: usize) -> Array1<f32> {
        match self {
            Self::F32(m) => m.row(i).to_owned(),
            Self::Half {
                bits, cols, kind, ..
            } => {
                let mut out = Array1::zeros(*cols);
                if let Some(out) = out.as_slice_mut() {
                    kind.widen(&bits[i * cols..(i + 1) * cols], out);
                }
                out
            }
        }
    }

    /// Rows `ids`, in order, [ids.len(), cols] (a token embedding's rows of a text).
    pub fn gather(&self, ids: &[u32]) -> Array2<f32> {
        match self {
            Self::F32(m) => {
                Array2::from_shape_fn((ids.len(), m.ncols()), |(i, j)| m[[ids[i] as usize, j]])
            }
            Self::Half { cols, .. } => {
                let mut out = Array2::zeros((ids.len(), *cols));
                for (mut row, &id) in out.rows_mut().into_iter().zip(ids) {
                    row.assign(&self.row(id as usize));
                }
                out
            }
        }
    }

    /// The whole matrix in f32 (tests; a copy).
    pub fn to_f32(&self) -> Array2<f32> {
        match self {
            Self::F32(m) => m.clone(),
            Self::Half { rows, .. } => self.block(0, *rows),
        }
    }

    /// Rows `start..end` of a half matrix, as f32.
    fn block(&self, start: usize, end: usize) -> Array2<f32> {
        match self {
            Self::F32(m) => m.slice(s![start..end, ..]).to_owned(),
            Self::Half {
                bits, cols, kind, ..
            } => {
                let mut out = Array2::zeros((end - start, *cols));
                if let Some(slice) = out.as_slice_mut() {
                    kind.widen(&bits[start * cols..end * cols], slice);
                }
                out
            }
        }
    }

    /// x · self: x [m, rows] → [m, cols] (a layer's weights [in, out]), as
    /// [`crate::math::gemm::linear`] computes it. A half matrix is read a block of rows at a
    /// time: one or two rows of x stream each of its rows once; more multiply each block in f32,
    /// adding into the result.
    pub fn linear(&self, x: ArrayView2<f32>) -> Array2<f32> {
        match self {
            Self::F32(m) => crate::math::gemm::linear(x, m.view()),
            Self::Half { .. } => {
                let mut out = Array2::<f32>::zeros((x.nrows(), self.ncols()));
                self.add_rows_product(x, 0, &mut out);
                out
            }
        }
    }

    /// Columns `c0..c1` of x · self, [m, c1 − c0] (a slice of an MLP's hidden units): for a
    /// half matrix, each number of the result computed exactly as [`Stored::linear`] computes
    /// it (the same blocks of rows, in the same order), only the slice's columns widened.
    pub fn linear_columns(&self, x: ArrayView2<f32>, c0: usize, c1: usize) -> Array2<f32> {
        let (rows, cols) = self.dim();
        if c0 == 0 && c1 == cols {
            return self.linear(x);
        }
        let width = c1 - c0;
        match self {
            Self::F32(m) => crate::math::gemm::linear(x, m.slice(s![.., c0..c1])),
            Self::Half { bits, kind, .. } => {
                let m = x.nrows();
                let mut out = Array2::<f32>::zeros((m, width));
                if m <= STREAMED_ROWS {
                    for (i, w) in bits.chunks_exact(cols).enumerate() {
                        for (&xi, mut y) in x.column(i).iter().zip(out.rows_mut()) {
                            let Some(y) = y.as_slice_mut() else { continue };
                            kind.add_scaled(xi, &w[c0..c1], y);
                        }
                    }
                    return out;
                }
                let mut start = 0;
                while start < rows {
                    let end = (start + BLOCK_ROWS).min(rows);
                    let mut block = Array2::<f32>::zeros((end - start, width));
                    for (r, mut row) in (start..end).zip(block.rows_mut()) {
                        if let Some(row) = row.as_slice_mut() {
                            kind.widen(&bits[r * cols + c0..r * cols + c1], row);
                        }
                    }
                    let beta = if start == 0 { 0.0 } else { 1.0 };
                    matmul_nn(
                        1.0,
                        x.slice(s![.., start..end]),
                        block.view(),
                        beta,
                        &mut out.view_mut(),
                    );
                    start = end;
                }
                out
            }
        }
    }

    /// Adds x · rows `r0..r0 + x.ncols()` of self into `out` [m, cols] (an MLP's output from a
    /// slice of its hidden units); the slice at row 0 writes `out` rather than adding (as
    /// [`Stored::linear`]'s first block does), so `out` need only be zeroed for one or two rows
    /// of x. Slices that start at multiples of [`BLOCK_ROWS`], taken in order, give
    /// [`Stored::linear`] exactly for a half matrix; for an f32 one, exactly where the product
    /// sums its inner dimension in blocks that the slices' bounds fall between (the page's
    /// kernel: 256), and within f32's rounding of the sum otherwise.
    pub fn add_rows_product(&self, x: ArrayView2<f32>, r0: usize, out: &mut Array2<f32>) {
        let r1 = r0 + x.ncols();
        match self {
            Self::F32(m) if x.nrows() > STREAMED_ROWS => {
                let beta = if r0 == 0 { 0.0 } else { 1.0 };
                matmul_nn(1.0, x, m.slice(s![r0..r1, ..]), beta, &mut out.view_mut());
            }
            Self::F32(m) => {
                // As `gemm::linear` streams one or two rows: each row of the matrix in order.
                for (x_row, mut y) in x.rows().into_iter().zip(out.rows_mut()) {
                    let Some(y) = y.as_slice_mut() else { continue };
                    for (&xi, w_row) in x_row.iter().zip(m.slice(s![r0..r1, ..]).rows()) {
                        for (y, &w) in y.iter_mut().zip(w_row) {
                            *y += xi * w;
                        }
                    }
                }
            }
            Self::Half {
                bits, cols, kind, ..
            } => {
                if x.nrows() <= STREAMED_ROWS {
                    for (i, w) in bits[r0 * cols..r1 * cols].chunks_exact(*cols).enumerate() {
                        for (&xi, mut y) in x.column(i).iter().zip(out.rows_mut()) {
                            let Some(y) = y.as_slice_mut() else { continue };
                            kind.add_scaled(xi, w, y);
                        }
                    }
                    return;
                }
                let mut start = r0;
                while start < r1 {
                    let end = (start + BLOCK_ROWS).min(r1);
                    let block = self.block(start, end);
                    let beta = if start == 0 { 0.0 } else { 1.0 };
                    matmul_nn(
                        1.0,
                        x.slice(s![.., start - r0..end - r0]),
                        block.view(),
                        beta,
                        &mut out.view_mut(),
                    );
                    start = end;
                }
            }
        }
    }

    /// self · v: [rows, cols] · [cols] → [rows] (the LM head's scores of one final-norm row). A
    /// half matrix: each row widened as it is read, in the dot product.
    pub fn dot_vector(&self, v: ArrayView1<f32>) -> Array1<f32> {
        match self {
            Self::F32(m) => m.dot(&v),
            Self::Half {
                bits, cols, kind, ..
            } => match v.as_slice() {
                Some(v) => bits.chunks_exact(*cols).map(|w| kind.dot(w, v)).collect(),
                None => self.dot_vector(v.to_owned().view()),
            },
        }
    }

    /// x · selfᵀ: x [m, cols] → [m, rows] (every position's scores from the LM head).
    pub fn times_transposed(&self, x: ArrayView2<f32>) -> Array2<f32> {
        match self {
            Self::F32(m) => x.dot(&m.t()),
            Self::Half { rows, .. } => {
                let mut out = Array2::<f32>::zeros((x.nrows(), *rows));
                let mut start = 0;
                while start < *rows {
                    let end = (start + 4 * BLOCK_ROWS).min(*rows);
                    let block = self.block(start, end);
                    let mut part = out.slice_mut(s![.., start..end]);
                    if cfg!(target_arch = "wasm32") {
                        matmul_nt(1.0, x, block.view(), 0.0, &mut part);
                    } else {
                        general_mat_mul(1.0, &x, &block.t(), 0.0, &mut part);
                    }
                    start = end;
                }
                out
            }
        }
    }

    /// The same matrix transposed, [cols, rows] (a Llama `Linear`'s [out, in] as the lab's
    /// x · W [in, out]), in its own number type.
    pub fn transposed(self) -> Self {
        match self {
            Self::F32(m) => Self::F32(transpose(m)),
            Self::Half {
                bits,
                rows,
                cols,
                kind,
            } => Self::Half {
                bits: transpose_slice(&bits, rows, cols),
                rows: cols,
                cols: rows,
                kind,
            },
        }
    }
}

/// `m` transposed, in row-major order ([`transpose_slice`]).
pub fn transpose(m: Array2<f32>) -> Array2<f32> {
    let (rows, cols) = m.dim();
    let m = m.as_standard_layout();
    let values = m.as_slice().map(|v| transpose_slice(v, rows, cols));
    match values.and_then(|v| Array2::from_shape_vec((cols, rows), v).ok()) {
        Some(t) => t,
        None => m.t().as_standard_layout().to_owned(),
    }
}

/// The row-major [rows, cols] `values` as row-major [cols, rows], a 64 × 64 tile at a time: a
/// row of the result read from one column is 64 writes to 64 rows, each far from the last, and
/// in the page's WebAssembly memory such a transposition of a Llama MLP, element by element,
/// took minutes.
pub fn transpose_slice<T: Copy + Default>(values: &[T], rows: usize, cols: usize) -> Vec<T> {
    const TILE: usize = 64;
    let mut out = vec![T::default(); values.len()];
    for i0 in (0..rows).step_by(TILE) {
        let i1 = (i0 + TILE).min(rows);
        for j0 in (0..cols).step_by(TILE) {
            let j1 = (j0 + TILE).min(cols);
            for i in i0..i1 {
                let row = &values[i * cols + j0..i * cols + j1];
                for (j, &v) in (j0..j1).zip(row) {
                    out[j * rows + i] = v;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiled_transpose_is_the_transpose() {
        for (rows, cols) in [(1, 1), (3, 130), (130, 67), (64, 64), (65, 129)] {
            let values: Vec<u32> = (0..(rows * cols) as u32).collect();
            let out = transpose_slice(&values, rows, cols);
            for i in 0..rows {
                for j in 0..cols {
                    assert_eq!(out[j * rows + i], values[i * cols + j]);
                }
            }
            let m = Array2::from_shape_fn((rows, cols), |(i, j)| (i * 1000 + j) as f32);
            assert_eq!(transpose(m.clone()), m.t());
        }
    }

    fn pair(rows: usize, cols: usize, kind: Half) -> (Stored, Array2<f32>) {
        let bits: Vec<u16> = (0..rows * cols)
            .map(|i| {
                // Positive numbers of both types' ranges around 1 (no cancellation in the sums).
                let x = ((i * 7919) % 2001) as f32 / 1000.0;
                match kind {
                    Half::Bf16 => (x.to_bits() >> 16) as u16,
                    Half::F16 => 0x3000 + ((i * 7919) % 0x1000) as u16,
                }
            })
            .collect();
        let f32s = Array2::from_shape_fn((rows, cols), |(i, j)| kind.to_f32(bits[i * cols + j]));
        (Stored::half(bits, rows, cols, kind).unwrap(), f32s)
    }

    fn close(a: &Array2<f32>, b: &Array2<f32>) {
        assert_eq!(a.dim(), b.dim());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-4 * (1.0 + y.abs()), "{x} {y}");
        }
    }

    #[test]
    fn half_products_equal_those_of_the_matrix_in_f32() {
        for kind in [Half::Bf16, Half::F16] {
            // More rows than a block, for the blocks' sums.
            let (w, f) = pair(600, 37, kind);
            for m in [1, 2, 3, 9] {
                let x = Array2::from_shape_fn((m, 600), |(i, j)| ((i * 31 + j) % 17) as f32 / 17.0);
                close(&w.linear(x.view()), &x.dot(&f));
                let xt = Array2::from_shape_fn((m, 37), |(i, j)| ((i + j * 3) % 11) as f32 / 11.0);
                close(&w.times_transposed(xt.view()), &xt.dot(&f.t()));
            }
            let v = Array1::from_shape_fn(37, |j| j as f32 / 37.0);
            let got = w.dot_vector(v.view()).insert_axis(ndarray::Axis(0));
            close(&got, &f.dot(&v).insert_axis(ndarray::Axis(0)));
            assert_eq!(w.row(5), f.row(5));
            assert_eq!(w.gather(&[3, 0, 3]).row(2), f.row(3));
            assert_eq!(w.to_f32(), f);
            assert_eq!(w.clone().transposed().to_f32(), f.t());
            assert_eq!(w.bytes(), 600 * 37 * 2);
        }
    }
}
