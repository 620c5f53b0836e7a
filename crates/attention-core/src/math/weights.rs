//! The four projection matrices of multi-head attention, and their seeded initialisation.

use ndarray::{Array1, Array2};

use crate::math::rng::{SplitMix64, stream_seed};

/// The sizes of one multi-head attention layer, already checked to be consistent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    pub d_model: usize,
    pub n_heads: usize,
    pub n_kv_heads: usize,
    pub d_k: usize,
    pub d_v: usize,
}

impl Dims {
    /// How many query heads share one K/V head: 1 for MHA, n_heads for MQA.
    pub fn group_size(&self) -> usize {
        self.n_heads / self.n_kv_heads
    }

    /// The K/V head that query head `head` reads (grouped-query attention).
    pub fn kv_group(&self, head: usize) -> usize {
        head / self.group_size()
    }
}

/// Row-major projection matrices, used as `x @ W` (as PyTorch's `nn.Linear` weight, transposed).
/// Head h owns columns h·d_k..(h+1)·d_k of W_Q (and likewise of W_K, W_V for K/V head h).
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// [d_model, n_heads·d_k]
    pub w_q: Array2<f32>,
    /// [d_model, n_kv_heads·d_k]
    pub w_k: Array2<f32>,
    /// [d_model, n_kv_heads·d_v]
    pub w_v: Array2<f32>,
    /// [n_heads·d_v, d_model]
    pub w_o: Array2<f32>,
    /// Added after each projection, as trained models (GPT-2) have them; `None`: no biases.
    pub biases: Option<Biases>,
}

/// The bias vectors of the four projections: Q = X W_Q + b_q, and so on.
#[derive(Debug, Clone, PartialEq)]
pub struct Biases {
    /// [n_heads·d_k]
    pub q: Array1<f32>,
    /// [n_kv_heads·d_k]
    pub k: Array1<f32>,
    /// [n_kv_heads·d_v]
    pub v: Array1<f32>,
    /// [d_model]
    pub o: Array1<f32>,
}

impl Weights {
    /// Xavier/Glorot uniform initialisation, each matrix from its own stream of `seed`:
    /// W ~ U(-a, a) with a = √(6 / (fan_in + fan_out)), so activations keep their variance.
    pub fn xavier(seed: u64, dims: &Dims) -> Self {
        Self {
            w_q: xavier_uniform(seed, "w_q", dims.d_model, dims.n_heads * dims.d_k),
            w_k: xavier_uniform(seed, "w_k", dims.d_model, dims.n_kv_heads * dims.d_k),
            w_v: xavier_uniform(seed, "w_v", dims.d_model, dims.n_kv_heads * dims.d_v),
            w_o: xavier_uniform(seed, "w_o", dims.n_heads * dims.d_v, dims.d_model),
            biases: None,
        }
    }

    /// concat · W_O (+ b_o): the output projection. concat: [seq_len, n_heads·d_v].
    pub fn project_out(&self, concat: ndarray::ArrayView2<f32>) -> Array2<f32> {
        let mut out = crate::math::gemm::linear(concat, self.w_o.view());
        if let Some(biases) = &self.biases {
            out += &biases.o;
        }
        out
    }
}

/// [fan_in, fan_out], filled row by row from the stream named `stream`.
pub fn xavier_uniform(seed: u64, stream: &str, fan_in: usize, fan_out: usize) -> Array2<f32> {
    let bound = (6.0 / (fan_in + fan_out) as f64).sqrt();
    let mut rng = SplitMix64::new(stream_seed(seed, stream));
    Array2::from_shape_simple_fn((fan_in, fan_out), || rng.next_symmetric(bound) as f32)
}
