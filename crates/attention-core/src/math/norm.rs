//! Layer normalisation over the feature dimension: each row becomes (x − μ) / √(σ² + ε), then
//! scaled and shifted by a learned γ and β where a trained model has them (γ = 1, β = 0 else).
//! Or RMSNorm (Zhang & Sennrich, 2019; Llama's): x / √(mean(x²) + ε) · γ, neither centred nor
//! shifted.

use ndarray::{Array1, Array2, ArrayView2};

/// ε of the source notebook's `LayerNormalization`.
pub const EPSILON: f32 = 1e-6;

/// A LayerNorm: its ε, and a trained model's γ and β ([d] each); or an RMSNorm.
#[derive(Debug, Clone, PartialEq)]
pub struct Norm {
    pub epsilon: f32,
    /// γ and β; an RMSNorm's β is zero (it has none).
    pub affine: Option<(Array1<f32>, Array1<f32>)>,
    /// RMSNorm: rows divided by their root mean square, not centred, no β.
    pub rms: bool,
}

impl Default for Norm {
    /// The lab's LayerNorm: ε = 10⁻⁶, γ = 1, β = 0.
    fn default() -> Self {
        Self {
            epsilon: EPSILON,
            affine: None,
            rms: false,
        }
    }
}

impl Norm {
    /// A trained model's RMSNorm: its γ ([d]) and ε.
    pub fn rms(gamma: Array1<f32>, epsilon: f32) -> Self {
        let beta = Array1::zeros(gamma.len());
        Self {
            epsilon,
            affine: Some((gamma, beta)),
            rms: true,
        }
    }

    /// [rows, d]: each row normalised with μ and σ² (biased) taken over that row, then γ · x + β;
    /// for an RMSNorm, x / √(mean(x²) + ε) · γ.
    pub fn apply(&self, x: ArrayView2<f32>) -> Array2<f32> {
        let mut out = x.to_owned();
        for mut row in out.rows_mut() {
            let n = row.len() as f32;
            if self.rms {
                let mean_square = row.iter().map(|v| v * v).sum::<f32>() / n;
                let inverse_rms = 1.0 / (mean_square + self.epsilon).sqrt();
                row.mapv_inplace(|v| v * inverse_rms);
                if let Some((gamma, _)) = &self.affine {
                    row *= gamma;
                }
                continue;
            }
            let mean = row.sum() / n;
            let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
            let inverse_std = 1.0 / (variance + self.epsilon).sqrt();
            row.mapv_inplace(|v| (v - mean) * inverse_std);
            if let Some((gamma, beta)) = &self.affine {
                row *= gamma;
                row += beta;
            }
        }
        out
    }
}

/// [rows, d]: the lab's LayerNorm (γ = 1, β = 0, ε = 10⁻⁶).
pub fn layer_norm(x: ArrayView2<f32>) -> Array2<f32> {
    Norm::default().apply(x)
}
