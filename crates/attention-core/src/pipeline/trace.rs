//! The whole computation, from a [`Config`] to every intermediate (a [`Trace`]) or to the outputs
//! only ([`Outputs`]). Views read a trace; they never recompute.

use ndarray::{Array2, ArrayView2, Axis, Zip, concatenate};

use crate::math::attention::{Projections, ScoredQk, attend_output};
use crate::math::flash::{self, FlashHead, flash_attention};
use crate::math::mask::Mask;
use crate::pipeline::computed::{Computed, attention_input, project};
use crate::pipeline::config::{Config, LayerNormMode};
use crate::pipeline::error::ConfigError;
use crate::pipeline::linear_heads::{LinearHead, gated, linear_head, linear_outputs, traced_gate};
use crate::pipeline::overview::Overview;
use crate::pipeline::units::compute_parts;
use std::ops::{Deref, Range};
use std::sync::OnceLock;

/// Which engine produced the numbers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Backend {
    #[default]
    Cpu,
    /// A wgpu device; `adapter` is its name as the driver reports it.
    Gpu { adapter: String },
}

impl Backend {
    pub fn name(&self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Gpu { .. } => "gpu",
        }
    }
}

/// Every intermediate of one head.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadTrace {
    /// The K/V head this query head reads (grouped-query attention).
    pub kv_group: usize,
    /// [seq_len, d_k]
    pub q: Array2<f32>,
    /// [key_len, d_k]
    pub k: Array2<f32>,
    /// [key_len, d_v]
    pub v: Array2<f32>,
    /// q and k as the scores read them, when QK-norm or RoPE changed them ([seq_len, d_k] and
    /// [key_len, d_k]); `None` when they are `q` and `k`.
    pub q_scored: Option<Array2<f32>>,
    pub k_scored: Option<Array2<f32>>,
    /// [seq_len, key_len] q·k of the scored q and k, kept when the scores are not simply q·k
    /// times a scale (an ALiBi bias or a soft-cap; not for a summarised trace).
    pub dots: Option<Array2<f32>>,
    /// [seq_len, key_len] = QKᵀ / (√d_k · T) (or the shaped scores, see [`crate::math::scoring`]),
    /// before the mask.
    pub scores: Array2<f32>,
    /// [seq_len, key_len] softmax over allowed keys; exactly 0 where masked.
    pub weights: Array2<f32>,
    /// [seq_len, d_v] = weights · V
    pub output: Array2<f32>,
    pub fully_masked_rows: Vec<usize>,
}

impl HeadTrace {
    /// q as the scores read it: after QK-norm and RoPE when those apply.
    pub fn scored_q(&self) -> ArrayView2<'_, f32> {
        self.q_scored.as_ref().unwrap_or(&self.q).view()
    }

    /// k as the scores read it.
    pub fn scored_k(&self) -> ArrayView2<'_, f32> {
        self.k_scored.as_ref().unwrap_or(&self.k).view()
    }
}

/// FlashAttention run through the same pipeline, for comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct FlashTrace {
    /// [seq_len, d_model]: the final output with flash attention in place of the standard one.
    pub output: Array2<f32>,
    /// max |output − flash output| over every element.
    pub max_abs_diff: f32,
    /// Per head: the tile steps and the head output.
    pub heads: Vec<FlashHead>,
}

/// A trace's mask as a [queries, keys] matrix of `true` where attention is allowed, built from
/// the config's [`Mask`] the first time it is read: a 4096-token trace's is 16 MB, built in 6 ms
/// of the page's thread each time a long result landed, and none of the long views reads it.
/// [`MaskMatrix::allows`] answers one cell without building it.
#[derive(Debug, Clone)]
pub struct MaskMatrix {
    mask: Mask,
    matrix: OnceLock<Array2<bool>>,
}

impl MaskMatrix {
    pub fn new(mask: Mask) -> Self {
        Self {
            mask,
            matrix: OnceLock::new(),
        }
    }

    /// Whether query `i` may attend key `j`.
    pub fn allows(&self, i: usize, j: usize) -> bool {
        self.mask.allows(i, j)
    }

    /// Whether the matrix has been built (for tests: the long views never build it).
    pub fn is_built(&self) -> bool {
        self.matrix.get().is_some()
    }
}

impl Deref for MaskMatrix {
    type Target = Array2<bool>;

    fn deref(&self) -> &Array2<bool> {
        self.matrix.get_or_init(|| self.mask.to_matrix())
    }
}

