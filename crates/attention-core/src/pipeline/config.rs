//! The boundary of the core: raw [`Params`] (as a user, the CLI or the page gives them) are
//! checked once into a [`Config`]. A `Config` can only be built by [`Params::validate`], so every
//! function that takes one may assume its shapes agree and its numbers are sane.

use ndarray::{Array2, ArrayView2, s};

use crate::math::linear::{LinearSpec, LinearWeights, MAX_CHUNK, MAX_MATRIX_TOKENS, OutputGate};
use crate::math::mask::{Mask, MaskSpec};
use crate::math::norm::Norm;
use crate::math::scoring::{Position, Scoring, Shaping};
use crate::math::weights::{Dims, Weights};
use crate::pipeline::embed::{positional_encoding_from, token_embeddings};
use crate::pipeline::error::ConfigError;
use crate::pipeline::tokenize::{Tokens, tokenize};
use std::sync::Arc;

/// The longest sequence (queries or keys) the core accepts.
pub const MAX_TOKENS: usize = 4096;
/// The widest d_model, d_k or d_v.
pub const MAX_WIDTH: usize = 4096;
/// The most attention heads.
pub const MAX_HEADS: usize = 64;
/// The largest explicit input magnitude; keeps every score finite in f32 (no overflow to ±∞).
pub const MAX_ABS_VALUE: f32 = 1e4;
/// Temperatures outside this range would overflow f32 scores or make every weight equal.
pub const TEMPERATURE_RANGE: (f64, f64) = (1e-4, 1e4);
/// The most cells (n_heads · seq_len · key_len) a step-by-step trace may record.
pub const MAX_TRACED_CELLS: usize = 1 << 24;

pub const DEFAULT_D_MODEL: usize = 16;
pub const DEFAULT_N_HEADS: usize = 2;
/// FlashAttention tiles per side that the automatic tile size aims for: enough to show the
/// tiling on a short sentence.
pub const AUTO_TILES_PER_SIDE: usize = 4;
/// The automatic tile size stays within this range (a GPU kernel's tiles are 16 to 128 wide).
pub const AUTO_BLOCK_RANGE: (usize, usize) = (2, 64);

/// The tile side FlashAttention uses for `len` tokens when none is given: about
/// [`AUTO_TILES_PER_SIDE`] tiles per side, within [`AUTO_BLOCK_RANGE`] and never more than `len`.
pub fn auto_block(len: usize) -> usize {
    let (low, high) = AUTO_BLOCK_RANGE;
    len.div_ceil(AUTO_TILES_PER_SIDE)
        .clamp(low, high)
        .min(len.max(1))
}

/// Where a sequence comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Text, split by [`tokenize`], embedded and given positions.
    Sentence(String),
    /// Ready-made tokens, embedded and given positions.
    Tokens(Vec<String>),
    /// Explicit vectors [seq_len, d_model], used as they are (no positions added).
    X(Array2<f32>),
    /// Explicit vectors [seq_len, d_model] with the tokens they stand for, and, when they are
    /// embeddings plus positions, those two parts (a trained model's residual stream).
    Vectors {
        tokens: Vec<String>,
        x: Array2<f32>,
        parts: Option<(Array2<f32>, Array2<f32>)>,
    },
}

/// Optional residual connection and LayerNorm around the attention layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LayerNormMode {
    /// The attention output, as is.
    #[default]
    None,
    /// x + MHA(LN(x)), as in GPT-2 and most modern models.
    Pre,
    /// LN(x + MHA(x)), as in the original Transformer.
    Post,
}

impl LayerNormMode {
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Pre => "pre",
            Self::Post => "post",
        }
    }
}

