//! Qwen3-Next (Alibaba, 2025), the hybrid layout, as Hugging Face's `Qwen3NextForCausalLM`
//! stores it: Llama's family (RMSNorm, a SwiGLU MLP, grouped-query attention, no biases) with
//! three layers of linear attention for each layer of full attention (`layer_types`):
//!
//! - Gated DeltaNet (`linear_attn`): `in_proj_qkvz` gives each head's q, k, v and a gate z,
//!   `in_proj_ba` its b and a; q, k and v pass a causal depthwise convolution (`conv1d`) and
//!   SiLU; then the gated delta rule ([`crate::math::linear`], β = σ(b), α from `A_log` and
//!   `dt_bias`); each head's output over its root mean square times γ (`norm`) and SiLU(z); then
//!   `out_proj`;
//! - gated full attention (`self_attn`): `q_proj` gives each head's q and an output gate side by
//!   side, QK-norm, RoPE on the first `partial_rotary_factor` of each head, each head's output
//!   times σ(gate) before `o_proj`;
//! - every RMSNorm but Gated DeltaNet's multiplies by 1 + γ (its file holds γ around 0).
//!
//! The lab runs the dense form (`num_experts` 0): a mixture of experts is refused, as are heads
//! that differ between the two kinds of layer (every layer is drawn with the same heads).

use std::sync::Arc;

use ndarray::Array2;

use crate::io::model_files::ConfigJson;
use crate::math::linear::{LinearWeights, OutputGate};
use crate::math::norm::Norm;
use crate::math::scoring::QkGain;
use crate::math::weights::Weights;
use crate::models::config::ModelConfig;
use crate::models::layout::Layout;
use crate::models::llama::{SwiGluMlp, common, refuse, require_silu};
use crate::models::parts::{Block, Parts};
use crate::models::stored::{Stored, transpose};
use crate::models::tensors::{ModelError, Source, matrix, stored, vector};

pub const MODEL_TYPE: &str = Layout::Hybrid.model_type();

