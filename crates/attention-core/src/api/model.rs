//! Reading a trained model from its three files: `model.safetensors` (Hugging Face's tensor
//! names, f32 or f16), `config.json` and `vocab.json` (the tokens, index = id). `config.json`'s
//! `model_type` says the layout: `"gpt2"` (`n_layer`, `n_head`, `n_embd`, `n_positions`,
//! `vocab_size`, `layer_norm_epsilon`) or `"llama"` (`num_hidden_layers`, `num_attention_heads`,
//! `num_key_value_heads`, `hidden_size`, `intermediate_size`, `max_position_embeddings`,
//! `rms_norm_eps`, `rope_theta`, `head_dim`). And the JSON of a forward pass.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::Request;
use super::response::{matrix_json, trace_heads_json};
use crate::MaskSpec;
use crate::generate::CacheSizes;
use crate::gpt::{Gpt, GptForward, GptShape, Layout, ModelError};

/// The model as the lab ships it, from the bytes of its three files.
pub fn load_model(safetensors: &[u8], config: &str, vocab: &str) -> Result<Gpt, ModelError> {
    let config: Value =
        serde_json::from_str(config).map_err(|e| ModelError::Config(e.to_string()))?;
    let field = |name: &str| {
        config
            .get(name)
            .and_then(Value::as_u64)
            .map(|v| v as usize)
            .ok_or_else(|| ModelError::Config(format!("no {name}")))
    };
    let float =
        |name: &str, default: f64| config.get(name).and_then(Value::as_f64).unwrap_or(default);
    let vocab: Vec<String> =
        serde_json::from_str(vocab).map_err(|e| ModelError::Vocab(e.to_string()))?;
    let tensors = Safetensors::parse(safetensors)?;
    let mut tensor = |name: &str, shape: &[usize]| tensors.get(name, shape);
    match config.get("model_type").and_then(Value::as_str) {
        Some("llama") => {
            let (n_head, n_embd) = (field("num_attention_heads")?, field("hidden_size")?);
            let shape = GptShape {
                n_layer: field("num_hidden_layers")?,
                n_head,
                n_embd,
                n_positions: field("max_position_embeddings")?,
                vocab_size: field("vocab_size")?,
                n_kv_head: field("num_key_value_heads").unwrap_or(n_head),
                n_inner: field("intermediate_size")?,
                layout: Layout::Llama,
                rope_theta: float("rope_theta", 10000.0),
            };
            if let Ok(head_dim) = field("head_dim")
                && head_dim != shape.d_head()
            {
                return Err(ModelError::Config(format!(
                    "head_dim {head_dim} is not hidden_size / num_attention_heads = {}",
                    shape.d_head()
                )));
            }
            if config.get("rope_scaling").is_some_and(|v| !v.is_null()) {
                return Err(ModelError::Config("rope_scaling is not supported".into()));
            }
            Gpt::llama(
                shape,
                float("rms_norm_eps", 1e-6) as f32,
                vocab,
                &mut tensor,
            )
        }
        Some("gpt2") | None => {
            let shape = GptShape::gpt2(
                field("n_layer")?,
                field("n_head")?,
                field("n_embd")?,
                field("n_positions")?,
                field("vocab_size")?,
            );
            Gpt::new(
                shape,
                float("layer_norm_epsilon", 1e-5) as f32,
                vocab,
                &mut tensor,
            )
        }
        Some(other) => Err(ModelError::Config(format!(
            "model_type {other:?}: the lab reads \"gpt2\" and \"llama\""
        ))),
    }
}

/// The tensors of a safetensors file: an 8-byte little-endian header length, a JSON header of
/// {name: {dtype, shape, data_offsets}}, then the data.
struct Safetensors<'a> {
    header: HashMap<String, Value>,
    data: &'a [u8],
}

