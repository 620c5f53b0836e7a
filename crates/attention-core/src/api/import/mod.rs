//! A user's own attention, read from a file: the weights a model computed (`attention`, with its
//! tokens), or each head's Q and K (and V) for the lab to compute the rest from.
//!
//! Four formats, the tensors named alike in each:
//! - JSON: `{"attention": …, "tokens": […]}` or `{"q": …, "k": …, "v": …, "tokens": […]}`, nested
//!   lists as CircuitsVis and attnview take them (`key_tokens` for cross-attention);
//! - NumPy `.npz`: arrays `attention`, `q`, `k`, `v`, and `tokens` (`key_tokens`) as string arrays;
//! - NumPy `.npy`: one array, the attention weights; the tokens come beside it;
//! - safetensors: tensors of those names in f32, f16 or bf16, the tokens as a JSON list in the
//!   header's `__metadata__` under `"tokens"` (and `"key_tokens"`).
//!
//! Every tensor is `[layers, heads, rows, columns]`, `[heads, rows, columns]` or `[rows,
//! columns]`, and comes out as the first. A file that cannot be used is refused with an
//! [`ImportError`] naming the tensor and what was expected, never a panic; rows of weights that
//! do not sum to 1 are only an [`ImportNotice`] (a head with a sink logit gives such rows).

mod json;
mod npy;
mod safetensors;

use ndarray::{Array4, ArrayD, Axis, Ix4};

use crate::imported::ImportedRun;
use serde::{Deserialize, Serialize};

/// The most tokens (queries or keys) a file may hold: the lab's own limit.
pub const MAX_TOKENS: usize = crate::config::MAX_TOKENS;

/// The most numbers a file may bring, all tensors together, unless a caller states its own
/// budget: 64 Mi (256 MiB as f32). Q and K count as the query-by-key scores they give.
pub const DEFAULT_BUDGET: usize = 64 << 20;

/// A file's format, as `attentionLab.load({format})` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Json,
    Npz,
    Npy,
    Safetensors,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Json, Format::Npz, Format::Npy, Format::Safetensors];

    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Npz => "npz",
            Format::Npy => "npy",
            Format::Safetensors => "safetensors",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// The format `bytes` look like, by their first bytes: a zip (`.npz`), NumPy's magic
    /// (`.npy`), a JSON object or list, or else a little-endian header length followed by a JSON
    /// object (safetensors). `None` when they look like none of these.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"PK") {
            return Some(Format::Npz);
        }
        if bytes.starts_with(b"\x93NUMPY") {
            return Some(Format::Npy);
        }
        let text_start = bytes
            .iter()
            .find(|b| !b.is_ascii_whitespace() && **b != 0xEF && **b != 0xBB && **b != 0xBF);
        if matches!(text_start, Some(b'{' | b'[')) {
            return Some(Format::Json);
        }
        (bytes.len() > 8 && bytes[8] == b'{').then_some(Format::Safetensors)
    }

    /// The format a file name says (its extension), if it says one.
    pub fn from_file_name(name: &str) -> Option<Self> {
        let extension = name.rsplit_once('.')?.1;
        Self::from_name(extension)
    }
}

/// What was read: weights, or the vectors to compute them from. Every array is
/// `[layers, heads, rows, columns]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Tensors {
    /// `[layers, heads, queries, keys]`.
    Attention(Array4<f32>),
    /// Q `[layers, heads, queries, d]`, K `[layers, heads, keys, d]`, V `[layers, heads, keys,
    /// d_v]` when given.
    Vectors {
        q: Array4<f32>,
        k: Array4<f32>,
        v: Option<Array4<f32>>,
    },
}

impl Tensors {
    pub fn layers(&self) -> usize {
        self.first().dim().0
    }

    pub fn heads(&self) -> usize {
        self.first().dim().1
    }

    pub fn queries(&self) -> usize {
        self.first().dim().2
    }

    pub fn keys(&self) -> usize {
        match self {
            Tensors::Attention(a) => a.dim().3,
            Tensors::Vectors { k, .. } => k.dim().2,
        }
    }

    fn first(&self) -> &Array4<f32> {
        match self {
            Tensors::Attention(a) => a,
            Tensors::Vectors { q, .. } => q,
        }
    }
}

