//! The masks chapter: −∞ against a large negative number.

use ndarray::ArrayView1;

use crate::pipeline::trace::Trace;

use super::focus::Focus;

#[derive(Debug, Clone, PartialEq)]
pub struct MasksExperiment {
    pub mask: &'static str,
    pub query: usize,
    /// Keys each query may see.
    pub allowed_per_row: Vec<usize>,
    pub fully_masked_rows: Vec<usize>,
    /// The selected query's weights with masked scores set to −∞ (masked keys get exactly 0;
    /// a fully masked row gives zeros, the lab's rule) and to −10⁹ (the same when some key is
    /// allowed; a fully masked row becomes uniform: it attends to what it must not see).
    pub with_infinity: Vec<f64>,
    pub with_large_negative: Vec<f64>,
    /// The same comparison on a row with every key masked.
    pub all_masked_infinity: Vec<f64>,
    pub all_masked_large_negative: Vec<f64>,
}

/// Softmax of `scores` with masked entries replaced by `fill`; a row whose every entry is −∞
/// gives zeros (the lab's rule for a fully masked row).
pub fn masked_with(scores: ArrayView1<f32>, allowed: &[bool], fill: f32) -> Vec<f64> {
    let filled: Vec<f64> = scores
        .iter()
        .zip(allowed)
        .map(|(&s, &a)| f64::from(if a { s } else { fill }))
        .collect();
    let max = filled.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return vec![0.0; filled.len()];
    }
    let exps: Vec<f64> = filled.iter().map(|s| (s - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> MasksExperiment {
    let (h, i) = (focus.head(trace), focus.query(trace));
    let scores = trace.heads[h].scores.row(i);
    let allowed: Vec<bool> = trace.mask.row(i).to_vec();
    let none = vec![false; allowed.len()];
    MasksExperiment {
        mask: trace.config.mask().spec().kind(),
        query: i,
        allowed_per_row: trace
            .mask
            .outer_iter()
            .map(|r| r.iter().filter(|&&a| a).count())
            .collect(),
        fully_masked_rows: trace.heads[h].fully_masked_rows.clone(),
        with_infinity: masked_with(scores, &allowed, f32::NEG_INFINITY),
        with_large_negative: masked_with(scores, &allowed, -1e9),
        all_masked_infinity: masked_with(scores, &none, f32::NEG_INFINITY),
        all_masked_large_negative: masked_with(scores, &none, -1e9),
    }
}

#[cfg(test)]
mod tests {

    use crate::Params;
    use crate::math::mask::MaskSpec;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};

    #[test]
    fn a_fully_masked_row_is_zero_with_infinity_and_uniform_with_a_large_negative() {
        let t = trace(Params {
            mask: MaskSpec::Causal,
            ..Params::sentence("a b c d")
        });
        let focus = Focus {
            query: 1,
            ..Focus::default()
        };
        let Experiment::Masks(e) = experiment(Chapter::Masks, &t, &focus) else {
            panic!()
        };
        assert_eq!(e.allowed_per_row, vec![1, 2, 3, 4]);
        assert_eq!(e.with_infinity[2..], [0.0, 0.0]);
        for (a, b) in e.with_infinity.iter().zip(&e.with_large_negative) {
            assert!((a - b).abs() < 1e-12);
        }
        assert_eq!(e.all_masked_infinity, vec![0.0; 4]);
        assert_eq!(e.all_masked_large_negative, vec![0.25; 4]);
    }
}
