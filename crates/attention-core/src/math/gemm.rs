//! The two products of attention, QKᵀ and weights · V, as register-tiled SIMD kernels for
//! WebAssembly.
//!
//! Natively, `ndarray`'s `dot` already runs `matrixmultiply`'s AVX2/FMA kernels, chosen at run
//! time; in the browser there is no such choice, and its generic path packs the whole n × n
//! weights matrix before multiplying it by a narrow V. Here, in the manner of BLIS and XNNPACK:
//! - the right-hand matrix is packed once into panels of [`NR`] columns, zero-padded, so that the
//!   kernel reads each panel as one contiguous stream ([`Panels::of_rows`] for Kᵀ, whose columns
//!   are K's rows; [`Panels::of_columns`] for V);
//! - the left-hand matrix (Q, or the weights) is read in place, [`MR`] rows at a time, each
//!   element broadcast into a vector (`v128.load32_splat`);
//! - an MR × NR block of the result lives in 8 SIMD registers for the whole reduction, walked in
//!   chunks of [`KC`] so that a panel's chunk stays in the L1 cache.
//!
//! With the crate feature `relaxed-simd` (the second build of the page's worker, chosen when the
//! browser supports it), the multiply-adds are `f32x4.relaxed_madd`: fused where the machine has
//! FMA. A module with relaxed SIMD does not load where it is unsupported, so only that build has
//! it; the feature turns it on for these functions only (`#[target_feature]`).
//!
//! The same blocked algorithm runs everywhere, with four-lane arrays in place of `v128` off
//! wasm: native tests check it against `ndarray`, and the browser's tests check both wasm builds.
//! [`matmul_nt`] and [`matmul_nn`] choose it in wasm and `ndarray`'s GEMM natively.

use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, s};

/// Rows of the result a kernel call computes.
pub const MR: usize = 4;
/// Columns of the result a kernel call computes: two four-lane vectors.
pub const NR: usize = 8;
/// The reduction is walked in chunks of this many steps (a panel's chunk: 8 KiB).
pub const KC: usize = 256;

/// Which kernels the products run on in this build.
pub fn kernels() -> &'static str {
    if cfg!(all(target_arch = "wasm32", feature = "relaxed-simd")) {
        "wasm relaxed SIMD (fused multiply-add)"
    } else if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
        "wasm simd128"
    } else if cfg!(target_arch = "wasm32") {
        "wasm scalar"
    } else {
        "matrixmultiply (native)"
    }
}

/// c = alpha · a · bᵀ + beta · c: a [n, k], b [m, k] (the scores: Q [n, d], K [m, d]).
pub fn matmul_nt(
    alpha: f32,
    a: ArrayView2<f32>,
    b: ArrayView2<f32>,
    beta: f32,
    c: &mut ArrayViewMut2<f32>,
) {
    Operand::keys(b).multiply(alpha, a, beta, c);
}

/// c = alpha · a · b + beta · c: a [n, k], b [k, m] (the output: weights [n, m], V [m, d]).
pub fn matmul_nn(
    alpha: f32,
    a: ArrayView2<f32>,
    b: ArrayView2<f32>,
    beta: f32,
    c: &mut ArrayViewMut2<f32>,
) {
    Operand::values(b).multiply(alpha, a, beta, c);
}

/// Rows up to which [`linear`] walks the weights row by row instead of packing them.
pub const STREAMED_ROWS: usize = 2;