/// Equal masks give equal matrices: compared without building them.
impl PartialEq for MaskMatrix {
    fn eq(&self, other: &Self) -> bool {
        self.mask == other.mask
    }
}

/// How a head is switched off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knockout {
    /// Its output is zero: as if its rows of W_O were zero.
    Zero,
    /// Its output is its mean over the sentence's positions: the head still adds what it adds on
    /// average, but nothing that depends on where it looked.
    Mean,
}

impl Knockout {
    pub fn name(self) -> &'static str {
        match self {
            Self::Zero => "zero",
            Self::Mean => "mean",
        }
    }
}

/// Every number of one forward pass of multi-head attention.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The checked inputs: tokens, X (with E and P), dims, mask, weights.
    pub config: Config,
    /// [seq_len, d_model]: what the queries are projected from — LN(X) under Pre-LN, else X.
    pub attention_input: Array2<f32>,
    /// [seq_len, key_len]: `true` where attention is allowed (built when first read).
    pub mask: MaskMatrix,
    pub heads: Vec<HeadTrace>,
    /// [seq_len, n_heads·d_v]: the head outputs side by side.
    pub concat: Array2<f32>,
    /// [seq_len, d_model] = concat · W_O
    pub projected: Array2<f32>,
    /// [seq_len, d_model]: `projected`, or with the residual and LayerNorm when asked.
    pub output: Array2<f32>,
    pub flash: FlashTrace,
    pub backend: Backend,
    /// Per head, when the trace is summarised (`overview::summarises`): its scores and weights
    /// as overviews, the heads' `scores` and `weights` being empty. Empty otherwise.
    pub overviews: Vec<Overview>,
    /// The heads [`Trace::knock_out`] switched off (head, how), in order: what a recomputation
    /// of the same config (FlashAttention's steps for a download) applies again.
    pub knocked: Vec<(usize, Knockout)>,
    /// Per head, with linear attention: β, α, the states (each head's `weights` and `scores`
    /// are then its hidden matrix A). Empty for the softmax.
    pub linear: Vec<LinearHead>,
    /// Per head, with the output gate: σ(x·W_g) [seq_len, d_v] (the head's `output` is already
    /// multiplied by it). Empty without.
    pub gates: Vec<Array2<f32>>,
}

impl Trace {
    /// Whether the heads' n² matrices are kept as overviews only.
    pub fn is_summarised(&self) -> bool {
        !self.overviews.is_empty()
    }
}

impl Trace {
    /// Records FlashAttention's tile steps of every head, replayed from the trace's own scored q,
    /// k and v (what [`FlashDetail::Steps`] records, without projecting anything again): a trace
    /// computed with [`FlashDetail::OutputOnly`] becomes the one the step-by-step view plays. A
    /// summarised trace records none.
    pub fn record_flash_steps(&mut self) {
        // Linear attention has no tiles: its chunks are in the flash output.
        if self.is_summarised() || self.config.linear().is_some() {
            return;
        }
        let mask = self.config.mask();
        for (index, (head, flash)) in self.heads.iter().zip(&mut self.flash.heads).enumerate() {
            let scoring = self.config.scoring(index);
            flash.steps = flash_attention(
                head.scored_q(),
                head.scored_k(),
                head.v.view(),
                &scoring,
                mask,
                self.config.block(),
                true,
            )
            .steps;
        }
    }
}

/// The outputs only, computed in O(seq_len · d) extra memory (no [seq_len, key_len] matrix).
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    pub tokens: Vec<String>,
    /// [seq_len, d_model]
    pub output: Array2<f32>,
    /// [seq_len, d_model] the same pipeline with FlashAttention.
    pub flash_output: Array2<f32>,
    pub max_abs_diff: f32,
    pub backend: Backend,
}

/// How much of FlashAttention a trace records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlashDetail {
    /// Every tile step (for the step-by-step view).
    Steps,
    /// Its output only (the steps list is empty): what a model's every layer needs.
    OutputOnly,
}

/// Runs standard and flash attention with every intermediate recorded.
pub fn compute_trace(config: &Config) -> Trace {
    compute_trace_with(config, FlashDetail::Steps)
}

/// Runs standard attention with every intermediate recorded, and FlashAttention with `flash`'s
/// detail.
pub fn compute_trace_with(config: &Config, flash: FlashDetail) -> Trace {
    trace_from(config, compute_parts(config), Backend::Cpu, flash)
}

