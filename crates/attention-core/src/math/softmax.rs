//! The numerically stable masked softmax, and the two loops it is made of (shared with
//! FlashAttention): the maximum over the allowed keys, and exp(s − shift) over them.
//! The loops run over contiguous slices so that they vectorise.

use ndarray::{ArrayView1, ArrayViewMut1};

use crate::math::fastmath::{exp, exp_shifted, larger};
use crate::math::mask::RowKeys;

/// The largest allowed score, or −∞ when no key is allowed.
pub fn masked_max(scores: &[f32], keys: &RowKeys) -> f32 {
    match keys {
        RowKeys::Range(range) => max_of(&scores[range.clone()]),
        RowKeys::Two(first, second) => masked_max(scores, &RowKeys::Range(first.clone()))
            .max(masked_max(scores, &RowKeys::Range(second.clone()))),
        RowKeys::Explicit(allowed) => scores
            .iter()
            .zip(allowed)
            .filter(|&(_, &a)| a)
            .fold(f32::NEG_INFINITY, |max, (&s, _)| larger(max, s)),
    }
}

/// Writes exp(s − shift) for allowed keys and exactly 0 for masked ones into `out`;
/// returns their sum, accumulated in f64 (over thousands of keys an f32 sum drifts).
pub fn masked_exp(scores: &[f32], keys: &RowKeys, shift: f32, out: &mut [f32]) -> f64 {
    match keys {
        RowKeys::Range(range) => {
            out[..range.start].fill(0.0);
            out[range.end..].fill(0.0);
            exp_shifted(&scores[range.clone()], shift, &mut out[range.clone()])
        }
        RowKeys::Two(first, second) => {
            out.fill(0.0);
            let mut sum = 0.0;
            for range in [first, second] {
                sum += exp_shifted(&scores[range.clone()], shift, &mut out[range.clone()]);
            }
            sum
        }
        RowKeys::Explicit(allowed) => {
            for ((o, &s), &a) in out.iter_mut().zip(scores).zip(allowed) {
                *o = if a { exp(s - shift) } else { 0.0 };
            }
            out.iter().map(|&v| f64::from(v)).sum()
        }
    }
}

/// Lanes of [`max_of`]: independent partial maxima, so that the loop runs as SIMD vectors
/// instead of one chain of dependent comparisons.
const LANES: usize = 8;

/// The largest of `values` (−∞ for none; a NaN is skipped, as `f32::max` skips it).
pub fn max_of(values: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; LANES];
    let chunks = values.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane = larger(*lane, x);
        }
    }
    rest.iter()
        .chain(&lanes)
        .fold(f32::NEG_INFINITY, |max, &x| larger(max, x))
}

/// Writes softmax(scores) into `weights` over the allowed keys only:
/// w_j = exp(s_j − max) / Σ_allowed exp(s_j − max), and exactly 0 where masked.
/// Subtracting the row maximum keeps every exp ≤ 1, so large scores cannot overflow.
/// With a `sink` logit, it joins the softmax as one more column that is then dropped: the
/// weights sum to less than 1.
/// Returns `false` when every key is masked: the row is then all zeros (never NaN).
pub fn masked_softmax(
    scores: &[f32],
    keys: &RowKeys,
    sink: Option<f32>,
    weights: &mut [f32],
) -> bool {
    let max = masked_max(scores, keys);
    if max == f32::NEG_INFINITY {
        weights.fill(0.0);
        return false;
    }
    let top = sink.map_or(max, |s| max.max(s));
    // sum ≥ 1: the maximum itself contributes exp(0) = 1.
    let sum =
        masked_exp(scores, keys, top, weights) + sink.map_or(0.0, |s| f64::from(exp(s - top)));
    let inverse = (1.0 / sum) as f32;
    for w in weights.iter_mut() {
        *w *= inverse;
    }
    true
}

/// Runs `f` on two ndarray rows as slices, copying through buffers if they are not contiguous.
pub fn with_row_slices<R>(
    input: ArrayView1<f32>,
    mut output: ArrayViewMut1<f32>,
    f: impl FnOnce(&[f32], &mut [f32]) -> R,
) -> R {
    if let (Some(input), Some(output)) = (input.as_slice(), output.as_slice_mut()) {
        return f(input, output);
    }
    let input = input.to_vec();
    let mut buffer = vec![0.0; output.len()];
    let result = f(&input, &mut buffer);
    output.assign(&ArrayView1::from(&buffer));
    result
}

/// [`masked_softmax`] on ndarray rows.
pub fn masked_softmax_row(
    scores: ArrayView1<f32>,
    keys: &RowKeys,
    sink: Option<f32>,
    weights: ArrayViewMut1<f32>,
) -> bool {
    with_row_slices(scores, weights, |scores, weights| {
        masked_softmax(scores, keys, sink, weights)
    })
}