/// x · w for a layer's weights w [k, n] (a projection, an MLP's matrix): x [m, k].
///
/// One or two rows (a token generated with the KV cache) stream w once, each of its rows scaled
/// and added into the result (`y += x_i · w_i`, contiguous, vectorised): packing w first, as a
/// product of many rows does, would read it twice and write it once for a single row, and
/// generation is bound by reading the weights. More rows go to [`matmul_nn`] (the SIMD kernels
/// in wasm, `ndarray`'s GEMM natively).
pub fn linear(x: ArrayView2<f32>, w: ArrayView2<f32>) -> Array2<f32> {
    let (m, n) = (x.nrows(), w.ncols());
    let mut out = Array2::<f32>::zeros((m, n));
    if m <= STREAMED_ROWS && w.is_standard_layout() {
        for (x_row, mut y) in x.rows().into_iter().zip(out.rows_mut()) {
            let Some(y) = y.as_slice_mut() else {
                continue; // a fresh array's rows are contiguous
            };
            for (&xi, w_row) in x_row.iter().zip(w.rows()) {
                let Some(w_row) = w_row.to_slice() else {
                    continue; // standard layout: never
                };
                for (y, &w) in y.iter_mut().zip(w_row) {
                    *y += xi * w;
                }
            }
        }
        return out;
    }
    matmul_nn(1.0, x, w, 0.0, &mut out.view_mut());
    out
}

/// A head's keys or values as the right-hand side of products with many chunks of rows (the
/// memory-lean paths compute 64 queries at a time): packed once in wasm, as they are.
#[derive(Debug, Clone)]
pub struct Operand<'a> {
    matrix: ArrayView2<'a, f32>,
    /// The matrix is the product's bᵀ (keys), not its b (values).
    transposed: bool,
    panels: Option<Panels>,
}

impl<'a> Operand<'a> {
    /// k [m, d]: products a · kᵀ (scores).
    pub fn keys(k: ArrayView2<'a, f32>) -> Self {
        let panels = cfg!(target_arch = "wasm32").then(|| Panels::of_rows(k));
        Self {
            matrix: k,
            transposed: true,
            panels,
        }
    }

    /// v [m, d_v]: products a · v (weights · V).
    pub fn values(v: ArrayView2<'a, f32>) -> Self {
        let panels = cfg!(target_arch = "wasm32").then(|| Panels::of_columns(v));
        Self {
            matrix: v,
            transposed: false,
            panels,
        }
    }

    /// c = alpha · a · (kᵀ or v) + beta · c.
    pub fn multiply(&self, alpha: f32, a: ArrayView2<f32>, beta: f32, c: &mut ArrayViewMut2<f32>) {
        match &self.panels {
            Some(panels) if tiled(&a, c) => gemm(alpha, a, panels.view(), beta, c),
            _ if self.transposed => general_mat_mul(alpha, &a, &self.matrix.t(), beta, c),
            _ => general_mat_mul(alpha, &a, &self.matrix, beta, c),
        }
    }

    /// c = alpha · a · v[..a's columns] + beta · c: weights · V over the leading keys only (a's
    /// columns), the rest of whose weights are zero. The same numbers as [`Operand::multiply`] of
    /// the zero-padded weights: the products' chunks still start at the first key, and a zero
    /// product added leaves a sum as it was.
    pub fn multiply_leading(
        &self,
        alpha: f32,
        a: ArrayView2<f32>,
        beta: f32,
        c: &mut ArrayViewMut2<f32>,
    ) {
        assert!(
            !self.transposed,
            "the leading steps of weights · V, not of keys"
        );
        let steps = a.ncols();
        match &self.panels {
            Some(panels) if tiled(&a, c) => gemm(alpha, a, panels.view().steps(0..steps), beta, c),
            _ => general_mat_mul(alpha, &a, &self.matrix.slice(s![..steps, ..]), beta, c),
        }
    }
}

/// The kernels read a's rows and write c's rows in place: both need unit column strides.
pub fn tiled(a: &ArrayView2<f32>, c: &ArrayViewMut2<f32>) -> bool {
    (a.ncols() <= 1 || a.strides()[1] == 1) && (c.ncols() <= 1 || c.strides()[1] == 1)
}

/// A right-hand matrix [k, m] packed into ⌈m / NR⌉ panels of [k, NR], each row of a panel the NR
/// columns it holds (the last panel's missing columns are zeros).
#[derive(Debug, Clone)]
pub struct Panels {
    data: Vec<f32>,
    /// The reduction length.
    k: usize,
    /// The columns of the product.
    m: usize,
}

