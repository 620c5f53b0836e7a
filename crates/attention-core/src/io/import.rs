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

use ndarray::{Array4, ArrayD, Axis, Ix4};

use serde::{Deserialize, Serialize};

use crate::io::found::Found;
pub use crate::io::found::{ImportError, Raw};

/// The most tokens (queries or keys) a file may hold: the lab's own limit.
pub const MAX_TOKENS: usize = crate::pipeline::config::MAX_TOKENS;

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
    /// K (and V) have fewer heads than Q: each serves `q_heads / kv_heads` query heads.
    GroupedHeads { q_heads: usize, kv_heads: usize },
    /// The tensors carry a batch of `examples`: example `shown` (0-based) is shown.
    Example { examples: usize, shown: usize },
    /// A 4-D tensor without `batch` given, read as `[layers, heads, rows, columns]`; its first
    /// axis might have been a batch.
    ReadAsLayers { layers: usize },
    /// Special tokens hidden: `queries` rows and `keys` columns, each row renormalised.
    SpecialHidden {
        queries: usize,
        keys: usize,
        tokens: Vec<String>,
    },
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
            ImportNotice::Example { examples, shown } => write!(
                f,
                "the tensors carry a batch of {examples} examples: example {shown} is shown (batch= picks another, from 0 to {})",
                examples - 1
            ),
            ImportNotice::SpecialHidden {
                queries,
                keys,
                tokens,
            } => write!(
                f,
                "special tokens hidden ({}): {queries} queries and {keys} keys taken out, and each row of weights divided by what is left of it so that it sums to 1 again",
                tokens.join(" ")
            ),
            ImportNotice::ReadAsLayers { layers } => write!(
                f,
                "a tensor of four dimensions is read as [layers, heads, queries, keys]: {layers} layers; if its first axis is a batch ([batch, heads, queries, keys], as one layer of outputs.attentions), give batch= (0 to {}) to read one example of one layer",
                layers - 1
            ),
            ImportNotice::GroupedHeads { q_heads, kv_heads } => write!(
                f,
                "k has {kv_heads} heads for q's {q_heads}: each key/value head serves {} query heads in turn (grouped-query attention, as transformers' repeat_kv spreads them)",
                q_heads / kv_heads
            ),
        }
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
    read_with(
        format,
        bytes,
        ReadOptions {
            tokens,
            key_tokens,
            budget,
            batch: None,
        },
    )
}

/// What is given beside a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadOptions {
    /// The queries' tokens (they replace the file's own).
    pub tokens: Option<Vec<String>>,
    /// The keys' tokens, for attention across two texts.
    pub key_tokens: Option<Vec<String>>,
    /// The most numbers, [`DEFAULT_BUDGET`] when `None`.
    pub budget: Option<usize>,
    /// The example to read from a batch. Given, a tensor of four dimensions is `[batch, heads,
    /// rows, columns]` (one layer) and one of five `[layers, batch, heads, rows, columns]`; not
    /// given, four are `[layers, heads, rows, columns]` (said when the first axis has more than
    /// one) and five read example 0.
    pub batch: Option<usize>,
}

/// Reads `bytes` as `format` with what is given beside it.
pub fn read_with(
    format: Format,
    bytes: &[u8],
    options: ReadOptions,
) -> Result<Imported, ImportError> {
    let ReadOptions {
        tokens,
        key_tokens,
        budget,
        batch,
    } = options;
    let budget = budget.unwrap_or(DEFAULT_BUDGET);
    let mut found = match format {
        Format::Json => crate::io::json::read(bytes)?,
        Format::Npy => crate::io::npy::read_npy(bytes, budget)?,
        Format::Npz => crate::io::npy::read_npz(bytes, budget)?,
        Format::Safetensors => crate::io::safetensors::read(bytes)?,
    };
    if tokens.is_some() {
        found.tokens = tokens;
    }
    if key_tokens.is_some() {
        found.key_tokens = key_tokens;
    }
    let batch = batch.or(found.batch);
    assemble(found, budget, batch)
}

/// Reads the JSON format from a parsed value (as `attentionLab.load` receives an object).
pub fn read_value(
    value: &serde_json::Value,
    budget: Option<usize>,
) -> Result<Imported, ImportError> {
    let found = crate::io::json::from_value(value)?;
    let batch = found.batch;
    assemble(found, budget.unwrap_or(DEFAULT_BUDGET), batch)
}