/// Qwen3-Next's numbers from its `config.json`; refused, naming the field, when it asks for
/// what the lab does not do.
pub fn config(json: &ConfigJson) -> Result<ModelConfig, ModelError> {
    let mut config = common(json, MODEL_TYPE)?;
    require_silu(json, "SwiGLU and the gates")?;
    if json.bool("attention_bias") == Some(true) {
        return refuse(
            "attention_bias",
            "biases in the attention are not supported",
        );
    }
    let layers = config.n_layers;
    let experts = json.usize("num_experts").unwrap_or(512);
    if experts > 0 {
        let step = json.usize("decoder_sparse_step").unwrap_or(1).max(1);
        let only = json.usizes("mlp_only_layers").unwrap_or_default();
        let sparse = (0..layers).any(|i| !only.contains(&i) && (i + 1).is_multiple_of(step));
        if sparse {
            return refuse(
                "num_experts",
                &format!(
                    "{experts} experts: the lab runs dense MLPs (a mixture of experts is not supported; num_experts 0)"
                ),
            );
        }
    }
    // Full attention on every n-th layer, linear attention on the others.
    let every = json.usize("full_attention_interval").unwrap_or(4).max(1);
    let every = match json.strs("layer_types") {
        Some(types) => {
            if types.len() != layers {
                return refuse(
                    "layer_types",
                    &format!("{} entries for {layers} layers", types.len()),
                );
            }
            let Some(first) = types.iter().position(|&t| t == "full_attention") else {
                return refuse(
                    "layer_types",
                    "no \"full_attention\" layer: the lab runs hybrids with softmax layers among the linear ones",
                );
            };
            let n = first + 1;
            let regular = types.iter().enumerate().all(|(i, &t)| {
                let full = (i + 1).is_multiple_of(n);
                t == if full {
                    "full_attention"
                } else {
                    "linear_attention"
                }
            });
            if !regular {
                return refuse(
                    "layer_types",
                    "the lab runs one full-attention layer in every n, the others \"linear_attention\"",
                );
            }
            n
        }
        None if every > layers => {
            return refuse(
                "full_attention_interval",
                &format!("{every} for {layers} layers leaves no full-attention layer"),
            );
        }
        None => every,
    };
    let field = |name: &str, default: usize| json.usize(name).unwrap_or(default);
    let (heads, d_head) = (config.n_heads, config.d_head());
    for (name, value, want) in [
        (
            "linear_num_key_heads",
            field("linear_num_key_heads", 16),
            heads,
        ),
        (
            "linear_num_value_heads",
            field("linear_num_value_heads", 32),
            heads,
        ),
        (
            "linear_key_head_dim",
            field("linear_key_head_dim", 128),
            d_head,
        ),
        (
            "linear_value_head_dim",
            field("linear_value_head_dim", 128),
            d_head,
        ),
    ] {
        if value != want {
            return refuse(
                name,
                &format!(
                    "{value}: the lab draws every layer with the same heads, so it needs {want} (as num_attention_heads and head_dim)"
                ),
            );
        }
    }
    let factor = json.f64("partial_rotary_factor").unwrap_or(0.25);
    let rotary = (d_head as f64 * factor) as usize;
    if !(factor > 0.0 && factor <= 1.0) || rotary < 2 || rotary % 2 == 1 {
        return refuse(
            "partial_rotary_factor",
            &format!("{factor}: RoPE needs an even number of dimensions (of {d_head}) to turn"),
        );
    }
    let taps = field("linear_conv_kernel_dim", 4);
    if taps == 0 {
        return refuse(
            "linear_conv_kernel_dim",
            "a convolution of 0 taps has nothing to weigh",
        );
    }
    config.layout = Layout::Hybrid;
    config.qk_norm = true;
    config.hybrid_every = Some(every);
    config.rotary_dims = (rotary < d_head).then_some(rotary);
    config.conv_taps = taps;
    Ok(config)
}

