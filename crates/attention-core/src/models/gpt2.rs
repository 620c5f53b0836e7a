//! GPT-2 (Radford et al., 2019), as Hugging Face's `GPT2LMHeadModel` stores it: token and
//! learned position embeddings (`wte`, `wpe`); pre-LN blocks x = x + Attn(LN₁(x)); x = x +
//! MLP(LN₂(x)) with a GELU MLP and biases; a final LayerNorm; the LM head tied to `wte`.
//!
//! `config.json` names: `n_layer`, `n_head`, `n_embd`, `n_positions`, `vocab_size`,
//! `layer_norm_epsilon`.

use ndarray::{Array1, Array2, ArrayView2, s};

use crate::io::model_files::ConfigJson;
use crate::math::fastmath;
use crate::math::norm::Norm;
use crate::math::weights::{Biases, Weights};
use crate::models::config::ModelConfig;
use crate::models::layout::Layout;
use crate::models::parts::{Block, Parts};
use crate::models::stored::Stored;
use crate::models::tensors::{ModelError, Source, matrix, stored, vector};

/// GPT-2's numbers from its `config.json`; refused when it asks for what the lab does not do (an
/// activation other than GPT-2's tanh GELU, a width its heads do not divide).
pub fn config(json: &ConfigJson) -> Result<ModelConfig, ModelError> {
    let field = |name: &str| {
        json.usize(name)
            .ok_or_else(|| ModelError::Config(format!("no {name}")))
    };
    let (n_heads, d_model) = (field("n_head")?, field("n_embd")?);
    if n_heads == 0 || d_model % n_heads != 0 {
        return Err(ModelError::Config(format!(
            "n_embd {d_model} is not a multiple of n_head {n_heads}"
        )));
    }
    if let Some(act) = json.str("activation_function")
        && !matches!(act, "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast")
    {
        return Err(ModelError::Config(format!(
            "activation_function {act:?}: the lab computes GPT-2's tanh GELU (\"gelu_new\")"
        )));
    }
    Ok(ModelConfig {
        layout: Layout::Gpt2,
        n_layers: field("n_layer")?,
        n_heads,
        n_kv_heads: n_heads,
        d_model,
        d_ff: json.usize("n_inner").unwrap_or(4 * d_model),
        context: field("n_positions")?,
        vocab_size: field("vocab_size")?,
        rope_theta: 0.0,
        norm_epsilon: json.f64("layer_norm_epsilon").unwrap_or(1e-5) as f32,
        model_type: "gpt2",
        head_dim: d_model / n_heads,
        qkv_bias: true,
        o_bias: true,
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
        output_gate: false,
    })
}

/// A GPT-2 from its tensors, by Hugging Face's names. `c_attn` is GPT-2's [d_model, 3·d_model]
/// Conv1D weight with Q, K and V side by side (and its [3·d_model] bias), taken apart into the
/// lab's W_Q, W_K, W_V.
pub fn load(
    config: &ModelConfig,
    vocab: &[String],
    tensor: &mut Source,
) -> Result<Parts<GeluMlp>, ModelError> {
    config.check(vocab)?;
    let ModelConfig {
        n_layers,
        d_model: d,
        d_ff,
        context,
        vocab_size,
        norm_epsilon: epsilon,
        ..
    } = *config;
    let token_embedding = stored(tensor, "wte.weight", vocab_size, d)?;
    let position_embedding = matrix(tensor, "wpe.weight", context, d)?;
    let final_norm = layer_norm(tensor, "ln_f", d, epsilon)?;
    let mut blocks = Vec::with_capacity(n_layers);
    for i in 0..n_layers {
        let name = |part: &str| format!("h.{i}.{part}");
        let c_attn = matrix(tensor, &name("attn.c_attn.weight"), d, 3 * d)?;
        let c_attn_b = vector(tensor, &name("attn.c_attn.bias"), 3 * d)?;
        let attention = Weights {
            w_q: c_attn.slice(s![.., 0..d]).to_owned(),
            w_k: c_attn.slice(s![.., d..2 * d]).to_owned(),
            w_v: c_attn.slice(s![.., 2 * d..3 * d]).to_owned(),
            w_o: matrix(tensor, &name("attn.c_proj.weight"), d, d)?,
            biases: Some(Biases {
                q: c_attn_b.slice(s![0..d]).to_owned(),
                k: c_attn_b.slice(s![d..2 * d]).to_owned(),
                v: c_attn_b.slice(s![2 * d..3 * d]).to_owned(),
                o: vector(tensor, &name("attn.c_proj.bias"), d)?,
            }),
        };
        blocks.push(Block {
            attention_norm: layer_norm(tensor, &name("ln_1"), d, epsilon)?,
            attention: attention.into(),
            qk_norm: None,
            post_attention_norm: None,
            post_mlp_norm: None,
            linear: None,
            gate: None,
            mlp_norm: layer_norm(tensor, &name("ln_2"), d, epsilon)?,
            mlp: GeluMlp {
                c_fc: (
                    stored(tensor, &name("mlp.c_fc.weight"), d, d_ff)?,
                    vector(tensor, &name("mlp.c_fc.bias"), d_ff)?,
                ),
                c_proj: (
                    stored(tensor, &name("mlp.c_proj.weight"), d_ff, d)?,
                    vector(tensor, &name("mlp.c_proj.bias"), d)?,
                ),
            },
        });
    }
    Ok(Parts {
        token_embedding,
        position_embedding: Some(position_embedding),
        blocks,
        final_norm,
        lm_head: None,
    })
}