/// Everything a computation needs, before checking. `None` means "use the default".
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub input: Input,
    /// Present: cross-attention, with K and V from this sequence and Q from `input`.
    pub source: Option<Input>,
    /// Default 16, or the width of an explicit `x`.
    pub d_model: Option<usize>,
    pub n_heads: usize,
    /// Default d_model / n_heads (at least 1).
    pub d_k: Option<usize>,
    /// Default d_k.
    pub d_v: Option<usize>,
    /// Default n_heads (standard multi-head attention).
    pub n_kv_heads: Option<usize>,
    pub temperature: f64,
    pub seed: u64,
    pub mask: MaskSpec,
    /// Explicit projection matrices (shared, not copied: a model's layer hands its own);
    /// default: Xavier-initialised from `seed`.
    pub weights: Option<Arc<Weights>>,
    /// Queries per FlashAttention tile; default [`auto_block`] of the queries.
    pub block_rows: Option<usize>,
    /// Keys per FlashAttention tile; default [`auto_block`] of the keys.
    pub block_cols: Option<usize>,
    pub layer_norm: LayerNormMode,
    /// A trained model's LayerNorm (its γ, β and ε); default the lab's (γ = 1, β = 0, ε = 10⁻⁶).
    pub norm: Option<Norm>,
    /// Gemma's sandwich: with Pre-LN, a norm on the attention's projected output before it
    /// joins the residual stream, x + Norm(MHA(LN(x))).
    pub post_norm: Option<Norm>,
    /// Set when this is layer `n` of the trained model (the views say so).
    pub model_layer: Option<usize>,
    /// Whether the caller will record every intermediate (limits the size).
    pub trace: bool,
    /// Positions and the score options (RoPE, ALiBi, a soft-cap, QK-norm, sink logits).
    pub shaping: Shaping,
    /// Linear attention (elu, the delta rule, gated) instead of the softmax; `None`: softmax.
    pub linear: Option<LinearSpec>,
    /// Each head's output times σ(x·W_g) before W_O (the output gate).
    pub output_gate: bool,
    /// A trained model's β, α (and short convolution) for `linear`; `None`: from the seed.
    pub linear_weights: Option<Arc<LinearWeights>>,
    /// A trained model's output gate (σ or Gated DeltaNet's normed SiLU); it counts as
    /// `output_gate`.
    pub gate_weights: Option<Arc<OutputGate>>,
}

impl Params {
    /// The lab's defaults around a sentence.
    pub fn sentence(text: impl Into<String>) -> Self {
        Self {
            input: Input::Sentence(text.into()),
            source: None,
            d_model: None,
            n_heads: DEFAULT_N_HEADS,
            d_k: None,
            d_v: None,
            n_kv_heads: None,
            temperature: 1.0,
            seed: 0,
            mask: MaskSpec::None,
            weights: None,
            block_rows: None,
            block_cols: None,
            layer_norm: LayerNormMode::None,
            norm: None,
            post_norm: None,
            model_layer: None,
            trace: true,
            shaping: Shaping::default(),
            linear: None,
            output_gate: false,
            linear_weights: None,
            gate_weights: None,
        }
    }
}

/// A sequence after tokenizing and embedding.
#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    /// What it was made from (to reuse it when the same input comes again).
    pub origin: Input,
    pub tokens: Vec<String>,
    /// [len, d_model]: what attention reads.
    pub x: Array2<f32>,
    /// E and P with x = E + P; `None` when x was given explicitly. P is zero when no
    /// position vector is added (positions none, RoPE or ALiBi).
    pub parts: Option<(Array2<f32>, Array2<f32>)>,
    /// The first position P encodes (the offset), or `None` when no P is added.
    pub first_position: Option<usize>,
}

/// Checked parameters: shapes agree, numbers are finite and in range. Built only by
/// [`Params::validate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    target: Sequence,
    source: Option<Sequence>,
    dims: Dims,
    temperature: f32,
    seed: u64,
    mask: Mask,
    weights: Arc<Weights>,
    /// Whether `weights` were drawn from `seed` (rather than given).
    seeded_weights: bool,
    block_rows: usize,
    block_cols: usize,
    layer_norm: LayerNormMode,
    norm: Norm,
    post_norm: Option<Norm>,
    model_layer: Option<usize>,
    shaping: Shaping,
    /// Linear attention and the numbers it reads besides Q, K, V (drawn from the seed).
    linear: Option<(LinearSpec, Arc<LinearWeights>)>,
    /// The output gate (σ(x·W_g) with W_g [d_model, n_heads·d_v] drawn from the seed, or a
    /// trained model's).
    gate: Option<Arc<OutputGate>>,
}

impl Config {
    /// The query sequence (and the key/value sequence in self-attention).
    pub fn target(&self) -> &Sequence {
        &self.target
    }

    /// The key/value sequence of cross-attention.
    pub fn source(&self) -> Option<&Sequence> {
        self.source.as_ref()
    }

    /// The sequence keys and values come from.
    pub fn key_sequence(&self) -> &Sequence {
        self.source.as_ref().unwrap_or(&self.target)
    }

    pub fn tokens(&self) -> &[String] {
        &self.target.tokens
    }