/// A file read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub tensors: Tensors,
    /// One per query.
    pub tokens: Vec<String>,
    /// One per key; `None` when the keys are the queries (self-attention).
    pub key_tokens: Option<Vec<String>>,
    /// What was accepted but is worth saying.
    pub notices: Vec<ImportNotice>,
}

impl Imported {
    /// The keys' tokens: their own, or the queries'.
    pub fn keys(&self) -> &[String] {
        self.key_tokens.as_deref().unwrap_or(&self.tokens)
    }
}

/// Accepted, but said.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ImportNotice {
    /// `rows` rows of weights do not sum to 1 (within 1e-3); the first is this one.
    RowsDoNotSumToOne {
        rows: usize,
        layer: usize,
        head: usize,
        row: usize,
        sum: f32,
    },
    /// No tokens came with the file: they are numbered.
    NumberedTokens { count: usize },
}

impl std::fmt::Display for ImportNotice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportNotice::RowsDoNotSumToOne {
                rows,
                layer,
                head,
                row,
                sum,
            } => write!(
                f,
                "{rows} rows of attention do not sum to 1 (layer {layer}, head {head}, row {row} sums to {sum:.4}); shown as they are, as a head with a sink logit would give them"
            ),
            ImportNotice::NumberedTokens { count } => write!(
                f,
                "no tokens came with the file: its {count} positions are numbered 0, 1, 2, …"
            ),
        }
    }
}

/// Why a file cannot be used. `tensor` names the tensor (or `tokens`) as the file does.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    #[error("not a {format} file: {detail}")]
    Format {
        format: &'static str,
        detail: String,
    },
    #[error("the file ends early: {detail}")]
    Truncated { detail: String },
    #[error("{tensor}: {detail}")]
    Header { tensor: String, detail: String },
    #[error("{tensor}: the type {dtype} is not supported (use {supported})")]
    Dtype {
        tensor: String,
        dtype: String,
        supported: &'static str,
    },
    #[error("the file has neither \"attention\" nor \"q\" and \"k\" (found: {found})")]
    Nothing { found: String },
    #[error("the file has both \"attention\" and \"q\"/\"k\": give one or the other")]
    Both,
    #[error("{tensor} is given without {missing}")]
    Missing {
        tensor: &'static str,
        missing: &'static str,
    },
    #[error(
        "{tensor} has {rank} dimensions {shape:?}; expected 2 to 4: [layers, heads, {rows}, {columns}], [heads, {rows}, {columns}] or [{rows}, {columns}]"
    )]
    Rank {
        tensor: String,
        rank: usize,
        shape: Vec<usize>,
        rows: &'static str,
        columns: &'static str,
    },
    #[error("{tensor} {shape:?} does not fit {other} {other_shape:?}: {what}")]
    Disagree {
        tensor: &'static str,
        shape: Vec<usize>,
        other: &'static str,
        other_shape: Vec<usize>,
        what: &'static str,
    },
    #[error("{tensor} has {count} entries where {what}")]
    Tokens {
        tensor: &'static str,
        count: usize,
        what: String,
    },
    #[error("{tensor} has an empty dimension {shape:?}")]
    Empty { tensor: String, shape: Vec<usize> },
    #[error("{tensor}[{index}] is {value}: every number must be finite")]
    NotFinite {
        tensor: String,
        index: String,
        value: String,
    },
    #[error("{tensor}: {count} tokens; the lab handles at most {max}")]
    TooManyTokens {
        tensor: &'static str,
        count: usize,
        max: usize,
    },
    #[error(
        "{numbers} numbers (layers × heads × cells) is more than this page's budget of {budget}; take fewer layers or heads, or a shorter text"
    )]
    OverBudget { numbers: usize, budget: usize },
}

/// A tensor as read, before its shape is checked: row-major f32.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Raw {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// What a format reader found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub tensors: Vec<(String, Raw)>,
    pub tokens: Option<Vec<String>>,
    pub key_tokens: Option<Vec<String>>,
}

impl Found {
    fn take(&mut self, name: &str) -> Option<Raw> {
        let at = self.tensors.iter().position(|(n, _)| n == name)?;
        Some(self.tensors.remove(at).1)
    }
}

