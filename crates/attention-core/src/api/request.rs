//! A request: every field defined once, below, as the struct the CLI and the page read
//! ([`Request`]) and as a row of the table the rest is driven by ([`FIELDS`], see
//! [`super::fields`]). A field's doc comment is its description everywhere (the JSON Schema, the
//! course element's manifest); its spec says its JSON Schema, its default, who keeps it, how it
//! reads and writes in a link and whether a trained model fixes it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fields::{Field, Fixed, Form, Link, Part, Scope};
use super::request_types::{
    AblateRequest, BackendChoice, BlockRequest, ExplainRequest, FocusRequest, GenerateRequest,
    LayerNormRequest, LinearRequest, LogitAttributionRequest, MaskRequest, ModelChoice,
    PositionRequest, RequestError, StreamEvalRequest, WeightsRequest,
};
use crate::models::Shipped;

/// The struct and its table from one list: each field a doc comment, a name, a type (every
/// field is optional) and its spec (the rest of its [`Field`]).
macro_rules! request_fields {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident: $ty:ty => { $($spec:tt)* }
    ),* $(,)?) => {
        /// Every parameter, each optional (what leaving one out means is in [`FIELDS`]). Unknown
        /// fields are refused, so a typo is an error rather than silently ignored.
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Request {
            $(
                $(#[doc = $doc])*
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $name: Option<$ty>,
            )*
        }

        /// Every field of a [`Request`], in order.
        pub const FIELDS: &[Field] = &[$(
            Field {
                name: stringify!($name),
                doc: concat!($($doc, "\n"),*),
                $($spec)*
            },
        )*];

        impl Request {
            /// Whether the field `name` is given.
            pub fn is_given(&self, name: &str) -> bool {
                match name {
                    $(stringify!($name) => self.$name.is_some(),)*
                    _ => false,
                }
            }

            /// Gives the field `name` the value `from` has (given or not).
            pub fn take_field(&mut self, from: &Request, name: &str) {
                match name {
                    $(stringify!($name) => self.$name = from.$name.clone(),)*
                    _ => {}
                }
            }

            /// The field `name` as JSON (null when it is not given).
            pub fn field_json(&self, name: &str) -> Value {
                match name {
                    $(stringify!($name) => serde_json::to_value(&self.$name).unwrap_or(Value::Null),)*
                    _ => Value::Null,
                }
            }

            /// Sets the field `name` from JSON (null: not given); refused with serde's reason
            /// when the value does not fit the field.
            pub fn set_field_json(&mut self, name: &str, value: Value) -> Result<(), String> {
                match name {
                    $(stringify!($name) => {
                        self.$name = serde_json::from_value(value).map_err(|e| e.to_string())?;
                        Ok(())
                    })*
                    _ => Err(format!("unknown field `{name}`")),
                }
            }
        }
    };
}

/// The names a mask's kind may have.
const MASK_KINDS: &[&str] = &["none", "causal", "padding", "window", "sliding", "custom"];
/// The names linear attention's kind may have.
const LINEAR_KINDS: &[&str] = &["elu", "delta", "gated_delta"];
/// The names positions' kind may have.
const POSITION_KINDS: &[&str] = &["absolute", "none", "rope", "alibi"];

/// A trained model's output gate is its own: the hybrid and Llama's gated twin gate every head,
/// the others none.
fn is_models_gate(value: &Value, model: Shipped) -> bool {
    *value == model.output_gate()
}

/// Trained models have a Pre-LN block.
fn is_pre(value: &Value, _: Shipped) -> bool {
    value == "pre"
}

/// Positions as a model of `layout` has them: GPT-2 learned absolute positions from 0; Llama
/// turns q and k by RoPE (base 10000, half pairing), whose offset a learner may move (the scores
/// do not change).
fn is_models_position(value: &Value, model: Shipped) -> bool {
    let layout = model.layout();
    let field = |name: &str| value.get(name);
    let kind = field("kind").and_then(Value::as_str);
    if layout.adds_positions() {
        kind == Some("absolute") && field("offset").and_then(Value::as_u64).unwrap_or(0) == 0
    } else {
        kind == Some("rope")
            && field("base").and_then(Value::as_f64).unwrap_or(10_000.0) == 10_000.0
            && field("pairing").and_then(Value::as_str).unwrap_or("half") == "half"
    }
}

