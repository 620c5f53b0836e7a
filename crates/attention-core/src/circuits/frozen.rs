//! A norm linearised at its actual input. LayerNorm's y = γ ⊙ (x − mean x)/σ + β and RMSNorm's
//! y = γ ⊙ x / rms(x) are not linear in x, but with σ (or rms) taken from the whole vector and
//! frozen, the rest is: for x = Σ_c x_c, y = Σ_c γ ⊙ (x_c − mean x_c)/σ + β exactly. β is the
//! constant part, named `"bias"` where it is reported.

use ndarray::{Array1, ArrayView1, ArrayView2};

use crate::math::norm::Norm;

/// A norm with each row's scale frozen at the input it was applied to.
#[derive(Debug, Clone, PartialEq)]
pub struct FrozenNorm {
    /// Subtract the mean (LayerNorm) or not (RMSNorm, or no norm at all).
    centre: bool,
    gamma: Option<Array1<f64>>,
    beta: Option<Array1<f64>>,
    /// Per row: 1/σ (LayerNorm) or 1/rms (RMSNorm); 1 for no norm.
    inverse: Vec<f64>,
}

impl FrozenNorm {
    /// `norm` frozen at `x` [rows, d], each row's scale computed in f32 as [`Norm::apply`]
    /// computes it.
    pub fn at(norm: &Norm, x: ArrayView2<f32>) -> Self {
        let inverse = x
            .rows()
            .into_iter()
            .map(|row| {
                let n = row.len() as f32;
                let spread = if norm.rms {
                    row.iter().map(|v| v * v).sum::<f32>() / n
                } else {
                    let mean = row.sum() / n;
                    row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n
                };
                f64::from(1.0 / (spread + norm.epsilon).sqrt())
            })
            .collect();
        let wide = |a: &Array1<f32>| a.mapv(f64::from);
        Self {
            centre: !norm.rms,
            gamma: norm.affine.as_ref().map(|(g, _)| wide(g)),
            beta: norm
                .affine
                .as_ref()
                .filter(|_| !norm.rms)
                .map(|(_, b)| wide(b)),
            inverse,
        }
    }

    /// No norm: every part is read as it is.
    pub fn identity(rows: usize) -> Self {
        Self {
            centre: false,
            gamma: None,
            beta: None,
            inverse: vec![1.0; rows],
        }
    }

    /// What part `v` of row `row`'s input becomes: γ ⊙ (v − mean v) · (1/σ).
    pub fn part(&self, row: usize, v: ArrayView1<f64>) -> Array1<f64> {
        let scale = self.inverse.get(row).copied().unwrap_or(1.0);
        let mean = if self.centre {
            v.sum() / v.len().max(1) as f64
        } else {
            0.0
        };
        let mut out = v.mapv(|x| (x - mean) * scale);
        if let Some(gamma) = &self.gamma {
            out *= gamma;
        }
        out
    }

    /// Every row of part `v` [rows, d] as [`FrozenNorm::part`] makes it.
    pub fn part_rows(&self, v: ndarray::ArrayView2<f64>) -> ndarray::Array2<f64> {
        let mut out = v.to_owned();
        for (r, mut row) in out.rows_mut().into_iter().enumerate() {
            let scale = self.inverse.get(r).copied().unwrap_or(1.0);
            let mean = if self.centre {
                row.sum() / row.len().max(1) as f64
            } else {
                0.0
            };
            row.mapv_inplace(|x| (x - mean) * scale);
            if let Some(gamma) = &self.gamma {
                row *= gamma;
            }
        }
        out
    }

    /// The constant part, β (zero without one), of width `d`.
    pub fn constant(&self, d: usize) -> Array1<f64> {
        self.beta.clone().unwrap_or_else(|| Array1::zeros(d))
    }

    /// The reading matrix's diagonal weight γ (1 without one), for composition scores.
    pub fn gamma(&self, d: usize) -> Array1<f64> {
        self.gamma.clone().unwrap_or_else(|| Array1::ones(d))
    }

    /// Whether it subtracts each row's mean (LayerNorm).
    pub fn centres(&self) -> bool {
        self.centre
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, array};

    #[test]
    fn the_parts_sum_to_the_norm_of_the_whole() {
        for rms in [false, true] {
            let norm = Norm {
                epsilon: 1e-5,
                affine: Some((
                    array![1.5f32, -0.5, 2.0, 0.25],
                    array![0.1f32, 0.2, -0.3, 0.0],
                )),
                rms,
            };
            let a = array![[0.3f64, -1.2, 0.7, 2.0]];
            let b = array![[1.0f64, 0.5, -0.25, 0.125]];
            let x: Array2<f32> = (&a + &b).mapv(|v| v as f32);
            let frozen = FrozenNorm::at(&norm, x.view());
            let sum = frozen.part(0, a.row(0)) + frozen.part(0, b.row(0)) + frozen.constant(4);
            let whole = norm.apply(x.view());
            for (s, w) in sum.iter().zip(whole.row(0)) {
                assert!((s - f64::from(*w)).abs() < 1e-6, "{rms}: {s} vs {w}");
            }
        }
    }
}