/// Reads `bytes` as `format`, with `tokens` (and `key_tokens`) given beside the file (they
/// replace the file's own), within `budget` numbers ([`DEFAULT_BUDGET`] when `None`).
pub fn read(
    format: Format,
    bytes: &[u8],
    tokens: Option<Vec<String>>,
    key_tokens: Option<Vec<String>>,
    budget: Option<usize>,
) -> Result<Imported, ImportError> {
    let budget = budget.unwrap_or(DEFAULT_BUDGET);
    let mut found = match format {
        Format::Json => json::read(bytes)?,
        Format::Npy => npy::read_npy(bytes, budget)?,
        Format::Npz => npy::read_npz(bytes, budget)?,
        Format::Safetensors => safetensors::read(bytes)?,
    };
    if tokens.is_some() {
        found.tokens = tokens;
    }
    if key_tokens.is_some() {
        found.key_tokens = key_tokens;
    }
    assemble(found, budget)
}

/// Reads the JSON format from a parsed value (as `attentionLab.load` receives an object).
pub fn read_value(
    value: &serde_json::Value,
    budget: Option<usize>,
) -> Result<Imported, ImportError> {
    assemble(json::from_value(value)?, budget.unwrap_or(DEFAULT_BUDGET))
}

/// Checks what was found and shapes it.
fn assemble(mut found: Found, budget: usize) -> Result<Imported, ImportError> {
    let attention = found.take("attention");
    let q = found.take("q");
    let k = found.take("k");
    let v = found.take("v");
    let tensors = match (attention, q, k, v) {
        (Some(_), Some(_), _, _) | (Some(_), _, Some(_), _) => return Err(ImportError::Both),
        (Some(a), None, None, v) => {
            if v.is_some() {
                return Err(ImportError::Missing {
                    tensor: "v",
                    missing: "q and k (the lab computes the head outputs from q, k and v)",
                });
            }
            let a = four("attention", a, "queries", "keys")?;
            finite("attention", &a)?;
            Tensors::Attention(a)
        }
        (None, Some(q), Some(k), v) => {
            let q = four("q", q, "queries", "d")?;
            let k = four("k", k, "keys", "d")?;
            let v = v.map(|v| four("v", v, "keys", "d_v")).transpose()?;
            let (ql, qh, _, qd) = q.dim();
            let (kl, kh, kn, kd) = k.dim();
            let disagree = |tensor, shape: &Array4<f32>, other, other_shape: &Array4<f32>, what| {
                ImportError::Disagree {
                    tensor,
                    shape: shape.shape().to_vec(),
                    other,
                    other_shape: other_shape.shape().to_vec(),
                    what,
                }
            };
            if (ql, qh) != (kl, kh) {
                return Err(disagree(
                    "k",
                    &k,
                    "q",
                    &q,
                    "layers and heads must be the same",
                ));
            }
            if qd != kd {
                return Err(disagree(
                    "k",
                    &k,
                    "q",
                    &q,
                    "q and k need the same last dimension d",
                ));
            }
            if let Some(v) = &v {
                let (vl, vh, vn, _) = v.dim();
                if (vl, vh, vn) != (kl, kh, kn) {
                    return Err(disagree(
                        "v",
                        v,
                        "k",
                        &k,
                        "v needs a row per key, for the same layers and heads",
                    ));
                }
            }
            finite("q", &q)?;
            finite("k", &k)?;
            if let Some(v) = &v {
                finite("v", v)?;
            }
            Tensors::Vectors { q, k, v }
        }
        (None, Some(_), None, _) => {
            return Err(ImportError::Missing {
                tensor: "q",
                missing: "k",
            });
        }
        (None, None, Some(_), _) => {
            return Err(ImportError::Missing {
                tensor: "k",
                missing: "q",
            });
        }
        (None, None, None, v) => {
            let mut names: Vec<String> = found.tensors.iter().map(|(n, _)| n.clone()).collect();
            if v.is_some() {
                names.insert(0, "v".into());
            }
            return Err(ImportError::Nothing {
                found: if names.is_empty() {
                    "no tensors".into()
                } else {
                    names.join(", ")
                },
            });
        }
    };

    let (queries, keys) = (tensors.queries(), tensors.keys());
    for (tensor, count) in [("queries", queries), ("keys", keys)] {
        if count > MAX_TOKENS {
            return Err(ImportError::TooManyTokens {
                tensor,
                count,
                max: MAX_TOKENS,
            });
        }
    }
    let cells = tensors.layers() * tensors.heads() * queries * keys;
    let numbers = match &tensors {
        Tensors::Attention(_) => cells,
        Tensors::Vectors { q, k, v } => {
            cells + q.len() + k.len() + v.as_ref().map_or(0, |v| v.len())
        }
    };
    if numbers > budget {
        return Err(ImportError::OverBudget { numbers, budget });
    }

    let mut notices = Vec::new();
    let tokens = match found.tokens {
        Some(tokens) if tokens.len() == queries => tokens,
        Some(tokens) => {
            return Err(ImportError::Tokens {
                tensor: "tokens",
                count: tokens.len(),
                what: format!("the tensors have {queries} queries"),
            });
        }
        None => {
            notices.push(ImportNotice::NumberedTokens { count: queries });
            (0..queries).map(|i| i.to_string()).collect()
        }
    };
    let key_tokens = match found.key_tokens {
        Some(keys_given) if keys_given.len() == keys => Some(keys_given),
        Some(keys_given) => {
            return Err(ImportError::Tokens {
                tensor: "key_tokens",
                count: keys_given.len(),
                what: format!("the tensors have {keys} keys"),
            });
        }
        None if keys == queries => None,
        None => {
            return Err(ImportError::Tokens {
                tensor: "tokens",
                count: queries,
                what: format!(
                    "the tensors have {keys} keys: give key_tokens for attention across two texts"
                ),
            });
        }
    };
    if let Tensors::Attention(a) = &tensors
        && let Some(notice) = row_sums(a)
    {
        notices.push(notice);
    }
    Ok(Imported {
        tensors,
        tokens,
        key_tokens,
        notices,
    })
}