impl<'a> Safetensors<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Self, ModelError> {
        let format = |what: &str| ModelError::Format(what.to_string());
        let length = bytes
            .get(0..8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or_else(|| format("shorter than its header"))? as usize;
        let header = bytes
            .get(8..8 + length)
            .ok_or_else(|| format("shorter than its header says"))?;
        let header: HashMap<String, Value> =
            serde_json::from_slice(header).map_err(|e| ModelError::Format(e.to_string()))?;
        Ok(Self {
            header,
            data: &bytes[8 + length..],
        })
    }

    /// The tensor `name` as f32, checked to have `shape`.
    fn get(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
        // A header list of whole numbers (a shape, the data offsets); anything else reads as none.
        let numbers = |v: &Value| -> Vec<usize> {
            v.as_array()
                .map(|s| {
                    s.iter()
                        .filter_map(Value::as_u64)
                        .map(|v| v as usize)
                        .collect()
                })
                .unwrap_or_default()
        };
        let entry = self
            .header
            .get(name)
            .ok_or_else(|| ModelError::Missing(name.to_string()))?;
        let found = numbers(&entry["shape"]);
        if found != shape {
            return Err(ModelError::Shape {
                name: name.to_string(),
                expected: shape.to_vec(),
                found,
            });
        }
        let offsets = numbers(&entry["data_offsets"]);
        let bytes = match offsets[..] {
            [begin, end] => self.data.get(begin..end),
            _ => None,
        }
        .ok_or_else(|| ModelError::Format(format!("{name}: bad data offsets")))?;
        let count: usize = shape.iter().product();
        let values: Vec<f32> = match entry["dtype"].as_str() {
            Some("F32") => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Some("F16") => bytes
                .chunks_exact(2)
                .map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
            other => {
                return Err(ModelError::Format(format!(
                    "{name}: dtype {other:?} (expected F32 or F16)"
                )));
            }
        };
        if values.len() != count {
            return Err(ModelError::Format(format!(
                "{name}: {} values for shape {shape:?}",
                values.len()
            )));
        }
        Ok(values)
    }
}

/// An IEEE 754 half-precision number, exactly as f32.
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let fraction = f32::from(bits & 0x3ff);
    match exponent {
        0 => sign * fraction * 2f32.powi(-24),
        31 if fraction == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + fraction / 1024.0) * 2f32.powi(e - 15),
    }
}

/// A forward pass as JSON: the tokens, each layer's heads (in the trace's per-head shape: q, k,
/// v, scores, weights, output) with the residual stream in and out, and the five most likely
/// next tokens after every position.
pub fn forward_json(model: &Gpt, forward: &GptForward) -> Result<String, serde_json::Error> {
    let layers: Vec<Value> = forward
        .layers
        .iter()
        .map(|layer| {
            json!({
                "heads": trace_heads_json(&layer.attention),
                "residual_in": matrix_json(layer.residual_in.view()),
                "attention_output": matrix_json(layer.attention.projected.view()),
                "mlp_output": matrix_json(layer.mlp.view()),
                "residual_out": matrix_json(layer.residual_out.view()),
            })
        })
        .collect();
    let predictions: Vec<Value> = (0..forward.tokens.len())
        .map(|position| {
            model
                .predictions(forward, position, 5)
                .iter()
                .map(|p| json!({"token": model.vocab[p.id as usize], "p": p.p}))
                .collect()
        })
        .collect();
    let first = &forward.layers[0].attention;
    serde_json::to_string(&json!({
        "model": model.shape.layout.name(),
        "layout": match model.shape.layout {
            Layout::Gpt2 => "gpt2",
            Layout::Llama => "llama",
        },
        "tokens": forward.tokens,
        "ids": forward.ids,
        "context": model.shape.n_positions,
        "dropped": forward.dropped,
        "n_layer": model.shape.n_layer,
        "n_head": model.shape.n_head,
        "n_kv_head": model.shape.n_kv_head,
        "n_embd": model.shape.n_embd,
        "d_k": model.shape.d_head(),
        "temperature": first.config.temperature(),
        "mask": super::response::mask_name(first),
        "embeddings": matrix_json(forward.embeddings.view()),
        "positions": matrix_json(forward.positions.view()),
        "layers": layers,
        "predictions": predictions,
    }))
}

