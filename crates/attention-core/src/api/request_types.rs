//! The shapes of a request's values: the choices, the objects (a mask, positions, tiles, a
//! generation, a stream, a lesson's focus) as JSON spells them, and why a request is refused.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::math::scoring::{Pairing, Position};
use crate::models::generate::{GenerateSpec, Sampling};
use crate::models::{Layout, Shipped};
use crate::pipeline::error::ConfigError;

/// Which engine should compute. `Auto` picks the faster one that is available.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    #[default]
    Auto,
    Cpu,
    Gpu,
}

/// Positions as JSON spells them: `{"kind": "rope", "base": 10000, "pairing": "half"}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum PositionRequest {
    /// X = E + P, sines and cosines (the default).
    Absolute {
        #[serde(default)]
        offset: usize,
    },
    /// X = E.
    None {
        #[serde(default)]
        offset: usize,
    },
    /// Rotary positions on each head's q and k.
    Rope {
        #[serde(default = "default_rope_base")]
        base: f64,
        #[serde(default)]
        pairing: PairingRequest,
        #[serde(default)]
        offset: usize,
    },
    /// Linear biases −m_h·|i − j| on the scores.
    Alibi {
        #[serde(default)]
        offset: usize,
    },
}

fn default_rope_base() -> f64 {
    10_000.0
}

/// RoPE's pairing as JSON spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PairingRequest {
    /// p with p + d_k/2 (GPT-NeoX, Hugging Face's Llama).
    #[default]
    Half,
    /// 2p with 2p + 1 (GPT-J, Meta's original Llama).
    Interleaved,
}

impl PositionRequest {
    /// The core's shaping fields: the position and its offset.
    pub fn position(&self) -> (Position, usize) {
        match *self {
            Self::Absolute { offset } => (Position::Absolute, offset),
            Self::None { offset } => (Position::None, offset),
            Self::Rope {
                base,
                pairing,
                offset,
            } => (
                Position::Rope {
                    base,
                    pairing: match pairing {
                        PairingRequest::Half => Pairing::Half,
                        PairingRequest::Interleaved => Pairing::Interleaved,
                    },
                },
                offset,
            ),
            Self::Alibi { offset } => (Position::Alibi, offset),
        }
    }
}

/// Linear attention as JSON spells it: `{"kind": "gated_delta", "chunk": 16}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearRequest {
    pub kind: LinearKindRequest,
    /// Tokens per chunk of the chunked form (default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk: Option<usize>,
}

/// The kinds of linear attention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinearKindRequest {
    Elu,
    Delta,
    GatedDelta,
}

impl LinearRequest {
    /// The core's spec (the chunk unchecked: `Params::validate` checks it).
    pub fn spec(&self) -> crate::math::linear::LinearSpec {
        use crate::math::linear::{DEFAULT_CHUNK, LinearKind, LinearSpec};
        LinearSpec {
            kind: match self.kind {
                LinearKindRequest::Elu => LinearKind::Elu,
                LinearKindRequest::Delta => LinearKind::Delta,
                LinearKindRequest::GatedDelta => LinearKind::GatedDelta,
            },
            chunk: self.chunk.unwrap_or(DEFAULT_CHUNK),
        }
    }
}

