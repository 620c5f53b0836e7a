//! The stability chapter: overflow without the max, and f16.

use ndarray::{ArrayView1, ArrayView2};

use crate::pipeline::trace::Trace;

use super::focus::{Focus, allowed_scores};

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

/// The largest finite f16.
pub const F16_MAX: f32 = 65504.0;

/// `x` rounded to the nearest f16 (ties to even), as f32: ±∞ beyond the f16 range, subnormals
/// below 2⁻¹⁴, exactly as an f16 store would.
pub fn to_f16(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let bits = f16_bits(x);
    crate::io::half::f16_to_f32(bits)
}

/// IEEE 754 binary16 bits of `x`, rounded to nearest, ties to even.
pub fn f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x007f_ffff;
    if exponent == 0xff {
        return sign | 0x7c00 | if mantissa != 0 { 0x200 } else { 0 };
    }
    let e = exponent - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00; // overflow: ±∞
    }
    if e <= 0 {
        // Subnormal (or zero): shift the implicit 1 in, round to nearest even.
        if e < -10 {
            return sign;
        }
        let m = mantissa | 0x0080_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rounded = m + half - 1 + ((m >> shift) & 1);
        return sign | (rounded >> shift) as u16;
    }
    let rounded = mantissa + 0x0fff + ((mantissa >> 13) & 1);
    if rounded & 0x0080_0000 != 0 {
        // The mantissa carried into the exponent.
        let e = e + 1;
        if e >= 0x1f {
            return sign | 0x7c00;
        }
        return sign | ((e as u16) << 10);
    }
    sign | ((e as u16) << 10) | (rounded >> 13) as u16
}

/// What softmax gives when computed one way or another, in a precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    F32,
    /// Every intermediate rounded to f16.
    F16,
}

fn round(x: f32, precision: Precision) -> f32 {
    match precision {
        Precision::F32 => x,
        Precision::F16 => to_f16(x),
    }
}

/// softmax of `scores` · `factor` + `shift`, without subtracting the row maximum (`stable`
/// false) or with it, every step rounded to `precision`. Adding the same `shift` to every score
/// changes no weight in exact arithmetic; without the maximum it decides how exp fails: above
/// ln(largest float) (88.7 in f32, 11.09 in f16) it overflows to ∞ and ∞ / ∞ gives NaN; when
/// every exponent is below the smallest float's log (−104 in f32, −17.3 in f16) every exp rounds
/// to 0 and 0 / 0 gives NaN.
pub fn softmax_in(
    scores: ArrayView1<f32>,
    factor: f32,
    shift: f32,
    stable: bool,
    precision: Precision,
) -> Vec<f32> {
    let exponents = exponents_in(scores, factor, shift, stable, precision);
    let exps: Vec<f32> = exponents
        .iter()
        .map(|&s| round(s.exp(), precision))
        .collect();
    let sum = exps
        .iter()
        .fold(0.0f32, |acc, &e| round(acc + e, precision));
    exps.iter().map(|&e| round(e / sum, precision)).collect()
}

/// What exp receives in [`softmax_in`]: k · s + c rounded to `precision`, minus the largest when
/// `stable`.
fn exponents_in(
    scores: ArrayView1<f32>,
    factor: f32,
    shift: f32,
    stable: bool,
    precision: Precision,
) -> Vec<f32> {
    let scaled: Vec<f32> = scores
        .iter()
        .map(|&s| round(round(s * factor, precision) + shift, precision))
        .collect();
    let max = if stable {
        scaled.iter().cloned().fold(f32::NEG_INFINITY, f32::max)
    } else {
        0.0
    };
    scaled.iter().map(|&s| round(s - max, precision)).collect()
}

/// How a softmax computed without subtracting the maximum fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakdown {
    /// An exp, or their sum, passed the largest float: ∞ / ∞ = NaN (or every weight 0).
    Overflow,
    /// Every exp rounded to 0: 0 / 0 = NaN.
    Underflow,
}

impl Breakdown {
    /// "overflow" or "underflow", as the JSON names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Overflow => "overflow",
            Self::Underflow => "underflow",
        }
    }
}

/// How the naive softmax of `scores` · `factor` + `shift` fails in `precision`, if it does: a
/// weight that is not finite, or weights that no longer sum to 1 (an overflowing sum makes them
/// all 0).
pub fn breakdown(
    scores: ArrayView1<f32>,
    factor: f32,
    shift: f32,
    precision: Precision,
) -> Option<Breakdown> {
    if scores.is_empty() {
        return None;
    }
    let weights = softmax_in(scores, factor, shift, false, precision);
    let sum: f32 = weights.iter().sum();
    if weights.iter().all(|w| w.is_finite()) && (sum - 1.0).abs() < 0.01 {
        return None;
    }
    let exps: Vec<f32> = exponents_in(scores, factor, shift, false, precision)
        .iter()
        .map(|&s| round(s.exp(), precision))
        .collect();
    if exps.iter().all(|&e| e == 0.0) {
        Some(Breakdown::Underflow)
    } else {
        Some(Breakdown::Overflow)
    }
}

