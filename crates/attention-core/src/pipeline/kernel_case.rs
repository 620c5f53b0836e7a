//! The attention kernel as issue 24 measures it: one head of n queries and keys of d dimensions,
//! no mask, QKᵀ + softmax + ·V, computed the two ways the lab computes it (the standard pass that
//! keeps the n² matrices, and FlashAttention's tiles). The native benchmark
//! (`cargo bench --bench attention -- kernel`) and the page's harness (`attentionLab.kernelBench`,
//! `tests/e2e/kernel_bench.mjs`) time the same functions on the same numbers.

use ndarray::Array2;

use crate::math::attention::attend;
use crate::math::flash::flash_attention;
use crate::math::mask::{Mask, MaskSpec};
use crate::math::rng::SplitMix64;
use crate::math::scoring::Scoring;
use crate::pipeline::overview::{Overview, attend_overview};

/// The largest n and d the page's harness takes (a 4096² head is 64 MiB a matrix).
pub const MAX_N: usize = 4096;
pub const MAX_D: usize = 256;

/// One head's seeded Q, K and V (uniform in ±1), and how it is scored.
#[derive(Debug, Clone)]
pub struct KernelCase {
    pub q: Array2<f32>,
    pub k: Array2<f32>,
    pub v: Array2<f32>,
    pub scoring: Scoring,
    pub mask: Mask,
}

impl KernelCase {
    /// n × d each, from `seed`; `None` outside 1 ≤ n ≤ [`MAX_N`], 1 ≤ d ≤ [`MAX_D`].
    pub fn new(n: usize, d: usize, seed: u64) -> Option<Self> {
        if !(1..=MAX_N).contains(&n) || !(1..=MAX_D).contains(&d) {
            return None;
        }
        let mut rng = SplitMix64::new(seed);
        let mut matrix = || Array2::from_shape_fn((n, d), |_| rng.next_symmetric(1.0) as f32);
        let (q, k, v) = (matrix(), matrix(), matrix());
        Some(Self {
            q,
            k,
            v,
            scoring: Scoring::plain(1.0 / (d as f32).sqrt()),
            mask: Mask::unmasked(n, n),
        })
    }

    /// The same case under a causal mask: each query sees the keys up to its own.
    pub fn causal(mut self) -> Self {
        let (n, m) = (self.q.nrows(), self.k.nrows());
        self.mask = Mask::new_unchecked(MaskSpec::Causal, n, m);
        self
    }

    /// The floating-point operations of the two products, 2·n²·d each (the n² exponentials and
    /// the rest of the softmax are not counted).
    pub fn flops(&self) -> f64 {
        let (n, d) = self.q.dim();
        4.0 * (n * n) as f64 * d as f64
    }

    /// The standard pass: scores, weights and output, the n² matrices kept.
    pub fn standard(&self) -> Array2<f32> {
        attend(
            self.q.view(),
            self.k.view(),
            self.v.view(),
            &self.scoring,
            &self.mask,
        )
        .output
    }

    /// The pass the page's workers make over a long head instead of the standard one: the same
    /// output, and an overview of the n² matrices ([`attend_overview`]) instead of the matrices.
    pub fn overview(&self) -> (Array2<f32>, Overview) {
        attend_overview(
            self.q.view(),
            self.k.view(),
            self.v.view(),
            &self.scoring,
            &self.mask,
        )
    }

    /// FlashAttention in `block` × `block` tiles, no steps recorded.
    pub fn flash(&self, block: usize) -> Array2<f32> {
        flash_attention(
            self.q.view(),
            self.k.view(),
            self.v.view(),
            &self.scoring,
            &self.mask,
            (block.max(1), block.max(1)),
            false,
        )
        .output
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::trace::max_abs_diff;

    #[test]
    fn both_ways_give_the_same_output_and_bad_sizes_are_refused() {
        let case = KernelCase::new(100, 16, 7).unwrap();
        assert_eq!(case.flops(), 4.0 * 100.0 * 100.0 * 16.0);
        let standard = case.standard();
        for block in [1, 16, 64, 1000] {
            assert!(max_abs_diff(standard.view(), case.flash(block).view()) < 1e-5);
        }
        // The long head's pass and FlashAttention agree with the standard pass, masked or not.
        for case in [case.clone(), case.causal()] {
            let standard = case.standard();
            assert!(max_abs_diff(standard.view(), case.overview().0.view()) < 1e-5);
            assert!(max_abs_diff(standard.view(), case.flash(16).view()) < 1e-5);
        }
        assert!(KernelCase::new(0, 16, 0).is_none());
        assert!(KernelCase::new(MAX_N + 1, 16, 0).is_none());
        assert!(KernelCase::new(8, MAX_D + 1, 0).is_none());
        // Seeded: the same numbers every time and everywhere.
        assert_eq!(
            KernelCase::new(8, 4, 3).unwrap().q,
            KernelCase::new(8, 4, 3).unwrap().q
        );
    }
}
