//! Layer normalisation over the feature dimension, with γ = 1 and β = 0.

use ndarray::{Array2, ArrayView2};

/// ε of the source notebook's `LayerNormalization`.
pub const EPSILON: f32 = 1e-6;

/// [rows, d]: each row becomes (x − μ) / √(σ² + ε), with μ and σ² (biased) taken over that row.
pub fn layer_norm(x: ArrayView2<f32>) -> Array2<f32> {
    let mut out = x.to_owned();
    for mut row in out.rows_mut() {
        let n = row.len() as f32;
        let mean = row.sum() / n;
        let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
        let inverse_std = 1.0 / (variance + EPSILON).sqrt();
        row.mapv_inplace(|v| (v - mean) * inverse_std);
    }
    out
}
