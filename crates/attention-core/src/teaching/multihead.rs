//! The multihead chapter: how different the heads are, and what they cost.

use ndarray::ArrayView2;

use crate::pipeline::trace::Trace;

#[derive(Debug, Clone, PartialEq)]
pub struct MultiheadExperiment {
    pub n_heads: usize,
    pub d_model: usize,
    /// [h][h]: the mean total-variation distance between two heads' weight rows.
    pub distances: Vec<Vec<f64>>,
    /// The mean over pairs of different heads (0 with one head).
    pub mean_distance: f64,
    /// Parameters of W_Q, W_K, W_V, W_O: h heads of d_model / h, one head of d_model, and the
    /// current shape.
    pub split_parameters: usize,
    pub single_parameters: usize,
    pub current_parameters: usize,
}

pub(super) fn run(trace: &Trace) -> MultiheadExperiment {
    let dims = trace.config.dims();
    let h = trace.heads.len();
    let distances: Vec<Vec<f64>> = (0..h)
        .map(|a| {
            (0..h)
                .map(|b| {
                    head_distance(trace.heads[a].weights.view(), trace.heads[b].weights.view())
                })
                .collect()
        })
        .collect();
    let pairs: Vec<f64> = (0..h)
        .flat_map(|a| (a + 1..h).map(move |b| (a, b)))
        .map(|(a, b)| distances[a][b])
        .collect();
    let d = dims.d_model;
    let per = (d / h.max(1)).max(1);
    MultiheadExperiment {
        n_heads: h,
        d_model: d,
        mean_distance: if pairs.is_empty() {
            0.0
        } else {
            pairs.iter().sum::<f64>() / pairs.len() as f64
        },
        distances,
        split_parameters: attention_parameters(d, h, h, per, per),
        single_parameters: attention_parameters(d, 1, 1, d, d),
        current_parameters: attention_parameters(d, h, dims.n_kv_heads, dims.d_k, dims.d_v),
    }
}

/// How differently two heads attend: the mean over queries of the total variation distance
/// ½ Σ_j |a_ij − b_ij| between their weight rows (0: identical, 1: disjoint).
pub fn head_distance(a: ArrayView2<f32>, b: ArrayView2<f32>) -> f64 {
    let rows = a.nrows().max(1) as f64;
    a.outer_iter()
        .zip(b.outer_iter())
        .map(|(x, y)| {
            0.5 * x
                .iter()
                .zip(y.iter())
                .map(|(p, q)| f64::from((p - q).abs()))
                .sum::<f64>()
        })
        .sum::<f64>()
        / rows
}

/// The parameters of one attention layer's projections (no biases): W_Q and W_O take
/// d_model × h·d_k and h·d_v × d_model; W_K and W_V d_model × kv·d_k and d_model × kv·d_v.
pub fn attention_parameters(
    d_model: usize,
    heads: usize,
    kv_heads: usize,
    d_k: usize,
    d_v: usize,
) -> usize {
    d_model * heads * d_k + d_model * kv_heads * (d_k + d_v) + heads * d_v * d_model
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn head_distance_is_zero_for_identical_and_one_for_disjoint_heads() {
        let a = array![[1.0f32, 0.0], [0.0, 1.0]];
        let b = array![[0.0f32, 1.0], [1.0, 0.0]];
        assert_eq!(head_distance(a.view(), a.view()), 0.0);
        assert_eq!(head_distance(a.view(), b.view()), 1.0);
        let c = array![[0.5f32, 0.5], [0.5, 0.5]];
        assert!(close(head_distance(a.view(), c.view()), 0.5, 1e-9));
    }
}