impl Panels {
    /// bᵀ packed, for b [m, k]: panel p's row t holds b[p·NR + j, t].
    pub fn of_rows(b: ArrayView2<f32>) -> Self {
        let (m, k) = b.dim();
        let mut data = vec![0.0; m.div_ceil(NR) * k * NR];
        for (row, values) in b.outer_iter().enumerate() {
            let (panel, lane) = (row / NR, row % NR);
            let base = panel * k * NR + lane;
            for (t, &x) in values.iter().enumerate() {
                data[base + t * NR] = x;
            }
        }
        Self { data, k, m }
    }

    /// b packed, for b [k, m]: panel p's row t holds b[t, p·NR + j].
    pub fn of_columns(b: ArrayView2<f32>) -> Self {
        let (k, m) = b.dim();
        let mut data = vec![0.0; m.div_ceil(NR) * k * NR];
        for (t, values) in b.outer_iter().enumerate() {
            for (column, &x) in values.iter().enumerate() {
                let (panel, lane) = (column / NR, column % NR);
                data[panel * k * NR + t * NR + lane] = x;
            }
        }
        Self { data, k, m }
    }

    /// All of it, as [`gemm`] reads it.
    pub fn view(&self) -> PanelsView<'_> {
        PanelsView {
            data: &self.data,
            stride: self.k * NR,
            k0: 0,
            k: self.k,
            m: self.m,
        }
    }
}

/// Some columns and steps of the reduction of [`Panels`]: FlashAttention's tiles read their keys
/// and values from the head's panels, packed once, instead of packing every tile.
#[derive(Debug, Clone, Copy)]
pub struct PanelsView<'a> {
    /// From the first panel of the view on.
    data: &'a [f32],
    /// Values from one panel to the next.
    stride: usize,
    /// The first step of the reduction, and how many.
    k0: usize,
    k: usize,
    /// The columns of the product.
    m: usize,
}

impl<'a> PanelsView<'a> {
    /// Columns `cols` of the product; `cols.start` must be a multiple of [`NR`].
    pub fn columns(self, cols: std::ops::Range<usize>) -> Self {
        assert!(
            cols.start.is_multiple_of(NR) && cols.start <= cols.end && cols.end <= self.m,
            "columns {cols:?} of {} on panel boundaries",
            self.m
        );
        let first = (cols.start / NR * self.stride).min(self.data.len());
        Self {
            data: &self.data[first..],
            m: cols.len(),
            ..self
        }
    }

    /// Steps `steps` of the reduction (rows of V, say).
    pub fn steps(self, steps: std::ops::Range<usize>) -> Self {
        assert!(steps.start <= steps.end && steps.end <= self.k);
        Self {
            k0: self.k0 + steps.start,
            k: steps.len(),
            ..self
        }
    }

    /// Steps `from..from + depth` of panel `p`.
    fn panel(&self, p: usize, from: usize, depth: usize) -> &'a [f32] {
        let start = p * self.stride + (self.k0 + from) * NR;
        &self.data[start..start + depth * NR]
    }
}