/// Checks what was found and shapes it.
fn assemble(
    mut found: Found,
    budget: usize,
    batch: Option<usize>,
) -> Result<Imported, ImportError> {
    found.stack_layers()?;
    // A batch axis: the example `batch` names (0 when five dimensions come without it).
    let mut examples = 1;
    let mut as_layers = None;
    let mut take = |name: &'static str| -> Result<Option<Raw>, ImportError> {
        let Some(raw) = found.take(name) else {
            return Ok(None);
        };
        let (raw, read) = example(name, raw, batch)?;
        match read {
            Batch::Examples(count) => examples = examples.max(count),
            Batch::Layers(count) => as_layers = as_layers.max(Some(count)),
            Batch::None => {}
        }
        Ok(Some(raw))
    };
    let attention = take("attention")?;
    let rounding = attention
        .as_ref()
        .map_or(crate::io::found::F32_ROUNDING, |a| a.rounding);
    let q = take("q")?;
    let k = take("k")?;
    let v = take("v")?;
    // Q's heads and K's, when K has fewer (grouped-query attention).
    let mut grouped = None;
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
            let mut k = four("k", k, "keys", "d")?;
            let mut v = v.map(|v| four("v", v, "keys", "d_v")).transpose()?;
            let (ql, qh, _, _) = q.dim();
            let kh = k.dim().1;
            // Grouped-query attention: each of K's (and V's) heads serves qh / kh query heads in
            // turn, as transformers' repeat_kv spreads them.
            if ql == k.dim().0 && kh > 0 && kh < qh && qh % kh == 0 {
                k = repeat_heads(&k, qh / kh);
                if let Some(given) = &v
                    && given.dim().1 == kh
                {
                    v = Some(repeat_heads(given, qh / kh));
                }
                grouped = Some((qh, kh));
            }
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
                    "the same layers, and the same heads or a divisor of q's (grouped-query attention)",
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
            names.extend(found.others.iter().cloned());
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
    if examples > 1 {
        notices.push(ImportNotice::Example {
            examples,
            shown: batch.unwrap_or(0),
        });
    }
    if let Some(layers) = as_layers {
        notices.push(ImportNotice::ReadAsLayers { layers });
    }
    if let Some((q_heads, kv_heads)) = grouped {
        notices.push(ImportNotice::GroupedHeads { q_heads, kv_heads });
    }
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
        && let Some(notice) = row_sums(a, rounding)
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

/// What a tensor's batch axis was.
enum Batch {
    /// None: it has none, or one example.
    None,
    /// It had this many examples; one was read.
    Examples(usize),
    /// Four dimensions without `batch`: read as this many layers (more than one).
    Layers(usize),
}

/// `raw` with its batch axis gone: five dimensions are [layers, batch, heads, rows, columns]
/// (`np.stack` of Hugging Face's `outputs.attentions`); with `batch` given, four are [batch,
/// heads, rows, columns] (one layer of them). Example `batch` (0 when not given) is kept.
fn example(
    tensor: &'static str,
    raw: Raw,
    batch: Option<usize>,
) -> Result<(Raw, Batch), ImportError> {
    let (layers, examples, rest) = match (raw.shape.as_slice(), batch) {
        (&[layers, examples, h, n, m], _) => (layers, examples, [h, n, m]),
        (&[examples, h, n, m], Some(_)) => (1, examples, [h, n, m]),
        (&[first, _, _, _], None) => {
            let read = if first > 1 {
                Batch::Layers(first)
            } else {
                Batch::None
            };
            return Ok((raw, read));
        }
        (_, Some(b)) if b > 0 => {
            return Err(ImportError::NoBatch {
                tensor,
                shape: raw.shape,
                batch: b,
            });
        }
        _ => return Ok((raw, Batch::None)),
    };
    let shown = batch.unwrap_or(0);
    if shown >= examples {
        return Err(ImportError::Batch {
            tensor,
            shape: raw.shape.clone(),
            batch: shown,
            examples,
        });
    }
    let each: usize = rest.iter().product();
    let values = (0..layers)
        .flat_map(|l| {
            let start = (l * examples + shown) * each;
            raw.values
                .get(start..start + each)
                .unwrap_or_default()
                .iter()
                .copied()
        })
        .collect();
    let mut shape = vec![layers];
    shape.extend(rest);
    let read = if examples > 1 {
        Batch::Examples(examples)
    } else {
        Batch::None
    };
    Ok((
        Raw {
            shape,
            values,
            rounding: raw.rounding,
        },
        read,
    ))
}

/// Each head of `x` [layers, heads, n, d] repeated `times` times in place: head h becomes heads
/// h·times … (h + 1)·times − 1 (transformers' `repeat_kv`).
fn repeat_heads(x: &Array4<f32>, times: usize) -> Array4<f32> {
    let (l, h, n, d) = x.dim();
    Array4::from_shape_fn((l, h * times, n, d), |(a, b, c, e)| x[[a, b / times, c, e]])
}

/// A notice when rows of weights do not sum to 1 within 1e-3 plus the stored type's rounding
/// (a bf16 row of true weights sums to 1 only within 2⁻⁸: no sink logit is to blame).
fn row_sums(attention: &Array4<f32>, rounding: f32) -> Option<ImportNotice> {
    let tolerance = 1e-3 + rounding;
    let mut first = None;
    let mut rows = 0;
    for ((layer, head, row), sum) in attention
        .sum_axis(Axis(3))
        .indexed_iter()
        .map(|(index, &sum)| (index, sum))
    {
        if (sum - 1.0).abs() > tolerance {
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
