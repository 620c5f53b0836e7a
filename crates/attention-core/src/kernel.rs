//! The attention kernel as issue 24 measures it: one head of n queries and keys of d dimensions,
//! no mask, QKᵀ + softmax + ·V, computed the two ways the lab computes it (the standard pass that
//! keeps the n² matrices, and FlashAttention's tiles). The native benchmark
//! (`cargo bench --bench attention -- kernel`) and the page's harness (`attentionLab.kernelBench`,
//! `tests/e2e/kernel_bench.mjs`) time the same functions on the same numbers.

use ndarray::Array2;

use crate::attention::attend;
use crate::flash::flash_attention;
use crate::mask::Mask;
use crate::rng::SplitMix64;
use crate::scoring::Scoring;

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

/// The harness both the page (`attentionLab.kernelBench`) and its workers run: `options` is
/// `{n, d, block, runs}` (defaults 1024, 64, 64, 10; runs 1 … 50), `now` a clock in
/// milliseconds. Times the standard pass and FlashAttention `runs` times each on the seeded
/// case, and returns `{ok, n, d, block, flops, kernels, standard_ms: […], flash_ms: […],
/// sample: […]}` — `sample` the standard pass's first output values (at most 4096, row by row),
/// so that two builds' numbers can be compared — or `{ok: false, error}`.
pub fn bench(options: &serde_json::Value, now: &dyn Fn() -> f64) -> serde_json::Value {
    use serde_json::json;
    let number = |name: &str, default: u64| {
        options
            .get(name)
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(default) as usize
    };
    let (n, d, block, runs) = (
        number("n", 1024),
        number("d", 64),
        number("block", 64),
        number("runs", 10),
    );
    if !(1..=50).contains(&runs) || block == 0 {
        return json!({"ok": false, "error": "runs: 1 … 50; block: at least 1"});
    }
    let Some(case) = KernelCase::new(n, d, 24) else {
        return json!({"ok": false, "error": format!("n: 1 … {MAX_N}, d: 1 … {MAX_D}")});
    };
    let time = |f: &dyn Fn()| {
        (0..runs)
            .map(|_| {
                let start = now();
                f();
                now() - start
            })
            .collect::<Vec<f64>>()
    };
    let standard_ms = time(&|| {
        std::hint::black_box(case.standard());
    });
    let flash_ms = time(&|| {
        std::hint::black_box(case.flash(block));
    });
    let sample: Vec<f32> = case.standard().iter().take(SAMPLE).copied().collect();
    json!({
        "ok": true, "n": n, "d": d, "block": block, "flops": case.flops(),
        "kernels": crate::gemm::kernels(), "standard_ms": standard_ms, "flash_ms": flash_ms,
        "sample": sample,
    })
}

/// How many output values [`bench`] returns.
const SAMPLE: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::max_abs_diff;

    #[test]
    fn both_ways_give_the_same_output_and_bad_sizes_are_refused() {
        let case = KernelCase::new(100, 16, 7).unwrap();
        assert_eq!(case.flops(), 4.0 * 100.0 * 100.0 * 16.0);
        let standard = case.standard();
        for block in [1, 16, 64, 1000] {
            assert!(max_abs_diff(standard.view(), case.flash(block).view()) < 1e-5);
        }
        assert!(KernelCase::new(0, 16, 0).is_none());
        assert!(KernelCase::new(MAX_N + 1, 16, 0).is_none());
        assert!(KernelCase::new(8, MAX_D + 1, 0).is_none());
        let clock = std::cell::Cell::new(0.0);
        let now = || {
            clock.set(clock.get() + 1.0);
            clock.get()
        };
        let r = bench(&serde_json::json!({"n": 70, "d": 9, "runs": 2}), &now);
        assert_eq!(r["standard_ms"], serde_json::json!([1.0, 1.0]));
        assert_eq!(r["sample"].as_array().unwrap().len(), 70 * 9);
        let first = KernelCase::new(70, 9, 24).unwrap().standard()[[0, 0]];
        assert_eq!(r["sample"][0].as_f64().unwrap() as f32, first);
        let refused = bench(&serde_json::json!({"n": 0}), &now);
        assert_eq!(refused["ok"], false);
        assert_eq!(bench(&serde_json::json!({"runs": 51}), &now)["ok"], false);
        // Seeded: the same numbers every time and everywhere.
        assert_eq!(
            KernelCase::new(8, 4, 3).unwrap().q,
            KernelCase::new(8, 4, 3).unwrap().q
        );
    }
}