/// Runs standard and flash attention keeping only the outputs; natively, the heads on every
/// processor ([`map_heads`]).
pub fn compute_outputs(config: &Config) -> Outputs {
    let dims = *config.dims();
    let mask = config.mask();
    let attention_input = attention_input(config);
    let projections = project(config, attention_input.view());
    let scored = ScoredQk::new(&projections, config.shaping(), dims.d_k);

    let heads = map_heads(dims.n_heads, |head| {
        let rows = 0..config.seq_len();
        let gate = |o: Array2<f32>| gated(config, attention_input.view(), head, rows.clone(), o);
        if let Some(linear) =
            linear_outputs(config, attention_input.view(), &projections, head, false)
        {
            return (gate(linear.output), gate(linear.chunked));
        }
        let (group, _, _, v) = projections.head(&dims, head);
        let (q, k) = (
            scored.q(&projections, &dims, head),
            scored.k(&projections, &dims, group),
        );
        let scoring = config.scoring(head);
        (
            gate(attend_output(q, k, v, &scoring, mask).0),
            gate(flash_attention(q, k, v, &scoring, mask, config.block(), false).output),
        )
    });
    let weights = config.weights();
    outputs_from(
        config,
        weights.project_out(concat_heads(heads.iter().map(|(s, _)| s.view())).view()),
        weights.project_out(concat_heads(heads.iter().map(|(_, f)| f.view())).view()),
        Backend::Cpu,
    )
}

/// `f` of every head, in order: natively on the machine's processors (scoped threads, each a
/// contiguous share of the heads: 2048 tokens × 8 heads in 0.12 s instead of 0.2 on two cores),
/// in wasm, which has no threads here, one after the other. A head's numbers do not depend on
/// the thread that computes them.
pub fn map_heads<T: Send>(heads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(heads);
        if threads > 1 {
            let f = &f;
            return std::thread::scope(|scope| {
                let shares: Vec<_> = (0..threads)
                    .map(|t| {
                        let share = t * heads / threads..(t + 1) * heads / threads;
                        scope.spawn(move || share.map(f).collect::<Vec<T>>())
                    })
                    .collect();
                shares
                    .into_iter()
                    .flat_map(|share| {
                        share
                            .join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    })
                    .collect()
            });
        }
    }
    (0..heads).map(f).collect()
}

/// FlashAttention's tile steps for the query blocks `query_blocks` of every head, replayed from
/// the same Q, K and V as the whole computation ([`flash::replay_query_blocks`]): each step equals
/// the whole run's, without recording the n² scores of the other blocks. How the CLI
/// (`"replay_block"`) and the page's player show the tiles of a long input.
///
/// Refused when `query_blocks` starts past the last query block.
pub fn replay_flash(
    config: &Config,
    query_blocks: Range<usize>,
) -> Result<Vec<FlashHead>, ConfigError> {
    let last = config.seq_len().div_ceil(config.block().0) - 1;
    if query_blocks.start > last {
        return Err(ConfigError::TooLarge {
            field: "replay_block",
            value: query_blocks.start,
            max: last,
        });
    }
    let dims = *config.dims();
    let projections = project(config, attention_input(config).view());
    let scored = ScoredQk::new(&projections, config.shaping(), dims.d_k);
    Ok((0..dims.n_heads)
        .map(|head| {
            let (group, _, _, v) = projections.head(&dims, head);
            flash::replay_query_blocks(
                scored.q(&projections, &dims, head),
                scored.k(&projections, &dims, group),
                v,
                &config.scoring(head),
                config.mask(),
                config.block(),
                query_blocks.clone(),
            )
        })
        .collect())
}

