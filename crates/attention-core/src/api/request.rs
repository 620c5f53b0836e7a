//! Parsing a JSON request into checked core parameters.

use ndarray::Array2;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::math::scoring::{Pairing, Position, Shaping};
use crate::math::weights::Weights;
use crate::models::generate::{GenerateSpec, Sampling};
use crate::models::{Layout, ModelRun};
use crate::pipeline::config::{DEFAULT_N_HEADS, matrix_from_rows};
use crate::teaching::{Chapter, Focus, MAX_SHIFT};
use crate::{ConfigError, Input, LayerNormMode, MaskSpec, Params};

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

/// Which weights attention runs with: seeded random draws of any shape, or one of the two
/// models trained for the lab (their shapes fixed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelChoice {
    #[default]
    Random,
    /// The GPT-2-layout model (`"trained"`, or `"gpt2"`).
    #[serde(alias = "gpt2")]
    Trained,
    /// The Llama-layout model: RoPE, RMSNorm, SwiGLU, grouped-query attention.
    Llama,
}

impl ModelChoice {
    /// The trained model's layout; `None` for random weights.
    pub fn layout(self) -> Option<Layout> {
        match self {
            Self::Random => None,
            Self::Trained => Some(Layout::Gpt2),
            Self::Llama => Some(Layout::Llama),
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

/// Every parameter, each optional (defaults in [`Request::to_params`]). Unknown fields are refused,
/// so a typo is an error rather than silently ignored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelChoice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sentence: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<Vec<Vec<f64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_sentence: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_tokens: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_x: Option<Vec<Vec<f64>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d_model: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n_heads: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d_k: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub d_v: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n_kv_heads: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mask: Option<MaskRequest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<WeightsRequest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<BlockRequest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_norm: Option<LayerNormRequest>,
    /// Where positions enter: absolute (the default), none, RoPE or ALiBi, with an offset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<PositionRequest>,
    /// Soft-capping of the scores: z becomes c·tanh(z / c).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub softcap: Option<f64>,
    /// QK-norm: each head's q and k rows over their root mean square.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qk_norm: Option<bool>,
    /// One logit per head that joins every row's softmax as an extra column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sink_logits: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<BackendChoice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<bool>,
    /// FlashAttention's tile steps of this query block (from 0) of every head instead of the
    /// trace: how a long input's tiles are replayed without its n² trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_block: Option<usize>,
    /// A lesson's experiment instead of the trace: a chapter's id (see [`Chapter`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lesson: Option<String>,
    /// What the lesson looks at: head, query and layer counted from 1, as the page counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focus: Option<FocusRequest>,
    /// Generation with a trained model, one character at a time after the sentence:
    /// `{"steps": n, "cache": true, "sampling": "greedy"}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generate: Option<GenerateRequest>,
    /// A text longer than the context through a rolling KV cache, with and without sinks:
    /// `{"text": "…", "window": w, "sink_tokens": k}` (the Llama model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_eval: Option<StreamEvalRequest>,
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

/// Reads one JSON request, naming the offending field on error.
pub fn parse_request(json: &str) -> Result<Request, RequestError> {
    let deserializer = &mut serde_json::Deserializer::from_str(json);
    serde_path_to_error::deserialize(deserializer).map_err(|error| {
        // An empty path means the text is not a JSON object at all.
        let path = match error.path().to_string().as_str() {
            "." => "request".to_string(),
            path => path.to_string(),
        };
        let message = error.inner().to_string();
        // serde_json appends " at line 1 column 5": useful for files, noise for one object.
        let message = match message.rfind(" at line ") {
            Some(cut) => message[..cut].to_string(),
            None => message,
        };
        RequestError::Json { path, message }
    })
}

impl Request {
    /// The core parameters this request asks for, with the defaults filled in.
    pub fn to_params(&self) -> Result<Params, RequestError> {
        let input = sequence_input(
            ("sentence", self.sentence.as_ref()),
            ("tokens", self.tokens.as_ref()),
            ("x", self.x.as_ref()),
        )?
        .ok_or(RequestError::Input {
            field: "sentence",
            message: "give the input as one of sentence, tokens or x",
        })?;
        let source = sequence_input(
            ("source_sentence", self.source_sentence.as_ref()),
            ("source_tokens", self.source_tokens.as_ref()),
            ("source_x", self.source_x.as_ref()),
        )?;
        let block = self.block.unwrap_or_default();
        Ok(Params {
            input,
            source,
            d_model: self.d_model,
            n_heads: self.n_heads.unwrap_or(DEFAULT_N_HEADS),
            d_k: self.d_k,
            d_v: self.d_v,
            n_kv_heads: self.n_kv_heads,
            temperature: self.temperature.unwrap_or(1.0),
            seed: self.seed.unwrap_or(0),
            mask: self
                .mask
                .as_ref()
                .map(mask_spec)
                .transpose()?
                .unwrap_or_default(),
            weights: self.weights.as_ref().map(weights).transpose()?,
            block_rows: block.rows,
            block_cols: block.cols,
            layer_norm: match self.layer_norm.unwrap_or_default() {
                LayerNormRequest::None => LayerNormMode::None,
                LayerNormRequest::Pre => LayerNormMode::Pre,
                LayerNormRequest::Post => LayerNormMode::Post,
            },
            norm: None,
            model_layer: None,
            trace: self.trace.unwrap_or(true),
            shaping: self.shaping(),
        })
    }
}

impl Request {
    /// The score options this request asks for (positions, soft-cap, QK-norm, sink logits),
    /// unchecked: `Params::validate` checks them against the shape.
    pub fn shaping(&self) -> Shaping {
        let (position, offset) = self
            .position
            .map_or((Position::Absolute, 0), |p| p.position());
        Shaping {
            position,
            offset,
            softcap: self.softcap.map(|c| c as f32),
            qk_norm: self.qk_norm.unwrap_or(false),
            sink_logits: self
                .sink_logits
                .as_ref()
                .map(|s| s.iter().map(|&v| v as f32).collect()),
        }
    }
}

type Field<'a, T> = (&'static str, Option<&'a T>);

/// One of the three ways to give a sequence; `tokens` may also label the rows of a given `x`
/// (one token per row).
fn sequence_input(
    sentence: Field<String>,
    tokens: Field<Vec<String>>,
    x: Field<Vec<Vec<f64>>>,
) -> Result<Option<Input>, RequestError> {
    if let (None, Some(tokens), Some(rows)) = (sentence.1, tokens.1, x.1) {
        return Ok(Some(Input::Vectors {
            tokens: tokens.clone(),
            x: float_matrix(x.0, rows)?,
            parts: None,
        }));
    }
    let given = [sentence.1.is_some(), tokens.1.is_some(), x.1.is_some()];
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(RequestError::Input {
            field: sentence.0,
            message: "give only one of the sentence, its tokens, or its x (tokens may label the rows of an x)",
        });
    }
    if let Some(text) = sentence.1 {
        return Ok(Some(Input::Sentence(text.clone())));
    }
    if let Some(tokens) = tokens.1 {
        return Ok(Some(Input::Tokens(tokens.clone())));
    }
    x.1.map(|rows| Ok(Input::X(float_matrix(x.0, rows)?)))
        .transpose()
}

fn float_matrix(field: &'static str, rows: &[Vec<f64>]) -> Result<Array2<f32>, RequestError> {
    Ok(matrix_from_rows(field, rows)?.mapv(|v| v as f32))
}

fn weights(request: &WeightsRequest) -> Result<Weights, RequestError> {
    Ok(Weights {
        w_q: float_matrix("weights.w_q", &request.w_q)?,
        w_k: float_matrix("weights.w_k", &request.w_k)?,
        w_v: float_matrix("weights.w_v", &request.w_v)?,
        w_o: float_matrix("weights.w_o", &request.w_o)?,
        biases: None,
    })
}

pub(crate) fn mask_spec(request: &MaskRequest) -> Result<MaskSpec, RequestError> {
    Ok(match request {
        MaskRequest::None => MaskSpec::None,
        MaskRequest::Causal => MaskSpec::Causal,
        MaskRequest::Padding { valid_len } => MaskSpec::Padding {
            valid_len: *valid_len,
        },
        MaskRequest::Window { radius } => MaskSpec::Window { radius: *radius },
        MaskRequest::Sliding {
            radius,
            sink_tokens,
        } => MaskSpec::Sliding {
            radius: *radius,
            sink_tokens: *sink_tokens,
        },
        MaskRequest::Custom { allowed } => MaskSpec::Custom {
            allowed: matrix_from_rows("mask.allowed", allowed)?,
        },
    })
}

impl Request {
    /// This request with every field `update` gives replaced. Giving one form of a sequence
    /// (sentence, tokens or x) drops the other forms, so the update wins.
    pub fn merged(&self, update: &Request) -> Request {
        let mut merged = self.clone();
        if update.sentence.is_some() || update.tokens.is_some() || update.x.is_some() {
            merged.sentence = update.sentence.clone();
            merged.tokens = update.tokens.clone();
            merged.x = update.x.clone();
        }
        if update.source_sentence.is_some()
            || update.source_tokens.is_some()
            || update.source_x.is_some()
        {
            merged.source_sentence = update.source_sentence.clone();
            merged.source_tokens = update.source_tokens.clone();
            merged.source_x = update.source_x.clone();
        }
        if update.model.is_some() {
            merged.model = update.model;
        }
        macro_rules! take {
            ($($field:ident),*) => {
                $(if update.$field.is_some() {
                    merged.$field = update.$field.clone();
                })*
            };
        }
        take!(
            d_model,
            n_heads,
            d_k,
            d_v,
            n_kv_heads,
            temperature,
            seed,
            mask,
            weights,
            block,
            layer_norm,
            backend,
            trace,
            position,
            softcap,
            qk_norm,
            sink_logits
        );
        merged
    }
}

impl Request {
    /// Whether this request asks for a trained model (either layout).
    pub fn is_trained(&self) -> bool {
        self.trained_layout().is_some()
    }

    /// The layout of the trained model this request asks for, if any.
    pub fn trained_layout(&self) -> Option<Layout> {
        self.model.and_then(ModelChoice::layout)
    }

    /// The trained model's run: the text, and the controls that act on it (mask, temperature,
    /// tiles). Settings the model fixes are refused, naming the first one given.
    pub fn trained_run(&self) -> Result<(String, ModelRun), RequestError> {
        if let Some(field) = self.fixed_by_model() {
            return Err(RequestError::FixedByModel { field });
        }
        let sentence = self.sentence.clone().ok_or(RequestError::Input {
            field: "sentence",
            message: "the trained model reads a sentence",
        })?;
        let block = self.block.unwrap_or_default();
        let mask = self.mask.as_ref().map(mask_spec).transpose()?;
        Ok((
            sentence,
            ModelRun {
                mask: mask.unwrap_or(MaskSpec::Causal),
                temperature: self.temperature.unwrap_or(1.0),
                block: (block.rows, block.cols),
                shaping: self.shaping(),
            },
        ))
    }

    /// The lesson asked for, if any, with its focus (from 0) and the trained model's layer (from
    /// 0).
    pub fn lesson(&self) -> Result<Option<(Chapter, Focus, usize)>, RequestError> {
        let Some(id) = &self.lesson else {
            if self.focus.is_some() {
                return Err(RequestError::Input {
                    field: "focus",
                    message: "a focus needs a lesson",
                });
            }
            return Ok(None);
        };
        let chapter = Chapter::from_id(id).ok_or(RequestError::Input {
            field: "lesson",
            message: "unknown chapter; one of tokens, qkv, scaling, softmax, masks, multihead, \
                      gqa, cross, layernorm, stability, complexity, flash, variants, exercises",
        })?;
        let focus = self.focus.unwrap_or_default();
        let counted = |value: Option<usize>, field: &'static str| match value {
            None => Ok(0),
            Some(0) => Err(RequestError::Input {
                field,
                message: "counts from 1, as the page does",
            }),
            Some(n) => Ok(n - 1),
        };
        let factor = focus.factor.unwrap_or(1.0);
        if !(factor.is_finite() && factor > 0.0) {
            return Err(RequestError::Input {
                field: "focus.factor",
                message: "must be a number above 0",
            });
        }
        let shift = focus.shift.unwrap_or(0.0);
        if !(shift.is_finite() && shift.abs() <= MAX_SHIFT) {
            return Err(RequestError::Input {
                field: "focus.shift",
                message: "must be a number from -100 to 100",
            });
        }
        Ok(Some((
            chapter,
            Focus {
                head: counted(focus.head, "focus.head")?,
                // Tokens count from 0, as the page's chips and the trace's arrays do; by default
                // the last one (it sees the most keys under a causal mask).
                query: focus.query.unwrap_or(usize::MAX),
                factor,
                shift,
            },
            counted(focus.layer, "focus.layer")?,
        )))
    }

    /// The first setting given here that the trained model fixes (its shape, its weights, its
    /// LayerNorm, a second sentence), if any.
    pub fn fixed_by_model(&self) -> Option<&'static str> {
        let fixed = [
            ("d_model", self.d_model.is_some()),
            ("n_heads", self.n_heads.is_some()),
            ("n_kv_heads", self.n_kv_heads.is_some()),
            ("d_k", self.d_k.is_some()),
            ("d_v", self.d_v.is_some()),
            ("seed", self.seed.is_some()),
            ("weights", self.weights.is_some()),
            (
                "layer_norm",
                self.layer_norm.is_some_and(|l| l != LayerNormRequest::Pre),
            ),
            ("tokens", self.tokens.is_some()),
            ("x", self.x.is_some()),
            ("source_sentence", self.source_sentence.is_some()),
            ("source_tokens", self.source_tokens.is_some()),
            ("source_x", self.source_x.is_some()),
            // GPT-2 learned absolute positions (wpe), from 0; Llama turns q and k by RoPE (base
            // 10000, half pairing), whose offset a learner may move: the scores do not change.
            (
                "position",
                self.position
                    .is_some_and(|p| match (self.trained_layout(), p) {
                        (Some(Layout::Llama), PositionRequest::Rope { base, pairing, .. }) => {
                            base != 10_000.0 || pairing != PairingRequest::Half
                        }
                        (Some(Layout::Llama), _) => true,
                        (_, p) => p != PositionRequest::Absolute { offset: 0 },
                    }),
            ),
        ];
        fixed
            .iter()
            .find(|(_, given)| *given)
            .map(|(field, _)| *field)
    }