/// What a generation reads from a request: its sentence (the prompt) and attention temperature.
/// Generation runs the model as it was trained: under its causal mask, without a soft-cap,
/// QK-norm or sink logits.
pub fn generation_input(request: &Request) -> Result<(String, f64), String> {
    let (sentence, run) = request.trained_run().map_err(|e| e.to_string())?;
    if run.mask != MaskSpec::Causal {
        return Err(
            "mask: generation runs the model as it was trained, under its causal mask".into(),
        );
    }
    let shaping = &run.shaping;
    if shaping.softcap.is_some() || shaping.qk_norm || shaping.sink_logits.is_some() {
        return Err(
            "softcap, qk_norm, sink_logits: generation runs the model as it was trained; \
                    leave them out"
                .into(),
        );
    }
    Ok((sentence, run.temperature))
}

/// `"generate"` on a trained model, as JSON: the prompt (the request's sentence), its prefill,
/// every step (the character, the five likeliest with their probabilities, the cache's length
/// and bytes, the step's time, the largest |Δ| of its logits against a recompute without the
/// cache), and the cache's bytes per character for this model and as MHA, GQA, MQA and MLA
/// would keep it. `clock` gives milliseconds.
pub fn generate_json(
    model: &Gpt,
    request: &Request,
    clock: &dyn Fn() -> f64,
) -> Result<Value, String> {
    let Some(generate) = request.generate else {
        return Err("generate: missing".into());
    };
    let (sentence, temperature) = generation_input(request)?;
    let spec = generate.spec();
    let generation = crate::generate::generate(model, &sentence, &spec, temperature, clock)
        .map_err(|e| e.to_string())?;
    let shape = model.shape;
    let sizes = CacheSizes::of(&shape);
    let steps: Vec<Value> = generation
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            json!({
                "step": i + 1,
                "token": step.token,
                "top": step.top.iter().map(|p| json!({"token": model.vocab[p.id as usize], "p": p.p})).collect::<Vec<_>>(),
                "cache_len": step.cache_len,
                "cache_bytes": step.cache_bytes,
                "ms": step.ms,
                "max_delta": step.max_delta,
            })
        })
        .collect();
    let total_ms: f64 = generation.steps.iter().map(|s| s.ms).sum();
    Ok(json!({
        "model": shape.layout.name(),
        "prompt": sentence,
        "prompt_tokens": generation.prompt.len(),
        "context": shape.n_positions,
        "cache": spec.cache,
        "sampling": generate.sampling,
        "prefill_ms": generation.prefill_ms,
        "text": generation.text(),
        "steps": steps,
        "chars_per_second": if total_ms > 0.0 { generation.steps.len() as f64 * 1000.0 / total_ms } else { 0.0 },
        "max_delta": generation.steps.iter().filter_map(|s| s.max_delta).reduce(f32::max),
        "cache_bytes_per_token": {
            "this_model": sizes.this_model,
            "mha": sizes.mha,
            "gqa": sizes.gqa,
            "gqa_kv_heads": sizes.gqa_kv_heads,
            "mqa": sizes.mqa,
            // DeepSeek-V2's multi-head latent attention: a formula, not run here.
            "mla_formula": sizes.mla_formula,
        },
    }))
}

/// `"stream_eval"` on the Llama model, as JSON: each position's loss (nats) and the mean through
/// the rolling cache with the sinks asked for, with none, and by a sliding-window recompute; and
/// each head's share of attention on the first character.
pub fn stream_eval_json(model: &Gpt, request: &Request) -> Result<Value, String> {
    use crate::stream::{StreamSpec, stream_eval};
    let Some(asked) = &request.stream_eval else {
        return Err("stream_eval: missing".into());
    };
    let spec = StreamSpec {
        window: asked.window,
        sink_tokens: asked.sink_tokens,
    };
    let eval = stream_eval(model, &asked.text, spec).map_err(|e| e.to_string())?;
    let run = |run: &crate::stream::StreamRun| json!({"losses": run.losses, "mean": run.mean()});
    Ok(json!({
        "model": model.shape.layout.name(),
        "context": model.shape.n_positions,
        "length": eval.ids.len(),
        "window": spec.window,
        "sink_tokens": spec.sink_tokens,
        "with_sinks": run(&eval.with_sinks),
        "without_sinks": run(&eval.without_sinks),
        "recompute": run(&eval.recompute),
        "first_token_share": eval.first_token_share,
    }))
}
