//! The multihead chapter: how different the heads are, and what they cost.

use crate::experiments::{attention_parameters, head_distance};
use crate::trace::Trace;

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