    /// [seq_len, d_model]
    pub fn x(&self) -> ArrayView2<'_, f32> {
        self.target.x.view()
    }

    pub fn seq_len(&self) -> usize {
        self.target.tokens.len()
    }

    pub fn key_len(&self) -> usize {
        self.key_sequence().tokens.len()
    }

    pub fn dims(&self) -> &Dims {
        &self.dims
    }

    pub fn temperature(&self) -> f32 {
        self.temperature
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// 1 / (√d_k · T): what QKᵀ is multiplied by.
    pub fn scale(&self) -> f32 {
        1.0 / ((self.dims.d_k as f32).sqrt() * self.temperature)
    }

    pub fn mask(&self) -> &Mask {
        &self.mask
    }

    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// FlashAttention tile size: (queries per tile, keys per tile).
    pub fn block(&self) -> (usize, usize) {
        (self.block_rows, self.block_cols)
    }

    pub fn layer_norm(&self) -> LayerNormMode {
        self.layer_norm
    }

    /// The LayerNorm Pre-LN and Post-LN apply.
    pub fn norm(&self) -> &Norm {
        &self.norm
    }

    /// Linear attention, if asked, and its β and α weights.
    pub fn linear(&self) -> Option<(LinearSpec, &LinearWeights)> {
        self.linear.as_ref().map(|(spec, w)| (*spec, w.as_ref()))
    }

    /// The sigmoid output gate's W_g [d_model, n_heads·d_v], if there is one.
    pub fn gate(&self) -> Option<&Array2<f32>> {
        self.gate.as_deref().and_then(OutputGate::sigmoid)
    }

    /// The output gate, whichever it is.
    pub fn output_gate(&self) -> Option<&OutputGate> {
        self.gate.as_deref()
    }

    /// Gemma's norm on the attention's output before the residual (Pre-LN only).
    pub fn post_norm(&self) -> Option<&Norm> {
        self.post_norm.as_ref()
    }

    /// Which layer of the trained model this is, if it is one.
    pub fn model_layer(&self) -> Option<usize> {
        self.model_layer
    }

    /// Whether the weights were drawn from the seed (not given, nor a trained model's).
    pub fn seeded_weights(&self) -> bool {
        self.seeded_weights
    }

    /// Positions and the score options.
    pub fn shaping(&self) -> &Shaping {
        &self.shaping
    }

    /// How head `head` turns q·k into scores (see [`crate::math::scoring`]).
    /// The same computation under other score options: the sentences are embedded again when
    /// whether (and from where) P is added changes; everything else is kept, bit for bit. How a
    /// lesson compares positions on the learner's own numbers. Refused, as [`Params::validate`]
    /// refuses them, for options the shape cannot take (an odd d_k with RoPE, …).
    pub fn with_shaping(&self, shaping: Shaping) -> Result<Config, ConfigError> {
        let shaping = check_shaping(&shaping, &self.dims)?;
        let first_position = (shaping.position == Position::Absolute).then_some(shaping.offset);
        let d_model = self.dims.d_model;
        let again = |sequence_of: &Sequence, fields: InputFields| {
            if sequence_of.parts.is_none() || sequence_of.first_position == first_position {
                Ok(sequence_of.clone())
            } else {
                sequence(&sequence_of.origin, d_model, fields, first_position, None)
            }
        };
        Ok(Config {
            target: again(&self.target, InputFields::TARGET)?,
            source: self
                .source
                .as_ref()
                .map(|s| again(s, InputFields::SOURCE))
                .transpose()?,
            shaping,
            ..self.clone()
        })
    }

    /// The same computation under another mask (checked against the lengths as
    /// [`Params::validate`] checks it).
    pub fn with_mask(&self, spec: MaskSpec) -> Result<Config, ConfigError> {
        let mask = check_mask(&spec, self.seq_len(), self.key_len())?;
        Ok(Config {
            mask,
            ..self.clone()
        })
    }

    pub fn scoring(&self, head: usize) -> Scoring {
        self.shaping
            .scoring(head, self.dims.n_heads, self.dims.d_k, self.temperature)
    }
}

impl Params {
    /// Checks every parameter, tokenizes and embeds, and draws the weights.
    pub fn validate(&self) -> Result<Config, ConfigError> {
        self.validate_reusing(None)
    }