/// A mask as JSON spells it: `{"kind": "padding", "valid_len": 2}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum MaskRequest {
    None,
    Causal,
    Padding {
        valid_len: usize,
    },
    Window {
        radius: usize,
    },
    /// A causal sliding window of `radius` keys back, and the first `sink_tokens` keys always.
    Sliding {
        radius: usize,
        #[serde(default)]
        sink_tokens: usize,
    },
    Custom {
        allowed: Vec<Vec<bool>>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeightsRequest {
    pub w_q: Vec<Vec<f64>>,
    pub w_k: Vec<Vec<f64>>,
    pub w_v: Vec<Vec<f64>>,
    pub w_o: Vec<Vec<f64>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockRequest {
    pub rows: Option<usize>,
    pub cols: Option<usize>,
}

/// Which weights attention runs with: seeded random draws of any shape, one of the three models
/// trained for the lab (their shapes fixed), or a Hugging Face model folder (`{"path": …}`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ModelChoice {
    #[default]
    Random,
    /// The GPT-2-layout model (`"trained"`, or `"gpt2"`).
    Trained,
    /// The Llama-layout model: RoPE, RMSNorm, SwiGLU, grouped-query attention.
    Llama,
    /// Its twin with a sigmoid output gate on every head, trained on the same text (`"llama-gated"`).
    LlamaGated,
    /// The hybrid model in Qwen3-Next's layout: three layers of linear attention (Gated
    /// DeltaNet) for each layer of gated full attention.
    Hybrid,
    /// A Hugging Face model folder: `{"path": "folder"}` (the CLI reads it; a page names the
    /// folder it opened).
    Folder(ModelFolder),
}

/// `"model": {"path": "folder"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFolder {
    pub path: String,
}

/// The names `"model"` takes.
const MODEL_NAMES: &str = "\"random\", \"trained\" (or \"gpt2\"), \"llama\", \"llama-gated\", \"hybrid\", or {\"path\": \"a Hugging Face model folder\"}";

impl Serialize for ModelChoice {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match (self, self.shipped()) {
            (Self::Folder(folder), _) => folder.serialize(serializer),
            (_, Some(shipped)) => serializer.serialize_str(shipped.name()),
            _ => serializer.serialize_str("random"),
        }
    }
}

impl<'de> Deserialize<'de> for ModelChoice {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(name) => match name.as_str() {
                "random" => Ok(Self::Random),
                "trained" | "gpt2" => Ok(Self::Trained),
                "llama" => Ok(Self::Llama),
                "llama-gated" => Ok(Self::LlamaGated),
                "hybrid" => Ok(Self::Hybrid),
                other => Err(D::Error::custom(format!(
                    "unknown model {other:?}; use {MODEL_NAMES}"
                ))),
            },
            value @ serde_json::Value::Object(_) => serde_json::from_value(value)
                .map(Self::Folder)
                .map_err(|e| D::Error::custom(format!("{e}; use {{\"path\": \"folder\"}}"))),
            _ => Err(D::Error::custom(format!("use {MODEL_NAMES}"))),
        }
    }
}

impl ModelChoice {
    /// The shipped model it names; `None` for random weights and for a folder.
    pub fn shipped(&self) -> Option<Shipped> {
        match self {
            Self::Random | Self::Folder(_) => None,
            Self::Trained => Some(Shipped::Gpt2),
            Self::Llama => Some(Shipped::Llama),
            Self::LlamaGated => Some(Shipped::LlamaGated),
            Self::Hybrid => Some(Shipped::Hybrid),
        }
    }

    /// The shipped model's layout; `None` for random weights and for a folder (whose layout its
    /// config.json says).
    pub fn layout(&self) -> Option<Layout> {
        self.shipped().map(Shipped::layout)
    }

    /// The folder a request names, if it names one.
    pub fn folder(&self) -> Option<&str> {
        match self {
            Self::Folder(folder) => Some(&folder.path),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LayerNormRequest {
    #[default]
    None,
    Pre,
    Post,
}

/// `"stream_eval"`: the text, the window of recent characters kept, the sinks kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamEvalRequest {
    pub text: String,
    pub window: usize,
    #[serde(default)]
    pub sink_tokens: usize,
}

/// `"generate"`: how many characters, with the KV cache or not, and how each is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateRequest {
    pub steps: usize,
    #[serde(default = "yes")]
    pub cache: bool,
    #[serde(default)]
    pub sampling: SamplingRequest,
    /// Whether every step is compared with a recompute of the whole text (`max_delta`).
    #[serde(default = "yes")]
    pub check: bool,
}

fn yes() -> bool {
    true
}

/// `"greedy"` (the most likely character) or `{"temperature": t, "seed": s}` (drawn from
/// softmax(logits / t), reproducibly).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Value", into = "serde_json::Value")]
pub enum SamplingRequest {
    #[default]
    Greedy,
    Temperature {
        temperature: f64,
        seed: u64,
    },
}

impl TryFrom<serde_json::Value> for SamplingRequest {
    type Error = String;