/// `raw` as `[layers, heads, rows, columns]`.
fn four(
    tensor: &'static str,
    raw: Raw,
    rows: &'static str,
    columns: &'static str,
) -> Result<Array4<f32>, ImportError> {
    let rank = raw.shape.len();
    if !(2..=4).contains(&rank) {
        return Err(ImportError::Rank {
            tensor: tensor.into(),
            rank,
            shape: raw.shape,
            rows,
            columns,
        });
    }
    if raw.shape.contains(&0) {
        return Err(ImportError::Empty {
            tensor: tensor.into(),
            shape: raw.shape,
        });
    }
    let mut shape = raw.shape.clone();
    let mut array =
        ArrayD::from_shape_vec(shape.clone(), raw.values).map_err(|_| ImportError::Truncated {
            detail: format!("{tensor}: fewer numbers than its shape {shape:?} needs"),
        })?;
    while shape.len() < 4 {
        array = array.insert_axis(Axis(0));
        shape.insert(0, 1);
    }
    array
        .into_dimensionality::<Ix4>()
        .map_err(|e| ImportError::Header {
            tensor: tensor.into(),
            detail: e.to_string(),
        })
}

/// The first number that is not finite, by its index.
fn finite(tensor: &'static str, array: &Array4<f32>) -> Result<(), ImportError> {
    // A fast pass over every number (vectorised: finite numbers have an exponent below all
    // ones), then the index of the first bad one only when there is one.
    if array.iter().fold(true, |ok, v| ok & v.is_finite()) {
        return Ok(());
    }
    match array.indexed_iter().find(|(_, v)| !v.is_finite()) {
        None => Ok(()),
        Some(((l, h, i, j), v)) => Err(ImportError::NotFinite {
            tensor: tensor.into(),
            index: format!("{l}, {h}, {i}, {j}"),
            value: format!("{v}"),
        }),
    }
}