    /// [`Params::validate`], reusing from `previous` what these parameters would compute again
    /// identically: an embedded sequence whose input and d_model are unchanged, and weights drawn
    /// from the same seed for the same shapes. A slider that moves the temperature then costs
    /// no tokenizing, embedding or drawing of weights. The result is the same, bit for bit.
    pub fn validate_reusing(&self, previous: Option<&Config>) -> Result<Config, ConfigError> {
        let d_model = resolve_d_model(&self.input, self.d_model)?;
        // A sentence's X = E + P only with absolute positions (from the offset).
        let first_position =
            (self.shaping.position == Position::Absolute).then_some(self.shaping.offset);
        let reuse = |input: &Input, fields: InputFields, old: Option<&Sequence>| match old {
            Some(old)
                if &old.origin == input
                    && old.x.ncols() == d_model
                    && (old.parts.is_none() || old.first_position == first_position) =>
            {
                Ok(old.clone())
            }
            _ => sequence(input, d_model, fields, first_position, old),
        };
        let target = reuse(
            &self.input,
            InputFields::TARGET,
            previous.map(|p| &p.target),
        )?;
        let source = self
            .source
            .as_ref()
            .map(|input| {
                reuse(
                    input,
                    InputFields::SOURCE,
                    previous.and_then(|p| p.source.as_ref()),
                )
            })
            .transpose()?;

        let n_heads = in_range("n_heads", self.n_heads, 1, MAX_HEADS)?;
        let n_kv_heads = in_range("n_kv_heads", self.n_kv_heads.unwrap_or(n_heads), 1, n_heads)?;
        if n_heads % n_kv_heads != 0 {
            return Err(ConfigError::KvHeadsDoNotDivide {
                n_heads,
                n_kv_heads,
            });
        }
        let d_k = in_range(
            "d_k",
            self.d_k.unwrap_or((d_model / n_heads).max(1)),
            1,
            MAX_WIDTH,
        )?;
        let d_v = in_range("d_v", self.d_v.unwrap_or(d_k), 1, MAX_WIDTH)?;
        let dims = Dims {
            d_model,
            n_heads,
            n_kv_heads,
            d_k,
            d_v,
        };

        let (low, high) = TEMPERATURE_RANGE;
        if !(self.temperature.is_finite() && self.temperature >= low && self.temperature <= high) {
            return Err(ConfigError::BadTemperature {
                value: self.temperature,
            });
        }

        let seq_len = target.tokens.len();
        let key_len = source.as_ref().map_or(seq_len, |s| s.tokens.len());
        let mut mask = check_mask(&self.mask, seq_len, key_len)?;
        let shaping = check_shaping(&self.shaping, &dims)?;

        let weights = match (&self.weights, previous) {
            (Some(weights), _) => check_weights(weights, &dims)?,
            (None, Some(previous))
                if previous.seeded_weights
                    && previous.seed == self.seed
                    && previous.dims == dims =>
            {
                previous.weights.clone()
            }
            (None, _) => Arc::new(Weights::xavier(self.seed, &dims)),
        };

        let block_rows = in_range(
            "block.rows",
            self.block_rows.unwrap_or_else(|| auto_block(seq_len)),
            1,
            MAX_TOKENS,
        )?;
        let block_cols = in_range(
            "block.cols",
            self.block_cols.unwrap_or_else(|| auto_block(key_len)),
            1,
            MAX_TOKENS,
        )?;

        let linear = match self.linear {
            Some(spec) => {
                let spec = check_linear(self, spec, &shaping, seq_len, key_len)?;
                // Causal by construction, whichever of none and causal was asked: the trace's
                // mask says so.
                mask = check_mask(&MaskSpec::Causal, seq_len, key_len)?;
                let weights = self.linear_weights.clone().unwrap_or_else(|| {
                    Arc::new(LinearWeights::seeded(self.seed, d_model, n_heads))
                });
                Some((spec, weights))
            }
            None => None,
        };
        let gate = match &self.gate_weights {
            Some(given) => Some(given.clone()),
            None => self.output_gate.then(|| {
                Arc::new(OutputGate::Sigmoid(crate::math::weights::xavier_uniform(
                    self.seed,
                    "w_gate",
                    d_model,
                    n_heads * d_v,
                )))
            }),
        };

        if self.trace {
            let cells = n_heads * seq_len * key_len;
            if cells > MAX_TRACED_CELLS {
                return Err(ConfigError::TraceTooLarge {
                    cells,
                    max: MAX_TRACED_CELLS,
                });
            }
        }

        Ok(Config {
            target,
            source,
            dims,
            temperature: self.temperature as f32,
            seed: self.seed,
            mask,
            seeded_weights: self.weights.is_none(),
            weights,
            block_rows,
            block_cols,
            layer_norm: self.layer_norm,
            norm: self.norm.clone().unwrap_or_default(),
            post_norm: self.post_norm.clone(),
            model_layer: self.model_layer,
            linear,
            gate,
            shaping,
        })
    }
}