/// A Qwen3-Next from its tensors, by Hugging Face's names; `tied`: the LM head is the token
/// embedding, else `lm_head.weight`.
pub fn load(
    config: &ModelConfig,
    vocab: &[String],
    tied: bool,
    tensor: &mut Source,
) -> Result<Parts<SwiGluMlp>, ModelError> {
    config.check(vocab)?;
    let (d, d_ff, heads, dh) = (config.d_model, config.d_ff, config.n_heads, config.d_head());
    let kv_width = config.n_kv_heads * dh;
    let epsilon = config.norm_epsilon;
    let token_embedding = stored(tensor, "model.embed_tokens.weight", config.vocab_size, d)?;
    // 1 + γ: Qwen3-Next's RMSNorm (its file holds γ around 0).
    let rms = |tensor: &mut Source, name: &str, len: usize| -> Result<Norm, ModelError> {
        Ok(Norm::rms(vector(tensor, name, len)? + 1.0, epsilon))
    };
    let big = |tensor: &mut Source, name: &str, out: usize, inp: usize| {
        stored(tensor, name, out, inp).map(Stored::transposed)
    };
    // [out, in] in the file, [in, out] in the lab.
    let linear = |tensor: &mut Source, name: &str, out: usize, inp: usize| {
        matrix(tensor, name, out, inp).map(transpose)
    };
    // Columns `pick` of each head h of a [d, heads·width] matrix, side by side.
    let columns = |w: &Array2<f32>, width: usize, pick: std::ops::Range<usize>| {
        let part = pick.len();
        Array2::from_shape_fn((w.nrows(), heads * part), |(r, c)| {
            w[[r, (c / part) * width + pick.start + c % part]]
        })
    };
    let final_norm = rms(tensor, "model.norm.weight", d)?;
    let mut blocks = Vec::with_capacity(config.n_layers);
    for i in 0..config.n_layers {
        let name = |part: &str| format!("model.layers.{i}.{part}");
        let attention_norm = rms(tensor, &name("input_layernorm.weight"), d)?;
        let mlp_norm = rms(tensor, &name("post_attention_layernorm.weight"), d)?;
        let mlp = SwiGluMlp {
            gate: big(tensor, &name("mlp.gate_proj.weight"), d_ff, d)?,
            up: big(tensor, &name("mlp.up_proj.weight"), d_ff, d)?,
            down: big(tensor, &name("mlp.down_proj.weight"), d, d_ff)?,
            gelu: false,
        };
        let block = if config.is_linear(i) {
            // Per head: q, k, v, z side by side (one value head per key head).
            let group = 4 * dh;
            let qkvz = linear(
                tensor,
                &name("linear_attn.in_proj_qkvz.weight"),
                heads * group,
                d,
            )?;
            let ba = linear(tensor, &name("linear_attn.in_proj_ba.weight"), 2 * heads, d)?;
            let channels = 3 * heads * dh;
            let taps = config.conv_taps;
            let conv = tensor(&name("linear_attn.conv1d.weight"), &[channels, 1, taps])?.into_f32();
            let conv = Array2::from_shape_vec((channels, taps), conv)
                .map_err(|e| ModelError::Format(e.to_string()))?;
            let pick = |h_range: std::ops::Range<usize>| columns(&qkvz, group, h_range);
            Block {
                attention_norm,
                attention: Weights {
                    w_q: pick(0..dh),
                    w_k: pick(dh..2 * dh),
                    w_v: pick(2 * dh..3 * dh),
                    w_o: linear(tensor, &name("linear_attn.out_proj.weight"), d, heads * dh)?,
                    biases: None,
                }
                .into(),
                qk_norm: None,
                mlp_norm,
                mlp,
                post_attention_norm: None,
                post_mlp_norm: None,
                linear: Some(Arc::new(LinearWeights {
                    w_beta: columns(&ba, 2, 0..1),
                    w_alpha: columns(&ba, 2, 1..2),
                    a_log: vector(tensor, &name("linear_attn.A_log"), heads)?,
                    dt_bias: vector(tensor, &name("linear_attn.dt_bias"), heads)?,
                    conv: Some(conv),
                })),
                gate: Some(Arc::new(OutputGate::NormSilu {
                    w_z: pick(3 * dh..4 * dh),
                    gamma: vector(tensor, &name("linear_attn.norm.weight"), dh)?,
                    epsilon,
                })),
            }
        } else {
            // Per head: q, then its output gate.
            let q_and_gate = linear(tensor, &name("self_attn.q_proj.weight"), heads * 2 * dh, d)?;
            let gain = |tensor: &mut Source, part: &str| {
                vector(tensor, &name(part), dh).map(|g| (g + 1.0).to_vec())
            };
            Block {
                attention_norm,
                attention: Weights {
                    w_q: columns(&q_and_gate, 2 * dh, 0..dh),
                    w_k: linear(tensor, &name("self_attn.k_proj.weight"), kv_width, d)?,
                    w_v: linear(tensor, &name("self_attn.v_proj.weight"), kv_width, d)?,
                    w_o: linear(tensor, &name("self_attn.o_proj.weight"), d, heads * dh)?,
                    biases: None,
                }
                .into(),
                qk_norm: Some(QkGain {
                    q: gain(tensor, "self_attn.q_norm.weight")?,
                    k: gain(tensor, "self_attn.k_norm.weight")?,
                    epsilon,
                }),
                mlp_norm,
                mlp,
                post_attention_norm: None,
                post_mlp_norm: None,
                linear: None,
                gate: Some(Arc::new(OutputGate::Sigmoid(columns(
                    &q_and_gate,
                    2 * dh,
                    dh..2 * dh,
                )))),
            }
        };
        blocks.push(block);
    }
    let lm_head = if tied {
        None
    } else {
        match stored(tensor, "lm_head.weight", config.vocab_size, d) {
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
