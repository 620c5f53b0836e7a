//! The variants chapter: sparse and linear attention.

use ndarray::{Array2, ArrayView2};

use crate::experiments::{SparsePattern, allowed_cells, linear_attention};
use crate::mask::MaskSpec;
use crate::trace::Trace;

use super::Focus;

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

#[cfg(test)]
mod tests {

    use crate::Params;
    use crate::lessons::{Chapter, Experiment, Focus, experiment, trace};
    use crate::mask::MaskSpec;

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