    /// The number of query and key tokens this request describes, where they can be told
    /// without computing (`None` for a sequence that would not validate).
    pub fn lengths(&self) -> (Option<usize>, Option<usize>) {
        if self.is_trained() {
            // The trained model reads one character per token, and one sentence.
            let n = self
                .sentence
                .as_deref()
                .map(|s| crate::models::normalise(s).chars().count())
                .filter(|&n| n > 0);
            return (n, n);
        }
        let length =
            |sentence: &Option<String>, tokens: &Option<Vec<String>>, x: &Option<Vec<Vec<f64>>>| {
                match (sentence, tokens, x) {
                    (Some(text), _, _) => token_count(text),
                    (None, Some(tokens), _) => Some(tokens.len()),
                    (None, None, Some(x)) => Some(x.len()),
                    (None, None, None) => None,
                }
            };
        let queries = length(&self.sentence, &self.tokens, &self.x);
        let has_source = self.source_sentence.is_some()
            || self.source_tokens.is_some()
            || self.source_x.is_some();
        let keys = if has_source {
            length(&self.source_sentence, &self.source_tokens, &self.source_x)
        } else {
            queries
        };
        (queries, keys)
    }
}

/// How many tokens `text` has (`None` for none, or more than the lab takes). The page asks this
/// of the same sentence from several places after each keystroke (which engine, which job,
/// which note), and tokenising 4096 words costs milliseconds: the last answer is kept.
fn token_count(text: &str) -> Option<usize> {
    use crate::pipeline::config::MAX_TOKENS;
    use crate::pipeline::tokenize::{Tokens, tokenize};
    use std::cell::RefCell;
    thread_local! {
        static LAST: RefCell<Option<(String, Option<usize>)>> = const { RefCell::new(None) };
    }
    if let Some(count) = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|(sentence, _)| sentence == text)
            .map(|&(_, count)| count)
    }) {
        return count;
    }
    let count = match tokenize(text, MAX_TOKENS) {
        Tokens::Fit(tokens) if !tokens.is_empty() => Some(tokens.len()),
        _ => None,
    };
    LAST.with_borrow_mut(|last| *last = Some((text.to_owned(), count)));
    count
}
