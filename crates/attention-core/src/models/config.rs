//! A model's hyper-parameters, whatever its layout: each layout's file reads its own
//! `config.json` names into them (`gpt2::config`, `llama::config`).

use crate::math::scoring::{Pairing, Position};
use crate::models::layout::Layout;
use crate::models::tensors::ModelError;

/// A model's hyper-parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelConfig {
    pub layout: Layout,
    pub n_layers: usize,
    pub n_heads: usize,
    /// K/V heads: n_heads for GPT-2, fewer with grouped-query attention.
    pub n_kv_heads: usize,
    /// The width of the residual stream.
    pub d_model: usize,
    /// The MLP's hidden width: 4·d_model for GPT-2, Llama's `intermediate_size`.
    pub d_ff: usize,
    /// The longest input.
    pub context: usize,
    pub vocab_size: usize,
    /// RoPE's base θ (Llama's `rope_theta`; unused by GPT-2).
    pub rope_theta: f64,
    /// The norms' ε.
    pub norm_epsilon: f32,
    /// `config.json`'s `model_type` (`"gpt2"`, `"llama"`, `"mistral"`, `"qwen2"`, `"qwen3"`).
    pub model_type: &'static str,
    /// Each head's width d_k = d_v: d_model / n_heads, or the config's `head_dim` (Qwen3's heads
    /// are wider than that).
    pub head_dim: usize,
    /// Biases on q, k and v (GPT-2, Qwen2, Llama's `attention_bias`), and on the output
    /// projection (GPT-2, Llama's `attention_bias`).
    pub qkv_bias: bool,
    pub o_bias: bool,
    /// Qwen3's QK-norm: an RMSNorm with learned γ on each head's q and k, before RoPE.
    pub qk_norm: bool,
    /// Mistral's sliding window: each query sees itself and the `w − 1` keys before it.
    pub sliding_window: Option<usize>,
}

impl ModelConfig {
    /// Each head's width, d_k = d_v.
    pub fn d_head(&self) -> usize {
        self.head_dim
    }

    /// Where positions enter each layer's attention: none there for GPT-2 (they were added to
    /// X), RoPE with the model's θ for Llama ("half" pairing, as Hugging Face's Llama turns q
    /// and k).
    pub fn position(&self) -> Position {
        if self.layout.adds_positions() {
            Position::Absolute
        } else {
            Position::Rope {
                base: self.rope_theta,
                pairing: Pairing::Half,
            }
        }
    }

    /// The vocabulary's length and the heads agree with these numbers.
    pub fn check(&self, vocab: &[String]) -> Result<(), ModelError> {
        let Self {
            n_heads,
            n_kv_heads,
            vocab_size,
            ..
        } = *self;
        if vocab.len() != vocab_size {
            return Err(ModelError::Vocab(format!(
                "{} tokens, config.json says {vocab_size}",
                vocab.len()
            )));
        }
        if n_heads == 0 || self.head_dim == 0 {
            return Err(ModelError::Config(format!(
                "{n_heads} heads of width {}: a model needs heads",
                self.head_dim
            )));
        }
        if n_kv_heads == 0 || n_heads % n_kv_heads != 0 {
            return Err(ModelError::Config(format!(
                "{n_heads} query heads cannot be shared evenly by {n_kv_heads} K/V heads"
            )));
        }
        Ok(())
    }
}
