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
    /// Mistral's sliding window: each query sees itself and the `w − 1` keys before it (on
    /// every layer, or on Gemma's sliding layers: see `full_every`).
    pub sliding_window: Option<usize>,
    /// Gemma's layers of full attention among sliding ones: layer i (from 0) attends to every
    /// earlier key when i + 1 is a multiple of this (2 for Gemma 2, 6 for Gemma 3); `None`: the
    /// window, if any, is on every layer.
    pub full_every: Option<usize>,
    /// Gemma 3's RoPE base on its sliding layers (`rope_local_base_freq`); `None`: `rope_theta`
    /// on every layer.
    pub rope_local_theta: Option<f64>,
    /// Gemma 2's soft-caps: on each attention score q·k/√d_k (`attn_logit_softcapping`) and on
    /// each logit (`final_logit_softcapping`), z → c·tanh(z/c).
    pub attention_softcap: Option<f32>,
    pub logit_softcap: Option<f32>,
    /// Gemma's factor on the token embeddings, √d_model; `None`: 1.
    pub embedding_scale: Option<f32>,
    /// Gemma's scores are q·k / √`query_pre_attn_scalar`, not / √d_k: this factor,
    /// √(d_k / query_pre_attn_scalar), is folded into W_Q (or QK-norm's γ for q) as the model
    /// is read, so the lab's q·k/√d_k is Gemma's score; `None`: 1.
    pub query_scale: Option<f32>,
    /// A hybrid (Qwen3-Next): layer i is full attention when i + 1 is a multiple of this, Gated
    /// DeltaNet otherwise; `None`: every layer is softmax attention.
    pub hybrid_every: Option<usize>,
    /// RoPE on the first r dimensions of each head only (`partial_rotary_factor`); `None`: all.
    pub rotary_dims: Option<usize>,
    /// The taps of a hybrid's short convolution before the delta rule (0 when there is none).
    pub conv_taps: usize,
    /// Llama with a sigmoid gate on each head's output before W_O, σ(x·W_g) from
    /// `self_attn.g_proj.weight` (`attention_output_gate`: the lab's sink twin, as Qwen3-Next
    /// gates its full attention).
    pub output_gate: bool,
}

impl ModelConfig {
    /// Gemma 2 or 3: sandwich norms, RMSNorm gains of 1 + γ, a GELU gate.
    pub fn is_gemma(&self) -> bool {
        self.model_type.starts_with("gemma")
    }

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
                pairing: self.rotary_dims.map_or(Pairing::Half, Pairing::HalfOf),
            }
        }
    }

    /// Whether layer `layer` is linear attention (a hybrid's Gated DeltaNet).
    pub fn is_linear(&self, layer: usize) -> bool {
        self.hybrid_every
            .is_some_and(|every| !(layer + 1).is_multiple_of(every.max(1)))
    }

    /// The sliding window of layer `layer`: `sliding_window`, except on Gemma's layers of full
    /// attention.
    pub fn window(&self, layer: usize) -> Option<usize> {
        match self.full_every {
            Some(every) if (layer + 1).is_multiple_of(every.max(1)) => None,
            _ => self.sliding_window,
        }
    }

    /// Where positions enter layer `layer`'s attention: [`ModelConfig::position`], with Gemma
    /// 3's local base on its sliding layers.
    pub fn position_at(&self, layer: usize) -> Position {
        if self.is_linear(layer) {
            // The delta rule reads no positions: the order is in the recurrence (and the
            // convolution before it).
            return Position::None;
        }
        match (self.position(), self.rope_local_theta) {
            (Position::Rope { pairing, .. }, Some(base)) if self.window(layer).is_some() => {
                Position::Rope { base, pairing }
            }
            (position, _) => position,
        }
    }

    /// Gemma 2's cap on the logits, applied to `logits` in place.
    pub fn cap_logits(&self, logits: &mut [f32]) {
        if let Some(c) = self.logit_softcap {
            for z in logits {
                *z = c * (*z / c).tanh();
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
        if n_heads > crate::pipeline::config::MAX_HEADS {
            return Err(ModelError::Config(format!(
                "num_attention_heads {n_heads} (GPT-2's n_head): the lab draws at most {} heads a layer",
                crate::pipeline::config::MAX_HEADS
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
