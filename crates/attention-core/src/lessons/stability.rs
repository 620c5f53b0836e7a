//! The stability chapter: overflow without the max, and f16.

use crate::experiments::{
    BreakPoint, Breakdown, Precision, break_point, breakdown, f16_matmul_error, softmax_in,
};
use crate::trace::Trace;

use super::{Focus, allowed_scores};

#[derive(Debug, Clone, PartialEq)]
pub struct StabilityExperiment {
    pub head: usize,
    pub query: usize,
    /// The selected row's scaled scores over the allowed keys, the factor k they are multiplied
    /// by and the shift c added to each (which changes no weight in exact arithmetic).
    pub scores: Vec<f32>,
    pub factor: f32,
    pub shift: f32,
    /// The largest k · score + c: exp overflows past 88.7 in f32 and 11.09 in f16, and when the
    /// largest is below −104 in f32 or −17.3 in f16, every exp underflows to 0.
    pub largest: f32,
    /// softmax(k · scores + c) without subtracting the max, in f32 and in f16, and with it in f16.
    pub naive_f32: Vec<f32>,
    pub naive_f16: Vec<f32>,
    pub stable_f16: Vec<f32>,
    /// How the naive softmax fails at this k and c, if it does.
    pub failure_f32: Option<Breakdown>,
    pub failure_f16: Option<Breakdown>,
    /// The smallest k (with this c) at which the naive softmax fails, and how, if below 10⁴.
    pub break_f32: Option<BreakPoint>,
    pub break_f16: Option<BreakPoint>,
    /// The query whose row has the largest scaled score in this head (where overflow shows
    /// first), and that score.
    pub hottest_query: usize,
    pub hottest_score: f32,
    /// QKᵀ of the selected head with f16 inputs, products and sums, against f32: the largest
    /// absolute and relative error.
    pub f16_abs_error: f32,
    pub f16_rel_error: f32,
}

/// The largest shift c the stability chapter takes (either way).
pub const MAX_SHIFT: f32 = 100.0;

