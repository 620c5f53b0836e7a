//! Reading a trained model from its three files: `model.safetensors` (Hugging Face's GPT-2
//! tensor names, f32 or f16), `config.json` (GPT-2's names: `n_layer`, `n_head`, `n_embd`,
//! `n_positions`, `vocab_size`, `layer_norm_epsilon`) and `vocab.json` (the tokens, index = id).
//! And the JSON of a forward pass.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::response::{matrix_json, trace_heads_json};
use crate::gpt::{Gpt, GptForward, GptShape, ModelError};

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
    let shape = GptShape {
        n_layer: field("n_layer")?,
        n_head: field("n_head")?,
        n_embd: field("n_embd")?,
        n_positions: field("n_positions")?,
        vocab_size: field("vocab_size")?,
    };
    let epsilon = config
        .get("layer_norm_epsilon")
        .and_then(Value::as_f64)
        .unwrap_or(1e-5) as f32;
    let vocab: Vec<String> =
        serde_json::from_str(vocab).map_err(|e| ModelError::Vocab(e.to_string()))?;
    let tensors = Safetensors::parse(safetensors)?;
    Gpt::new(shape, epsilon, vocab, &mut |name, shape| {
        tensors.get(name, shape)
    })
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
        "model": "trained",
        "tokens": forward.tokens,
        "ids": forward.ids,
        "context": model.shape.n_positions,
        "dropped": forward.dropped,
        "n_layer": model.shape.n_layer,
        "n_head": model.shape.n_head,
        "n_embd": model.shape.n_embd,
        "d_k": model.shape.n_embd / model.shape.n_head,
        "temperature": first.config.temperature(),
        "mask": super::response::mask_name(first),
        "embeddings": matrix_json(forward.embeddings.view()),
        "positions": matrix_json(forward.positions.view()),
        "layers": layers,
        "predictions": predictions,
    }))
}