/// How the fields of a sequence are named in messages.
struct InputFields {
    sentence: &'static str,
    tokens: &'static str,
    x: &'static str,
    generated_prefix: &'static str,
}

impl InputFields {
    const TARGET: Self = Self {
        sentence: "sentence",
        tokens: "tokens",
        x: "x",
        generated_prefix: "x",
    };
    const SOURCE: Self = Self {
        sentence: "source_sentence",
        tokens: "source_tokens",
        x: "source_x",
        generated_prefix: "s",
    };
}

fn resolve_d_model(input: &Input, d_model: Option<usize>) -> Result<usize, ConfigError> {
    match (input, d_model) {
        (Input::X(x) | Input::Vectors { x, .. }, Some(d_model)) if x.ncols() != d_model => {
            Err(ConfigError::ShapeMismatch {
                field: "x",
                expected_rows: x.nrows(),
                expected_cols: d_model,
                rows: x.nrows(),
                cols: x.ncols(),
            })
        }
        (Input::X(x) | Input::Vectors { x, .. }, _) => in_range("d_model", x.ncols(), 1, MAX_WIDTH),
        (_, d_model) => in_range("d_model", d_model.unwrap_or(DEFAULT_D_MODEL), 1, MAX_WIDTH),
    }
}

fn sequence(
    input: &Input,
    d_model: usize,
    fields: InputFields,
    first_position: Option<usize>,
    previous: Option<&Sequence>,
) -> Result<Sequence, ConfigError> {
    // A previous sentence or token list of the same width and positions (a long sentence typed
    // at its end): its rows of P serve every position both have, its rows of E the tokens both
    // begin with, and only the rest is computed (P's sines and cosines at 4096 positions were
    // 4 ms of each edit in wasm). Each row depends on its position or its token alone.
    let earlier = previous
        .filter(|old| {
            matches!(old.origin, Input::Sentence(_) | Input::Tokens(_))
                && old.x.ncols() == d_model
                && old.first_position == first_position
        })
        .and_then(|old| Some((&old.tokens, old.parts.as_ref()?)));
    let embedded = |tokens: Vec<String>| {
        let n = tokens.len();
        let (embeddings, positions) = match earlier {
            Some((old_tokens, (old_e, old_p))) => {
                let same = old_tokens.iter().zip(&tokens).take_while(|(a, b)| a == b);
                let shared = same.count();
                let kept = old_tokens.len().min(n);
                let mut e = Array2::zeros((n, d_model));
                e.slice_mut(s![..shared, ..])
                    .assign(&old_e.slice(s![..shared, ..]));
                e.slice_mut(s![shared.., ..])
                    .assign(&token_embeddings(&tokens[shared..], d_model));
                let mut p = Array2::zeros((n, d_model));
                if let Some(first) = first_position {
                    p.slice_mut(s![..kept, ..])
                        .assign(&old_p.slice(s![..kept, ..]));
                    p.slice_mut(s![kept.., ..])
                        .assign(&positional_encoding_from(first + kept, n - kept, d_model));
                }
                (e, p)
            }
            None => (
                token_embeddings(&tokens, d_model),
                match first_position {
                    Some(first) => positional_encoding_from(first, n, d_model),
                    None => Array2::zeros((n, d_model)),
                },
            ),
        };
        Sequence {
            origin: input.clone(),
            x: &embeddings + &positions,
            tokens,
            parts: Some((embeddings, positions)),
            first_position,
        }
    };
    match input {
        Input::Sentence(text) => match tokenize(text, MAX_TOKENS) {
            Tokens::TooMany { at_least } => Err(ConfigError::TooManyTokens {
                field: fields.sentence,
                count: at_least,
                max: MAX_TOKENS,
            }),
            Tokens::Fit(tokens) if tokens.is_empty() => Err(ConfigError::EmptyInput {
                field: fields.sentence,
            }),
            Tokens::Fit(tokens) => Ok(embedded(tokens)),
        },
        Input::Tokens(tokens) => {
            check_len(fields.tokens, tokens.len())?;
            if let Some(index) = tokens.iter().position(|t| t.trim().is_empty()) {
                return Err(ConfigError::EmptyToken {
                    field: fields.tokens,
                    index,
                });
            }
            Ok(embedded(tokens.clone()))
        }
        Input::Vectors { tokens, x, parts } => {
            check_len(fields.x, x.nrows())?;
            if tokens.len() != x.nrows() {
                return Err(ConfigError::ShapeMismatch {
                    field: fields.tokens,
                    expected_rows: x.nrows(),
                    expected_cols: 1,
                    rows: tokens.len(),
                    cols: 1,
                });
            }
            check_values(fields.x, x.view())?;
            Ok(Sequence {
                origin: input.clone(),
                tokens: tokens.clone(),
                x: x.clone(),
                parts: parts.clone(),
                first_position: None,
            })
        }
        Input::X(x) => {
            check_len(fields.x, x.nrows())?;
            if x.ncols() != d_model {
                return Err(ConfigError::ShapeMismatch {
                    field: fields.x,
                    expected_rows: x.nrows(),
                    expected_cols: d_model,
                    rows: x.nrows(),
                    cols: x.ncols(),
                });
            }
            check_values(fields.x, x.view())?;
            let tokens = (0..x.nrows())
                .map(|i| format!("{}{i}", fields.generated_prefix))
                .collect();
            Ok(Sequence {
                origin: input.clone(),
                tokens,
                x: x.clone(),
                parts: None,
                first_position: None,
            })
        }
    }
}

