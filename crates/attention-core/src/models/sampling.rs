//! Choosing the next token from a position's scores: the most likely few, as probabilities, and
//! one token greedily or drawn at a temperature.

use ndarray::ArrayView1;

/// One next token and its probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    pub id: u32,
    pub p: f32,
}

/// The `k` largest entries of `logits`, as softmax probabilities over all of them.
pub fn top_k(logits: ArrayView1<f32>, k: usize) -> Vec<Prediction> {
    let max = logits.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    // Σ exp over the whole vocabulary by the softmax's own loop (libm's expf is a slow software
    // routine in wasm: 50 257 of them took a few milliseconds a call).
    let sum: f64 = match logits.as_slice() {
        Some(slice) => {
            let mut out = vec![0.0f32; slice.len()];
            crate::math::fastmath::exp_shifted(slice, max, &mut out)
        }
        None => logits.iter().map(|&v| f64::from((v - max).exp())).sum(),
    };
    // One pass keeping the k best, most likely first (ties: the smaller id), instead of sorting
    // the whole vocabulary at every position.
    let mut best: Vec<usize> = Vec::with_capacity(k + 1);
    for (id, &v) in logits.iter().enumerate() {
        if best.len() == k && best.last().is_none_or(|&last| v <= logits[last]) {
            continue;
        }
        let at = best.partition_point(|&b| logits[b] >= v);
        best.insert(at, id);
        best.truncate(k);
    }
    best.into_iter()
        .map(|id| Prediction {
            id: id as u32,
            p: (f64::from((logits[id] - max).exp()) / sum) as f32,
        })
        .collect()
}

/// The next token to append after a position whose logits are `logits`: the most likely one when
/// `sampling` is 0 (greedy), otherwise one drawn from softmax(logits / `sampling`) over the whole
/// vocabulary from id `first` on, `draw` ∈ [0, 1) choosing where on the cumulative distribution.
/// The lab's models pass 1: their `<unk>` (id 0) would append nothing readable
/// ([`crate::models::Tokenizer::first_choosable`]).
pub fn sample_next(logits: ArrayView1<f32>, sampling: f64, draw: f64, first: usize) -> Option<u32> {
    let candidates = || logits.iter().enumerate().skip(first);
    let (best, &max) = candidates().max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))?;
    if sampling <= 0.0 || !sampling.is_finite() {
        return Some(best as u32);
    }
    let weights: Vec<(usize, f64)> = candidates()
        .map(|(id, &v)| (id, (f64::from(v - max) / sampling).exp()))
        .collect();
    let total: f64 = weights.iter().map(|w| w.1).sum();
    let mut left = draw.clamp(0.0, 1.0) * total;
    for &(id, w) in &weights {
        if left < w {
            return Some(id as u32);
        }
        left -= w;
    }
    Some(best as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn top_k_keeps_the_most_likely_first_and_ties_by_id() {
        let logits = array![1.0f32, 3.0, 2.0, 3.0, f32::NEG_INFINITY, 0.5];
        let ids: Vec<u32> = top_k(logits.view(), 3).iter().map(|p| p.id).collect();
        assert_eq!(ids, vec![1, 3, 2]);
        let all = top_k(logits.view(), 10);
        assert_eq!(all.len(), 6);
        let total: f32 = all.iter().map(|p| p.p).sum();
        assert!((total - 1.0).abs() < 1e-6);
        assert!(all.windows(2).all(|w| w[0].p >= w[1].p));
        assert!(top_k(logits.view(), 0).is_empty());
    }

    #[test]
    fn continuing_takes_the_most_likely_or_samples_the_whole_distribution() {
        // id 0 is <unk>: never chosen, even when it is the most likely.
        let logits = array![9.0f32, 2.0, 1.0, 0.0];
        assert_eq!(sample_next(logits.view(), 0.0, 0.99, 1), Some(1), "greedy");
        // softmax([2, 1, 0]) = [0.665, 0.245, 0.090].
        assert_eq!(sample_next(logits.view(), 1.0, 0.1, 1), Some(1));
        assert_eq!(sample_next(logits.view(), 1.0, 0.7, 1), Some(2));
        assert_eq!(sample_next(logits.view(), 1.0, 0.95, 1), Some(3));
        // A low sampling temperature sharpens: the same draw lands on the most likely.
        assert_eq!(sample_next(logits.view(), 0.2, 0.7, 1), Some(1));
        // A high one flattens: it reaches the least likely sooner.
        assert_eq!(sample_next(logits.view(), 100.0, 0.7, 1), Some(3));
        assert_eq!(
            sample_next(array![1.0f32].view(), 1.0, 0.5, 1),
            None,
            "only <unk>: nothing"
        );
    }
}