const WHOLE: &str = r#"{"type": "integer", "minimum": 1}"#;
const MATRIX: &str =
    r#"{"type": "array", "items": {"type": "array", "items": {"type": "number"}}}"#;
const WORDS: &str = r#"{"type": "array", "items": {"type": "string"}}"#;

request_fields! {
    /// Random weights (the default), the trained small GPT-2 ("trained" or "gpt2"), the
    /// trained model in the Llama layout (RoPE, RMSNorm, SwiGLU, grouped-query attention), the
    /// trained hybrid in Qwen3-Next's layout ("hybrid": Gated DeltaNet and gated attention), the
    /// Llama model's twin trained with a sigmoid gate on each head's output ("llama-gated"), or a
    /// Hugging Face model folder ({"path": "folder"}: GPT-2, Llama, Mistral, Qwen2, Qwen3, Gemma 2, Gemma 3, Qwen3-Next).
    model: ModelChoice => {
        schema: r#"{"oneOf": [{"enum": ["random", "trained", "gpt2", "llama", "llama-gated", "hybrid"]}, {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}]}"#,
        default: Some(r#""random""#),
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Name(&["random", "trained", "gpt2", "llama", "llama-gated", "hybrid"])),
        fixed: Fixed::Never,
    },
    /// The sentence the lab computes on (English, Chinese or any text), split into words and
    /// punctuation (each Chinese character a token); a trained model reads it one character at
    /// a time.
    sentence: String => {
        schema: r#"{"type": "string"}"#,
        default: None,
        scope: Scope::Lab,
        group: Some("input"),
        link: Link::Plain(Form::Text),
        fixed: Fixed::Never,
    },
    /// The input as tokens instead of a sentence (or the labels of the rows of `x`).
    tokens: Vec<String> => {
        schema: WORDS,
        default: None,
        scope: Scope::Lab,
        group: Some("input"),
        link: Link::None,
        fixed: Fixed::Always,
    },
    /// The input as the rows of X itself, [tokens, d_model].
    x: Vec<Vec<f64>> => {
        schema: MATRIX,
        default: None,
        scope: Scope::Lab,
        group: Some("input"),
        link: Link::None,
        fixed: Fixed::Always,
    },
    /// A second sentence for cross-attention: the keys and values.
    source_sentence: String => {
        schema: r#"{"type": "string"}"#,
        default: None,
        scope: Scope::Lab,
        group: Some("source"),
        link: Link::Plain(Form::Text),
        fixed: Fixed::Always,
    },
    /// The keys' and values' input as tokens.
    source_tokens: Vec<String> => {
        schema: WORDS,
        default: None,
        scope: Scope::Lab,
        group: Some("source"),
        link: Link::None,
        fixed: Fixed::Always,
    },
    /// The keys' and values' input as the rows of its X.
    source_x: Vec<Vec<f64>> => {
        schema: MATRIX,
        default: None,
        scope: Scope::Lab,
        group: Some("source"),
        link: Link::None,
        fixed: Fixed::Always,
    },
    /// Width of each token's vector (by default 16, or the width of a given X).
    d_model: usize => {
        schema: WHOLE,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Integer),
        fixed: Fixed::Always,
    },
    /// Number of attention heads.
    n_heads: usize => {
        schema: WHOLE,
        default: Some("2"),
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Integer),
        fixed: Fixed::Always,
    },
    /// Number of K/V heads (grouped-query attention when fewer than n_heads; as many as n_heads
    /// by default).
    n_kv_heads: usize => {
        schema: WHOLE,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Integer),
        fixed: Fixed::Always,
    },
    /// Width of each head's queries and keys (d_model / n_heads by default).
    d_k: usize => {
        schema: WHOLE,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Integer),
        fixed: Fixed::Always,
    },
    /// Width of each head's values (d_k by default).
    d_v: usize => {
        schema: WHOLE,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Integer),
        fixed: Fixed::Always,
    },
    /// Softmax temperature T: scores are divided by √d_k · T.
    temperature: f64 => {
        schema: r#"{"type": "number", "exclusiveMinimum": 0}"#,
        default: Some("1"),
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Number),
        fixed: Fixed::Never,
    },
    /// The attention mask: none, causal, padding (the first `valid_len` keys are real), a
    /// two-sided window of `radius` keys, a causal sliding window of `radius` keys back with the
    /// first `sink_tokens` keys always seen, or custom cells (`allowed`, [queries][keys]).
    mask: MaskRequest => {
        schema: r#"{"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "none"}}, "required": ["kind"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"const": "causal"}}, "required": ["kind"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"const": "padding"}, "valid_len": {"type": "integer", "minimum": 0}}, "required": ["kind", "valid_len"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"const": "window"}, "radius": {"type": "integer", "minimum": 0}}, "required": ["kind", "radius"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"const": "sliding"}, "radius": {"type": "integer", "minimum": 0}, "sink_tokens": {"type": "integer", "minimum": 0, "default": 0}}, "required": ["kind", "radius"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"const": "custom"}, "allowed": {"type": "array", "items": {"type": "array", "items": {"type": "boolean"}}}}, "required": ["kind", "allowed"], "additionalProperties": false}
        ]}"#,
        default: Some(r#"{"kind": "none"}"#),
        scope: Scope::Lab,
        group: None,
        link: Link::Object {
            kinds: MASK_KINDS,
            parts: &[
                Part {
                    link: "valid_len",
                    key: "valid_len",
                    form: Form::Integer,
                    kinds: &["padding"],
                    default: Some("0"),
                    description: "How many tokens are real (mask padding).",
                },
                Part {
                    link: "radius",
                    key: "radius",
                    form: Form::Integer,
                    kinds: &["window", "sliding"],
                    default: Some("1"),
                    description: "The window's radius (mask window or sliding).",
                },
                Part {
                    link: "sink_tokens",
                    key: "sink_tokens",
                    form: Form::Integer,
                    kinds: &["sliding"],
                    default: Some("0"),
                    description: "The first keys every query sees (mask sliding).",
                },
                Part {
                    link: "cells",
                    key: "allowed",
                    form: Form::Cells,
                    kinds: &["custom"],
                    default: None,
                    description: "A custom mask's cells: rows of 0 and 1 joined by dots (100.110.111).",
                },
            ],
        },
        fixed: Fixed::Never,
    },
    /// Seed of the random weights.
    seed: u64 => {
        schema: r#"{"type": "integer", "minimum": 0}"#,
        default: Some("0"),
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Integer),
        fixed: Fixed::Always,
    },
    /// One's own W_Q, W_K, W_V and W_O instead of random ones, as the lab multiplies them
    /// (q = x·W_Q): w_q [d_model, n_heads·d_k], w_k [d_model, n_kv_heads·d_k], w_v [d_model,
    /// n_kv_heads·d_v], w_o [n_heads·d_v, d_model] (PyTorch's nn.Linear weights, transposed).
    weights: WeightsRequest => {
        schema: r#"{"type": "object", "properties": {"w_q": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}, "w_k": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}, "w_v": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}, "w_o": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}}, "required": ["w_q", "w_k", "w_v", "w_o"], "additionalProperties": false}"#,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::None,
        fixed: Fixed::Always,
    },
    /// FlashAttention's tile: its rows (queries) and columns (keys); each chosen from the input
    /// when left out.
    block: BlockRequest => {
        schema: r#"{"type": "object", "properties": {"rows": {"type": ["integer", "null"], "minimum": 1}, "cols": {"type": ["integer", "null"], "minimum": 1}}, "additionalProperties": false}"#,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::Object {
            kinds: &[],
            parts: &[
                Part {
                    link: "block_rows",
                    key: "rows",
                    form: Form::Integer,
                    kinds: &[],
                    default: None,
                    description: "FlashAttention's tile height.",
                },
                Part {
                    link: "block_cols",
                    key: "cols",
                    form: Form::Integer,
                    kinds: &[],
                    default: None,
                    description: "FlashAttention's tile width.",
                },
            ],
        },
        fixed: Fixed::Never,
    },
    /// LayerNorm around attention: none, pre (before, with the residual) or post (after).
    layer_norm: LayerNormRequest => {
        schema: r#"{"enum": ["none", "pre", "post"]}"#,
        default: Some(r#""none""#),
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Name(&["none", "pre", "post"])),
        fixed: Fixed::Unless(is_pre),
    },
    /// How positions enter: added to X (absolute, the default), not at all, rotary (RoPE, with
    /// its base and pairing) or ALiBi's biases; each with an offset added to every position.
    position: PositionRequest => {
        schema: r#"{"type": "object", "properties": {"kind": {"enum": ["absolute", "none", "rope", "alibi"]}, "offset": {"type": "integer", "minimum": 0, "default": 0}, "base": {"type": "number", "exclusiveMinimum": 0, "default": 10000}, "pairing": {"enum": ["half", "interleaved"], "default": "half"}}, "required": ["kind"], "additionalProperties": false}"#,
        default: Some(r#"{"kind": "absolute"}"#),
        scope: Scope::Lab,
        group: None,
        link: Link::Object {
            kinds: POSITION_KINDS,
            parts: &[
                Part {
                    link: "base",
                    key: "base",
                    form: Form::Number,
                    kinds: &["rope"],
                    default: Some("10000"),
                    description: "RoPE's base (10000 by default).",
                },
                Part {
                    link: "pairing",
                    key: "pairing",
                    form: Form::Name(&["half", "interleaved"]),
                    kinds: &["rope"],
                    default: Some("half"),
                    description: "RoPE's pairing of dimensions: p with p + d_k/2 (half), or 2p with 2p + 1 (interleaved).",
                },
                Part {
                    link: "offset",
                    key: "offset",
                    form: Form::Integer,
                    kinds: &[],
                    default: Some("0"),
                    description: "Added to every position (RoPE's and ALiBi's scores do not change).",
                },
            ],
        },
        fixed: Fixed::Unless(is_models_position),
    },
    /// Soft-capping: a score z becomes c·tanh(z/c).
    softcap: f64 => {
        schema: r#"{"type": "number", "exclusiveMinimum": 0}"#,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Number),
        fixed: Fixed::Never,
    },
    /// QK-norm: each head's q and k rows divided by their root mean square.
    qk_norm: bool => {
        schema: r#"{"type": "boolean"}"#,
        default: Some("false"),
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Flag),
        fixed: Fixed::Never,
    },
    /// One logit per head that joins every row's softmax as an extra column (a link writes them
    /// joined by commas).
    sink_logits: Vec<f64> => {
        schema: r#"{"type": "array", "items": {"type": "number"}}"#,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Numbers),
        fixed: Fixed::Never,
    },
    /// Linear attention instead of the softmax: "elu" (φ = elu + 1), "delta" (the delta rule)
    /// or "gated_delta" (the delta rule with a decay, Gated DeltaNet), computed token by token
    /// and in chunks of `chunk` tokens (default 64, at most 256); each head's trace then holds
    /// its hidden matrix A (o = A·V), β, α, the final state and every state up to 256 tokens.
    /// Causal by construction: the mask none or causal, no score options, temperature 1.
    /// Left out (or null in `set()`): softmax attention.
    linear: LinearRequest => {
        schema: r#"{"type": "object", "properties": {"kind": {"enum": ["elu", "delta", "gated_delta"]}, "chunk": {"type": "integer", "minimum": 1, "maximum": 256, "default": 64}}, "required": ["kind"], "additionalProperties": false}"#,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::Object {
            kinds: LINEAR_KINDS,
            parts: &[Part {
                link: "chunk",
                key: "chunk",
                form: Form::Integer,
                kinds: &[],
                default: Some("64"),
                description: "Tokens per chunk of linear attention's chunked form (1 to 256).",
            }],
        },
        fixed: Fixed::Always,
    },
    /// The output gate: each head's output multiplied element-wise by σ(x·W_g) (W_g drawn from
    /// the seed) before the heads are joined and W_O applied; each head's trace holds its gate.
    output_gate: bool => {
        schema: r#"{"type": "boolean"}"#,
        default: Some("false"),
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Flag),
        fixed: Fixed::Unless(is_models_gate),
    },
    /// Where the lab computes: cpu, gpu (WebGPU in the page, the machine's GPU through wgpu in
    /// the CLI), or auto (the page's choice; the CLI computes auto on the CPU).
    backend: BackendChoice => {
        schema: r#"{"enum": ["auto", "cpu", "gpu"]}"#,
        default: Some(r#""auto""#),
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Name(&["auto", "cpu", "gpu"])),
        fixed: Fixed::Never,
    },
    /// Whether the response carries every intermediate (true) or the outputs only (false, no n²
    /// matrix held, for long inputs).
    trace: bool => {
        schema: r#"{"type": "boolean"}"#,
        default: Some("true"),
        scope: Scope::Cli,
        group: None,
        link: Link::None,
        fixed: Fixed::Never,
    },
    /// FlashAttention's tile steps of this query block (from 0) of every head instead of the
    /// trace: how a long input's tiles are replayed without its n² trace.
    replay_block: usize => {
        schema: r#"{"type": "integer", "minimum": 0}"#,
        default: None,
        scope: Scope::Cli,
        group: None,
        link: Link::None,
        fixed: Fixed::Never,
    },
    /// A lesson's experiment instead of the trace: a chapter's id (tokens, qkv, scaling, …).
    lesson: String => {
        schema: r#"{"type": "string"}"#,
        default: None,
        scope: Scope::Cli,
        group: None,
        link: Link::None,
        fixed: Fixed::Never,
    },
    /// What the lesson looks at: head and layer counted from 1, as the page counts; the query
    /// from 0, as the token chips; the stability chapter's factor k and shift c.
    focus: FocusRequest => {
        schema: r#"{"type": "object", "properties": {"head": {"type": "integer", "minimum": 1}, "query": {"type": "integer", "minimum": 0}, "layer": {"type": "integer", "minimum": 1}, "factor": {"type": "number", "exclusiveMinimum": 0}, "shift": {"type": "number", "minimum": -100, "maximum": 100}}, "additionalProperties": false}"#,
        default: None,
        scope: Scope::Cli,
        group: None,
        link: Link::None,
        fixed: Fixed::Never,
    },
    /// Generation with a trained model, one character at a time after the sentence: how many
    /// steps, with the KV cache or not, greedy or sampled, each checked against a recompute.
    generate: GenerateRequest => {
        schema: r#"{"type": "object", "properties": {"steps": {"type": "integer", "minimum": 1}, "cache": {"type": "boolean", "default": true}, "sampling": {"oneOf": [{"const": "greedy"}, {"type": "object", "properties": {"temperature": {"type": "number", "exclusiveMinimum": 0}, "seed": {"type": "integer", "minimum": 0}}, "required": ["temperature"], "additionalProperties": false}], "default": "greedy"}, "check": {"type": "boolean", "default": true}}, "required": ["steps"], "additionalProperties": false}"#,
        default: None,
        scope: Scope::Cli,
        group: None,
        link: Link::None,
        fixed: Fixed::Never,
    },
    /// A text longer than the context through a rolling KV cache, with and without sinks (the
    /// Llama model): the text, the window of recent characters kept, the sinks kept.
    stream_eval: StreamEvalRequest => {
        schema: r#"{"type": "object", "properties": {"text": {"type": "string"}, "window": {"type": "integer", "minimum": 1}, "sink_tokens": {"type": "integer", "minimum": 0, "default": 0}}, "required": ["text", "window"], "additionalProperties": false}"#,
        default: None,
        scope: Scope::Cli,
        group: None,
        link: Link::None,
        fixed: Fixed::Never,
    },
    /// Heads switched off, layer and head counted from 1: each one's output replaced by zeros or
    /// by its mean over the sentence, and everything after it recomputed (a link writes
    /// `L1H2,L2H1m`: m for the mean).
    ablate: Vec<AblateRequest> => {
        schema: r#"{"type": "array", "items": {"type": "object", "properties": {"layer": {"type": "integer", "minimum": 1}, "head": {"type": "integer", "minimum": 1}, "how": {"enum": ["zero", "mean"], "default": "zero"}}, "required": ["layer", "head"], "additionalProperties": false}}"#,
        default: None,
        scope: Scope::Lab,
        group: None,
        link: Link::Plain(Form::Heads),
        fixed: Fixed::Never,
    },
    /// One score taken apart into what wrote it: layer and head counted from 1, query and key
    /// from 0; every term of a query-side component with a key-side one, summing to the score
    /// (`explain_row`: for every key of the query).
    explain: ExplainRequest => {
        schema: r#"{"type": "object", "properties": {"layer": {"type": "integer", "minimum": 1, "default": 1}, "head": {"type": "integer", "minimum": 1}, "query": {"type": "integer", "minimum": 0}, "key": {"type": "integer", "minimum": 0}, "explain_row": {"type": "boolean", "default": false}}, "required": ["head", "query"], "additionalProperties": false}"#,
        default: None,
        scope: Scope::Cli,
        group: None,
        link: Link::None,
        fixed: Fixed::Never,
    },
    /// A trained model's next-character logits after a position (from 0), each character's taken
    /// apart into every component's direct contribution.
    logit_attribution: LogitAttributionRequest => {
        schema: r#"{"type": "object", "properties": {"position": {"type": "integer", "minimum": 0}, "chars": {"type": "array", "items": {"type": "string"}, "minItems": 1}}, "required": ["position", "chars"], "additionalProperties": false}"#,
        default: None,
        scope: Scope::Cli,
        group: None,
        link: Link::None,
        fixed: Fixed::Never,
    },
    /// A trained model's Q-, K- and V-composition between every earlier and later head (Elhage
    /// et al., 2021), a random baseline, and the same measured on the sentence.
    composition: bool => {
        schema: r#"{"type": "boolean", "default": false}"#,
        default: None,
        scope: Scope::Cli,
        group: None,
        link: Link::None,
        fixed: Fixed::Never,
    },
}

