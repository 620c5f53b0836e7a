//! The numerically stable masked softmax, and the two loops it is made of (shared with
//! FlashAttention): the maximum over the allowed keys, and exp(s − shift) over them.
//! The loops run over contiguous slices so that they vectorise.

use ndarray::{ArrayView1, ArrayViewMut1};

use super::fastmath::exp;
use super::mask::RowKeys;

/// The largest allowed score, or −∞ when no key is allowed.
pub fn masked_max(scores: &[f32], keys: &RowKeys) -> f32 {
    match keys {
        RowKeys::Range(range) => scores[range.clone()]
            .iter()
            .fold(f32::NEG_INFINITY, |max, &s| max.max(s)),
        RowKeys::Two(first, second) => masked_max(scores, &RowKeys::Range(first.clone()))
            .max(masked_max(scores, &RowKeys::Range(second.clone()))),
        RowKeys::Explicit(allowed) => scores
            .iter()
            .zip(allowed)
            .filter(|&(_, &a)| a)
            .fold(f32::NEG_INFINITY, |max, (&s, _)| max.max(s)),
    }
}

/// Writes exp(s − shift) for allowed keys and exactly 0 for masked ones into `out`;
/// returns their sum, accumulated in f64 (over thousands of keys an f32 sum drifts).
pub fn masked_exp(scores: &[f32], keys: &RowKeys, shift: f32, out: &mut [f32]) -> f64 {
    match keys {
        RowKeys::Range(range) => {
            out[..range.start].fill(0.0);
            out[range.end..].fill(0.0);
            let out = &mut out[range.clone()];
            for (o, &s) in out.iter_mut().zip(&scores[range.clone()]) {
                *o = exp(s - shift);
            }
            out.iter().map(|&v| f64::from(v)).sum()
        }
        RowKeys::Two(first, second) => {
            out.fill(0.0);
            let mut sum = 0.0;
            for range in [first, second] {
                for (o, &s) in out[range.clone()].iter_mut().zip(&scores[range.clone()]) {
                    *o = exp(s - shift);
                    sum += f64::from(*o);
                }
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
