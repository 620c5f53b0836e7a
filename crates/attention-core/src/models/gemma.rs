//! Gemma 2 and Gemma 3 (Google, 2024–25), as Hugging Face's `Gemma2ForCausalLM` and
//! `Gemma3ForCausalLM` store them: Llama's family (RoPE, RMSNorm, grouped-query attention, a
//! gated MLP, no biases) with what Gemma adds, each read from `config.json`:
//!
//! - the token embeddings times √d_model;
//! - RMSNorm gains of 1 + γ, and a sandwich: a norm after the attention and after the MLP, each
//!   before it joins the residual stream (`post_attention_layernorm`,
//!   `post_feedforward_layernorm`), beside the usual ones before (`input_layernorm`,
//!   `pre_feedforward_layernorm`);
//! - a GELU gate (`hidden_activation` `gelu_pytorch_tanh`) for SiLU;
//! - scores q·k / √`query_pre_attn_scalar`;
//! - sliding-window layers among full ones (`layer_types`; else every second layer for Gemma 2,
//!   five in six for Gemma 3, `sliding_window_pattern`);
//! - Gemma 2's soft-caps on the scores (`attn_logit_softcapping`) and on the logits
//!   (`final_logit_softcapping`);
//! - Gemma 3's QK-norm and its RoPE base on sliding layers (`rope_local_base_freq`).
//!
//! The tensors are Llama's, read by [`crate::models::llama::load`].

use crate::io::model_files::ConfigJson;
use crate::models::config::ModelConfig;
use crate::models::llama::{common, refuse};
use crate::models::tensors::ModelError;

/// The `model_type`s read as Gemma: Gemma 2, and Gemma 3's text model (the larger Gemma 3s are
/// `"gemma3"`, models of images and text, which the lab does not run).
pub const MODEL_TYPES: [&str; 2] = ["gemma2", "gemma3_text"];

/// Gemma's numbers from its `config.json`; refused, naming the field, when it asks for what the
/// lab does not do.
pub fn config(json: &ConfigJson) -> Result<ModelConfig, ModelError> {
    let model_type = MODEL_TYPES
        .into_iter()
        .find(|&t| json.str("model_type") == Some(t))
        .unwrap_or("gemma2");
    let gemma3 = model_type == "gemma3_text";
    let mut config = common(json, model_type)?;
    for field in ["hidden_activation", "hidden_act"] {
        if let Some(act) = json.str(field)
            && act != "gelu_pytorch_tanh"
        {
            return refuse(
                field,
                &format!(
                    "{act:?}: the lab computes Gemma's gate with the tanh GELU (\"gelu_pytorch_tanh\")"
                ),
            );
        }
    }
    if json.bool("use_bidirectional_attention") == Some(true) {
        return refuse(
            "use_bidirectional_attention",
            "the lab runs causal language models",
        );
    }
    // Absent, a cap is transformers' default for the model (Gemma 2: 50 and 30; Gemma 3: none);
    // null turns it off.
    let softcap = |name: &str, default: Option<f64>| -> Result<Option<f32>, ModelError> {
        let value = if json.has(name) {
            json.f64(name)
        } else {
            default
        };
        match value {
            Some(c) if c <= 0.0 || !c.is_finite() => {
                refuse(name, &format!("{c}: a soft-cap is a positive number"))
            }
            c => Ok(c.map(|c| c as f32)),
        }
    };
    let (attention_cap, logit_cap) = if gemma3 {
        (None, None)
    } else {
        (Some(50.0), Some(30.0))
    };
    config.attention_softcap = softcap("attn_logit_softcapping", attention_cap)?;
    config.logit_softcap = softcap("final_logit_softcapping", logit_cap)?;
    config.qk_norm = gemma3;
    config.embedding_scale = Some((config.d_model as f64).sqrt() as f32);
    // transformers' default when the file names none.
    let scalar = json.f64("query_pre_attn_scalar").unwrap_or(256.0);
    if scalar <= 0.0 || !scalar.is_finite() {
        return refuse(
            "query_pre_attn_scalar",
            &format!("{scalar}: scores are divided by its square root"),
        );
    }
    if scalar != config.head_dim as f64 {
        config.query_scale = Some((config.head_dim as f64 / scalar).sqrt() as f32);
    }
    if gemma3 {
        config.rope_local_theta = Some(json.f64("rope_local_base_freq").unwrap_or(10_000.0));
    }
    let window = json.usize("sliding_window");
    let default_every = if gemma3 {
        json.usize("sliding_window_pattern").unwrap_or(6)
    } else {
        2
    };
    let every = match json.strs("layer_types") {
        Some(types) => full_every(&types, config.n_layers)?,
        None => Some(default_every),
    };
    config.full_every = every;
    config.sliding_window = match (every, window) {
        // Every layer full: no window anywhere.
        (Some(1), _) => None,
        (_, Some(0)) => return refuse("sliding_window", "a window of 0 keys sees nothing"),
        (_, Some(w)) => Some(w),
        (_, None) => return refuse("sliding_window", "Gemma's sliding layers need its width"),
    };
    if config.sliding_window.is_none() {
        config.full_every = None;
    }
    Ok(config)
}

/// The period of `layer_types`' full layers: `p` when layer i is `"full_attention"` exactly when
/// i + 1 is a multiple of p (1: every layer full); refused, naming the field, for another
/// pattern.
fn full_every(types: &[&str], layers: usize) -> Result<Option<usize>, ModelError> {
    if types.len() != layers {
        return refuse(
            "layer_types",
            &format!("{} entries for {layers} layers", types.len()),
        );
    }
    if let Some(other) = types
        .iter()
        .find(|t| !matches!(**t, "full_attention" | "sliding_attention"))
    {
        return refuse(
            "layer_types",
            &format!("{other:?}: the lab runs \"full_attention\" and \"sliding_attention\""),
        );
    }
    let full = |i: usize| types[i] == "full_attention";
    let Some(first) = (0..layers).find(|&i| full(i)) else {
        // Every layer sliding: a period longer than the model.
        return Ok(Some(layers + 1));
    };
    let every = first + 1;
    if (0..layers).all(|i| full(i) == (i + 1).is_multiple_of(every)) {
        Ok(Some(every))
    } else {
        refuse(
            "layer_types",
            "full layers at irregular places: the lab runs one in every n, the last of each n",
        )
    }
}
