//! The variants chapter: sparse and linear attention.

use ndarray::{Array1, Array2, ArrayView2};

use crate::math::mask::MaskSpec;
use crate::pipeline::trace::Trace;

use super::focus::Focus;

#[derive(Debug, Clone, PartialEq)]
pub struct SparseRow {
    pub pattern: &'static str,
    pub stride: usize,
    pub cells: usize,
    /// [n][n] as rows of 0/1, for drawing.
    pub mask: Vec<Vec<u8>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VariantsExperiment {
    pub n: usize,
    /// Cells of full causal attention, n(n + 1)/2, and the n√n the sparse patterns aim at.
    pub causal_cells: usize,
    pub n_sqrt_n: f64,
    pub sparse: Vec<SparseRow>,
    pub head: usize,
    /// Linear attention (φ = elu + 1, causal when the lab's mask is) on the selected head's Q, K,
    /// V against the lab's softmax attention: the largest and mean absolute difference of the
    /// outputs, and the multiply-adds of each.
    pub linear_max_diff: f64,
    pub linear_mean_diff: f64,
    pub linear_cost: usize,
    pub softmax_cost: usize,
}

fn to_rows(mask: &Array2<bool>) -> Vec<Vec<u8>> {
    mask.outer_iter()
        .map(|r| r.iter().map(|&a| u8::from(a)).collect())
        .collect()
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> VariantsExperiment {
    let n = trace.config.seq_len();
    let stride = ((n as f64).sqrt().round() as usize).max(2);
    let sparse = [
        ("strided", SparsePattern::Strided { stride }),
        ("fixed", SparsePattern::Fixed { stride }),
    ]
    .into_iter()
    .map(|(name, pattern)| {
        let mask = pattern.mask(n);
        SparseRow {
            pattern: name,
            stride,
            cells: allowed_cells(&mask),
            mask: to_rows(&mask),
        }
    })
    .collect();
    let h = focus.head(trace);
    let head = &trace.heads[h];
    let causal = matches!(trace.config.mask().spec(), MaskSpec::Causal);
    let linear = linear_attention(head.q.view(), head.k.view(), head.v.view(), causal);
    let (max, sum) = diff_stats(linear.view(), head.output.view());
    let (m, d_k, d_v) = (head.k.nrows(), head.q.ncols(), head.v.ncols());
    VariantsExperiment {
        n,
        causal_cells: n * (n + 1) / 2,
        n_sqrt_n: (n as f64).powf(1.5),
        sparse,
        head: h,
        linear_max_diff: max,
        linear_mean_diff: sum / linear.len().max(1) as f64,
        linear_cost: (n + m) * d_k * d_v,
        softmax_cost: n * m * (d_k + d_v),
    }
}

fn diff_stats(a: ArrayView2<f32>, b: ArrayView2<f32>) -> (f64, f64) {
    a.iter()
        .zip(b.iter())
        .map(|(&x, &y)| f64::from((x - y).abs()))
        .fold((0.0, 0.0), |(max, sum), d| (max.max(d), sum + d))
}

/// A sparse attention pattern (Child et al., 2019), as the allowed cells of an n × n causal mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SparsePattern {
    /// Each query sees the previous `stride` keys and every `stride`-th key before them.
    Strided { stride: usize },
    /// Each query sees its own block of `stride` keys and the last key of every earlier block.
    Fixed { stride: usize },
}

impl SparsePattern {
    /// [n, n]: true where query i may look at key j.
    pub fn mask(self, n: usize) -> Array2<bool> {
        Array2::from_shape_fn((n, n), |(i, j)| {
            if j > i {
                return false;
            }
            match self {
                Self::Strided { stride } => i - j < stride || (i - j) % stride == 0,
                Self::Fixed { stride } => i / stride == j / stride || j % stride == stride - 1,
            }
        })
    }
}

/// The cells a mask lets attention compute.
pub fn allowed_cells(mask: &Array2<bool>) -> usize {
    mask.iter().filter(|&&a| a).count()
}

/// elu(x) + 1: the feature map of linear attention (Katharopoulos et al., 2020), always > 0.
pub fn elu_plus_one(x: f32) -> f32 {
    if x > 0.0 { x + 1.0 } else { x.exp() }
}

/// Linear attention: φ(Q) (φ(K)ᵀ V) normalised by φ(Q) (φ(K)ᵀ 1), φ = elu + 1, with a causal
/// version that sums keys up to each query. Cost O(n · d_k · d_v) instead of O(n² · d). Returns
/// [n, d_v].
pub fn linear_attention(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    causal: bool,
) -> Array2<f32> {
    let fq = q.mapv(elu_plus_one);
    let fk = k.mapv(elu_plus_one);
    let (n, d_v) = (q.nrows(), v.ncols());
    let mut out = Array2::zeros((n, d_v));
    if causal {
        let mut kv = Array2::<f32>::zeros((k.ncols(), d_v));
        let mut z = Array1::<f32>::zeros(k.ncols());
        for i in 0..n {
            for a in 0..k.ncols() {
                for b in 0..d_v {
                    kv[[a, b]] += fk[[i, a]] * v[[i, b]];
                }
                z[a] += fk[[i, a]];
            }
            let num = fq.row(i).dot(&kv);
            let den = fq.row(i).dot(&z);
            out.row_mut(i).assign(&(num / den));
        }
    } else {
        let kv = fk.t().dot(&v);
        let z = fk.sum_axis(ndarray::Axis(0));
        for i in 0..n {
            let num = fq.row(i).dot(&kv);
            let den = fq.row(i).dot(&z);
            out.row_mut(i).assign(&(num / den));
        }
    }
    out
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::Params;
    use crate::math::mask::MaskSpec;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};
    use ndarray::{Array1, array};