fn check_len(field: &'static str, len: usize) -> Result<(), ConfigError> {
    if len == 0 {
        return Err(ConfigError::EmptyInput { field });
    }
    if len > MAX_TOKENS {
        return Err(ConfigError::TooManyTokens {
            field,
            count: len,
            max: MAX_TOKENS,
        });
    }
    Ok(())
}

fn in_range(
    field: &'static str,
    value: usize,
    min: usize,
    max: usize,
) -> Result<usize, ConfigError> {
    if value < min {
        Err(ConfigError::TooSmall { field, value, min })
    } else if value > max {
        Err(ConfigError::TooLarge { field, value, max })
    } else {
        Ok(value)
    }
}

fn check_values(field: &'static str, matrix: ArrayView2<f32>) -> Result<(), ConfigError> {
    // A fast pass over every number (no branch, no index: |v| ≤ the limit is false for NaN and
    // ±∞ too), then the place of the first bad one only when there is one. A model's layer has
    // millions of weights, checked each time a config is made of them.
    if matrix
        .iter()
        .fold(true, |ok, v| ok & (v.abs() <= MAX_ABS_VALUE))
    {
        return Ok(());
    }
    match matrix
        .indexed_iter()
        .find(|(_, v)| !(v.is_finite() && v.abs() <= MAX_ABS_VALUE))
    {
        Some(((row, col), &value)) => Err(ConfigError::ValueOutOfRange {
            field,
            row,
            col,
            value: f64::from(value),
            limit: f64::from(MAX_ABS_VALUE),
        }),
        None => Ok(()),
    }
}

fn check_shape(
    field: &'static str,
    matrix: ArrayView2<f32>,
    rows: usize,
    cols: usize,
) -> Result<(), ConfigError> {
    if matrix.dim() != (rows, cols) {
        return Err(ConfigError::ShapeMismatch {
            field,
            expected_rows: rows,
            expected_cols: cols,
            rows: matrix.nrows(),
            cols: matrix.ncols(),
        });
    }
    check_values(field, matrix)
}

/// The weights whose numbers were found good: a model's layers are checked once, not at every
/// forward pass (weights behind an `Arc` never change; a weight gone takes its entry with it).
mod checked {
    use std::sync::{Arc, Mutex, Weak};

    use crate::math::weights::Weights;

    static CHECKED: Mutex<Vec<Weak<Weights>>> = Mutex::new(Vec::new());

    pub fn contains(weights: &Arc<Weights>) -> bool {
        CHECKED.lock().is_ok_and(|seen| {
            seen.iter()
                .any(|w| w.strong_count() > 0 && std::ptr::eq(w.as_ptr(), Arc::as_ptr(weights)))
        })
    }

    pub fn insert(weights: &Arc<Weights>) {
        if let Ok(mut seen) = CHECKED.lock() {
            seen.retain(|w| w.strong_count() > 0);
            seen.push(Arc::downgrade(weights));
        }
    }
}