/// A notice when rows of weights do not sum to 1 (within 1e-3).
fn row_sums(attention: &Array4<f32>) -> Option<ImportNotice> {
    let mut first = None;
    let mut rows = 0;
    for ((layer, head, row), sum) in attention
        .sum_axis(Axis(3))
        .indexed_iter()
        .map(|(index, &sum)| (index, sum))
    {
        if (sum - 1.0).abs() > 1e-3 {
            rows += 1;
            first.get_or_insert((layer, head, row, sum));
        }
    }
    first.map(|(layer, head, row, sum)| ImportNotice::RowsDoNotSumToOne {
        rows,
        layer,
        head,
        row,
        sum,
    })
}

/// Tokens as strings from a JSON value: a list of strings (numbers are written as they read).
pub(crate) fn tokens_from_json(
    value: &serde_json::Value,
    tensor: &'static str,
) -> Result<Vec<String>, ImportError> {
    let bad = |detail: String| ImportError::Header {
        tensor: tensor.into(),
        detail,
    };
    let list = value
        .as_array()
        .ok_or_else(|| bad("expected a list of strings".into()))?;
    list.iter()
        .enumerate()
        .map(|(i, t)| match t {
            serde_json::Value::String(s) => Ok(s.clone()),
            serde_json::Value::Number(n) => Ok(n.to_string()),
            other => Err(bad(format!("entry {i} is {other}, not a string"))),
        })
        .collect()
}

/// An IEEE 754 bfloat16, exactly as f32.
pub(crate) fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// The trace CLI's request to compute from a file:
/// `{"load": {"path": "heads.npz"}, "mask": {"kind": "causal"}, "temperature": 2}`. The format
/// comes from the file's extension unless named; `tokens` (and `key_tokens`) beside the file
/// replace its own. The lab's mask, temperature and FlashAttention tiles apply to Q and K.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadCommand {
    pub load: LoadRequest,
    pub mask: Option<super::MaskRequest>,
    pub temperature: Option<f64>,
    pub block: Option<super::BlockRequest>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadRequest {
    pub path: String,
    pub format: Option<Format>,
    pub tokens: Option<Vec<String>>,
    pub key_tokens: Option<Vec<String>>,
}