    #[test]
    fn sparse_patterns_compute_about_n_root_n_cells() {
        let n = 64;
        let stride = 8;
        for pattern in [
            SparsePattern::Strided { stride },
            SparsePattern::Fixed { stride },
        ] {
            let mask = pattern.mask(n);
            assert!(
                (0..n).all(|i| mask[[i, i]]),
                "{pattern:?}: every token sees itself"
            );
            assert!(
                (0..n).all(|i| (i + 1..n).all(|j| !mask[[i, j]])),
                "{pattern:?}: causal"
            );
            let cells = allowed_cells(&mask);
            assert!(
                cells < n * (n + 1) / 2 / 2,
                "{pattern:?}: {cells} of {}",
                n * (n + 1) / 2
            );
            assert!(
                cells <= 2 * n * stride,
                "{pattern:?}: about n√n = {}",
                n * stride
            );
        }
        // Strided, stride 2, n 4: rows see {0}, {0,1}, {0,1,2}, {1,2,3}.
        let mask = SparsePattern::Strided { stride: 2 }.mask(4);
        assert_eq!(allowed_cells(&mask), 1 + 2 + 3 + 3);
        assert!(!mask[[3, 0]] && mask[[3, 1]]);
    }

    #[test]
    fn linear_attention_equals_its_formula() {
        let q = array![[0.5f32, -1.0], [1.0, 0.0], [-0.5, 2.0]];
        let k = array![[1.0f32, 0.5], [-2.0, 0.0], [0.0, 1.0]];
        let v = array![[1.0f32, 0.0, 2.0], [0.0, 1.0, -1.0], [3.0, 1.0, 0.0]];
        let phi = |x: f32| if x > 0.0 { x + 1.0 } else { x.exp() };
        for causal in [false, true] {
            let out = linear_attention(q.view(), k.view(), v.view(), causal);
            for i in 0..3 {
                let keys = if causal { i + 1 } else { 3 };
                let sims: Vec<f32> = (0..keys)
                    .map(|j| (0..2).map(|a| phi(q[[i, a]]) * phi(k[[j, a]])).sum())
                    .collect();
                let total: f32 = sims.iter().sum();
                for b in 0..3 {
                    let expected: f32 = (0..keys).map(|j| sims[j] * v[[j, b]]).sum::<f32>() / total;
                    assert!(
                        (out[[i, b]] - expected).abs() < 1e-5,
                        "causal {causal} [{i}][{b}]"
                    );
                }
            }
        }
        let row: Array1<f32> = linear_attention(q.view(), k.view(), v.view(), true)
            .row(0)
            .to_owned();
        assert_eq!(row, v.row(0), "the first query sees only the first value");
    }

    #[test]
    fn sparse_patterns_compute_about_n_sqrt_n_and_linear_attention_differs_from_softmax() {
        let sentence = (0..64)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let t = trace(Params {
            mask: MaskSpec::Causal,
            ..Params::sentence(sentence)
        });
        let Experiment::Variants(e) = experiment(Chapter::Variants, &t, &Focus::default()) else {
            panic!()
        };
        assert_eq!(e.n, 64);
        assert_eq!(e.causal_cells, 64 * 65 / 2);
        for s in &e.sparse {
            assert_eq!(s.stride, 8);
            assert!(s.cells < e.causal_cells / 2, "{s:?}");
            assert!((s.cells as f64) < 2.0 * e.n_sqrt_n);
        }
        assert!(e.linear_max_diff > 0.0 && e.linear_mean_diff.is_finite());
        assert!(e.linear_cost < e.softmax_cost);
    }
}