/// c = alpha · a · B + beta · c with B packed; a's and c's rows contiguous (`tiled`).
pub fn gemm(alpha: f32, a: ArrayView2<f32>, b: PanelsView, beta: f32, c: &mut ArrayViewMut2<f32>) {
    assert!(tiled(&a, c), "gemm: a's and c's rows must be contiguous");
    let (n, k) = a.dim();
    assert_eq!(k, b.k, "gemm: a's columns must be B's rows");
    assert_eq!(c.dim(), (n, b.m), "gemm: c must be [a's rows, B's columns]");
    if n == 0 || b.m == 0 {
        return;
    }
    if k == 0 {
        c.map_inplace(|x| *x = if beta == 0.0 { 0.0 } else { beta * *x });
        return;
    }
    let a_stride = if n > 1 { a.strides()[0] } else { 0 };
    let c_stride = if n > 1 { c.strides()[0] } else { 0 };
    let (a_ptr, c_ptr) = (a.as_ptr(), c.as_mut_ptr());
    for k0 in (0..k).step_by(KC) {
        let depth = KC.min(k - k0);
        // The first chunk scales what c held by beta; later chunks add to it.
        let beta = if k0 == 0 { beta } else { 1.0 };
        for i0 in (0..n).step_by(MR) {
            let rows = MR.min(n - i0);
            for p in 0..b.m.div_ceil(NR) {
                let panel = b.panel(p, k0, depth);
                let cols = NR.min(b.m - p * NR);
                // SAFETY: rows i0..i0+rows of a and c exist (a's and c's row strides are those
                // of their views, columns contiguous as `tiled` checked); a's columns
                // k0..k0+depth and c's columns p·NR..p·NR+cols are in bounds.
                unsafe {
                    let a_rows = a_ptr.offset(i0 as isize * a_stride).add(k0);
                    let c_rows = c_ptr.offset(i0 as isize * c_stride).add(p * NR);
                    let tile = Tile {
                        a: a_rows,
                        a_stride,
                        c: c_rows,
                        c_stride,
                        cols,
                    };
                    match rows {
                        4 => kernel::<4>(&tile, panel, depth, alpha, beta),
                        3 => kernel::<3>(&tile, panel, depth, alpha, beta),
                        2 => kernel::<2>(&tile, panel, depth, alpha, beta),
                        _ => kernel::<1>(&tile, panel, depth, alpha, beta),
                    }
                }
            }
        }
    }
}

/// Where one kernel call reads and writes.
struct Tile {
    a: *const f32,
    a_stride: isize,
    c: *mut f32,
    c_stride: isize,
    cols: usize,
}