/// Where the naive softmax first fails as the factor k grows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakPoint {
    /// The smallest k (to about 4 significant figures) at which it fails.
    pub factor: f32,
    pub kind: Breakdown,
    /// The largest exponent, k · max + c, at that k: about ln(largest float) for an overflow
    /// of the largest exp, a little less when the sum overflows first, and about ln(smallest
    /// float) for an underflow.
    pub exponent: f32,
    /// An overflow of the sum while every exp still fits (several scores near the largest).
    pub sum_first: bool,
}

/// The smallest factor k in (0, `limit`] at which the unstable softmax of `scores` · k +
/// `shift` fails in `precision`, and how; `None` if it never does below `limit`. The factors
/// are scanned on a log grid from 10⁻³ first (failure need not be monotone in k: a negative
/// shift underflows small factors), then the first failure is narrowed by bisection.
pub fn break_point(
    scores: ArrayView1<f32>,
    shift: f32,
    precision: Precision,
    limit: f32,
) -> Option<BreakPoint> {
    let fails = |k: f32| breakdown(scores, k, shift, precision);
    let steps = 280;
    let low_end = 1e-3f32;
    let grid = |i: usize| low_end * (limit / low_end).powf(i as f32 / steps as f32);
    let first = (0..=steps).find(|&i| fails(grid(i)).is_some())?;
    let (mut low, mut high) = (if first == 0 { 0.0 } else { grid(first - 1) }, grid(first));
    for _ in 0..40 {
        let mid = 0.5 * (low + high);
        if fails(mid).is_some() {
            high = mid;
        } else {
            low = mid;
        }
    }
    let kind = fails(high)?;
    let largest = scores.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let every_exp_fits = exponents_in(scores, high, shift, false, precision)
        .iter()
        .all(|&s| round(s.exp(), precision).is_finite());
    Some(BreakPoint {
        factor: high,
        kind,
        exponent: high * largest + shift,
        sum_first: kind == Breakdown::Overflow && every_exp_fits,
    })
}