pub(super) fn run(trace: &Trace, focus: &Focus) -> StabilityExperiment {
    let (h, i) = (focus.head(trace), focus.query(trace));
    let head = &trace.heads[h];
    let scores = allowed_scores(trace, h, i);
    let k = if focus.factor.is_finite() && focus.factor > 0.0 {
        focus.factor
    } else {
        1.0
    };
    let c = if focus.shift.is_finite() {
        focus.shift.clamp(-MAX_SHIFT, MAX_SHIFT)
    } else {
        0.0
    };
    let (hottest_query, hottest_score) = (0..trace.config.seq_len())
        .map(|q| {
            let top = allowed_scores(trace, h, q)
                .iter()
                .fold(f32::NEG_INFINITY, |m, &s| m.max(s));
            (q, top)
        })
        .fold((0, f32::NEG_INFINITY), |best, row| {
            if row.1 > best.1 { row } else { best }
        });
    let (abs, rel) = f16_matmul_error(head.q.view(), head.k.view());
    let scores_view = scores.view();
    StabilityExperiment {
        head: h,
        query: i,
        largest: scores.iter().fold(f32::NEG_INFINITY, |m, &s| m.max(s * k)) + c,
        naive_f32: softmax_in(scores_view, k, c, false, Precision::F32),
        naive_f16: softmax_in(scores_view, k, c, false, Precision::F16),
        stable_f16: softmax_in(scores_view, k, c, true, Precision::F16),
        failure_f32: breakdown(scores_view, k, c, Precision::F32),
        failure_f16: breakdown(scores_view, k, c, Precision::F16),
        break_f32: break_point(scores_view, c, Precision::F32, 1e4),
        break_f16: break_point(scores_view, c, Precision::F16, 1e4),
        hottest_query,
        hottest_score,
        scores: scores.to_vec(),
        factor: k,
        shift: c,
        f16_abs_error: abs,
        f16_rel_error: rel,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;
    use crate::lessons::{Chapter, Experiment, Focus, experiment, trace};
    use crate::mask::MaskSpec;

    #[test]
    fn naive_softmax_breaks_in_f16_long_before_f32_and_the_stable_one_never() {
        let t = trace(Params::sentence("the cat sat on the mat"));
        let focus = Focus {
            query: 2,
            factor: 50.0,
            ..Focus::default()
        };
        let Experiment::Stability(e) = experiment(Chapter::Stability, &t, &focus) else {
            panic!()
        };
        let (f16, f32) = (e.break_f16.unwrap(), e.break_f32.unwrap());
        assert!(f16.factor < f32.factor, "{f16:?} {f32:?}");
        let top = e.scores.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        // The break is where the largest k · score crosses ln(largest) (an overflow, when the
        // row has a positive score) or ln(smallest) (an underflow, when every score is
        // negative): 11.09 or −17.33 in f16, 88.72 or −103.97 in f32.
        let (f16_edge, f32_edge) = if top > 0.0 {
            (11.09, 88.72)
        } else {
            (-17.33, -103.97)
        };
        let kind = if top > 0.0 {
            Breakdown::Overflow
        } else {
            Breakdown::Underflow
        };
        assert_eq!((f16.kind, f32.kind), (kind, kind));
        assert!(
            (f16.factor * top - f16_edge).abs() < 0.05,
            "{}",
            f16.factor * top
        );
        assert!(
            (f32.factor * top - f32_edge).abs() < 0.05,
            "{}",
            f32.factor * top
        );
        assert!(e.stable_f16.iter().all(|w| w.is_finite()));
        assert_eq!(e.failure_f16.is_some(), 50.0 >= f16.factor);
        assert!(e.f16_abs_error > 0.0 && e.f16_rel_error < 0.05);
        // The hottest row is where overflow shows: its largest score is the head's largest.
        let head_top = (0..t.config.seq_len())
            .flat_map(|q| allowed_scores(&t, 0, q).to_vec())
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(e.hottest_score, head_top);
    }

    /// The review's case: a row with only negative scores never overflows as k grows; it
    /// underflows (at k ≈ 17.33 / |max| in f16), and the experiment says so. Shifting the row up
    /// by c (no weight changes) shows the overflow the chapter teaches.
    #[test]
    fn a_row_of_negative_scores_underflows_and_a_shift_makes_it_overflow() {
        let t = trace(Params {
            mask: MaskSpec::Causal,
            ..Params::sentence("The cat sat on the mat because it was tired.")
        });
        let (head, cold) = (0..2)
            .flat_map(|h| (0..t.config.seq_len()).map(move |q| (h, q)))
            .find(|&(h, q)| allowed_scores(&t, h, q).iter().all(|&s| s < 0.0))
            .expect("a row of negative scores");
        let row = |factor, shift| {
            let focus = Focus {
                head,
                query: cold,
                factor,
                shift,
            };
            let Experiment::Stability(e) = experiment(Chapter::Stability, &t, &focus) else {
                panic!()
            };
            e
        };
        let e = row(1.0, 0.0);
        assert!(
            e.largest < 0.0,
            "every score of this row is negative: {}",
            e.largest
        );
        let f16 = e.break_f16.unwrap();
        assert_eq!(f16.kind, Breakdown::Underflow);
        assert!((f16.exponent + 17.33).abs() < 0.05, "{f16:?}");
        let broken = row(f16.factor * 1.01, 0.0);
        assert_eq!(broken.failure_f16, Some(Breakdown::Underflow));
        assert!(broken.naive_f16.iter().all(|w| w.is_nan()));
        // Shifted up so that the largest exponent is 11.5 > 11.09 at k = 1: overflow.
        let shifted = row(1.0, 11.5 - e.largest);
        assert_eq!(shifted.failure_f16, Some(Breakdown::Overflow));
        assert_eq!(shifted.break_f16.unwrap().kind, Breakdown::Overflow);
        assert!(shifted.break_f16.unwrap().factor < 1.0);
        // The stable softmax does not see the shift.
        for (a, b) in shifted.stable_f16.iter().zip(&e.stable_f16) {
            assert!((a - b).abs() < 2e-3, "{a} {b}");
        }
    }
}
