//! What one forward pass of attention computes with a seq_len² or a matrix-product cost
//! ([`Computed`]), whichever backend computed it (the CPU whole or unit by unit, a worker, the
//! GPU), and the projections every backend starts from. [`crate::pipeline::trace::trace_from`]
//! derives the rest of a trace from it.

use ndarray::{Array2, ArrayView2};

use crate::math::attention::Projections;
use crate::pipeline::config::{Config, LayerNormMode};
use crate::pipeline::overview::Overview;

/// What another backend (the GPU) computed for one forward pass: everything with a seq_len² or
/// a matrix-product cost. [`crate::pipeline::trace::trace_from`] derives the rest exactly as [`crate::pipeline::trace::compute_trace`] does.
#[derive(Debug, Clone, PartialEq)]
pub struct Computed {
    /// [seq_len, n_heads·d_k]
    pub q: Array2<f32>,
    /// [key_len, n_kv_heads·d_k]
    pub k: Array2<f32>,
    /// [key_len, n_kv_heads·d_v]
    pub v: Array2<f32>,
    /// Per head, [seq_len, key_len]: QKᵀ · scale, before the mask.
    pub scores: Vec<Array2<f32>>,
    /// Per head, [seq_len, key_len].
    pub weights: Vec<Array2<f32>>,
    /// Per head, instead of `scores` and `weights` (both then empty), when summarised.
    pub overviews: Vec<Overview>,
    /// [seq_len, n_heads·d_v]: the standard head outputs side by side.
    pub concat: Array2<f32>,
    /// [seq_len, d_model] = concat · W_O
    pub projected: Array2<f32>,
    /// [seq_len, n_heads·d_v]: the flash head outputs side by side.
    pub flash_concat: Array2<f32>,
    /// [seq_len, d_model] = flash_concat · W_O
    pub flash_projected: Array2<f32>,
}

/// What the queries (and, in self-attention, keys and values) are computed from: LN(X) under
/// Pre-LN, else X.
pub fn attention_input(config: &Config) -> Array2<f32> {
    match config.layer_norm() {
        LayerNormMode::Pre => config.norm().apply(config.x()),
        LayerNormMode::None | LayerNormMode::Post => config.x().to_owned(),
    }
}

/// Q from the (normalised) target; K and V from the source in cross-attention. The source is
/// used as given: like an encoder's output, it is not normalised again.
/// Gated DeltaNet's short convolution (a trained model's linear layers) runs on the projections.
pub(crate) fn project(config: &Config, attention_input: ArrayView2<f32>) -> Projections {
    let mut projections = Projections::new(
        attention_input,
        key_value_input(config, attention_input),
        config.weights(),
    );
    if let Some(conv) = config.linear().and_then(|(_, w)| w.conv.as_ref()) {
        let (q, k) = (projections.q.ncols(), projections.k.ncols());
        let v = projections.v.ncols();
        let mut joined = ndarray::Array2::<f32>::zeros((projections.q.nrows(), q + k + v));
        joined
            .slice_mut(ndarray::s![.., ..q])
            .assign(&projections.q);
        joined
            .slice_mut(ndarray::s![.., q..q + k])
            .assign(&projections.k);
        joined
            .slice_mut(ndarray::s![.., q + k..])
            .assign(&projections.v);
        let mixed = crate::math::linear::short_conv(joined.view(), conv.view());
        projections.q = mixed.slice(ndarray::s![.., ..q]).to_owned();
        projections.k = mixed.slice(ndarray::s![.., q..q + k]).to_owned();
        projections.v = mixed.slice(ndarray::s![.., q + k..]).to_owned();
    }
    projections
}

/// What keys and values are projected from: the source in cross-attention, else the queries' input.
pub fn key_value_input<'a>(
    config: &'a Config,
    attention_input: ArrayView2<'a, f32>,
) -> ArrayView2<'a, f32> {
    config
        .source()
        .map_or(attention_input, |source| source.x.view())
}