/// An R × NR block of c: its R rows of a (depth steps from `tile.a`) against one panel's chunk.
///
/// # Safety
/// `tile.a` row r (r < R) must hold `depth` readable values, `tile.c` row r `tile.cols` writable
/// ones; `panel` holds depth × NR values.
#[cfg_attr(
    all(target_arch = "wasm32", feature = "relaxed-simd"),
    target_feature(enable = "relaxed-simd")
)]
#[inline]
unsafe fn kernel<const R: usize>(tile: &Tile, panel: &[f32], depth: usize, alpha: f32, beta: f32) {
    debug_assert!(panel.len() >= depth * NR);
    let mut acc = [[F4::zero(); 2]; R];
    let b = panel.as_ptr();
    for t in 0..depth {
        // SAFETY: t < depth: within the panel's chunk and each row of a.
        unsafe {
            let b0 = F4::load(b.add(t * NR));
            let b1 = F4::load(b.add(t * NR + 4));
            for (r, acc) in acc.iter_mut().enumerate() {
                let x = F4::splat(tile.a.offset(r as isize * tile.a_stride).add(t));
                acc[0] = x.mul_add(b0, acc[0]);
                acc[1] = x.mul_add(b1, acc[1]);
            }
        }
    }
    let alpha = F4::splat_value(alpha);
    let beta_v = F4::splat_value(beta);
    for (r, acc) in acc.iter().enumerate() {
        // SAFETY: row r < R of c, columns < cols ≤ NR.
        unsafe {
            let row = tile.c.offset(r as isize * tile.c_stride);
            if tile.cols == NR {
                for (half, &sum) in acc.iter().enumerate() {
                    let out = row.add(4 * half);
                    let scaled = sum.mul(alpha);
                    let value = if beta == 0.0 {
                        scaled
                    } else {
                        F4::load(out).mul_add(beta_v, scaled)
                    };
                    value.store(out);
                }
            } else {
                let mut lanes = [0.0f32; NR];
                acc[0].mul(alpha).store(lanes.as_mut_ptr());
                acc[1].mul(alpha).store(lanes.as_mut_ptr().add(4));
                for (j, &x) in lanes.iter().enumerate().take(tile.cols) {
                    let out = row.add(j);
                    *out = if beta == 0.0 { x } else { *out * beta + x };
                }
            }
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod lanes {
    use core::arch::wasm32::*;

    /// Four f32 lanes: one `v128`.
    #[derive(Clone, Copy)]
    pub struct F4(v128);

    impl F4 {
        #[inline(always)]
        pub fn zero() -> Self {
            Self(f32x4_splat(0.0))
        }

        #[inline(always)]
        pub fn splat_value(x: f32) -> Self {
            Self(f32x4_splat(x))
        }

        /// # Safety
        /// `p` must be readable for one f32.
        #[inline(always)]
        pub unsafe fn splat(p: *const f32) -> Self {
            Self(unsafe { v128_load32_splat(p.cast()) })
        }

        /// # Safety
        /// `p` must be readable for four f32 (any alignment).
        #[inline(always)]
        pub unsafe fn load(p: *const f32) -> Self {
            Self(unsafe { v128_load(p.cast()) })
        }

        /// # Safety
        /// `p` must be writable for four f32 (any alignment).
        #[inline(always)]
        pub unsafe fn store(self, p: *mut f32) {
            unsafe { v128_store(p.cast(), self.0) }
        }

        #[inline(always)]
        pub fn mul(self, other: Self) -> Self {
            Self(f32x4_mul(self.0, other.0))
        }

        /// self · b + c: one rounding with relaxed SIMD's fused multiply-add, where the machine
        /// has one; two without.
        #[cfg(feature = "relaxed-simd")]
        #[target_feature(enable = "relaxed-simd")]
        #[inline]
        pub fn mul_add(self, b: Self, c: Self) -> Self {
            Self(f32x4_relaxed_madd(self.0, b.0, c.0))
        }

        #[cfg(not(feature = "relaxed-simd"))]
        #[inline(always)]
        pub fn mul_add(self, b: Self, c: Self) -> Self {
            Self(f32x4_add(f32x4_mul(self.0, b.0), c.0))
        }
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod lanes {
    /// Four f32 lanes as an array: the same algorithm where there is no `v128`.
    #[derive(Clone, Copy)]
    pub struct F4([f32; 4]);

    impl F4 {
        #[inline(always)]
        pub fn zero() -> Self {
            Self([0.0; 4])
        }

        #[inline(always)]
        pub fn splat_value(x: f32) -> Self {
            Self([x; 4])
        }

        /// # Safety
        /// `p` must be readable for one f32.
        #[inline(always)]
        pub unsafe fn splat(p: *const f32) -> Self {
            Self([unsafe { *p }; 4])
        }

        /// # Safety
        /// `p` must be readable for four f32.
        #[inline(always)]
        pub unsafe fn load(p: *const f32) -> Self {
            Self(unsafe { p.cast::<[f32; 4]>().read_unaligned() })
        }

        /// # Safety
        /// `p` must be writable for four f32.
        #[inline(always)]
        pub unsafe fn store(self, p: *mut f32) {
            unsafe { p.cast::<[f32; 4]>().write_unaligned(self.0) }
        }

        #[inline(always)]
        pub fn mul(self, other: Self) -> Self {
            Self(std::array::from_fn(|i| self.0[i] * other.0[i]))
        }

        #[inline(always)]
        pub fn mul_add(self, b: Self, c: Self) -> Self {
            Self(std::array::from_fn(|i| self.0[i] * b.0[i] + c.0[i]))
        }
    }
}

use lanes::F4;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::rng::SplitMix64;
    use ndarray::{Array2, s};

    fn matrix(rows: usize, cols: usize, seed: u64) -> Array2<f32> {
        let mut rng = SplitMix64::new(seed);
        Array2::from_shape_fn((rows, cols), |_| rng.next_symmetric(1.0) as f32)
    }

    fn close(a: &Array2<f32>, b: &Array2<f32>) -> bool {
        a.dim() == b.dim()
            && a.iter()
                .zip(b)
                .all(|(x, y)| (x - y).abs() <= 1e-5 * (1.0 + y.abs()))
    }

    /// Every remainder of MR and NR, a reduction longer than KC, alpha and beta, views with row
    /// strides (one head's columns of Q) — the kernels against ndarray's product.
    #[test]
    fn the_tiled_kernels_equal_ndarrays_products() {
        for (n, k, m) in [
            (1, 1, 1),
            (5, 3, 9),
            (4, 16, 8),
            (13, 64, 29),
            (7, 300, 17),
            (64, 600, 16),
        ] {
            let a = matrix(n, k, 1);
            let b_rows = matrix(m, k, 2);
            let b_cols = matrix(k, m, 3);
            let c0 = matrix(n, m, 4);
            for (alpha, beta) in [(1.0, 0.0), (0.25, 1.0), (2.0, 0.5)] {
                let mut c = c0.clone();
                gemm(
                    alpha,
                    a.view(),
                    Panels::of_rows(b_rows.view()).view(),
                    beta,
                    &mut c.view_mut(),
                );
                assert!(
                    close(&c, &(alpha * a.dot(&b_rows.t()) + beta * &c0)),
                    "nt {n}×{k}×{m}"
                );
                let mut c = c0.clone();
                gemm(
                    alpha,
                    a.view(),
                    Panels::of_columns(b_cols.view()).view(),
                    beta,
                    &mut c.view_mut(),
                );
                assert!(
                    close(&c, &(alpha * a.dot(&b_cols) + beta * &c0)),
                    "nn {n}×{k}×{m}"
                );
            }
        }
        // One head's columns of a wider Q, and a result written into part of a wider matrix.
        let wide = matrix(10, 12, 5);
        let head = wide.slice(s![.., 4..8]);
        let keys = matrix(6, 4, 6);
        let mut out = Array2::zeros((10, 9));
        gemm(
            1.0,
            head,
            Panels::of_rows(keys.view()).view(),
            0.0,
            &mut out.slice_mut(s![.., 2..8]),
        );
        assert!(close(
            &out.slice(s![.., 2..8]).to_owned(),
            &head.dot(&keys.t())
        ));
        assert!(out.column(0).iter().chain(out.column(8)).all(|&x| x == 0.0));
    }

    /// A tile's products read from the whole head's panels: keys 16..29 of K, rows 8..24 of V.
    #[test]
    fn views_of_panels_are_the_products_of_the_slices() {
        let (q, k, v) = (matrix(5, 6, 10), matrix(29, 6, 11), matrix(40, 11, 12));
        let mut scores = Array2::zeros((5, 13));
        let keys = Panels::of_rows(k.view());
        gemm(
            0.5,
            q.view(),
            keys.view().columns(16..29),
            0.0,
            &mut scores.view_mut(),
        );
        assert!(close(&scores, &(0.5 * q.dot(&k.slice(s![16..29, ..]).t()))));
        let p = matrix(5, 16, 13);
        let acc0 = matrix(5, 11, 14);
        let mut acc = acc0.clone();
        let values = Panels::of_columns(v.view());
        gemm(
            1.0,
            p.view(),
            values.view().steps(8..24),
            1.0,
            &mut acc.view_mut(),
        );
        assert!(close(&acc, &(p.dot(&v.slice(s![8..24, ..])) + &acc0)));
        let mut none = Array2::zeros((5, 0));
        gemm(
            1.0,
            q.view(),
            keys.view().columns(24..24),
            0.0,
            &mut none.view_mut(),
        );
    }

    #[test]
    fn empty_reductions_scale_by_beta_and_dispatch_agrees() {
        let mut c = Array2::from_elem((3, 2), 2.0f32);
        gemm(
            1.0,
            Array2::zeros((3, 0)).view(),
            Panels::of_rows(Array2::zeros((2, 0)).view()).view(),
            0.5,
            &mut c.view_mut(),
        );
        assert!(c.iter().all(|&x| x == 1.0));
        let (a, b) = (matrix(9, 5, 7), matrix(11, 5, 8));
        let mut c = Array2::zeros((9, 11));
        matmul_nt(1.0, a.view(), b.view(), 0.0, &mut c.view_mut());
        assert!(close(&c, &a.dot(&b.t())));
        let mut c = Array2::zeros((9, 5));
        matmul_nn(
            1.0,
            c.clone().view(),
            matrix(5, 5, 9).view(),
            0.0,
            &mut c.view_mut(),
        );
        assert!(c.iter().all(|&x| x == 0.0));
        assert!(!kernels().is_empty());
    }
}
