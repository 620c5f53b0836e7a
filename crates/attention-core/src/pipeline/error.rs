//! Why parameters cannot be computed: every way a request's numbers can be impossible, in words
//! a student understands, each naming the field. Raised only while building a
//! [`crate::Config`]; after that the computation cannot fail. (A user's file, a model's files and
//! a request's JSON have errors of their own: `io::import::ImportError`, `models::ModelError`,
//! `api::RequestError`, which wraps this one.)

use thiserror::Error;

/// Why a set of parameters cannot be computed. `field` names the parameter as the trace CLI
/// and the JavaScript API spell it.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ConfigError {
    #[error("{field}: there is nothing to attend to; give at least one token")]
    EmptyInput { field: &'static str },
    #[error("{field}: token {index} is empty")]
    EmptyToken { field: &'static str, index: usize },
    /// `count` is where counting stopped: the input has at least that many tokens.
    #[error("{field}: more than {max} tokens (at least {count}); this lab handles at most {max}")]
    TooManyTokens {
        field: &'static str,
        count: usize,
        max: usize,
    },
    #[error("{field} must be at least {min} (got {value})")]
    TooSmall {
        field: &'static str,
        value: usize,
        min: usize,
    },
    #[error("{field} must be at most {max} (got {value})")]
    TooLarge {
        field: &'static str,
        value: usize,
        max: usize,
    },
    #[error(
        "n_kv_heads must divide n_heads: {n_heads} query heads cannot be shared evenly among {n_kv_heads} key/value heads"
    )]
    KvHeadsDoNotDivide { n_heads: usize, n_kv_heads: usize },
    #[error(
        "temperature must be between 0.0001 and 10000 (got {value}); T = 0 would divide by zero"
    )]
    BadTemperature { value: f64 },
    #[error("{field}: expected a {expected_rows} × {expected_cols} matrix, got {rows} × {cols}")]
    ShapeMismatch {
        field: &'static str,
        expected_rows: usize,
        expected_cols: usize,
        rows: usize,
        cols: usize,
    },
    #[error("{field}: rows have different lengths (row 0 has {first}, row {row} has {len})")]
    RaggedMatrix {
        field: &'static str,
        first: usize,
        row: usize,
        len: usize,
    },
    #[error(
        "{field}: every number must be finite and within ±{limit} (row {row}, column {col} is {value})"
    )]
    ValueOutOfRange {
        field: &'static str,
        row: usize,
        col: usize,
        value: f64,
        limit: f64,
    },
    #[error(
        "mask: a causal mask needs as many keys as queries, but there are {queries} query and {keys} key tokens"
    )]
    CausalNeedsSquare { queries: usize, keys: usize },
    #[error("mask.valid_len: {valid_len} is more than the {keys} key tokens")]
    ValidLenTooLong { valid_len: usize, keys: usize },
    #[error(
        "trace: {cells} attention cells are too many to record step by step (at most {max}); ask for trace = false"
    )]
    TraceTooLarge { cells: usize, max: usize },
    #[error("position: RoPE turns pairs of dimensions, so d_k must be even (got {d_k})")]
    RopeNeedsEvenDk { d_k: usize },
    #[error("position.base must be above 1 (got {base})")]
    BadRopeBase { base: f64 },
    #[error("{field}: {why}")]
    NotWithLinear { field: &'static str, why: String },
    #[error("softcap must be above 0 (got {value})")]
    BadSoftcap { value: f64 },
    #[error("sink_logits: one logit per head: {heads} heads, {given} logits")]
    SinkLogitsLength { given: usize, heads: usize },
    /// A head knocked out in a layer the model does not have (counted from 1).
    #[error("ablate: layer {value} is outside the model's layers (1 to {max})")]
    AblateLayer { value: usize, max: usize },
    /// A head knocked out that its layer does not have (counted from 1).
    #[error("ablate: head {value} is outside the layer's heads (1 to {max})")]
    AblateHead { value: usize, max: usize },
    /// A traced pass of a model too long for the page's memory beside the model
    /// (`Model::page_window`).
    #[error(
        "sentence: a traced pass over {tokens} tokens of this model needs about {needed_mb} MB beside the model, and the page's memory has room for {room_mb} MB: at most {max} tokens here (the command line reads the model's whole context)"
    )]
    PassTooLarge {
        tokens: usize,
        max: usize,
        needed_mb: usize,
        room_mb: usize,
    },
    /// Every head knocked out.
    #[error(
        "ablate: all {count} heads knocked out: no attention would be left to study; keep at least one"
    )]
    AblateAll { count: usize },
}

impl ConfigError {
    /// The parameter this error is about, as the CLI and the JavaScript API name it.
    pub fn field(&self) -> &'static str {
        match self {
            Self::EmptyInput { field }
            | Self::TooManyTokens { field, .. }
            | Self::TooSmall { field, .. }
            | Self::TooLarge { field, .. }
            | Self::ShapeMismatch { field, .. }
            | Self::RaggedMatrix { field, .. }
            | Self::EmptyToken { field, .. }
            | Self::ValueOutOfRange { field, .. }
            | Self::NotWithLinear { field, .. } => field,
            Self::KvHeadsDoNotDivide { .. } => "n_kv_heads",
            Self::BadTemperature { .. } => "temperature",
            Self::CausalNeedsSquare { .. } | Self::ValidLenTooLong { .. } => "mask",
            Self::TraceTooLarge { .. } => "trace",
            Self::PassTooLarge { .. } => "sentence",
            Self::RopeNeedsEvenDk { .. } => "position",
            Self::BadRopeBase { .. } => "position.base",
            Self::BadSoftcap { .. } => "softcap",
            Self::SinkLogitsLength { .. } => "sink_logits",
            Self::AblateLayer { .. } | Self::AblateHead { .. } | Self::AblateAll { .. } => "ablate",
        }
    }
}