/// The field called `name`.
pub fn field(name: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.name == name)
}

/// The JSON Schema of a request (`attention-trace --schema`, and the site's
/// `request.schema.json`).
pub fn request_schema() -> Value {
    super::fields::schema(FIELDS)
}

/// [`request_schema`] as the site ships it: indented JSON, one line break at the end.
pub fn request_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&request_schema()).unwrap_or_default();
    text.push('\n');
    text
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
        let message = kind_alone(&path, &message).unwrap_or(message);
        RequestError::Json { path, message }
    })
}

/// A field that is an object naming its kind, given something else (`"mask": "causal"`): what
/// to write instead, rather than serde's "expected internally tagged enum".
fn kind_alone(path: &str, message: &str) -> Option<String> {
    if !message.contains("internally tagged enum") {
        return None;
    }
    let (kinds, usual) = match path {
        "mask" => (MASK_KINDS, "causal"),
        "position" => (POSITION_KINDS, "rope"),
        _ => (&[][..], "…"),
    };
    // serde says `invalid type: string "causal", …`: the string given, if one was.
    let given = message
        .split_once("string \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(given, _)| given);
    let example = given.filter(|g| kinds.contains(g)).unwrap_or(usual);
    let one_of = if kinds.is_empty() {
        String::new()
    } else {
        format!(", one of {}", kinds.join(", "))
    };
    Some(format!(
        "write {{\"kind\": \"{example}\"}}: this field is an object that names its kind{one_of}"
    ))
}

#[cfg(test)]
mod tests {
    use super::super::fields::{LinkError, from_link, to_link};
    use super::*;
    use serde_json::json;

    #[test]
    fn a_kind_given_alone_is_told_what_to_write() {
        let message = |json: &str| parse_request(json).unwrap_err().to_string();
        assert_eq!(
            message(r#"{"sentence": "a b", "mask": "causal"}"#),
            "mask: write {\"kind\": \"causal\"}: this field is an object that names its kind, \
             one of none, causal, padding, window, sliding, custom"
        );
        assert!(
            message(r#"{"sentence": "a b", "position": "alibi"}"#)
                .starts_with("position: write {\"kind\": \"alibi\"}")
        );
        // Not a kind at all: the usual one as the example, and never serde's words.
        let wrong = message(r#"{"sentence": "a b", "mask": 3}"#);
        assert!(
            wrong.starts_with("mask: write {\"kind\": \"causal\"}"),
            "{wrong}"
        );
        assert!(!wrong.contains("enum"), "{wrong}");
    }

    #[test]
    fn every_field_has_a_schema_a_description_and_one_set_of_link_names() {
        let mut names = Vec::new();
        for field in FIELDS {
            let schema: Value = serde_json::from_str(field.schema)
                .unwrap_or_else(|e| panic!("{}: its schema is not JSON: {e}", field.name));
            assert!(schema.is_object(), "{}", field.name);
            assert!(!field.description().is_empty(), "{} has no doc", field.name);
            if let Some(default) = field.default {
                serde_json::from_str::<Value>(default)
                    .unwrap_or_else(|e| panic!("{}: default {default}: {e}", field.name));
            }
            names.extend(field.link_names());
            if let Link::Object { parts, .. } = field.link {
                for part in parts {
                    if let Some(default) = part.default {
                        assert!(part.form.read(default).is_some(), "{}", part.link);
                    }
                }
            }
        }
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a link parameter named twice");
    }

    #[test]
    fn the_struct_and_the_table_are_one() {
        // Every field the struct serialises is a row of the table, and the accessors reach it.
        let request = parse_request(
            r#"{"sentence": "a b", "mask": {"kind": "window", "radius": 2}, "temperature": 2,
                "block": {"rows": 4}, "qk_norm": true, "generate": {"steps": 3}}"#,
        )
        .unwrap();
        let Value::Object(fields) = serde_json::to_value(&request).unwrap() else {
            panic!()
        };
        for (name, value) in fields {
            let field = field(&name).unwrap_or_else(|| panic!("{name} is not in FIELDS"));
            assert!(request.is_given(field.name));
            assert_eq!(request.field_json(field.name), value);
            let mut copy = Request::default();
            copy.set_field_json(field.name, value.clone()).unwrap();
            assert_eq!(copy.field_json(field.name), value);
            copy.take_field(&Request::default(), field.name);
            assert!(!copy.is_given(field.name));
        }
        assert!(!request.is_given("seed") && request.field_json("seed").is_null());
        assert!(Request::default().set_field_json("nope", json!(1)).is_err());
    }

    #[test]
    fn each_value_reads_back_from_its_link_parameters() {
        let cases = [
            (
                "mask",
                json!({"kind": "sliding", "radius": 3, "sink_tokens": 2}),
            ),
            (
                "mask",
                json!({"kind": "custom", "allowed": [[true, false], [true, true]]}),
            ),
            ("mask", json!({"kind": "causal"})),
            (
                "position",
                json!({"kind": "rope", "base": 500.0, "pairing": "interleaved", "offset": 7}),
            ),
            ("position", json!({"kind": "alibi", "offset": 0})),
            ("block", json!({"rows": 8})),
            ("temperature", json!(0.25)),
            ("qk_norm", json!(false)),
            ("sink_logits", json!([1.5, -2.0])),
            ("model", json!("llama")),
            ("sentence", json!("猫 & <b>")),
        ];
        for (name, value) in cases {
            let field = field(name).unwrap();
            let pairs = to_link(field, &value);
            let get = |n: &str| pairs.iter().find(|(p, _)| *p == n).map(|(_, v)| v.clone());
            let (read, errors) = from_link(field, &get);
            assert!(errors.is_empty(), "{name}: {errors:?}");
            let mut request = Request::default();
            request.set_field_json(name, read.unwrap()).unwrap();
            let mut expected = Request::default();
            expected.set_field_json(name, value.clone()).unwrap();
            assert_eq!(request, expected, "{name}: {pairs:?}");
        }
        // Defaults are left out of links; what a link lacks or gets wrong is named.
        let mask = field("mask").unwrap();
        assert_eq!(
            to_link(
                mask,
                &json!({"kind": "sliding", "radius": 1, "sink_tokens": 0})
            ),
            [("mask", "sliding".to_string())]
        );
        let custom = |n: &str| (n == "mask").then(|| "custom".to_string());
        assert_eq!(
            from_link(mask, &custom),
            (
                None,
                vec![LinkError::Missing {
                    name: "cells",
                    kind: "custom".into()
                }]
            )
        );
        let bad_radius = |n: &str| match n {
            "mask" => Some("window".to_string()),
            "radius" => Some("wide".to_string()),
            _ => None,
        };
        let (value, errors) = from_link(mask, &bad_radius);
        assert_eq!(value, Some(json!({"kind": "window", "radius": 1})));
        assert_eq!(
            errors,
            [LinkError::Malformed {
                name: "radius",
                value: "wide".into()
            }]
        );
    }

    #[test]
    fn a_trained_model_fixes_what_the_table_says() {
        let given = |json: &str| parse_request(json).unwrap();
        assert_eq!(
            given(r#"{"n_heads": 3}"#).fixed_by(Shipped::Gpt2),
            Some("n_heads")
        );
        assert_eq!(given(r#"{"temperature": 3}"#).fixed_by(Shipped::Gpt2), None);
        assert_eq!(
            given(r#"{"layer_norm": "pre"}"#).fixed_by(Shipped::Llama),
            None
        );
        assert_eq!(
            given(r#"{"layer_norm": "post"}"#).fixed_by(Shipped::Llama),
            Some("layer_norm")
        );
        let rope = r#"{"position": {"kind": "rope", "offset": 9}}"#;
        assert_eq!(given(rope).fixed_by(Shipped::Llama), None);
        assert_eq!(given(rope).fixed_by(Shipped::Gpt2), Some("position"));
        let absolute = r#"{"position": {"kind": "absolute"}}"#;
        assert_eq!(given(absolute).fixed_by(Shipped::Gpt2), None);
        assert_eq!(given(absolute).fixed_by(Shipped::Llama), Some("position"));
        // The hybrid: RoPE as Llama's; its own output gates, which the others do not have.
        assert_eq!(given(rope).fixed_by(Shipped::Hybrid), None);
        assert_eq!(given(absolute).fixed_by(Shipped::Hybrid), Some("position"));
        let gated = r#"{"output_gate": true}"#;
        let ungated = r#"{"output_gate": false}"#;
        assert_eq!(given(gated).fixed_by(Shipped::Hybrid), None);
        assert_eq!(
            given(ungated).fixed_by(Shipped::Hybrid),
            Some("output_gate")
        );
        assert_eq!(given(gated).fixed_by(Shipped::Llama), Some("output_gate"));
        assert_eq!(given(ungated).fixed_by(Shipped::Gpt2), None);
        // Llama's gated twin: RoPE as Llama's, and its gate is its own.
        assert_eq!(given(rope).fixed_by(Shipped::LlamaGated), None);
        assert_eq!(given(gated).fixed_by(Shipped::LlamaGated), None);
        assert_eq!(
            given(ungated).fixed_by(Shipped::LlamaGated),
            Some("output_gate")
        );
    }

    #[test]
    fn merging_takes_the_pages_fields_and_a_sequence_whole() {
        let base = parse_request(r#"{"sentence": "a b", "n_heads": 2, "lesson": "qkv"}"#).unwrap();
        let update = parse_request(r#"{"tokens": ["x"], "generate": {"steps": 2}}"#).unwrap();
        let merged = base.merged(&update);
        assert_eq!(merged.sentence, None, "giving tokens drops the sentence");
        assert_eq!(merged.tokens, Some(vec!["x".to_string()]));
        assert_eq!(merged.n_heads, Some(2));
        assert_eq!(merged.generate, None, "the CLI's fields are not the page's");
    }

    #[test]
    fn the_schema_lists_every_field_and_refuses_others() {
        let schema = request_schema();
        assert_eq!(schema["additionalProperties"], json!(false));
        let properties = schema["properties"].as_object().unwrap();
        assert_eq!(properties.len(), FIELDS.len());
        assert_eq!(properties["temperature"]["default"], json!(1));
        assert!(
            properties["mask"]["description"]
                .as_str()
                .unwrap()
                .contains("causal")
        );
    }

    #[test]
    fn a_null_in_an_update_puts_the_page_field_back_to_its_default() {
        use crate::api::nulled_fields;
        let json = r#"{"linear": null, "softcap": null, "temperature": 2, "trace": null}"#;
        // `trace` is the command line's: the page keeps none to clear.
        assert_eq!(nulled_fields(json), ["softcap", "linear"]);
        assert!(nulled_fields("[1]").is_empty() && nulled_fields("{").is_empty());
        let before = parse_request(
            r#"{"linear": {"kind": "delta", "chunk": 8}, "softcap": 3, "n_heads": 4}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let update = parse_request(json).unwrap_or_else(|e| panic!("{e}"));
        let after = before.merged_clearing(&update, &nulled_fields(json));
        assert_eq!((after.linear, after.softcap), (None, None));
        assert_eq!((after.n_heads, after.temperature), (Some(4), Some(2.0)));
        // Without the nulls, a null is no change.
        assert_eq!(before.merged(&update).softcap, Some(3.0));
    }
}
