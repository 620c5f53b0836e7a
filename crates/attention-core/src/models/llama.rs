//! Llama (Touvron et al., 2023; the layout of today's open models), as Hugging Face's
//! `LlamaForCausalLM` stores it: token embeddings only; RMSNorm before attention and MLP; rotary
//! positions (RoPE, "half" pairing) on each head's q and k; grouped-query attention (several
//! query heads read one K/V head); a SwiGLU MLP; no biases; a final RMSNorm; the LM head tied to
//! the token embedding. Weights in PyTorch's `Linear` layout, [out, in], transposed here to the
//! lab's x · W.
//!
//! `config.json` names: `num_hidden_layers`, `num_attention_heads`, `num_key_value_heads`,
//! `hidden_size`, `intermediate_size`, `max_position_embeddings`, `vocab_size`, `rms_norm_eps`,
//! `rope_theta`, `head_dim`; and the lab's own `attention_output_gate` (its sink twin, with
//! `self_attn.g_proj.weight` [heads · head_dim, hidden_size] in each layer: not a field
//! transformers' Llama reads).

use std::sync::Arc;

use ndarray::{Array2, ArrayView2};

use crate::io::model_files::ConfigJson;
use crate::math::fastmath;
use crate::math::linear::OutputGate;
use crate::math::norm::Norm;
use crate::math::scoring::QkGain;
use crate::math::weights::{Biases, Weights};
use crate::models::config::ModelConfig;
use crate::models::layout::Layout;
use crate::models::parts::{Block, Parts};
use crate::models::stored::Stored;
use crate::models::tensors::{ModelError, Source, matrix, stored, vector};

/// The `model_type`s read as Llama's layout, and what each adds: Mistral a sliding window, Qwen2
/// biases on q, k and v, Qwen3 QK-norm and heads wider than hidden_size / heads.
pub const MODEL_TYPES: [&str; 4] = ["llama", "mistral", "qwen2", "qwen3"];

/// Llama's numbers (or Mistral's, Qwen2's, Qwen3's) from its `config.json`; refused, naming the
/// field, when it asks for what the lab does not do (RoPE scaling, an activation other than SiLU,
/// MLP biases, a partial rotation).
pub fn config(json: &ConfigJson) -> Result<ModelConfig, ModelError> {
    let model_type = MODEL_TYPES
        .into_iter()
        .find(|&t| json.str("model_type") == Some(t))
        .unwrap_or("llama");
    let mut config = common(json, model_type)?;
    require_silu(json, "SwiGLU")?;
    if json.bool("use_sliding_window") == Some(true) {
        return refuse(
            "use_sliding_window",
            "Qwen's per-layer sliding windows are not supported",
        );
    }
    config.qkv_bias |= model_type == "qwen2";
    config.qk_norm = model_type == "qwen3";
    config.sliding_window = match model_type {
        "mistral" => json.usize("sliding_window").filter(|&w| w < config.context),
        _ => None,
    };
    if config.sliding_window == Some(0) {
        return refuse("sliding_window", "a window of 0 keys sees nothing");
    }
    Ok(config)
}

/// `hidden_act` refused unless it is SiLU, which the lab computes `what` with.
pub(crate) fn require_silu(json: &ConfigJson, what: &str) -> Result<(), ModelError> {
    match json.str("hidden_act") {
        Some(act) if act != "silu" => refuse(
            "hidden_act",
            &format!("{act:?}: the lab computes {what} with SiLU (\"silu\")"),
        ),
        _ => Ok(()),
    }
}

/// A refusal naming the field of `config.json` that asks for it.
pub(crate) fn refuse<T>(name: &str, why: &str) -> Result<T, ModelError> {
    Err(ModelError::Config(format!("{name}: {why}")))
}