/// A load command from JSON, or `None` when `json` is not one (an object without `"load"`).
pub fn parse_load(json: &str) -> Option<Result<LoadCommand, super::RequestError>> {
    // Whether it names "load", read without building the request (a request of 2048 × 512
    // numbers took 0.4 s to build as a `Value` only to find that it did not).
    #[derive(Deserialize)]
    struct Probe {
        load: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Probe>(json).ok()?.load?;
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    Some(
        serde_path_to_error::deserialize(value).map_err(|error| super::RequestError::Json {
            path: error.path().to_string(),
            message: error.inner().to_string(),
        }),
    )
}

impl LoadCommand {
    /// The format to read the file as: named, or from its extension.
    pub fn format(&self) -> Result<Format, String> {
        self.load
            .format
            .or_else(|| Format::from_file_name(&self.load.path))
            .ok_or_else(|| {
                format!(
                    "load.format: cannot tell the format of {:?} from its name; give \"format\": \"json\", \"npz\", \"npy\" or \"safetensors\"",
                    self.load.path
                )
            })
    }

    /// Reads `bytes` (the file's) and, for Q and K, computes every head under the command's
    /// mask and temperature. The JSON: the tokens, the notices and, per layer, each head's
    /// weights (with scores and, given V, the output and FlashAttention's output).
    pub fn run(&self, bytes: &[u8]) -> Result<serde_json::Value, String> {
        let imported = read(
            self.format()?,
            bytes,
            self.load.tokens.clone(),
            self.load.key_tokens.clone(),
            None,
        )
        .map_err(|e| e.to_string())?;
        let settings = match &imported.tensors {
            Tensors::Attention(_) if self.mask.is_some() || self.temperature.is_some() => {
                return Err("mask, temperature: the file holds weights already computed; they apply to q and k".into());
            }
            Tensors::Attention(_) => crate::imported::ImportSettings::default(),
            Tensors::Vectors { .. } => {
                import_settings(self.mask.as_ref(), self.temperature, self.block)
                    .map_err(|e| e.to_string())?
            }
        };
        let run = crate::imported::run_imported(&imported, &settings).map_err(|e| e.to_string())?;
        Ok(run_json(&run, 0))
    }
}

/// What the lab applies to a file's Q and K, from a request's `mask`, `temperature` and `block`
/// (no mask, 1 and automatic tiles when absent).
pub fn import_settings(
    mask: Option<&super::MaskRequest>,
    temperature: Option<f64>,
    block: Option<super::BlockRequest>,
) -> Result<crate::imported::ImportSettings, super::RequestError> {
    let block = block.unwrap_or_default();
    Ok(crate::imported::ImportSettings {
        mask: mask
            .map(super::request::mask_spec)
            .transpose()?
            .unwrap_or(crate::MaskSpec::None),
        temperature: temperature.unwrap_or(1.0),
        block: (block.rows, block.cols),
    })
}

/// An imported file as shown ([`ImportedRun`]): the selected layer's heads (and every layer) in the trace's JSON shape: `tokens`,
/// `source_tokens` for other keys, `heads` with each head's `weights` (and, from Q and K,
/// `q`, `k`, `v`, `scores`, `output`), `layers` with every layer's heads, FlashAttention's
/// largest difference when V came, and the notices.
pub fn run_json(run: &ImportedRun, layer: usize) -> serde_json::Value {
    use crate::api::matrix_json;
    use crate::imported::ShownHead;
    use ndarray::Array2;
    let head_json = |h: &ShownHead| {
        let mut o = serde_json::Map::new();
        let mut put = |name: &str, m: &Option<Array2<f32>>| {
            if let Some(m) = m {
                o.insert(name.into(), matrix_json(m.view()));
            }
        };
        put("q", &h.q);
        put("k", &h.k);
        put("v", &h.v);
        put("scores", &h.scores);
        put("output", &h.output);
        put("flash_output", &h.flash_output);
        o.insert("weights".into(), matrix_json(h.weights.view()));
        if run.from_vectors {
            o.insert(
                "fully_masked_rows".into(),
                serde_json::json!(h.fully_masked_rows),
            );
        }
        serde_json::Value::Object(o)
    };
    let layers: Vec<serde_json::Value> = run
        .layers
        .iter()
        .map(|heads| serde_json::Value::Array(heads.iter().map(head_json).collect()))
        .collect();
    let layer = layer.min(run.layers.len().saturating_sub(1));
    // The file's own tensors, [layers, heads, rows, columns], as the JSON format names them:
    // the download opens again in the lab.
    let stack = |part: fn(&ShownHead) -> Option<&Array2<f32>>| -> Option<serde_json::Value> {
        let layers: Option<Vec<serde_json::Value>> = run
            .layers
            .iter()
            .map(|heads| {
                heads
                    .iter()
                    .map(|h| part(h).map(|m| matrix_json(m.view())))
                    .collect::<Option<Vec<_>>>()
                    .map(serde_json::Value::Array)
            })
            .collect();
        layers.map(serde_json::Value::Array)
    };
    let mut own = serde_json::Map::new();
    if run.from_vectors {
        for (name, part) in [
            (
                "q",
                (|h: &ShownHead| h.q.as_ref()) as fn(&ShownHead) -> Option<&Array2<f32>>,
            ),
            ("k", |h: &ShownHead| h.k.as_ref()),
            ("v", |h: &ShownHead| h.v.as_ref()),
        ] {
            if let Some(tensor) = stack(part) {
                own.insert(name.into(), tensor);
            }
        }
    } else if let Some(tensor) = stack(|h| Some(&h.weights)) {
        own.insert("attention".into(), tensor);
    }
    let mut json = serde_json::json!({
        "source": "imported",
        "kind": if run.from_vectors { "q_k" } else { "attention" },
        "tokens": run.tokens,
        "source_tokens": run.key_tokens,
        "layer": layer,
        "n_layers": run.layer_count(),
        "n_heads": run.head_count(),
        "heads": layers.get(layer).cloned().unwrap_or(serde_json::Value::Null),
        "layers": layers,
        "flash": run.max_flash_diff.map(|d| serde_json::json!({"max_abs_diff": d})),
        "key_tokens": run.key_tokens,
        "notices": run.notices.iter().map(ToString::to_string).collect::<Vec<_>>(),
    });
    if let Some(object) = json.as_object_mut() {
        object.extend(own);
    }
    json
}
