//! Writing a trace as JSON. Non-finite numbers (a running max of −∞) and masked scores become null.

use ndarray::{Array2, ArrayView2};
use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};

use crate::math::flash::{FlashHead, FlashStep};
use crate::pipeline::trace::Backend;
use crate::{Config, Outputs, Trace};

/// A matrix as rows of numbers. Cells the mask forbids (the mask read from `origin`, for a tile)
/// and non-finite values are written as null.
struct Matrix<'a> {
    values: ArrayView2<'a, f32>,
    mask: Option<(&'a Array2<bool>, [usize; 2])>,
}

fn matrix(values: &Array2<f32>) -> Matrix<'_> {
    Matrix {
        values: values.view(),
        mask: None,
    }
}

fn masked<'a>(values: &'a Array2<f32>, mask: &'a Array2<bool>, origin: [usize; 2]) -> Matrix<'a> {
    Matrix {
        values: values.view(),
        mask: Some((mask, origin)),
    }
}

struct Row<'a, 'b> {
    matrix: &'a Matrix<'b>,
    row: usize,
}

impl Serialize for Matrix<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.values.nrows()))?;
        for row in 0..self.values.nrows() {
            seq.serialize_element(&Row { matrix: self, row })?;
        }
        seq.end()
    }
}

impl Serialize for Row<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let values = self.matrix.values.row(self.row);
        let mut seq = serializer.serialize_seq(Some(values.len()))?;
        for (col, &value) in values.iter().enumerate() {
            let hidden = self
                .matrix
                .mask
                .is_some_and(|(mask, [r0, c0])| !mask[[r0 + self.row, c0 + col]]);
            seq.serialize_element(&number(value, hidden))?;
        }
        seq.end()
    }
}

fn number(value: f32, hidden: bool) -> Option<f32> {
    (!hidden && value.is_finite()).then_some(value)
}

fn numbers(values: &[f32]) -> Vec<Option<f32>> {
    values.iter().map(|&v| number(v, false)).collect()
}

#[derive(Serialize)]
struct HeadJson<'a> {
    kv_group: usize,
    q: Matrix<'a>,
    k: Matrix<'a>,
    v: Matrix<'a>,
    /// q and k as the scores read them (after QK-norm and RoPE), when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    q_scored: Option<Matrix<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    k_scored: Option<Matrix<'a>>,
    /// ALiBi's bias −m·|i − j| of this head, [seq_len, key_len], and its slope m.
    #[serde(skip_serializing_if = "Option::is_none")]
    bias: Option<Vec<Vec<f32>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alibi_slope: Option<f32>,
    /// This head's sink logit, and each row's weight on it (1 − the row's sum).
    #[serde(skip_serializing_if = "Option::is_none")]
    sink_logit: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sink_weights: Option<Vec<f32>>,
    scores: Matrix<'a>,
    weights: Matrix<'a>,
    output: Matrix<'a>,
    fully_masked_rows: &'a [usize],
    /// Linear attention: β and (gated) α per token, the hidden matrix A (o = A·V; also in
    /// `scores` and `weights`), the last state S [d_k, d_v] and S after each of the first 256
    /// tokens.
    #[serde(skip_serializing_if = "Option::is_none")]
    beta: Option<Vec<Option<f32>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alpha: Option<Vec<Option<f32>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matrix: Option<Matrix<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<Matrix<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    states: Option<Vec<Matrix<'a>>>,
    /// The output gate σ(x·W_g) [seq_len, d_v] (`output` is already multiplied by it).
    #[serde(skip_serializing_if = "Option::is_none")]
    gate: Option<Matrix<'a>>,
}

#[derive(Serialize)]
struct StepJson<'a> {
    row_block: usize,
    col_block: usize,
    rows: [usize; 2],
    cols: [usize; 2],
    skipped: bool,
    scores: Matrix<'a>,
    probs: Matrix<'a>,
    m_prev: Vec<Option<f32>>,
    m: Vec<Option<f32>>,
    l_prev: Vec<Option<f32>>,
    l: Vec<Option<f32>>,
    rescale: Vec<Option<f32>>,
    acc: Matrix<'a>,
}

#[derive(Serialize)]
struct FlashHeadJson<'a> {
    output: Matrix<'a>,
    steps: Vec<StepJson<'a>>,
}

#[derive(Serialize)]
struct FlashJson<'a> {
    output: Matrix<'a>,
    max_abs_diff: f32,
    block: [usize; 2],
    heads: Vec<FlashHeadJson<'a>>,
}

