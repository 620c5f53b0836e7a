//! The numerically stable masked softmax of one row of scores.

use ndarray::{ArrayView1, ArrayViewMut1};

/// Writes softmax(scores) into `weights` over the allowed keys only:
/// w_j = exp(s_j − max) / Σ_allowed exp(s_j − max), and exactly 0 where `allowed(j)` is false.
/// Subtracting the row maximum keeps every exp ≤ 1, so large scores cannot overflow.
/// Returns `false` when every key is masked: the row is then all zeros (never NaN).
pub fn masked_softmax(
    scores: ArrayView1<f32>,
    allowed: impl Fn(usize) -> bool,
    mut weights: ArrayViewMut1<f32>,
) -> bool {
    let max = scores
        .iter()
        .enumerate()
        .filter(|&(j, _)| allowed(j))
        .fold(f32::NEG_INFINITY, |max, (_, &s)| max.max(s));
    if max == f32::NEG_INFINITY {
        weights.fill(0.0);
        return false;
    }
    let mut sum = 0.0f64;
    for (j, (w, &s)) in weights.iter_mut().zip(scores).enumerate() {
        *w = if allowed(j) { (s - max).exp() } else { 0.0 };
        sum += f64::from(*w);
    }
    // sum ≥ 1: the maximum itself contributes exp(0) = 1.
    let inverse = (1.0 / sum) as f32;
    weights.mapv_inplace(|w| w * inverse);
    true
}
