//! Small statistics several chapters read: a softmax at a temperature in f64, its entropy, the
//! mean and variance of samples, and a normal draw from the lab's seeded generator.

use ndarray::ArrayView1;

use crate::math::rng::SplitMix64;

/// softmax(scores / t) in f64, the row maximum subtracted first.
pub fn softmax(scores: ArrayView1<f32>, t: f64) -> Vec<f64> {
    let max = scores
        .iter()
        .fold(f64::NEG_INFINITY, |m, &s| m.max(f64::from(s)));
    let exps: Vec<f64> = scores
        .iter()
        .map(|&s| ((f64::from(s) - max) / t).exp())
        .collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

/// Shannon entropy of a distribution, in nats: 0 when one key takes everything, ln n when all n
/// keys share equally.
pub fn entropy(weights: &[f64]) -> f64 {
    weights
        .iter()
        .filter(|&&p| p > 0.0)
        .map(|&p| -p * p.ln())
        .sum()
}

/// Mean and variance (population) of some numbers.
pub fn mean_variance(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let values: Vec<f64> = values.into_iter().collect();
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    (mean, variance)
}

/// A standard normal draw (Box–Muller) from the portable generator.
pub fn normal(rng: &mut SplitMix64) -> f64 {
    let u1 = rng.next_unit().max(f64::MIN_POSITIVE);
    let u2 = rng.next_unit();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn entropy_is_zero_for_one_hot_and_ln_n_for_uniform() {
        assert_eq!(entropy(&[1.0, 0.0, 0.0]), 0.0);
        assert!(close(entropy(&[0.25; 4]), 4f64.ln(), 1e-12));
        assert!(close(entropy(&[0.5, 0.5]), 2f64.ln(), 1e-12));
    }
}