/// A LayerNorm with its learned γ (`{prefix}.weight`) and β (`{prefix}.bias`).
fn layer_norm(
    tensor: &mut Source,
    prefix: &str,
    len: usize,
    epsilon: f32,
) -> Result<Norm, ModelError> {
    Ok(Norm {
        epsilon,
        affine: Some((
            vector(tensor, &format!("{prefix}.weight"), len)?,
            vector(tensor, &format!("{prefix}.bias"), len)?,
        )),
        rms: false,
    })
}

/// GPT-2's MLP: GELU(x · c_fc + b) · c_proj + b; c_fc [d_model, d_ff], c_proj [d_ff, d_model]
/// (the matrices in their file's number type, the biases in f32).
#[derive(Debug, Clone, PartialEq)]
pub struct GeluMlp {
    pub c_fc: (Stored, Array1<f32>),
    pub c_proj: (Stored, Array1<f32>),
}

impl GeluMlp {
    /// The MLP of the normed rows `x` [seq_len, d_model].
    pub fn apply(&self, x: ArrayView2<f32>) -> Array2<f32> {
        let mut hidden = self.c_fc.0.linear(x);
        hidden += &self.c_fc.1;
        hidden.mapv_inplace(gelu);
        let mut out = self.c_proj.0.linear(hidden.view());
        out += &self.c_proj.1;
        out
    }

    pub fn parameter_count(&self) -> usize {
        self.c_fc.0.len() + self.c_fc.1.len() + self.c_proj.0.len() + self.c_proj.1.len()
    }

    /// Adds hidden units `c0..c1`'s share of the MLP of the normed rows `x` into `out` (the
    /// output bias left out: [`GeluMlp::with_output_bias`] once every unit has been added).
    pub fn add_hidden(&self, x: ArrayView2<f32>, c0: usize, c1: usize, out: &mut Array2<f32>) {
        let mut hidden = self.c_fc.0.linear_columns(x, c0, c1);
        hidden += &self.c_fc.1.slice(s![c0..c1]);
        hidden.mapv_inplace(gelu);
        self.c_proj.0.add_rows_product(hidden.view(), c0, out);
    }

    /// The MLP's output from every hidden unit's share summed: the output bias added.
    pub fn with_output_bias(&self, mut out: Array2<f32>) -> Array2<f32> {
        out += &self.c_proj.1;
        out
    }
}

/// GELU, tanh approximation (GPT-2's `gelu_new`): ½x(1 + tanh u) with u = √(2/π)(x + 0.044715x³),
/// computed as x / (1 + e^(−2u)), the same function with one (vectorisable) exponential instead
/// of a tanh (the MLP's GELUs were a third of a forward pass in wasm, where libm's are software).
pub fn gelu(x: f32) -> f32 {
    const C: f32 = 0.797_884_6; // √(2/π)
    let u = C * (x + 0.044_715 * x * x * x);
    x / (1.0 + fastmath::exp(-2.0 * u))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gelu_is_gpt2s_tanh_approximation() {
        for i in -2000..=2000 {
            let x = i as f32 / 100.0;
            let u = 0.797_884_6 * (x + 0.044_715 * x * x * x);
            let tanh_form = 0.5 * x * (1.0 + u.tanh());
            assert!(
                (gelu(x) - tanh_form).abs() <= 1e-6 * x.abs().max(1.0),
                "{x}"
            );
        }
        assert!(gelu(-100.0).abs() < 1e-30);
        assert_eq!(gelu(100.0), 100.0);
    }
}