/// The numbers every layout of Llama's family names alike (Gemma's too), and the refusals they
/// share: RoPE scaling, MLP biases, a partial rotation.
pub(crate) fn common(
    json: &ConfigJson,
    model_type: &'static str,
) -> Result<ModelConfig, ModelError> {
    let field = |name: &str| {
        json.usize(name)
            .ok_or_else(|| ModelError::Config(format!("no {name}")))
    };
    let n_heads = field("num_attention_heads")?;
    let d_model = field("hidden_size")?;
    let head_dim = match json.usize("head_dim") {
        Some(head_dim) => head_dim,
        None if n_heads > 0 => d_model / n_heads,
        None => 0,
    };
    if json.is_set("rope_scaling") {
        return refuse(
            "rope_scaling",
            "RoPE scaling (long-context variants) is not supported",
        );
    }
    if json.bool("mlp_bias") == Some(true) {
        return refuse("mlp_bias", "biases in the MLP are not supported");
    }
    if model_type != "qwen3_next" && json.f64("partial_rotary_factor").is_some_and(|f| f != 1.0) {
        return refuse(
            "partial_rotary_factor",
            "RoPE on part of each head is not supported",
        );
    }
    let attention_bias = json.bool("attention_bias") == Some(true);
    Ok(ModelConfig {
        layout: Layout::Llama,
        n_layers: field("num_hidden_layers")?,
        n_heads,
        n_kv_heads: json.usize("num_key_value_heads").unwrap_or(n_heads),
        d_model,
        d_ff: field("intermediate_size")?,
        context: field("max_position_embeddings")?,
        vocab_size: field("vocab_size")?,
        rope_theta: json.f64("rope_theta").unwrap_or(10_000.0),
        norm_epsilon: json.f64("rms_norm_eps").unwrap_or(1e-6) as f32,
        model_type,
        head_dim,
        qkv_bias: attention_bias,
        o_bias: attention_bias,
        qk_norm: false,
        sliding_window: None,
        full_every: None,
        rope_local_theta: None,
        attention_softcap: None,
        logit_softcap: None,
        embedding_scale: None,
        query_scale: None,
        hybrid_every: None,
        rotary_dims: None,
        conv_taps: 0,
        output_gate: model_type == "llama" && json.bool("attention_output_gate") == Some(true),
    })
}

/// A Llama from its tensors, by Hugging Face's names; `tied`: the LM head is the token embedding
/// (`tie_word_embeddings`), else `lm_head.weight` where the file has it.
pub fn load(
    config: &ModelConfig,
    vocab: &[String],
    tied: bool,
    tensor: &mut Source,
) -> Result<Parts<SwiGluMlp>, ModelError> {
    config.check(vocab)?;
    let ModelConfig {
        n_layers,
        d_model: d,
        d_ff,
        vocab_size,
        norm_epsilon: epsilon,
        ..
    } = *config;
    let d_head = config.d_head();
    if d_head % 2 == 1 {
        return Err(ModelError::Config(format!(
            "head_dim {d_head} is odd: RoPE turns pairs of dimensions"
        )));
    }
    let q_width = config.n_heads * d_head;
    let kv_width = config.n_kv_heads * d_head;
    let token_embedding = stored(tensor, "model.embed_tokens.weight", vocab_size, d)?;
    // Gemma's RMSNorms multiply by 1 + γ (its files hold γ around 0), Llama's by γ.
    let gemma = config.is_gemma();
    let gain = |tensor: &mut Source, name: &str, len: usize| {
        vector(tensor, name, len).map(|g| if gemma { g + 1.0 } else { g })
    };
    let rms = |tensor: &mut Source, name: &str, len: usize| -> Result<Norm, ModelError> {
        Ok(Norm::rms(gain(tensor, name, len)?, epsilon))
    };
    let query_scale = config.query_scale.unwrap_or(1.0);
    // [out, in] in the file, [in, out] in the lab.
    let big = |tensor: &mut Source, name: &str, out: usize, inp: usize| {
        stored(tensor, name, out, inp).map(Stored::transposed)
    };
    let linear = |tensor: &mut Source, name: &str, out: usize, inp: usize| {
        matrix(tensor, name, out, inp).map(crate::models::stored::transpose)
    };
    let final_norm = rms(tensor, "model.norm.weight", d)?;
    let mut blocks = Vec::with_capacity(n_layers);
    for i in 0..n_layers {
        let name = |part: &str| format!("model.layers.{i}.{part}");
        let biases = if config.qkv_bias || config.o_bias {
            let bias = |tensor: &mut Source, part: &str, len: usize, read: bool| {
                if read {
                    vector(tensor, &name(part), len)
                } else {
                    Ok(ndarray::Array1::zeros(len))
                }
            };
            Some(Biases {
                q: bias(tensor, "self_attn.q_proj.bias", q_width, config.qkv_bias)?
                    * if config.qk_norm { 1.0 } else { query_scale },
                k: bias(tensor, "self_attn.k_proj.bias", kv_width, config.qkv_bias)?,
                v: bias(tensor, "self_attn.v_proj.bias", kv_width, config.qkv_bias)?,
                o: bias(tensor, "self_attn.o_proj.bias", d, config.o_bias)?,
            })
        } else {
            None
        };
        let qk_norm = if config.qk_norm {
            Some(QkGain {
                q: (gain(tensor, &name("self_attn.q_norm.weight"), d_head)? * query_scale).to_vec(),
                k: gain(tensor, &name("self_attn.k_norm.weight"), d_head)?.to_vec(),
                epsilon,
            })
        } else {
            None
        };
        // Llama's second norm is before the MLP; Gemma's sandwich has one after the attention
        // and one on each side of the MLP.
        let (post_attention_norm, mlp_norm, post_mlp_norm) = if gemma {
            (
                Some(rms(tensor, &name("post_attention_layernorm.weight"), d)?),
                rms(tensor, &name("pre_feedforward_layernorm.weight"), d)?,
                Some(rms(tensor, &name("post_feedforward_layernorm.weight"), d)?),
            )
        } else {
            (
                None,
                rms(tensor, &name("post_attention_layernorm.weight"), d)?,
                None,
            )
        };
        let mut w_q = linear(tensor, &name("self_attn.q_proj.weight"), q_width, d)?;
        if !config.qk_norm && query_scale != 1.0 {
            w_q *= query_scale;
        }
        blocks.push(Block {
            attention_norm: rms(tensor, &name("input_layernorm.weight"), d)?,
            attention: Weights {
                w_q,
                w_k: linear(tensor, &name("self_attn.k_proj.weight"), kv_width, d)?,
                w_v: linear(tensor, &name("self_attn.v_proj.weight"), kv_width, d)?,
                w_o: linear(tensor, &name("self_attn.o_proj.weight"), d, q_width)?,
                biases,
            }
            .into(),
            qk_norm,
            mlp_norm,
            mlp: SwiGluMlp {
                gate: big(tensor, &name("mlp.gate_proj.weight"), d_ff, d)?,
                up: big(tensor, &name("mlp.up_proj.weight"), d_ff, d)?,
                down: big(tensor, &name("mlp.down_proj.weight"), d, d_ff)?,
                gelu: gemma,
            },
            post_attention_norm,
            post_mlp_norm,
            linear: None,
            // The sink twin's gate: σ(x·W_g) on each head's output, W_g [d_model, heads·d_head].
            gate: if config.output_gate {
                Some(Arc::new(OutputGate::Sigmoid(linear(
                    tensor,
                    &name("self_attn.g_proj.weight"),
                    q_width,
                    d,
                )?)))
            } else {
                None
            },
        });
    }
    // The LM head: its own matrix where the file has one and the config does not tie it.
    let lm_head = if tied {
        None
    } else {
        match stored(tensor, "lm_head.weight", vocab_size, d) {
            Ok(m) => Some(m),
            Err(ModelError::Missing(_)) => None,
            Err(e) => return Err(e),
        }
    };
    Ok(Parts {
        token_embedding,
        position_embedding: None,
        blocks,
        final_norm,
        lm_head,
    })
}

