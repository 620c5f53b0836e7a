//! What a format reader gives back: the tensors it found, as read (row-major f32 with their
//! shapes), and the tokens; and why a file is refused, naming the tensor.

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
        "{tensor} has {rank} dimensions {shape:?}; expected 2 to 5: [layers, batch, heads, {rows}, {columns}] (np.stack of outputs.attentions), [layers, heads, {rows}, {columns}], [heads, {rows}, {columns}] or [{rows}, {columns}]"
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
        "{tensor} {shape:?}: batch {batch}, but it has {examples} examples (0 to {last})",
        last = examples - 1
    )]
    Batch {
        tensor: &'static str,
        shape: Vec<usize>,
        batch: usize,
        examples: usize,
    },
    #[error(
        "{tensor} {shape:?} has no batch axis (a batch is [batch, heads, rows, columns] or [layers, batch, heads, rows, columns]): batch {batch} cannot be read"
    )]
    NoBatch {
        tensor: &'static str,
        shape: Vec<usize>,
        batch: usize,
    },
    #[error(
        "{numbers} numbers (layers × heads × cells) is more than this page's budget of {budget}; take fewer layers or heads, or a shorter text"
    )]
    OverBudget { numbers: usize, budget: usize },
}

/// A tensor as read, before its shape is checked: row-major f32.
#[derive(Debug, Clone, PartialEq)]
pub struct Raw {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
    /// The unit roundoff of the type the file stored: 2⁻⁸ for bf16, 2⁻¹¹ for f16, 2⁻²⁴ for f32
    /// and what is read as f32. Weights rounded so need not sum to 1 exactly.
    pub rounding: f32,
}

/// f32's unit roundoff, [`Raw::rounding`] of what is read as f32.
pub const F32_ROUNDING: f32 = f32::EPSILON / 2.0;

/// What a format reader found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub tensors: Vec<(String, Raw)>,
    pub tokens: Option<Vec<String>>,
    pub key_tokens: Option<Vec<String>>,
    /// What else the file holds, by name, unread (an `.npz`'s `arr_0`): said when nothing the
    /// lab reads is there.
    pub others: Vec<String>,
    /// The example to read from a batch, when the file names one (JSON's `"batch"`).
    pub batch: Option<usize>,
}

impl Found {
    pub(crate) fn take(&mut self, name: &str) -> Option<Raw> {
        let at = self.tensors.iter().position(|(n, _)| n == name)?;
        Some(self.tensors.remove(at).1)
    }

    /// Tensors saved one per layer (`layers.0.attn`, `layers.1.attn`, …) stacked into one
    /// `[layers, heads, rows, columns]` under the name the lab reads (`attention`, `q`, `k`,
    /// `v`). Each layer's is `[heads, rows, columns]`, `[rows, columns]` (one head) or with a
    /// batch in front (then stacked as `[layers, batch, …]`); the layers must run 0, 1, 2, …
    /// and agree in shape.
    pub(crate) fn stack_layers(&mut self) -> Result<(), ImportError> {
        for kind in ["attention", "q", "k", "v"] {
            let mut layers: Vec<(usize, String, Raw)> = Vec::new();
            let mut rest = Vec::new();
            for (name, raw) in self.tensors.drain(..) {
                match per_layer(&name) {
                    Some((layer, k)) if k == kind => layers.push((layer, name, raw)),
                    _ => rest.push((name, raw)),
                }
            }
            self.tensors = rest;
            if layers.is_empty() {
                continue;
            }
            if self.tensors.iter().any(|(n, _)| n == kind) {
                return Err(ImportError::Header {
                    tensor: kind.into(),
                    detail: format!(
                        "given whole and per layer ({}): give one or the other",
                        layers[0].1
                    ),
                });
            }
            layers.sort_by_key(|(layer, _, _)| *layer);
            // A batch in front stays, as [layers, batch, heads, rows, columns] (one example is
            // read from it).
            let shape = |raw: &Raw| match raw.shape[..] {
                [n, m] => Some(vec![1, n, m]),
                [h, n, m] => Some(vec![h, n, m]),
                [1, h, n, m] => Some(vec![h, n, m]),
                [b, h, n, m] => Some(vec![b, h, n, m]),
                _ => None,
            };
            let first = shape(&layers[0].2).ok_or_else(|| ImportError::Header {
                tensor: layers[0].1.clone(),
                detail: format!(
                    "shape {:?}: a layer's tensor is [heads, rows, columns] (or [rows, columns], or with a batch in front)",
                    layers[0].2.shape
                ),
            })?;
            let mut values = Vec::new();
            let mut rounding = 0.0f32;
            for (at, (layer, name, raw)) in layers.iter().enumerate() {
                if *layer != at {
                    return Err(ImportError::Header {
                        tensor: name.clone(),
                        detail: format!("the layers saved run to {layer} without layer {at}"),
                    });
                }
                if shape(raw).as_ref() != Some(&first) {
                    return Err(ImportError::Header {
                        tensor: name.clone(),
                        detail: format!(
                            "shape {:?}, where {} has {:?}: every layer's must agree",
                            raw.shape, layers[0].1, layers[0].2.shape
                        ),
                    });
                }
                values.extend_from_slice(&raw.values);
                rounding = rounding.max(raw.rounding);
            }
            let mut stacked = vec![layers.len()];
            stacked.extend(first);
            self.tensors.push((
                kind.into(),
                Raw {
                    shape: stacked,
                    values,
                    rounding,
                },
            ));
        }
        Ok(())
    }
}

/// A tensor saved per layer, as hooks name them (`layers.3.attn`, `model.layers.3.self_attn.q`,
/// `h.3.attention`): its layer (the last number in the name) and what it is, from its last
/// part: `attention` (also `attn`, `attn_weights`, `attentions`), `q`, `k` or `v`.
pub(crate) fn per_layer(name: &str) -> Option<(usize, &'static str)> {
    let mut parts = name.rsplit(['.', '/']);
    let kind = match parts.next()? {
        "attention" | "attn" | "attn_weights" | "attentions" => "attention",
        "q" => "q",
        "k" => "k",
        "v" => "v",
        _ => return None,
    };
    let layer = parts.find_map(|p| p.parse().ok())?;
    Some((layer, kind))
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
