//! The lessons' chapters and the experiment each runs on the learner's own trace: the same
//! numbers for the page's Learn mode and for the CLI (`"lesson": {"chapter": "scaling"}`).
//!
//! Each experiment reads a [`Trace`] (the current sentence and settings) and a [`Focus`] (the
//! head and query the learner looks at) and returns plain numbers; the mathematics is in
//! [`crate::experiments`]. `api::lesson_json` writes them as JSON for the CLI.

use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

use crate::attention::attend_output;
use crate::experiments::{
    self, BreakPoint, Breakdown, Placement, Precision, SparsePattern, allowed_cells,
    attention_parameters, break_point, breakdown, dot_variance, entropy, f16_matmul_error,
    gradient_flow, head_distance, head_dot_variances, histogram, kv_cache_bytes, linear_attention,
    log_log_slope, row_stats, saturation_gradient, softmax_in, stream_growth, temperature_sweep,
};
use crate::flash::flash_attention;
use crate::layer_norm::layer_norm;
use crate::mask::{Mask, MaskSpec};
use crate::rng::SplitMix64;
use crate::trace::Trace;

/// The chapters, in the order a learner reads them. The id is the chapter's name in links
/// (`?lesson=<id>`), in `set({lesson})` and in the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chapter {
    Tokens,
    Qkv,
    Scaling,
    Softmax,
    Masks,
    Multihead,
    Gqa,
    Cross,
    Layernorm,
    Stability,
    Complexity,
    Flash,
    Variants,
    Exercises,
}

impl Chapter {
    pub const ALL: [Chapter; 14] = [
        Self::Tokens,
        Self::Qkv,
        Self::Scaling,
        Self::Softmax,
        Self::Masks,
        Self::Multihead,
        Self::Gqa,
        Self::Cross,
        Self::Layernorm,
        Self::Stability,
        Self::Complexity,
        Self::Flash,
        Self::Variants,
        Self::Exercises,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Self::Tokens => "tokens",
            Self::Qkv => "qkv",
            Self::Scaling => "scaling",
            Self::Softmax => "softmax",
            Self::Masks => "masks",
            Self::Multihead => "multihead",
            Self::Gqa => "gqa",
            Self::Cross => "cross",
            Self::Layernorm => "layernorm",
            Self::Stability => "stability",
            Self::Complexity => "complexity",
            Self::Flash => "flash",
            Self::Variants => "variants",
            Self::Exercises => "exercises",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.id() == id)
    }

    /// Its place in the sequence, from 0.
    pub fn index(self) -> usize {
        Self::ALL.iter().position(|&c| c == self).unwrap_or(0)
    }

    pub fn next(self) -> Option<Self> {
        Self::ALL.get(self.index() + 1).copied()
    }

    pub fn previous(self) -> Option<Self> {
        self.index().checked_sub(1).map(|i| Self::ALL[i])
    }
}

/// What the learner looks at: a head and a query (from 0, clamped to the trace), and the
/// stability chapter's "multiply the scores by k, then add c".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Focus {
    pub head: usize,
    pub query: usize,
    pub factor: f32,
    pub shift: f32,
}

impl Default for Focus {
    fn default() -> Self {
        Self {
            head: 0,
            query: 0,
            factor: 1.0,
            shift: 0.0,
        }
    }
}

impl Focus {
    fn head(&self, trace: &Trace) -> usize {
        self.head.min(trace.heads.len().saturating_sub(1))
    }

    fn query(&self, trace: &Trace) -> usize {
        self.query.min(trace.config.seq_len().saturating_sub(1))
    }
}

/// A chapter's experiment on one trace. Chapters without numbers of their own (the exercises)
/// have none.
#[derive(Debug, Clone, PartialEq)]
pub enum Experiment {
    Tokens(TokensExperiment),
    Qkv(QkvExperiment),
    Scaling(ScalingExperiment),
    Softmax(SoftmaxExperiment),
    Masks(MasksExperiment),
    Multihead(MultiheadExperiment),
    Gqa(GqaExperiment),
    Cross(CrossExperiment),
    Layernorm(LayernormExperiment),
    Stability(StabilityExperiment),
    Complexity(ComplexityExperiment),
    Flash(FlashExperiment),
    Variants(VariantsExperiment),
    Exercises,
}

/// Runs `chapter`'s experiment on `trace`. Complexity's timings need a clock (see [`measure_cost`]);
/// here it has the counts only.
pub fn experiment(chapter: Chapter, trace: &Trace, focus: &Focus) -> Experiment {
    match chapter {
        Chapter::Tokens => Experiment::Tokens(tokens(trace)),
        Chapter::Qkv => Experiment::Qkv(qkv(trace, focus)),
        Chapter::Scaling => Experiment::Scaling(scaling(trace, focus)),
        Chapter::Softmax => Experiment::Softmax(softmax(trace, focus)),
        Chapter::Masks => Experiment::Masks(masks(trace, focus)),
        Chapter::Multihead => Experiment::Multihead(multihead(trace)),
        Chapter::Gqa => Experiment::Gqa(gqa(trace)),
        Chapter::Cross => Experiment::Cross(cross(trace, focus)),
        Chapter::Layernorm => Experiment::Layernorm(layernorm(trace)),
        Chapter::Stability => Experiment::Stability(stability(trace, focus)),
        Chapter::Complexity => Experiment::Complexity(complexity(trace)),
        Chapter::Flash => Experiment::Flash(flash(trace)),
        Chapter::Variants => Experiment::Variants(variants(trace, focus)),
        Chapter::Exercises => Experiment::Exercises,
    }
}

/// An f32 as the f64 nearest its shortest decimal text: 0.3f32 becomes 0.3, never the
/// 0.30000001192092896 that widening gives.
pub fn decimal(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}

fn norm(row: ArrayView1<f32>) -> f64 {
    row.iter()
        .map(|&v| f64::from(v) * f64::from(v))
        .sum::<f64>()
        .sqrt()
}

fn distance(a: ArrayView1<f32>, b: ArrayView1<f32>) -> f64 {
    norm((&a - &b).view())
}

// ---------------------------------------------------------------------------------------------
// tokens: E + P = X
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct TokenNorms {
    pub token: String,
    /// |E_i|, |P_i|, |X_i| (E and P absent when X was given directly)
    pub embedding: Option<f64>,
    pub position: Option<f64>,
    pub x: f64,
}