/// Llama's MLP: (SiLU(x · gate) ⊙ (x · up)) · down; gate, up [d_model, d_ff], down [d_ff,
/// d_model]. Gemma's is the same with the tanh GELU for SiLU (GeGLU).
#[derive(Debug, Clone, PartialEq)]
pub struct SwiGluMlp {
    pub gate: Stored,
    pub up: Stored,
    pub down: Stored,
    /// The gate is the tanh GELU (Gemma's `gelu_pytorch_tanh`), not SiLU.
    pub gelu: bool,
}

impl SwiGluMlp {
    /// The MLP of the normed rows `x` [seq_len, d_model].
    pub fn apply(&self, x: ArrayView2<f32>) -> Array2<f32> {
        let mut hidden = self.gate.linear(x);
        if self.gelu {
            hidden.mapv_inplace(crate::models::gpt2::gelu);
        } else {
            hidden.mapv_inplace(silu);
        }
        hidden *= &self.up.linear(x);
        self.down.linear(hidden.view())
    }

    pub fn parameter_count(&self) -> usize {
        self.gate.len() + self.up.len() + self.down.len()
    }

    /// Adds hidden units `c0..c1`'s share of the MLP of the normed rows `x` into `out`.
    pub fn add_hidden(&self, x: ArrayView2<f32>, c0: usize, c1: usize, out: &mut Array2<f32>) {
        let mut hidden = self.gate.linear_columns(x, c0, c1);
        if self.gelu {
            hidden.mapv_inplace(crate::models::gpt2::gelu);
        } else {
            hidden.mapv_inplace(silu);
        }
        hidden *= &self.up.linear_columns(x, c0, c1);
        self.down.add_rows_product(hidden.view(), c0, out);
    }
}

/// SiLU (swish), Llama's gate: x · σ(x) = x / (1 + e^(−x)).
pub fn silu(x: f32) -> f32 {
    x / (1.0 + fastmath::exp(-x))
}