/// QKᵀ computed with inputs and products rounded to f16 (and sums kept in f16), against f32: the
/// largest absolute and relative error.
pub fn f16_matmul_error(q: ArrayView2<f32>, k: ArrayView2<f32>) -> (f32, f32) {
    let exact = q.dot(&k.t());
    let mut worst = (0.0f32, 0.0f32);
    for (i, qi) in q.outer_iter().enumerate() {
        for (j, kj) in k.outer_iter().enumerate() {
            let half = qi.iter().zip(kj.iter()).fold(0.0f32, |acc, (&a, &b)| {
                to_f16(acc + to_f16(to_f16(a) * to_f16(b)))
            });
            let error = (half - exact[[i, j]]).abs();
            worst.0 = worst.0.max(error);
            worst.1 = worst.1.max(error / exact[[i, j]].abs().max(1e-3));
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;
    use crate::math::mask::MaskSpec;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};
    use ndarray::{Array1, Array2, array};

    #[test]
    fn f16_rounding_matches_ieee_binary16() {
        assert_eq!(f16_bits(1.0), 0x3c00);
        assert_eq!(f16_bits(-2.0), 0xc000);
        assert_eq!(f16_bits(65504.0), 0x7bff);
        assert_eq!(f16_bits(65520.0), 0x7c00, "rounds up to ∞");
        assert_eq!(
            f16_bits(65519.0),
            0x7bff,
            "rounds down to the largest finite"
        );
        assert_eq!(f16_bits(1.0 + 1.0 / 2048.0), 0x3c00, "a tie goes to even");
        assert_eq!(f16_bits(1.0 + 3.0 / 2048.0), 0x3c02, "a tie goes to even");
        assert_eq!(f16_bits(2f32.powi(-24)), 0x0001, "the smallest subnormal");
        assert_eq!(f16_bits(2f32.powi(-26)), 0x0000, "below half of it: zero");
        assert_eq!(f16_bits(f32::INFINITY), 0x7c00);
        assert!(to_f16(f32::NAN).is_nan());
        assert_eq!(to_f16(0.1), 0.099_975_586);
        // Every f16 survives the round trip.
        for bits in 0u16..0x7c00 {
            let x = crate::io::half::f16_to_f32(bits);
            assert_eq!(f16_bits(x), bits, "{bits:#06x}");
            assert_eq!(f16_bits(-x), bits | 0x8000);
        }
    }

    #[test]
    fn unstable_softmax_overflows_at_ln_of_the_largest_float() {
        let scores = array![1.0f32, 0.5, 0.0];
        let f16 = break_point(scores.view(), 0.0, Precision::F16, 1000.0).unwrap();
        assert_eq!(f16.kind, Breakdown::Overflow);
        assert!(
            (f16.factor - 65504f32.ln()).abs() < 0.01 && (f16.exponent - 11.09).abs() < 0.01,
            "f16 breaks at k ≈ 11.09: {f16:?}"
        );
        let f32_ = break_point(scores.view(), 0.0, Precision::F32, 1000.0).unwrap();
        assert_eq!(f32_.kind, Breakdown::Overflow);
        assert!(
            (f32_.factor - f32::MAX.ln()).abs() < 0.05,
            "f32 breaks at k ≈ 88.7: {f32_:?}"
        );
        let broken = softmax_in(scores.view(), 20.0, 0.0, false, Precision::F16);
        assert!(broken[0].is_nan(), "∞/∞: {broken:?}");
        for precision in [Precision::F16, Precision::F32] {
            let stable = softmax_in(scores.view(), 1000.0, 0.0, true, precision);
            assert!(stable.iter().all(|w| w.is_finite()));
            assert!((stable[0] - 1.0).abs() < 1e-3);
        }
        assert_eq!(
            break_point(array![0.0f32, 0.0].view(), 0.0, Precision::F16, 1000.0),
            None
        );
        // A shift changes nothing in exact arithmetic, and moves the break: + 5 overflows f16
        // once k · 1 + 5 passes 11.09.
        let shifted = break_point(scores.view(), 5.0, Precision::F16, 1000.0).unwrap();
        // (the sum of the three exps passes 65 504 a little before the largest alone does)
        assert_eq!(shifted.kind, Breakdown::Overflow);
        assert!(shifted.factor > 5.9 && shifted.factor < 6.09, "{shifted:?}");
    }

    #[test]
    fn unstable_softmax_of_negative_scores_underflows_instead() {
        // Every score negative (as on many rows): exp cannot overflow; once every k · s is
        // below ln(2⁻²⁵) ≈ −17.33 in f16 every exp rounds to 0 and 0/0 = NaN.
        let scores = array![-0.68f32, -1.5, -2.0];
        let f16 = break_point(scores.view(), 0.0, Precision::F16, 1e4).unwrap();
        assert_eq!(f16.kind, Breakdown::Underflow);
        assert!((f16.exponent + 17.33).abs() < 0.02, "{f16:?}");
        assert!((f16.factor - 25.5).abs() < 0.05, "{f16:?}");
        let f32_ = break_point(scores.view(), 0.0, Precision::F32, 1e4).unwrap();
        assert_eq!(f32_.kind, Breakdown::Underflow);
        assert!((f32_.exponent + 103.97).abs() < 0.05, "{f32_:?}");
        let broken = softmax_in(scores.view(), 30.0, 0.0, false, Precision::F16);
        assert!(broken.iter().all(|w| w.is_nan()), "0/0: {broken:?}");
        assert_eq!(
            breakdown(scores.view(), 30.0, 0.0, Precision::F16),
            Some(Breakdown::Underflow)
        );
        assert_eq!(breakdown(scores.view(), 1.0, 0.0, Precision::F16), None);
        // Shifted up by 12 the same row overflows at k = 1: the largest exponent is 11.32.
        assert_eq!(
            breakdown(scores.view(), 1.0, 12.0, Precision::F16),
            Some(Breakdown::Overflow)
        );
        // The stable softmax is the same at every shift and never breaks.
        let stable = softmax_in(scores.view(), 30.0, 0.0, true, Precision::F16);
        assert!(stable.iter().all(|w| w.is_finite()) && stable[0] > 0.99);
        assert_eq!(
            stable,
            softmax_in(scores.view(), 30.0, 7.0, true, Precision::F16)
        );
    }

    #[test]
    fn a_sum_that_overflows_zeroes_every_weight_and_counts_as_overflow() {
        // 20 equal scores: each exp(10) = 22 026 fits in f16, their sum does not.
        let scores = Array1::from_elem(20, 1.0f32);
        let weights = softmax_in(scores.view(), 10.0, 0.0, false, Precision::F16);
        assert!(weights.iter().all(|&w| w == 0.0), "{weights:?}");
        assert_eq!(
            breakdown(scores.view(), 10.0, 0.0, Precision::F16),
            Some(Breakdown::Overflow)
        );
        let at = break_point(scores.view(), 0.0, Precision::F16, 1e4).unwrap();
        assert!(at.exponent < 11.09 - 2.9, "ln(65504 / 20) = 8.09: {at:?}");
        assert!(at.sum_first, "{at:?}");
        let alone = break_point(array![1.0f32, -5.0].view(), 0.0, Precision::F16, 1e4).unwrap();
        assert!(
            !alone.sum_first && (alone.exponent - 11.09).abs() < 0.01,
            "{alone:?}"
        );
    }

    #[test]
    fn qk_in_f16_loses_digits_that_f32_keeps() {
        let q = Array2::from_shape_fn((4, 64), |(i, j)| ((i * 13 + j * 7) % 17) as f32 / 3.0 - 2.5);
        let k = Array2::from_shape_fn((5, 64), |(i, j)| ((i * 5 + j * 11) % 19) as f32 / 4.0 - 2.0);
        let (absolute, relative) = f16_matmul_error(q.view(), k.view());
        assert!(absolute > 1e-3, "f16 leaves an error: {absolute}");
        assert!(relative < 0.05, "but a small one: {relative}");
    }

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