fn check_weights(weights: &Arc<Weights>, dims: &Dims) -> Result<Arc<Weights>, ConfigError> {
    let known = checked::contains(weights);
    let check_shape = |field, matrix: ArrayView2<f32>, rows, cols| {
        if known && matrix.dim() == (rows, cols) {
            Ok(())
        } else {
            check_shape(field, matrix, rows, cols)
        }
    };
    let Dims {
        d_model,
        n_heads,
        n_kv_heads,
        d_k,
        d_v,
    } = *dims;
    check_shape("weights.w_q", weights.w_q.view(), d_model, n_heads * d_k)?;
    check_shape("weights.w_k", weights.w_k.view(), d_model, n_kv_heads * d_k)?;
    check_shape("weights.w_v", weights.w_v.view(), d_model, n_kv_heads * d_v)?;
    check_shape("weights.w_o", weights.w_o.view(), n_heads * d_v, d_model)?;
    if let Some(biases) = &weights.biases {
        for (field, bias, len) in [
            ("weights.b_q", &biases.q, n_heads * d_k),
            ("weights.b_k", &biases.k, n_kv_heads * d_k),
            ("weights.b_v", &biases.v, n_kv_heads * d_v),
            ("weights.b_o", &biases.o, d_model),
        ] {
            check_shape(field, bias.view().insert_axis(ndarray::Axis(0)), 1, len)?;
        }
    }
    if !known {
        checked::insert(weights);
    }
    Ok(Arc::clone(weights))
}

/// `spec` checked against `queries` × `keys` (a causal mask needs a square, a padding length at
/// most the keys…): the mask a config would hold.
pub fn checked_mask(spec: &MaskSpec, queries: usize, keys: usize) -> Result<Mask, ConfigError> {
    check_mask(spec, queries, keys)
}

/// A temperature the lab accepts: finite, within [`TEMPERATURE_RANGE`].
pub fn checked_temperature(temperature: f64) -> Result<f32, ConfigError> {
    let (low, high) = TEMPERATURE_RANGE;
    if temperature.is_finite() && temperature >= low && temperature <= high {
        Ok(temperature as f32)
    } else {
        Err(ConfigError::BadTemperature { value: temperature })
    }
}

fn check_mask(spec: &MaskSpec, queries: usize, keys: usize) -> Result<Mask, ConfigError> {
    match spec {
        MaskSpec::Causal if queries != keys => {
            return Err(ConfigError::CausalNeedsSquare { queries, keys });
        }
        MaskSpec::Padding { valid_len } if *valid_len > keys => {
            return Err(ConfigError::ValidLenTooLong {
                valid_len: *valid_len,
                keys,
            });
        }
        MaskSpec::Sliding { .. } if queries != keys => {
            return Err(ConfigError::CausalNeedsSquare { queries, keys });
        }
        MaskSpec::Sliding { radius, .. } if *radius >= keys => {
            return Err(ConfigError::TooLarge {
                field: "mask.radius",
                value: *radius,
                max: keys.saturating_sub(1),
            });
        }
        MaskSpec::Sliding { sink_tokens, .. } if *sink_tokens > keys => {
            return Err(ConfigError::TooLarge {
                field: "mask.sink_tokens",
                value: *sink_tokens,
                max: keys,
            });
        }
        MaskSpec::Custom { allowed } if allowed.dim() != (queries, keys) => {
            return Err(ConfigError::ShapeMismatch {
                field: "mask.allowed",
                expected_rows: queries,
                expected_cols: keys,
                rows: allowed.nrows(),
                cols: allowed.ncols(),
            });
        }
        _ => {}
    }
    Ok(Mask::new_unchecked(spec.clone(), queries, keys))
}