#[derive(Serialize)]
struct TraceJson<'a> {
    tokens: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    source_tokens: Option<&'a [String]>,
    x: Matrix<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_x: Option<Matrix<'a>>,
    d_model: usize,
    n_heads: usize,
    n_kv_heads: usize,
    d_k: usize,
    d_v: usize,
    temperature: f32,
    scale: f32,
    mask: &'a str,
    layer_norm: &'a str,
    position: PositionJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    softcap: Option<f32>,
    qk_norm: bool,
    /// Linear attention's kind and chunk, when the heads are linear.
    #[serde(skip_serializing_if = "Option::is_none")]
    linear: Option<serde_json::Value>,
    output_gate: bool,
    heads: Vec<HeadJson<'a>>,
    concat: Matrix<'a>,
    output: Matrix<'a>,
    flash: FlashJson<'a>,
    backend: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    adapter: Option<&'a str>,
}

/// The position scheme as the request names it.
#[derive(Serialize)]
struct PositionJson {
    kind: &'static str,
    offset: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pairing: Option<&'static str>,
    /// ALiBi's slope of every head.
    #[serde(skip_serializing_if = "Option::is_none")]
    slopes: Option<Vec<f32>>,
}

impl PositionJson {
    fn of(config: &Config) -> Self {
        use crate::math::scoring::Position;
        let shaping = config.shaping();
        let (base, pairing) = match shaping.position {
            Position::Rope { base, pairing } => (Some(base), Some(pairing.name())),
            _ => (None, None),
        };
        Self {
            kind: shaping.position.kind(),
            offset: shaping.offset,
            base,
            pairing,
            slopes: (shaping.position == Position::Alibi)
                .then(|| crate::math::scoring::alibi_slopes(config.dims().n_heads)),
        }
    }
}

/// A step's JSON; `mask` holds the mask's rows from `first_row` on.
fn step_json<'a>(step: &'a FlashStep, mask: &'a Array2<bool>, first_row: usize) -> StepJson<'a> {
    StepJson {
        row_block: step.row_block,
        col_block: step.col_block,
        rows: [step.rows.start, step.rows.end],
        cols: [step.cols.start, step.cols.end],
        skipped: step.skipped,
        scores: masked(
            &step.scores,
            mask,
            [step.rows.start - first_row, step.cols.start],
        ),
        probs: matrix(&step.probs),
        m_prev: numbers(&step.m_prev),
        m: numbers(&step.m),
        l_prev: numbers(&step.l_prev),
        l: numbers(&step.l),
        rescale: numbers(&step.rescale),
        acc: matrix(&step.acc),
    }
}

/// Every head of a trace: q, k, v (and q, k as scored), the bias and the sink, scores (masked
/// cells null), weights, output.
fn heads(trace: &Trace) -> Vec<HeadJson<'_>> {
    let config = &trace.config;
    let shaping = config.shaping();
    let (n, m) = (config.seq_len(), config.key_len());
    trace
        .heads
        .iter()
        .enumerate()
        .map(|(h, head)| HeadJson {
            kv_group: head.kv_group,
            q: matrix(&head.q),
            k: matrix(&head.k),
            v: matrix(&head.v),
            q_scored: head.q_scored.as_ref().map(matrix),
            k_scored: head.k_scored.as_ref().map(matrix),
            bias: (shaping.position == crate::math::scoring::Position::Alibi).then(|| {
                let scoring = config.scoring(h);
                (0..n)
                    .map(|i| (0..m).map(|j| scoring.bias(i, j)).collect())
                    .collect()
            }),
            alibi_slope: (shaping.position == crate::math::scoring::Position::Alibi)
                .then(|| crate::math::scoring::alibi_slope(h, config.dims().n_heads)),
            sink_logit: shaping.sink_logits.as_ref().and_then(|s| s.get(h).copied()),
            sink_weights: shaping.sink_logits.as_ref().map(|_| {
                head.weights
                    .outer_iter()
                    .enumerate()
                    .map(|(i, row)| {
                        // A fully masked row attends to nothing, the sink included.
                        if head.fully_masked_rows.contains(&i) {
                            0.0
                        } else {
                            1.0 - row.sum()
                        }
                    })
                    .collect()
            }),
            scores: masked(&head.scores, &trace.mask, [0, 0]),
            weights: matrix(&head.weights),
            output: matrix(&head.output),
            fully_masked_rows: &head.fully_masked_rows,
            beta: trace
                .linear
                .get(h)
                .map(|l| numbers(l.beta.as_slice().unwrap_or(&[]))),
            alpha: trace
                .linear
                .get(h)
                .and_then(|l| l.alpha.as_ref())
                .map(|a| numbers(a.as_slice().unwrap_or(&[]))),
            matrix: trace.linear.get(h).map(|_| matrix(&head.weights)),
            state: trace.linear.get(h).map(|l| matrix(&l.state)),
            states: trace
                .linear
                .get(h)
                .map(|l| l.states.iter().map(matrix).collect()),
            gate: trace.gates.get(h).map(matrix),
        })
        .collect()
}

/// A trace's heads as a JSON value (the trained model's layers use the trace's per-head shape).
pub fn trace_heads_json(trace: &Trace) -> serde_json::Value {
    serde_json::to_value(heads(trace)).unwrap_or(serde_json::Value::Null)
}

