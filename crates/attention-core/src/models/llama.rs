//! Llama (Touvron et al., 2023; the layout of today's open models), as Hugging Face's
//! `LlamaForCausalLM` stores it: token embeddings only; RMSNorm before attention and MLP; rotary
//! positions (RoPE, "half" pairing) on each head's q and k; grouped-query attention (several
//! query heads read one K/V head); a SwiGLU MLP; no biases; a final RMSNorm; the LM head tied to
//! the token embedding. Weights in PyTorch's `Linear` layout, [out, in], transposed here to the
//! lab's x · W.
//!
//! `config.json` names: `num_hidden_layers`, `num_attention_heads`, `num_key_value_heads`,
//! `hidden_size`, `intermediate_size`, `max_position_embeddings`, `vocab_size`, `rms_norm_eps`,
//! `rope_theta`, `head_dim`.

use ndarray::{Array2, ArrayView2};

use crate::io::model_files::ConfigJson;
use crate::math::fastmath;
use crate::math::norm::Norm;
use crate::math::weights::Weights;
use crate::models::config::ModelConfig;
use crate::models::layout::Layout;
use crate::models::parts::{Block, Parts};
use crate::models::tensors::{ModelError, Source, matrix, vector};

/// Llama's numbers from its `config.json`; refused when it asks for what the lab does not do
/// (RoPE scaling, a head width other than hidden_size / num_attention_heads).
pub fn config(json: &ConfigJson) -> Result<ModelConfig, ModelError> {
    let field = |name: &str| {
        json.usize(name)
            .ok_or_else(|| ModelError::Config(format!("no {name}")))
    };
    let n_heads = field("num_attention_heads")?;
    let config = ModelConfig {
        layout: Layout::Llama,
        n_layers: field("num_hidden_layers")?,
        n_heads,
        n_kv_heads: json.usize("num_key_value_heads").unwrap_or(n_heads),
        d_model: field("hidden_size")?,
        d_ff: field("intermediate_size")?,
        context: field("max_position_embeddings")?,
        vocab_size: field("vocab_size")?,
        rope_theta: json.f64("rope_theta").unwrap_or(10_000.0),
        norm_epsilon: json.f64("rms_norm_eps").unwrap_or(1e-6) as f32,
    };
    if let Some(head_dim) = json.usize("head_dim")
        && head_dim != config.d_head()
    {
        return Err(ModelError::Config(format!(
            "head_dim {head_dim} is not hidden_size / num_attention_heads = {}",
            config.d_head()
        )));
    }
    if json.is_set("rope_scaling") {
        return Err(ModelError::Config("rope_scaling is not supported".into()));
    }
    Ok(config)
}

/// A Llama from its tensors, by Hugging Face's names.
pub fn load(
    config: &ModelConfig,
    vocab: &[String],
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
    let token_embedding = matrix(tensor, "model.embed_tokens.weight", vocab_size, d)?;
    let rms = |tensor: &mut Source, name: &str| -> Result<Norm, ModelError> {
        Ok(Norm::rms(vector(tensor, name, d)?, epsilon))
    };
    // [out, in] in the file, [in, out] in the lab.
    let linear = |tensor: &mut Source, name: &str, out: usize, inp: usize| {
        matrix(tensor, name, out, inp).map(|w| w.reversed_axes().as_standard_layout().to_owned())
    };
    let final_norm = rms(tensor, "model.norm.weight")?;
    let mut blocks = Vec::with_capacity(n_layers);
    for i in 0..n_layers {
        let name = |part: &str| format!("model.layers.{i}.{part}");
        blocks.push(Block {
            attention_norm: rms(tensor, &name("input_layernorm.weight"))?,
            attention: Weights {
                w_q: linear(tensor, &name("self_attn.q_proj.weight"), q_width, d)?,
                w_k: linear(tensor, &name("self_attn.k_proj.weight"), kv_width, d)?,
                w_v: linear(tensor, &name("self_attn.v_proj.weight"), kv_width, d)?,
                w_o: linear(tensor, &name("self_attn.o_proj.weight"), d, q_width)?,
                biases: None,
            },
            mlp_norm: rms(tensor, &name("post_attention_layernorm.weight"))?,
            mlp: SwiGluMlp {
                gate: linear(tensor, &name("mlp.gate_proj.weight"), d_ff, d)?,
                up: linear(tensor, &name("mlp.up_proj.weight"), d_ff, d)?,
                down: linear(tensor, &name("mlp.down_proj.weight"), d, d_ff)?,
            },
        });
    }
    Ok(Parts {
        token_embedding,
        position_embedding: None,
        blocks,
        final_norm,
    })
}

/// Llama's MLP: (SiLU(x · gate) ⊙ (x · up)) · down; gate, up [d_model, d_ff], down [d_ff,
/// d_model].
#[derive(Debug, Clone, PartialEq)]
pub struct SwiGluMlp {
    pub gate: Array2<f32>,
    pub up: Array2<f32>,
    pub down: Array2<f32>,
}

impl SwiGluMlp {
    /// The MLP of the normed rows `x` [seq_len, d_model].
    pub fn apply(&self, x: ArrayView2<f32>) -> Array2<f32> {
        let mut hidden = x.dot(&self.gate);
        hidden.mapv_inplace(silu);
        hidden *= &x.dot(&self.up);
        hidden.dot(&self.down)
    }

    pub fn parameter_count(&self) -> usize {
        self.gate.len() + self.up.len() + self.down.len()
    }
}

/// SiLU (swish), Llama's gate: x · σ(x) = x / (1 + e^(−x)).
pub fn silu(x: f32) -> f32 {
    x / (1.0 + fastmath::exp(-x))
}