/// Linear attention's chunk, and what it cannot go with: it is causal by construction (a mask
/// other than none or causal), it has no scores to shape or softmax to sharpen, and it reads its
/// own keys (no cross-attention). Its hidden matrix is traced whole, up to
/// [`MAX_MATRIX_TOKENS`] tokens (as a softmax head is before it is summarised).
fn check_linear(
    params: &Params,
    spec: LinearSpec,
    shaping: &Shaping,
    seq_len: usize,
    key_len: usize,
) -> Result<LinearSpec, ConfigError> {
    in_range("linear.chunk", spec.chunk, 1, MAX_CHUNK)?;
    let refuse = |field: &'static str, why: String| Err(ConfigError::NotWithLinear { field, why });
    let kind = spec.kind.name();
    if params.source.is_some() {
        return refuse(
            "source",
            format!(
                "linear attention ({kind}) reads its own tokens; cross-attention needs the softmax"
            ),
        );
    }
    if !matches!(params.mask, MaskSpec::None | MaskSpec::Causal) {
        return refuse(
            "mask",
            format!(
                "linear attention ({kind}) is causal by construction: the mask must be none or causal, not {}",
                params.mask.kind()
            ),
        );
    }
    let shaped = [
        (shaping.softcap.is_some(), "softcap"),
        (shaping.qk_norm, "qk_norm"),
        (shaping.sink_logits.is_some(), "sink_logits"),
        (
            matches!(shaping.position, Position::Rope { .. } | Position::Alibi),
            "position",
        ),
    ];
    if let Some((_, field)) = shaped.iter().find(|(on, _)| *on) {
        return refuse(
            field,
            format!(
                "linear attention ({kind}) has no scores to shape: leave {field} out (positions absolute or none)"
            ),
        );
    }
    if params.temperature != 1.0 {
        return refuse(
            "temperature",
            format!(
                "linear attention ({kind}) has no softmax for a temperature to sharpen: leave it at 1"
            ),
        );
    }
    if params.trace && seq_len * key_len > MAX_MATRIX_TOKENS * MAX_MATRIX_TOKENS {
        if let Some(layer) = params.model_layer {
            // A hybrid's layer: its forward pass is always traced.
            return refuse(
                "sentence",
                format!(
                    "layer {} of this hybrid is linear attention, whose hidden matrix the lab traces for at most {MAX_MATRIX_TOKENS} tokens ({seq_len} here): shorten the text",
                    layer + 1
                ),
            );
        }
        return refuse(
            "linear",
            format!(
                "its hidden matrix is traced for at most {MAX_MATRIX_TOKENS} tokens ({seq_len} here); ask for the outputs only (\"trace\": false)"
            ),
        );
    }
    Ok(spec)
}

/// The score options, checked against the shape: RoPE needs an even d_k and a base above 1, a
/// soft-cap is above 0, sink logits are one finite number per head.
fn check_shaping(shaping: &Shaping, dims: &Dims) -> Result<Shaping, ConfigError> {
    if let Position::Rope { base, .. } = shaping.position {
        if !dims.d_k.is_multiple_of(2) {
            return Err(ConfigError::RopeNeedsEvenDk { d_k: dims.d_k });
        }
        if !(base.is_finite() && base > 1.0) {
            return Err(ConfigError::BadRopeBase { base });
        }
    }
    if let Some(cap) = shaping.softcap
        && !(cap.is_finite() && cap > 0.0)
    {
        return Err(ConfigError::BadSoftcap {
            value: f64::from(cap),
        });
    }
    if let Some(logits) = &shaping.sink_logits {
        if logits.len() != dims.n_heads {
            return Err(ConfigError::SinkLogitsLength {
                given: logits.len(),
                heads: dims.n_heads,
            });
        }
        if let Some((col, &value)) = logits
            .iter()
            .enumerate()
            .find(|(_, v)| !(v.is_finite() && v.abs() <= MAX_ABS_VALUE))
        {
            return Err(ConfigError::ValueOutOfRange {
                field: "sink_logits",
                row: 0,
                col,
                value: f64::from(value),
                limit: f64::from(MAX_ABS_VALUE),
            });
        }
    }
    if shaping.offset > MAX_POSITION_OFFSET {
        return Err(ConfigError::TooLarge {
            field: "position.offset",
            value: shaping.offset,
            max: MAX_POSITION_OFFSET,
        });
    }
    Ok(shaping.clone())
}

/// The largest position offset: positions past a million tell a learner nothing more.
pub const MAX_POSITION_OFFSET: usize = 1_000_000;

/// Builds a matrix from rows (as JSON gives them), refusing ragged input.
pub fn matrix_from_rows<T: Clone>(
    field: &'static str,
    rows: &[Vec<T>],
) -> Result<Array2<T>, ConfigError> {
    let width = rows.first().map_or(0, Vec::len);
    if let Some((row, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != width) {
        return Err(ConfigError::RaggedMatrix {
            field,
            first: width,
            row,
            len: r.len(),
        });
    }
    let flat: Vec<T> = rows.iter().flatten().cloned().collect();
    Array2::from_shape_vec((rows.len(), width), flat).map_err(|_| ConfigError::RaggedMatrix {
        field,
        first: width,
        row: 0,
        len: 0,
    })
}