/// The same token at two places: identical embeddings, different X (the positions differ).
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatedToken {
    pub token: String,
    pub first: usize,
    pub second: usize,
    /// |E_first − E_second|: 0, one vector per token.
    pub embedding_distance: f64,
    /// |X_first − X_second|: the position makes them differ.
    pub x_distance: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TokensExperiment {
    pub d_model: usize,
    pub norms: Vec<TokenNorms>,
    pub repeated: Option<RepeatedToken>,
}

fn tokens(trace: &Trace) -> TokensExperiment {
    let config = &trace.config;
    let parts = config.target().parts.as_ref();
    let x = config.x();
    let norms = config
        .tokens()
        .iter()
        .enumerate()
        .map(|(i, token)| TokenNorms {
            token: token.clone(),
            embedding: parts.map(|(e, _)| norm(e.row(i))),
            position: parts.map(|(_, p)| norm(p.row(i))),
            x: norm(x.row(i)),
        })
        .collect();
    let tokens = config.tokens();
    let repeated = (0..tokens.len())
        .flat_map(|i| (i + 1..tokens.len()).map(move |j| (i, j)))
        .find(|&(i, j)| tokens[i] == tokens[j])
        .map(|(i, j)| RepeatedToken {
            token: tokens[i].clone(),
            first: i,
            second: j,
            embedding_distance: parts.map_or(0.0, |(e, _)| distance(e.row(i), e.row(j))),
            x_distance: distance(x.row(i), x.row(j)),
        });
    TokensExperiment {
        d_model: config.dims().d_model,
        norms,
        repeated,
    }
}

// ---------------------------------------------------------------------------------------------
// qkv: what a query matches
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct KeyMatch {
    pub key: usize,
    pub token: String,
    /// q · k, before scaling
    pub dot: f64,
    pub allowed: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QkvExperiment {
    pub head: usize,
    pub query: usize,
    pub query_token: String,
    pub d_k: usize,
    pub d_v: usize,
    /// |q|, and each key's q · k, most similar first.
    pub query_norm: f64,
    pub matches: Vec<KeyMatch>,
}

fn qkv(trace: &Trace, focus: &Focus) -> QkvExperiment {
    let (h, i) = (focus.head(trace), focus.query(trace));
    let head = &trace.heads[h];
    let keys = trace.config.key_sequence();
    let q = head.q.row(i);
    let mut matches: Vec<KeyMatch> = head
        .k
        .outer_iter()
        .enumerate()
        .map(|(j, k)| KeyMatch {
            key: j,
            token: keys.tokens[j].clone(),
            dot: f64::from(q.dot(&k)),
            allowed: trace.mask[[i, j]],
        })
        .collect();
    matches.sort_by(|a, b| b.dot.total_cmp(&a.dot).then(a.key.cmp(&b.key)));
    QkvExperiment {
        head: h,
        query: i,
        query_token: trace.config.tokens()[i].clone(),
        d_k: head.q.ncols(),
        d_v: head.v.ncols(),
        query_norm: norm(q),
        matches,
    }
}

// ---------------------------------------------------------------------------------------------
// scaling: why √d_k
// ---------------------------------------------------------------------------------------------

/// Random unit-variance vectors at one d_k.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingPoint {
    pub d_k: usize,
    /// Measured variance of q·k (theory d_k) and of q·k / √d_k (theory 1).
    pub raw_variance: f64,
    pub scaled_variance: f64,
    /// Over rows of 16 keys: the mean largest weight and the mean p(1 − p) of softmax, without
    /// and with the scale.
    pub raw_largest: f64,
    pub raw_gradient: f64,
    pub scaled_largest: f64,
    pub scaled_gradient: f64,
}

/// One of the learner's heads: var(q·k) as computed, and on q and k standardised (the
/// argument's premise: components of mean 0 and variance 1).
#[derive(Debug, Clone, PartialEq)]
pub struct HeadVariance {
    pub head: usize,
    /// The typical variance of one component of q and of k over the tokens.
    pub q_component: f64,
    pub k_component: f64,
    pub raw_variance: f64,
    pub scaled_variance: f64,
    /// var(q̃·k̃) and var(q̃·k̃ / √d_k): about d_k and 1 at every d_k and d_model.
    pub standard_variance: f64,
    pub standard_scaled_variance: f64,
}

/// The selected query's row, softmax without and with the scale (at T = 1, over allowed keys).
#[derive(Debug, Clone, PartialEq)]
pub struct RowSaturation {
    pub largest: f64,
    pub entropy: f64,
    pub gradient: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScalingExperiment {
    pub d_k: usize,
    pub random: Vec<ScalingPoint>,
    pub heads: Vec<HeadVariance>,
    /// Histograms of the selected head's q·k and q·k / √d_k, in `bins` bins over ±`range`.
    pub range: f64,
    pub raw_histogram: Vec<usize>,
    pub scaled_histogram: Vec<usize>,
    pub row_raw: RowSaturation,
    pub row_scaled: RowSaturation,
}

/// The d_k the scaling chapter draws random vectors at.
pub const SCALING_DIMS: [usize; 8] = [4, 8, 16, 32, 64, 128, 256, 512];

/// Mean largest softmax weight and mean p(1 − p) over `rows` rows of `keys` random dot products
/// at d_k, unscaled and scaled.
fn random_saturation(d_k: usize, keys: usize, rows: usize, seed: u64) -> (f64, f64, f64, f64) {
    let mut rng = SplitMix64::new(seed ^ (d_k as u64).wrapping_mul(0xd1b5_4a32_d192_ed03));
    let mut sums = [0.0f64; 4];
    for _ in 0..rows {
        let dots: Array1<f32> = (0..keys)
            .map(|_| {
                (0..d_k)
                    .map(|_| experiments::normal(&mut rng) * experiments::normal(&mut rng))
                    .sum::<f64>() as f32
            })
            .collect();
        let raw = experiments::softmax(dots.view(), 1.0);
        let scaled = experiments::softmax(dots.view(), (d_k as f64).sqrt());
        let largest = |w: &[f64]| w.iter().cloned().fold(0.0, f64::max);
        sums[0] += largest(&raw);
        sums[1] += saturation_gradient(&raw);
        sums[2] += largest(&scaled);
        sums[3] += saturation_gradient(&scaled);
    }
    let n = rows.max(1) as f64;
    (sums[0] / n, sums[1] / n, sums[2] / n, sums[3] / n)
}

/// The raw q·k of `head`'s query row `i` over the keys the mask allows.
fn allowed_dots(trace: &Trace, head: usize, i: usize) -> Array1<f32> {
    let h = &trace.heads[head];
    let q = h.q.row(i);
    h.k.outer_iter()
        .enumerate()
        .filter(|&(j, _)| trace.mask[[i, j]])
        .map(|(_, k)| q.dot(&k))
        .collect()
}

fn saturation(weights: &[f64]) -> RowSaturation {
    RowSaturation {
        largest: weights.iter().cloned().fold(0.0, f64::max),
        entropy: entropy(weights),
        gradient: saturation_gradient(weights),
    }
}

fn scaling(trace: &Trace, focus: &Focus) -> ScalingExperiment {
    let (h, i) = (focus.head(trace), focus.query(trace));
    let random = SCALING_DIMS
        .iter()
        .map(|&d_k| {
            let (raw_variance, scaled_variance) = dot_variance(d_k, 2000, 7);
            let (raw_largest, raw_gradient, scaled_largest, scaled_gradient) =
                random_saturation(d_k, 16, 200, 11);
            ScalingPoint {
                d_k,
                raw_variance,
                scaled_variance,
                raw_largest,
                raw_gradient,
                scaled_largest,
                scaled_gradient,
            }
        })
        .collect();
    let heads = trace
        .heads
        .iter()
        .enumerate()
        .map(|(head, t)| {
            let v = head_dot_variances(t.q.view(), t.k.view());
            HeadVariance {
                head,
                q_component: v.q_component,
                k_component: v.k_component,
                raw_variance: v.raw,
                scaled_variance: v.raw_scaled,
                standard_variance: v.standard,
                standard_scaled_variance: v.standard_scaled,
            }
        })
        .collect();
    let head = &trace.heads[h];
    let d_k = head.q.ncols();
    let dots: Vec<f64> = head
        .q
        .dot(&head.k.t())
        .iter()
        .map(|&d| f64::from(d))
        .collect();
    let range = dots.iter().fold(1.0f64, |m, d| m.max(d.abs())).ceil();
    let scaled: Vec<f64> = dots.iter().map(|d| d / (d_k as f64).sqrt()).collect();
    let row = allowed_dots(trace, h, i);
    ScalingExperiment {
        d_k,
        random,
        heads,
        range,
        raw_histogram: histogram(&dots, -range, range, 24),
        scaled_histogram: histogram(&scaled, -range, range, 24),
        row_raw: saturation(&experiments::softmax(row.view(), 1.0)),
        row_scaled: saturation(&experiments::softmax(row.view(), (d_k as f64).sqrt())),
    }
}

// ---------------------------------------------------------------------------------------------
// softmax: temperature
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct SweepSample {
    pub temperature: f64,
    pub largest: f64,
    pub entropy: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SoftmaxExperiment {
    pub head: usize,
    pub query: usize,
    /// The current temperature, marked on the curves, and the row's largest weight and entropy
    /// there.
    pub temperature: f64,
    pub current: SweepSample,
    /// From T = 0.05 to 10, log-spaced.
    pub sweep: Vec<SweepSample>,
    /// The keys the row may attend to: the entropy of the uniform limit is ln(allowed).
    pub allowed: usize,
    pub uniform_entropy: f64,
    /// The key with the largest score: the arg-max limit puts all weight there.
    pub argmax_key: Option<usize>,
    pub argmax_token: Option<String>,
}

fn softmax(trace: &Trace, focus: &Focus) -> SoftmaxExperiment {
    let (h, i) = (focus.head(trace), focus.query(trace));
    let d_k = trace.heads[h].q.ncols() as f64;
    let row: Array1<f32> = allowed_dots(trace, h, i).mapv(|d| (f64::from(d) / d_k.sqrt()) as f32);
    let sample = |p: experiments::SweepPoint| SweepSample {
        temperature: p.temperature,
        largest: p.largest,
        entropy: p.entropy,
    };
    // The temperature as the learner typed it (0.3), not the f32 it is stored as widened to
    // f64 (0.30000001192092896): through its shortest decimal text.
    let t = decimal(trace.config.temperature());
    let allowed: Vec<usize> = (0..trace.config.key_len())
        .filter(|&j| trace.mask[[i, j]])
        .collect();
    let argmax = row
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
        .map(|(at, _)| allowed[at]);
    let (sweep, current) = if row.is_empty() {
        (
            Vec::new(),
            SweepSample {
                temperature: t,
                largest: 0.0,
                entropy: 0.0,
            },
        )
    } else {
        (
            temperature_sweep(row.view(), 0.05, 10.0, 41)
                .into_iter()
                .map(sample)
                .collect(),
            sample(temperature_sweep(row.view(), t, t, 1)[0]),
        )
    };
    SoftmaxExperiment {
        head: h,
        query: i,
        temperature: t,
        current,
        sweep,
        allowed: allowed.len(),
        uniform_entropy: (allowed.len().max(1) as f64).ln(),
        argmax_key: argmax,
        argmax_token: argmax.map(|j| trace.config.key_sequence().tokens[j].clone()),
    }
}

// ---------------------------------------------------------------------------------------------
// masks: −∞ against a large negative number
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct MasksExperiment {
    pub mask: &'static str,
    pub query: usize,
    /// Keys each query may see.
    pub allowed_per_row: Vec<usize>,
    pub fully_masked_rows: Vec<usize>,
    /// The selected query's weights with masked scores set to −∞ (masked keys get exactly 0;
    /// a fully masked row gives zeros, the lab's rule) and to −10⁹ (the same when some key is
    /// allowed; a fully masked row becomes uniform: it attends to what it must not see).
    pub with_infinity: Vec<f64>,
    pub with_large_negative: Vec<f64>,
    /// The same comparison on a row with every key masked.
    pub all_masked_infinity: Vec<f64>,
    pub all_masked_large_negative: Vec<f64>,
}

/// Softmax of `scores` with masked entries replaced by `fill`; a row whose every entry is −∞
/// gives zeros (the lab's rule for a fully masked row).
pub fn masked_with(scores: ArrayView1<f32>, allowed: &[bool], fill: f32) -> Vec<f64> {
    let filled: Vec<f64> = scores
        .iter()
        .zip(allowed)
        .map(|(&s, &a)| f64::from(if a { s } else { fill }))
        .collect();
    let max = filled.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return vec![0.0; filled.len()];
    }
    let exps: Vec<f64> = filled.iter().map(|s| (s - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

fn masks(trace: &Trace, focus: &Focus) -> MasksExperiment {
    let (h, i) = (focus.head(trace), focus.query(trace));
    let scores = trace.heads[h].scores.row(i);
    let allowed: Vec<bool> = trace.mask.row(i).to_vec();
    let none = vec![false; allowed.len()];
    MasksExperiment {
        mask: trace.config.mask().spec().kind(),
        query: i,
        allowed_per_row: trace
            .mask
            .outer_iter()
            .map(|r| r.iter().filter(|&&a| a).count())
            .collect(),
        fully_masked_rows: trace.heads[h].fully_masked_rows.clone(),
        with_infinity: masked_with(scores, &allowed, f32::NEG_INFINITY),
        with_large_negative: masked_with(scores, &allowed, -1e9),
        all_masked_infinity: masked_with(scores, &none, f32::NEG_INFINITY),
        all_masked_large_negative: masked_with(scores, &none, -1e9),
    }
}

// ---------------------------------------------------------------------------------------------
// multihead: how different the heads are, and what they cost
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct MultiheadExperiment {
    pub n_heads: usize,
    pub d_model: usize,
    /// [h][h]: the mean total-variation distance between two heads' weight rows.
    pub distances: Vec<Vec<f64>>,
    /// The mean over pairs of different heads (0 with one head).
    pub mean_distance: f64,
    /// Parameters of W_Q, W_K, W_V, W_O: h heads of d_model / h, one head of d_model, and the
    /// current shape.
    pub split_parameters: usize,
    pub single_parameters: usize,
    pub current_parameters: usize,
}

fn multihead(trace: &Trace) -> MultiheadExperiment {
    let dims = trace.config.dims();
    let h = trace.heads.len();
    let distances: Vec<Vec<f64>> = (0..h)
        .map(|a| {
            (0..h)
                .map(|b| {
                    head_distance(trace.heads[a].weights.view(), trace.heads[b].weights.view())
                })
                .collect()
        })
        .collect();
    let pairs: Vec<f64> = (0..h)
        .flat_map(|a| (a + 1..h).map(move |b| (a, b)))
        .map(|(a, b)| distances[a][b])
        .collect();
    let d = dims.d_model;
    let per = (d / h.max(1)).max(1);
    MultiheadExperiment {
        n_heads: h,
        d_model: d,
        mean_distance: if pairs.is_empty() {
            0.0
        } else {
            pairs.iter().sum::<f64>() / pairs.len() as f64
        },
        distances,
        split_parameters: attention_parameters(d, h, h, per, per),
        single_parameters: attention_parameters(d, 1, 1, d, d),
        current_parameters: attention_parameters(d, h, dims.n_kv_heads, dims.d_k, dims.d_v),
    }
}

// ---------------------------------------------------------------------------------------------
// gqa: what sharing K/V saves
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct KvRow {
    pub kv_heads: usize,
    /// Parameters of W_K and W_V, and of the whole attention layer.
    pub kv_parameters: usize,
    pub parameters: usize,
    /// K and V per token and per layer in f16.
    pub cache_bytes_per_token: usize,
    pub current: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GqaExperiment {
    pub n_heads: usize,
    pub d_k: usize,
    pub d_v: usize,
    /// From multi-head (kv = h) to multi-query (kv = 1), each divisor of h.
    pub rows: Vec<KvRow>,
}

fn gqa(trace: &Trace) -> GqaExperiment {
    let dims = trace.config.dims();
    let h = dims.n_heads;
    let rows = (1..=h)
        .rev()
        .filter(|&kv| h.is_multiple_of(kv))
        .map(|kv| KvRow {
            kv_heads: kv,
            kv_parameters: dims.d_model * kv * (dims.d_k + dims.d_v),
            parameters: attention_parameters(dims.d_model, h, kv, dims.d_k, dims.d_v),
            cache_bytes_per_token: kv_cache_bytes(kv, dims.d_k, dims.d_v, 2),
            current: kv == dims.n_kv_heads,
        })
        .collect();
    GqaExperiment {
        n_heads: h,
        d_k: dims.d_k,
        d_v: dims.d_v,
        rows,
    }
}

// ---------------------------------------------------------------------------------------------
// cross: queries from one sentence, keys and values from another
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct CrossMatch {
    pub query_token: String,
    /// The source token it weighs most, and that weight.
    pub source_token: String,
    pub weight: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CrossExperiment {
    /// False in self-attention: the chapter offers a second sentence.
    pub is_cross: bool,
    pub queries: usize,
    pub keys: usize,
    pub head: usize,
    pub best: Vec<CrossMatch>,
}

fn cross(trace: &Trace, focus: &Focus) -> CrossExperiment {
    let h = focus.head(trace);
    let keys = trace.config.key_sequence();
    let best = trace.heads[h]
        .weights
        .outer_iter()
        .zip(trace.config.tokens())
        .map(|(row, token)| {
            let (j, &w) = row
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
                .unwrap_or((0, &0.0));
            CrossMatch {
                query_token: token.clone(),
                source_token: keys.tokens.get(j).cloned().unwrap_or_default(),
                weight: f64::from(w),
            }
        })
        .collect();
    CrossExperiment {
        is_cross: trace.config.source().is_some(),
        queries: trace.config.seq_len(),
        keys: trace.config.key_len(),
        head: h,
        best,
    }
}

// ---------------------------------------------------------------------------------------------
// layernorm: each token before and after; a stack of blocks under Pre-LN and Post-LN
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct TokenStats {
    pub token: String,
    pub mean: f64,
    pub std: f64,
    pub normed_mean: f64,
    pub normed_std: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LayernormExperiment {
    pub tokens: Vec<TokenStats>,
    /// The residual stream's RMS after 0, 1, …, `depth` random blocks.
    pub depth: usize,
    pub pre_ln: Vec<f64>,
    pub post_ln: Vec<f64>,
    /// The gradient ∂L/∂x at the input of each block 0 … `depth` of the same stacks, by
    /// backpropagation at initialisation, relative to the output's.
    pub pre_ln_gradient: Vec<f64>,
    pub post_ln_gradient: Vec<f64>,
}

/// Blocks in the stacked-blocks experiment.
pub const STACK_DEPTH: usize = 24;

fn layernorm(trace: &Trace) -> LayernormExperiment {
    let x = trace.config.x();
    let before = row_stats(x);
    let after = row_stats(layer_norm(x).view());
    let tokens = trace
        .config
        .tokens()
        .iter()
        .zip(before.iter().zip(after.iter()))
        .map(
            |(token, (&(mean, std), &(normed_mean, normed_std)))| TokenStats {
                token: token.clone(),
                mean,
                std,
                normed_mean,
                normed_std,
            },
        )
        .collect();
    let seed = trace.config.seed();
    LayernormExperiment {
        tokens,
        depth: STACK_DEPTH,
        pre_ln: stream_growth(x, STACK_DEPTH, Placement::Pre, 1.0, seed),
        post_ln: stream_growth(x, STACK_DEPTH, Placement::Post, 1.0, seed),
        pre_ln_gradient: gradient_flow(x, STACK_DEPTH, Placement::Pre, 1.0, seed),
        post_ln_gradient: gradient_flow(x, STACK_DEPTH, Placement::Post, 1.0, seed),
    }
}

// ---------------------------------------------------------------------------------------------
// stability: overflow without the max, and f16
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct StabilityExperiment {
    pub head: usize,
    pub query: usize,
    /// The selected row's scaled scores over the allowed keys, the factor k they are multiplied
    /// by and the shift c added to each (which changes no weight in exact arithmetic).
    pub scores: Vec<f32>,
    pub factor: f32,
    pub shift: f32,
    /// The largest k · score + c: exp overflows past 88.7 in f32 and 11.09 in f16, and when the
    /// largest is below −104 in f32 or −17.3 in f16, every exp underflows to 0.
    pub largest: f32,
    /// softmax(k · scores + c) without subtracting the max, in f32 and in f16, and with it in f16.
    pub naive_f32: Vec<f32>,
    pub naive_f16: Vec<f32>,
    pub stable_f16: Vec<f32>,
    /// How the naive softmax fails at this k and c, if it does.
    pub failure_f32: Option<Breakdown>,
    pub failure_f16: Option<Breakdown>,
    /// The smallest k (with this c) at which the naive softmax fails, and how, if below 10⁴.
    pub break_f32: Option<BreakPoint>,
    pub break_f16: Option<BreakPoint>,
    /// The query whose row has the largest scaled score in this head (where overflow shows
    /// first), and that score.
    pub hottest_query: usize,
    pub hottest_score: f32,
    /// QKᵀ of the selected head with f16 inputs, products and sums, against f32: the largest
    /// absolute and relative error.
    pub f16_abs_error: f32,
    pub f16_rel_error: f32,
}

/// The largest shift c the stability chapter takes (either way).
pub const MAX_SHIFT: f32 = 100.0;

fn allowed_scores(trace: &Trace, head: usize, i: usize) -> Array1<f32> {
    trace.heads[head]
        .scores
        .row(i)
        .iter()
        .zip(trace.mask.row(i))
        .filter(|&(_, &a)| a)
        .map(|(&s, _)| s)
        .collect()
}

fn stability(trace: &Trace, focus: &Focus) -> StabilityExperiment {
    let (h, i) = (focus.head(trace), focus.query(trace));
    let head = &trace.heads[h];
    let scores = allowed_scores(trace, h, i);
    let k = if focus.factor.is_finite() && focus.factor > 0.0 {
        focus.factor
    } else {
        1.0
    };
    let c = if focus.shift.is_finite() {
        focus.shift.clamp(-MAX_SHIFT, MAX_SHIFT)
    } else {
        0.0
    };
    let (hottest_query, hottest_score) = (0..trace.config.seq_len())
        .map(|q| {
            let top = allowed_scores(trace, h, q)
                .iter()
                .fold(f32::NEG_INFINITY, |m, &s| m.max(s));
            (q, top)
        })
        .fold((0, f32::NEG_INFINITY), |best, row| {
            if row.1 > best.1 { row } else { best }
        });
    let (abs, rel) = f16_matmul_error(head.q.view(), head.k.view());
    let scores_view = scores.view();
    StabilityExperiment {
        head: h,
        query: i,
        largest: scores.iter().fold(f32::NEG_INFINITY, |m, &s| m.max(s * k)) + c,
        naive_f32: softmax_in(scores_view, k, c, false, Precision::F32),
        naive_f16: softmax_in(scores_view, k, c, false, Precision::F16),
        stable_f16: softmax_in(scores_view, k, c, true, Precision::F16),
        failure_f32: breakdown(scores_view, k, c, Precision::F32),
        failure_f16: breakdown(scores_view, k, c, Precision::F16),
        break_f32: break_point(scores_view, c, Precision::F32, 1e4),
        break_f16: break_point(scores_view, c, Precision::F16, 1e4),
        hottest_query,
        hottest_score,
        scores: scores.to_vec(),
        factor: k,
        shift: c,
        f16_abs_error: abs,
        f16_rel_error: rel,
    }
}

// ---------------------------------------------------------------------------------------------
// complexity: O(n²), measured
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct ComplexityExperiment {
    pub n: usize,
    pub d_model: usize,
    /// Score cells of every head, and the multiply-adds of QKᵀ and weights · V.
    pub cells: usize,
    pub multiply_adds: usize,
    /// Score bytes held at once in f32: standard (n × n per head) against flash (one tile).
    pub standard_bytes: usize,
    pub flash_bytes: usize,
    /// Steps between the first and the last token: 1 for attention, n − 1 for a recurrent net.
    pub attention_path: usize,
    pub recurrent_path: usize,
}

fn complexity(trace: &Trace) -> ComplexityExperiment {
    let dims = trace.config.dims();
    let (n, m) = (trace.config.seq_len(), trace.config.key_len());
    let (rows, cols) = trace.config.block();
    let cells = dims.n_heads * n * m;
    ComplexityExperiment {
        n,
        d_model: dims.d_model,
        cells,
        multiply_adds: cells * (dims.d_k + dims.d_v),
        standard_bytes: n * m * 4,
        flash_bytes: rows * cols * 4,
        attention_path: 1,
        recurrent_path: n.saturating_sub(1),
    }
}

/// One size of the timing experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct CostPoint {
    pub n: usize,
    pub standard_ms: f64,
    pub flash_ms: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CostMeasurement {
    pub d_k: usize,
    pub points: Vec<CostPoint>,
    /// The fitted slope of log time against log n over the sizes from 256 (2 for O(n²)).
    pub standard_slope: f64,
    pub flash_slope: f64,
}

/// The shortest batch of runs the cost measurement times: 50 ticks of the coarsest page clock.
const BATCH_MS: f64 = 5.0;

/// Times one head of standard attention (rows in chunks, as the lab's untraced path) and of
/// FlashAttention (16 × 16 tiles, no steps recorded) on random Q, K, V of d_k 32 for each n in
/// `sizes`; `clock` gives milliseconds (performance.now in the page, Instant natively). Runs are
/// timed in batches of at least 5 ms (a small n takes less than a coarse clock's tick); each
/// size is timed at least twice and for at least 20 ms, and the best batch's time per run kept.
pub fn measure_cost(sizes: &[usize], clock: &dyn Fn() -> f64) -> CostMeasurement {
    let d_k = 32;
    let points: Vec<CostPoint> = sizes
        .iter()
        .map(|&n| {
            let mut rng = SplitMix64::new(n as u64);
            let mut draw =
                || Array2::from_shape_simple_fn((n, d_k), || experiments::normal(&mut rng) as f32);
            let (q, k, v) = (draw(), draw(), draw());
            let mask = Mask::unmasked(n, n);
            let scale = 1.0 / (d_k as f32).sqrt();
            let time = |f: &dyn Fn()| {
                // A page's clock can tick in steps of 0.1 ms, longer than a small n takes: run
                // batches long enough to read (at least BATCH_MS), then keep the best batch.
                let mut repeats = 1usize;
                let first = loop {
                    let t0 = clock();
                    for _ in 0..repeats {
                        f();
                    }
                    let elapsed = clock() - t0;
                    if elapsed >= BATCH_MS || repeats >= 1 << 20 {
                        break elapsed / repeats as f64;
                    }
                    repeats *= if elapsed > 0.0 {
                        ((BATCH_MS / elapsed).ceil() as usize).clamp(2, 64)
                    } else {
                        64
                    };
                };
                let started = clock();
                let mut best = first;
                let mut batches = 1;
                while batches < 2 || (clock() - started < 20.0 && batches < 50) {
                    let t0 = clock();
                    for _ in 0..repeats {
                        f();
                    }
                    best = best.min((clock() - t0) / repeats as f64);
                    batches += 1;
                }
                best
            };
            let standard_ms = time(&|| {
                std::hint::black_box(attend_output(q.view(), k.view(), v.view(), scale, &mask));
            });
            let flash_ms = time(&|| {
                std::hint::black_box(flash_attention(
                    q.view(),
                    k.view(),
                    v.view(),
                    scale,
                    &mask,
                    (16, 16),
                    false,
                ));
            });
            CostPoint {
                n,
                standard_ms,
                flash_ms,
            }
        })
        .collect();
    let fit = |f: fn(&CostPoint) -> f64| {
        let large: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.n >= 256)
            .map(|p| (p.n as f64, f(p)))
            .collect();
        if large.len() >= 2 {
            log_log_slope(&large)
        } else {
            log_log_slope(
                &points
                    .iter()
                    .map(|p| (p.n as f64, f(p)))
                    .collect::<Vec<_>>(),
            )
        }
    };
    CostMeasurement {
        d_k,
        standard_slope: fit(|p| p.standard_ms),
        flash_slope: fit(|p| p.flash_ms),
        points,
    }
}

// ---------------------------------------------------------------------------------------------
// flash: what the tiles save
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct FlashExperiment {
    pub n: usize,
    pub keys: usize,
    pub block_rows: usize,
    pub block_cols: usize,
    /// Tiles in the grid, and those the mask lets FlashAttention skip entirely.
    pub tiles: usize,
    pub skipped_tiles: usize,
    pub standard_cells: usize,
    pub tile_cells: usize,
    pub max_abs_diff: f32,
}

fn flash(trace: &Trace) -> FlashExperiment {
    let (n, m) = (trace.config.seq_len(), trace.config.key_len());
    let (rows, cols) = trace.config.block();
    let (tile_rows, tile_cols) = (n.div_ceil(rows), m.div_ceil(cols));
    let mask = trace.config.mask();
    let skipped = (0..tile_rows)
        .flat_map(|a| (0..tile_cols).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            mask.hides_tile(
                a * rows..((a + 1) * rows).min(n),
                b * cols..((b + 1) * cols).min(m),
            )
        })
        .count();
    FlashExperiment {
        n,
        keys: m,
        block_rows: rows,
        block_cols: cols,
        tiles: tile_rows * tile_cols,
        skipped_tiles: skipped,
        standard_cells: n * m,
        tile_cells: rows * cols,
        max_abs_diff: trace.flash.max_abs_diff,
    }
}

// ---------------------------------------------------------------------------------------------
// variants: sparse and linear attention
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct SparseRow {
    pub pattern: &'static str,
    pub stride: usize,
    pub cells: usize,
    /// [n][n] as rows of 0/1, for drawing.
    pub mask: Vec<Vec<u8>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VariantsExperiment {
    pub n: usize,
    /// Cells of full causal attention, n(n + 1)/2, and the n√n the sparse patterns aim at.
    pub causal_cells: usize,
    pub n_sqrt_n: f64,
    pub sparse: Vec<SparseRow>,
    pub head: usize,
    /// Linear attention (φ = elu + 1, causal when the lab's mask is) on the selected head's Q, K,
    /// V against the lab's softmax attention: the largest and mean absolute difference of the
    /// outputs, and the multiply-adds of each.
    pub linear_max_diff: f64,
    pub linear_mean_diff: f64,
    pub linear_cost: usize,
    pub softmax_cost: usize,
}

fn to_rows(mask: &Array2<bool>) -> Vec<Vec<u8>> {
    mask.outer_iter()
        .map(|r| r.iter().map(|&a| u8::from(a)).collect())
        .collect()
}

fn variants(trace: &Trace, focus: &Focus) -> VariantsExperiment {
    let n = trace.config.seq_len();
    let stride = ((n as f64).sqrt().round() as usize).max(2);
    let sparse = [
        ("strided", SparsePattern::Strided { stride }),
        ("fixed", SparsePattern::Fixed { stride }),
    ]
    .into_iter()
    .map(|(name, pattern)| {
        let mask = pattern.mask(n);
        SparseRow {
            pattern: name,
            stride,
            cells: allowed_cells(&mask),
            mask: to_rows(&mask),
        }
    })
    .collect();
    let h = focus.head(trace);
    let head = &trace.heads[h];
    let causal = matches!(trace.config.mask().spec(), MaskSpec::Causal);
    let linear = linear_attention(head.q.view(), head.k.view(), head.v.view(), causal);
    let (max, sum) = diff_stats(linear.view(), head.output.view());
    let (m, d_k, d_v) = (head.k.nrows(), head.q.ncols(), head.v.ncols());
    VariantsExperiment {
        n,
        causal_cells: n * (n + 1) / 2,
        n_sqrt_n: (n as f64).powf(1.5),
        sparse,
        head: h,
        linear_max_diff: max,
        linear_mean_diff: sum / linear.len().max(1) as f64,
        linear_cost: (n + m) * d_k * d_v,
        softmax_cost: n * m * (d_k + d_v),
    }
}

fn diff_stats(a: ArrayView2<f32>, b: ArrayView2<f32>) -> (f64, f64) {
    a.iter()
        .zip(b.iter())
        .map(|(&x, &y)| f64::from((x - y).abs()))
        .fold((0.0, 0.0), |(max, sum), d| (max.max(d), sum + d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;
    use crate::trace::compute_trace;

    fn trace(params: Params) -> Trace {
        compute_trace(&params.validate().unwrap())
    }

    #[test]
    fn chapter_ids_round_trip_in_order() {
        for (i, c) in Chapter::ALL.into_iter().enumerate() {
            assert_eq!(Chapter::from_id(c.id()), Some(c));
            assert_eq!(c.index(), i);
        }
        assert_eq!(Chapter::Tokens.previous(), None);
        assert_eq!(Chapter::Exercises.next(), None);
        assert_eq!(Chapter::Qkv.next(), Some(Chapter::Scaling));
        assert_eq!(Chapter::from_id("nonsense"), None);
    }

    #[test]
    fn the_same_word_twice_has_one_embedding_and_two_xs() {
        let t = trace(Params::sentence("the cat saw the dog"));
        let Experiment::Tokens(e) = experiment(Chapter::Tokens, &t, &Focus::default()) else {
            panic!()
        };
        let r = e.repeated.unwrap();
        assert_eq!((r.first, r.second, r.token.as_str()), (0, 3, "the"));
        assert_eq!(r.embedding_distance, 0.0);
        assert!(r.x_distance > 0.1);
    }

    #[test]
    fn scaling_measures_variance_d_k_before_and_one_after() {
        let t = trace(Params {
            d_model: Some(64),
            n_heads: 2,
            ..Params::sentence("the cat sat on the mat because it was tired")
        });
        let Experiment::Scaling(e) = experiment(Chapter::Scaling, &t, &Focus::default()) else {
            panic!()
        };
        for p in &e.random {
            let d = p.d_k as f64;
            assert!((p.raw_variance / d - 1.0).abs() < 0.12, "{p:?}");
            assert!((p.scaled_variance - 1.0).abs() < 0.12, "{p:?}");
        }
        // Without the scale, softmax saturates as d_k grows: the largest weight nears 1 and the
        // gradient p(1 − p) vanishes; with it, both stay put.
        let (small, large) = (&e.random[0], &e.random[7]);
        assert!(
            large.raw_largest > 0.85 && large.raw_gradient < 0.06,
            "{large:?}"
        );
        assert!(large.raw_gradient < small.raw_gradient);
        assert!((large.scaled_largest - small.scaled_largest).abs() < 0.15);
        assert_eq!(e.heads.len(), 2);
        for h in &e.heads {
            assert!((h.scaled_variance * 32.0 - h.raw_variance).abs() < 1e-9);
            assert!((h.standard_scaled_variance * 32.0 - h.standard_variance).abs() < 1e-9);
        }
        assert_eq!(e.raw_histogram.iter().sum::<usize>(), 100);
        assert_eq!(e.scaled_histogram.iter().sum::<usize>(), 100);
    }

    /// The chapter's premise (components of mean 0 and variance 1) does not hold for the lab's
    /// random heads: Xavier draws W with variance 2 / (d_model + d_k), so var(q·k) as computed
    /// can even fall as d_k grows. On q and k standardised, what the chapter says is measured at
    /// every d_k and d_model: var(q̃·k̃) grows as d_k, and ÷ √d_k brings it near 1.
    #[test]
    fn standardised_heads_follow_d_k_at_every_shape() {
        for d_model in [8, 16, 64] {
            let mut standard = Vec::new();
            for d_k in [2, 4, 8, 32, 128, 512] {
                let t = trace(Params {
                    d_model: Some(d_model),
                    d_k: Some(d_k),
                    n_heads: 2,
                    ..Params::sentence("The cat sat on the mat because it was tired.")
                });
                // What the experiment reports per head (its random curves are checked above).
                let heads: Vec<_> = t
                    .heads
                    .iter()
                    .map(|h| head_dot_variances(h.q.view(), h.k.view()))
                    .collect();
                for h in &heads {
                    assert!(
                        (0.5..2.0).contains(&h.standard_scaled),
                        "d_model {d_model}, d_k {d_k}: {h:?}"
                    );
                    // Xavier: each component of q = xW has variance d_model · var(x) · 2 /
                    // (d_model + d_k), far from 1 at a large d_k.
                    let xavier = 2.0 / (d_model + d_k) as f64;
                    assert!(h.q_component < 8.0 * d_model as f64 * xavier, "{h:?}");
                }
                standard.push(heads[0].standard);
            }
            assert!(standard[5] > 100.0 * standard[0], "{standard:?}");
        }
        // The raw figure at d_model 16 falls from d_k 32 to 512, as the review saw: the
        // components shrink faster than d_k grows.
        let raw = |d_k| {
            let t = trace(Params {
                d_model: Some(16),
                d_k: Some(d_k),
                ..Params::sentence("The cat sat on the mat because it was tired.")
            });
            let h = head_dot_variances(t.heads[0].q.view(), t.heads[0].k.view());
            (h.raw, h.q_component)
        };
        let ((small, small_q), (large, large_q)) = (raw(32), raw(512));
        assert!(large < small && large_q < 0.1 * small_q, "{small} {large}");
    }

    #[test]
    fn the_temperature_reaches_the_learner_as_typed() {
        for (typed, shown) in [(0.3, "0.3"), (0.2, "0.2"), (0.07, "0.07"), (1.0, "1")] {
            let t = trace(Params {
                temperature: typed,
                ..Params::sentence("the cat sat")
            });
            let Experiment::Softmax(e) = experiment(Chapter::Softmax, &t, &Focus::default()) else {
                panic!()
            };
            assert_eq!(e.temperature.to_string(), shown);
            assert_eq!(e.current.temperature.to_string(), shown);
        }
    }

    #[test]
    fn temperature_sweeps_from_argmax_to_uniform() {
        let t = trace(Params {
            mask: MaskSpec::Causal,
            ..Params::sentence("the cat sat on the mat")
        });
        let focus = Focus {
            query: 4,
            ..Focus::default()
        };
        let Experiment::Softmax(e) = experiment(Chapter::Softmax, &t, &focus) else {
            panic!()
        };
        assert_eq!(e.allowed, 5);
        assert!((e.uniform_entropy - 5f64.ln()).abs() < 1e-12);
        let (first, last) = (&e.sweep[0], e.sweep.last().unwrap());
        assert!((first.temperature - 0.05).abs() < 1e-12 && (last.temperature - 10.0).abs() < 1e-9);
        assert!(first.largest > last.largest && first.entropy < last.entropy);
        assert!(last.entropy > 0.95 * e.uniform_entropy);
        assert!(e.argmax_key.unwrap() <= 4);
        // The current point is the row the lab shows.
        let shown = t.heads[0]
            .weights
            .row(4)
            .iter()
            .cloned()
            .fold(0.0f32, f32::max);
        assert!((e.current.largest - f64::from(shown)).abs() < 1e-5);
    }

    #[test]
    fn a_fully_masked_row_is_zero_with_infinity_and_uniform_with_a_large_negative() {
        let t = trace(Params {
            mask: MaskSpec::Causal,
            ..Params::sentence("a b c d")
        });
        let focus = Focus {
            query: 1,
            ..Focus::default()
        };
        let Experiment::Masks(e) = experiment(Chapter::Masks, &t, &focus) else {
            panic!()
        };
        assert_eq!(e.allowed_per_row, vec![1, 2, 3, 4]);
        assert_eq!(e.with_infinity[2..], [0.0, 0.0]);
        for (a, b) in e.with_infinity.iter().zip(&e.with_large_negative) {
            assert!((a - b).abs() < 1e-12);
        }
        assert_eq!(e.all_masked_infinity, vec![0.0; 4]);
        assert_eq!(e.all_masked_large_negative, vec![0.25; 4]);
    }

    #[test]
    fn heads_cost_the_same_split_or_whole_and_sharing_kv_saves_cache() {
        let t = trace(Params {
            d_model: Some(64),
            n_heads: 4,
            ..Params::sentence("the cat sat on the mat")
        });
        let Experiment::Multihead(e) = experiment(Chapter::Multihead, &t, &Focus::default()) else {
            panic!()
        };
        assert_eq!(e.split_parameters, 4 * 64 * 64);
        assert_eq!(e.single_parameters, e.split_parameters);
        assert_eq!(e.distances[1][1], 0.0);
        assert!(e.mean_distance > 0.0 && e.mean_distance <= 1.0);
        let Experiment::Gqa(g) = experiment(Chapter::Gqa, &t, &Focus::default()) else {
            panic!()
        };
        let kvs: Vec<usize> = g.rows.iter().map(|r| r.kv_heads).collect();
        assert_eq!(kvs, vec![4, 2, 1]);
        assert_eq!(g.rows[0].cache_bytes_per_token, 4 * (16 + 16) * 2);
        assert_eq!(
            g.rows[2].cache_bytes_per_token * 4,
            g.rows[0].cache_bytes_per_token
        );
        assert!(g.rows[0].current);
    }

    #[test]
    fn pre_ln_lets_the_stream_grow_and_post_ln_holds_it() {
        let t = trace(Params::sentence("the cat sat on the mat"));
        let Experiment::Layernorm(e) = experiment(Chapter::Layernorm, &t, &Focus::default()) else {
            panic!()
        };
        for s in &e.tokens {
            assert!(
                s.normed_mean.abs() < 1e-5 && (s.normed_std - 1.0).abs() < 1e-3,
                "{s:?}"
            );
        }
        assert_eq!(e.pre_ln.len(), STACK_DEPTH + 1);
        assert!(e.pre_ln[STACK_DEPTH] > 2.0 * e.pre_ln[1]);
        assert!(e.post_ln[1..].iter().all(|&r| (r - 1.0).abs() < 0.01));
        // The gradient of the same stacks, on the learner's X and seed.
        assert_eq!(e.pre_ln_gradient.len(), STACK_DEPTH + 1);
        assert_eq!(e.pre_ln_gradient[STACK_DEPTH], 1.0);
        assert!(e.pre_ln_gradient[0] > e.post_ln_gradient[0]);
    }

    #[test]
    fn naive_softmax_breaks_in_f16_long_before_f32_and_the_stable_one_never() {
        let t = trace(Params::sentence("the cat sat on the mat"));
        let focus = Focus {
            query: 2,
            factor: 50.0,
            ..Focus::default()
        };
        let Experiment::Stability(e) = experiment(Chapter::Stability, &t, &focus) else {
            panic!()
        };
        let (f16, f32) = (e.break_f16.unwrap(), e.break_f32.unwrap());
        assert!(f16.factor < f32.factor, "{f16:?} {f32:?}");
        let top = e.scores.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        // The break is where the largest k · score crosses ln(largest) (an overflow, when the
        // row has a positive score) or ln(smallest) (an underflow, when every score is
        // negative): 11.09 or −17.33 in f16, 88.72 or −103.97 in f32.
        let (f16_edge, f32_edge) = if top > 0.0 {
            (11.09, 88.72)
        } else {
            (-17.33, -103.97)
        };
        let kind = if top > 0.0 {
            Breakdown::Overflow
        } else {
            Breakdown::Underflow
        };
        assert_eq!((f16.kind, f32.kind), (kind, kind));
        assert!(
            (f16.factor * top - f16_edge).abs() < 0.05,
            "{}",
            f16.factor * top
        );
        assert!(
            (f32.factor * top - f32_edge).abs() < 0.05,
            "{}",
            f32.factor * top
        );
        assert!(e.stable_f16.iter().all(|w| w.is_finite()));
        assert_eq!(e.failure_f16.is_some(), 50.0 >= f16.factor);
        assert!(e.f16_abs_error > 0.0 && e.f16_rel_error < 0.05);
        // The hottest row is where overflow shows: its largest score is the head's largest.
        let head_top = (0..t.config.seq_len())
            .flat_map(|q| allowed_scores(&t, 0, q).to_vec())
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(e.hottest_score, head_top);
    }

    /// The review's case: a row with only negative scores never overflows as k grows; it
    /// underflows (at k ≈ 17.33 / |max| in f16), and the experiment says so. Shifting the row up
    /// by c (no weight changes) shows the overflow the chapter teaches.
    #[test]
    fn a_row_of_negative_scores_underflows_and_a_shift_makes_it_overflow() {
        let t = trace(Params {
            mask: MaskSpec::Causal,
            ..Params::sentence("The cat sat on the mat because it was tired.")
        });
        let (head, cold) = (0..2)
            .flat_map(|h| (0..t.config.seq_len()).map(move |q| (h, q)))
            .find(|&(h, q)| allowed_scores(&t, h, q).iter().all(|&s| s < 0.0))
            .expect("a row of negative scores");
        let row = |factor, shift| {
            let focus = Focus {
                head,
                query: cold,
                factor,
                shift,
            };
            let Experiment::Stability(e) = experiment(Chapter::Stability, &t, &focus) else {
                panic!()
            };
            e
        };
        let e = row(1.0, 0.0);
        assert!(
            e.largest < 0.0,
            "every score of this row is negative: {}",
            e.largest
        );
        let f16 = e.break_f16.unwrap();
        assert_eq!(f16.kind, Breakdown::Underflow);
        assert!((f16.exponent + 17.33).abs() < 0.05, "{f16:?}");
        let broken = row(f16.factor * 1.01, 0.0);
        assert_eq!(broken.failure_f16, Some(Breakdown::Underflow));
        assert!(broken.naive_f16.iter().all(|w| w.is_nan()));
        // Shifted up so that the largest exponent is 11.5 > 11.09 at k = 1: overflow.
        let shifted = row(1.0, 11.5 - e.largest);
        assert_eq!(shifted.failure_f16, Some(Breakdown::Overflow));
        assert_eq!(shifted.break_f16.unwrap().kind, Breakdown::Overflow);
        assert!(shifted.break_f16.unwrap().factor < 1.0);
        // The stable softmax does not see the shift.
        for (a, b) in shifted.stable_f16.iter().zip(&e.stable_f16) {
            assert!((a - b).abs() < 2e-3, "{a} {b}");
        }
    }

    #[test]
    fn sparse_patterns_compute_about_n_sqrt_n_and_linear_attention_differs_from_softmax() {
        let sentence = (0..64)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let t = trace(Params {
            mask: MaskSpec::Causal,
            ..Params::sentence(sentence)
        });
        let Experiment::Variants(e) = experiment(Chapter::Variants, &t, &Focus::default()) else {
            panic!()
        };
        assert_eq!(e.n, 64);
        assert_eq!(e.causal_cells, 64 * 65 / 2);
        for s in &e.sparse {
            assert_eq!(s.stride, 8);
            assert!(s.cells < e.causal_cells / 2, "{s:?}");
            assert!((s.cells as f64) < 2.0 * e.n_sqrt_n);
        }
        assert!(e.linear_max_diff > 0.0 && e.linear_mean_diff.is_finite());
        assert!(e.linear_cost < e.softmax_cost);
    }

    #[test]
    fn complexity_and_flash_count_cells_tiles_and_bytes() {
        let t = trace(Params {
            mask: MaskSpec::Causal,
            block_rows: Some(2),
            block_cols: Some(2),
            ..Params::sentence("a b c d e f")
        });
        let Experiment::Complexity(c) = experiment(Chapter::Complexity, &t, &Focus::default())
        else {
            panic!()
        };
        assert_eq!(
            (c.standard_bytes, c.flash_bytes, c.recurrent_path),
            (144, 16, 5)
        );
        let Experiment::Flash(f) = experiment(Chapter::Flash, &t, &Focus::default()) else {
            panic!()
        };
        assert_eq!((f.tiles, f.skipped_tiles), (9, 3));
        assert!(f.max_abs_diff < 1e-5);
    }

    #[test]
    fn measured_cost_grows_with_n() {
        let started = std::time::Instant::now();
        let clock = move || started.elapsed().as_secs_f64() * 1000.0;
        let m = measure_cost(&[32, 64, 128], &clock);
        assert_eq!(m.points.len(), 3);
        assert!(
            m.points
                .iter()
                .all(|p| p.standard_ms >= 0.0 && p.flash_ms >= 0.0)
        );
        assert!(m.points[2].standard_ms > m.points[0].standard_ms);
    }

    /// In a page without cross-origin isolation performance.now() ticks every 0.1 ms: a single
    /// run at n = 64 read as 0 ms, and the chart (log axes) started at n = 128.
    #[test]
    fn a_coarse_clock_still_times_the_smallest_size() {
        let started = std::time::Instant::now();
        let clock = move || (started.elapsed().as_secs_f64() * 1e4).floor() / 10.0;
        let m = measure_cost(&[16, 64], &clock);
        for p in &m.points {
            assert!(p.standard_ms > 0.0 && p.flash_ms > 0.0, "{p:?}");
            assert!(
                p.standard_ms < 100.0,
                "a time per run, not per batch: {p:?}"
            );
        }
    }
}