    fn try_from(value: serde_json::Value) -> Result<Self, String> {
        let wrong =
            || "expected \"greedy\" or {\"temperature\": t, \"seed\": s} with t > 0".to_string();
        match &value {
            serde_json::Value::String(name) if name == "greedy" => Ok(Self::Greedy),
            serde_json::Value::Object(fields) => {
                if let Some(key) = fields.keys().find(|k| *k != "temperature" && *k != "seed") {
                    return Err(format!("unknown field `{key}`; {}", wrong()));
                }
                let temperature = fields
                    .get("temperature")
                    .and_then(serde_json::Value::as_f64)
                    .ok_or_else(wrong)?;
                let seed = match fields.get("seed") {
                    None => 0,
                    Some(seed) => seed.as_u64().ok_or("seed: expected a whole number ≥ 0")?,
                };
                Ok(Self::Temperature { temperature, seed })
            }
            _ => Err(wrong()),
        }
    }
}

impl From<SamplingRequest> for serde_json::Value {
    fn from(sampling: SamplingRequest) -> Self {
        match sampling {
            SamplingRequest::Greedy => "greedy".into(),
            SamplingRequest::Temperature { temperature, seed } => {
                serde_json::json!({"temperature": temperature, "seed": seed})
            }
        }
    }
}

impl GenerateRequest {
    /// The core's spec.
    pub fn spec(&self) -> GenerateSpec {
        GenerateSpec {
            steps: self.steps,
            cache: self.cache,
            sampling: match self.sampling {
                SamplingRequest::Greedy => Sampling::Greedy,
                SamplingRequest::Temperature { temperature, seed } => {
                    Sampling::Temperature { temperature, seed }
                }
            },
            check: self.check,
        }
    }
}

/// The head and the trained model's layer a lesson looks at (counted from 1, as the page's
/// selectors do), the query token (from 0, as the page's token chips), and the stability
/// chapter's factor k and shift c.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FocusRequest {
    pub head: Option<usize>,
    pub query: Option<usize>,
    pub layer: Option<usize>,
    pub factor: Option<f32>,
    pub shift: Option<f32>,
}

/// `"ablate"`: one head switched off, layer and head counted from 1 as the page counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AblateRequest {
    pub layer: usize,
    pub head: usize,
    #[serde(default)]
    pub how: KnockoutRequest,
}

/// How a head is switched off: its output zero, or its mean over the sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KnockoutRequest {
    #[default]
    Zero,
    Mean,
}

/// `"explain"`: one score taken apart: layer and head from 1 (the page's), query and key from 0
/// (the chips'); `explain_row`: every key of the query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplainRequest {
    #[serde(default = "first")]
    pub layer: usize,
    pub head: usize,
    pub query: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<usize>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub explain_row: bool,
}

fn first() -> usize {
    1
}

/// `"logit_attribution"`: the position (from 0) whose next-character logits are taken apart,
/// and the characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogitAttributionRequest {
    pub position: usize,
    pub chars: Vec<String>,
}

/// Why a request was refused. The message starts with the field's name.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RequestError {
    #[error("{path}: {message}")]
    Json { path: String, message: String },
    #[error("{field}: {message}")]
    Input {
        field: &'static str,
        message: &'static str,
    },
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A setting the trained model fixes (its shape, its weights, its LayerNorm).
    #[error(
        "{field}: the trained model's {field} is fixed; use \"model\": \"random\" to choose it"
    )]
    FixedByModel { field: &'static str },
}

impl RequestError {
    /// The field the error is about ("." when the JSON itself is broken).
    pub fn field(&self) -> String {
        match self {
            Self::Json { path, .. } => path.clone(),
            Self::Input { field, .. } => (*field).to_string(),
            Self::Config(error) => error.field().to_string(),
            Self::FixedByModel { field } => (*field).to_string(),
        }
    }
}