/// A full trace from another backend's (or a worker's) results. With `flash` at
/// [`FlashDetail::Steps`], FlashAttention's tile steps are replayed on the CPU from the same Q, K
/// and V (a view of the algorithm, not a second result): the flash outputs stay the backend's own.
pub fn trace_from(
    config: &Config,
    computed: Computed,
    backend: Backend,
    flash: FlashDetail,
) -> Trace {
    let dims = *config.dims();
    let mask = config.mask();
    let fully_masked_rows = mask.fully_masked_rows();
    let projections = Projections {
        q: computed.q,
        k: computed.k,
        v: computed.v,
    };
    let scored = ScoredQk::new(&projections, config.shaping(), dims.d_k);
    let mut heads = Vec::with_capacity(dims.n_heads);
    let mut flash_heads = Vec::with_capacity(dims.n_heads);
    let head_columns = |h: usize| h * dims.d_v..(h + 1) * dims.d_v;
    let summarised = !computed.overviews.is_empty();
    let mut scores = computed.scores.into_iter();
    let mut weights = computed.weights.into_iter();
    let empty = || Array2::zeros((0, 0));
    for head in 0..dims.n_heads {
        let (kv_group, q, k, v) = projections.head(&dims, head);
        let (q_scored, k_scored) = (
            scored.q(&projections, &dims, head),
            scored.k(&projections, &dims, kv_group),
        );
        // A summarised trace never records tiles: they would hold its n² scores again.
        let steps = match flash {
            FlashDetail::Steps if !summarised && config.linear().is_none() => {
                let scoring = config.scoring(head);
                flash_attention(q_scored, k_scored, v, &scoring, mask, config.block(), true).steps
            }
            _ => Vec::new(),
        };
        flash_heads.push(FlashHead {
            output: computed
                .flash_concat
                .slice(ndarray::s![.., head_columns(head)])
                .to_owned(),
            steps,
            fully_masked_rows: fully_masked_rows.clone(),
        });
        heads.push(HeadTrace {
            kv_group,
            q: q.to_owned(),
            k: k.to_owned(),
            v: v.to_owned(),
            q_scored: scored.q.is_some().then(|| q_scored.to_owned()),
            k_scored: scored.k.is_some().then(|| k_scored.to_owned()),
            dots: (!summarised && config.scoring(head).shapes())
                .then(|| q_scored.dot(&k_scored.t())),
            scores: scores.next().unwrap_or_else(empty),
            weights: weights.next().unwrap_or_else(empty),
            output: computed
                .concat
                .slice(ndarray::s![.., head_columns(head)])
                .to_owned(),
            fully_masked_rows: fully_masked_rows.clone(),
        });
    }
    let output = residual_and_norm(config, computed.projected.clone());
    let flash_output = residual_and_norm(config, computed.flash_projected);
    let max_abs_diff = max_abs_diff(output.view(), flash_output.view());
    let x = attention_input(config);
    let linear = (0..dims.n_heads)
        .filter_map(|head| linear_head(config, x.view(), &projections, head))
        .collect();
    let gates = (0..dims.n_heads)
        .filter_map(|head| traced_gate(config, x.view(), &projections, head))
        .collect();
    Trace {
        config: config.clone(),
        attention_input: x,
        mask: MaskMatrix::new(mask.clone()),
        heads,
        concat: computed.concat,
        projected: computed.projected,
        output,
        flash: FlashTrace {
            output: flash_output,
            max_abs_diff,
            heads: flash_heads,
        },
        backend,
        overviews: computed.overviews,
        knocked: Vec::new(),
        linear,
        gates,
    }
}

/// The outputs of another backend: `projected` and `flash_projected` are [seq_len, d_model].
pub fn outputs_from(
    config: &Config,
    projected: Array2<f32>,
    flash_projected: Array2<f32>,
    backend: Backend,
) -> Outputs {
    let output = residual_and_norm(config, projected);
    let flash_output = residual_and_norm(config, flash_projected);
    let max_abs_diff = max_abs_diff(output.view(), flash_output.view());
    Outputs {
        tokens: config.tokens().to_vec(),
        output,
        flash_output,
        max_abs_diff,
        backend,
    }
}

/// [seq_len, n_heads·d_v]
fn concat_heads<'a>(outputs: impl Iterator<Item = ArrayView2<'a, f32>>) -> Array2<f32> {
    let views: Vec<_> = outputs.collect();
    concatenate(Axis(1), &views).unwrap_or_else(|_| Array2::zeros((0, 0)))
}

pub(crate) fn residual_and_norm(config: &Config, projected: Array2<f32>) -> Array2<f32> {
    match config.layer_norm() {
        LayerNormMode::None => projected,
        LayerNormMode::Pre => match config.post_norm() {
            Some(post) => post.apply(projected.view()) + config.x(),
            None => projected + config.x(),
        },
        LayerNormMode::Post => config.norm().apply((projected + config.x()).view()),
    }
}

pub fn max_abs_diff(a: ArrayView2<f32>, b: ArrayView2<f32>) -> f32 {
    Zip::from(a)
        .and(b)
        .fold(0.0f32, |max, &x, &y| max.max((x - y).abs()))
}