/// A matrix as a JSON value: rows of numbers, non-finite ones null.
pub fn matrix_json(values: ArrayView2<f32>) -> serde_json::Value {
    serde_json::to_value(Matrix { values, mask: None }).unwrap_or(serde_json::Value::Null)
}

/// The name of a trace's mask kind.
pub fn mask_name(trace: &Trace) -> &'static str {
    trace.config.mask().spec().kind()
}

/// The trace in the CLI's JSON shape.
pub fn trace_json(trace: &Trace) -> serde_json::Result<String> {
    let config = &trace.config;
    let dims = config.dims();
    let json = TraceJson {
        tokens: config.tokens(),
        source_tokens: config.source().map(|s| s.tokens.as_slice()),
        x: matrix(&config.target().x),
        source_x: config.source().map(|s| matrix(&s.x)),
        d_model: dims.d_model,
        n_heads: dims.n_heads,
        n_kv_heads: dims.n_kv_heads,
        d_k: dims.d_k,
        d_v: dims.d_v,
        temperature: config.temperature(),
        scale: config.scale(),
        mask: config.mask().spec().kind(),
        layer_norm: config.layer_norm().name(),
        position: PositionJson::of(config),
        softcap: config.shaping().softcap,
        qk_norm: config.shaping().qk_norm,
        linear: config
            .linear()
            .map(|(spec, _)| serde_json::json!({"kind": spec.kind.name(), "chunk": spec.chunk})),
        output_gate: config.gate().is_some(),
        heads: heads(trace),
        concat: matrix(&trace.concat),
        output: matrix(&trace.output),
        flash: FlashJson {
            output: matrix(&trace.flash.output),
            max_abs_diff: trace.flash.max_abs_diff,
            block: [config.block().0, config.block().1],
            heads: trace
                .flash
                .heads
                .iter()
                .map(|head| FlashHeadJson {
                    output: matrix(&head.output),
                    steps: head
                        .steps
                        .iter()
                        .map(|step| step_json(step, &trace.mask, 0))
                        .collect(),
                })
                .collect(),
        },
        backend: trace.backend.name(),
        adapter: match &trace.backend {
            Backend::Gpu { adapter } => Some(adapter),
            Backend::Cpu => None,
        },
    };
    serde_json::to_string(&json)
}

#[derive(Serialize)]
struct OutputsJson<'a> {
    tokens: &'a [String],
    output: Matrix<'a>,
    flash: FlashOutputJson<'a>,
    backend: &'a str,
}

#[derive(Serialize)]
struct FlashOutputJson<'a> {
    output: Matrix<'a>,
    max_abs_diff: f32,
}

/// The outputs of an untraced run, in the CLI's JSON shape.
pub fn outputs_json(outputs: &Outputs) -> serde_json::Result<String> {
    let json = OutputsJson {
        tokens: &outputs.tokens,
        output: matrix(&outputs.output),
        flash: FlashOutputJson {
            output: matrix(&outputs.flash_output),
            max_abs_diff: outputs.max_abs_diff,
        },
        backend: outputs.backend.name(),
    };
    serde_json::to_string(&json)
}

#[derive(Serialize)]
struct ReplayHeadJson<'a> {
    /// [rows of the block, d_v]: this block's rows of the head's FlashAttention output.
    output: Matrix<'a>,
    steps: Vec<StepJson<'a>>,
}

#[derive(Serialize)]
struct ReplayJson<'a> {
    tokens: &'a [String],
    query_block: usize,
    rows: [usize; 2],
    block: [usize; 2],
    scale: f32,
    mask: &'a str,
    heads: Vec<ReplayHeadJson<'a>>,
}

/// FlashAttention's tile steps of one query block of every head (`crate::replay_flash`), in the
/// CLI's JSON shape: the trace's `flash.heads[].steps` for that block only.
pub fn replay_json(
    config: &Config,
    query_block: usize,
    heads: &[FlashHead],
) -> serde_json::Result<String> {
    let (block_rows, block_cols) = config.block();
    let start = query_block * block_rows;
    let rows = start..(start + block_rows).min(config.seq_len());
    // The block's rows of the mask; a step's origin is its place in them.
    let mask = config.mask();
    let allowed = Array2::from_shape_fn((rows.len(), config.key_len()), |(i, j)| {
        mask.allows(start + i, j)
    });
    let json = ReplayJson {
        tokens: config.tokens(),
        query_block,
        rows: [rows.start, rows.end],
        block: [block_rows, block_cols],
        scale: config.scale(),
        mask: mask.spec().kind(),
        heads: heads
            .iter()
            .map(|head| ReplayHeadJson {
                output: Matrix {
                    values: head.output.slice(ndarray::s![rows.clone(), ..]),
                    mask: None,
                },
                steps: head
                    .steps
                    .iter()
                    .map(|step| step_json(step, &allowed, start))
                    .collect(),
            })
            .collect(),
    };
    serde_json::to_string(&json)
}
