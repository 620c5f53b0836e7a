//! The experiments the lessons run on the learner's own numbers: why √d_k, what temperature does,
//! what a mask does to a row, how different heads are, what sharing K/V saves, what LayerNorm does
//! to a stack of blocks, how softmax overflows in f16, how cost grows with n, and what sparse and
//! linear attention trade away. Pure functions, checked against hand-worked values and known facts.

use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

use crate::layer_norm::layer_norm;
use crate::rng::SplitMix64;

// ---------------------------------------------------------------------------------------------
// Softmax, entropy and temperature
// ---------------------------------------------------------------------------------------------

/// softmax(scores / t) in f64, the row maximum subtracted first.
pub fn softmax(scores: ArrayView1<f32>, t: f64) -> Vec<f64> {
    let max = scores
        .iter()
        .fold(f64::NEG_INFINITY, |m, &s| m.max(f64::from(s)));
    let exps: Vec<f64> = scores
        .iter()
        .map(|&s| ((f64::from(s) - max) / t).exp())
        .collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

/// Shannon entropy of a distribution, in nats: 0 when one key takes everything, ln n when all n
/// keys share equally.
pub fn entropy(weights: &[f64]) -> f64 {
    weights
        .iter()
        .filter(|&&p| p > 0.0)
        .map(|&p| -p * p.ln())
        .sum()
}

/// One point of a temperature sweep: the largest weight and the entropy of the row at `t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepPoint {
    pub temperature: f64,
    pub largest: f64,
    pub entropy: f64,
}

/// The row's largest weight and entropy at `points` temperatures, log-spaced from `low` to
/// `high`, for the scaled scores `scores` (already divided by √d_k at T = 1).
pub fn temperature_sweep(
    scores: ArrayView1<f32>,
    low: f64,
    high: f64,
    points: usize,
) -> Vec<SweepPoint> {
    (0..points)
        .map(|i| {
            let f = i as f64 / (points.max(2) - 1) as f64;
            let t = low * (high / low).powf(f);
            let w = softmax(scores, t);
            SweepPoint {
                temperature: t,
                largest: w.iter().cloned().fold(0.0, f64::max),
                entropy: entropy(&w),
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Why divide by √d_k
// ---------------------------------------------------------------------------------------------

/// Mean and variance (population) of some numbers.
pub fn mean_variance(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let values: Vec<f64> = values.into_iter().collect();
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    (mean, variance)
}

/// A standard normal draw (Box–Muller) from the portable generator.
pub fn normal(rng: &mut SplitMix64) -> f64 {
    let u1 = rng.next_unit().max(f64::MIN_POSITIVE);
    let u2 = rng.next_unit();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// The measured variance of q·k, and of q·k / √d_k, for `samples` pairs of random vectors with
/// unit-variance entries, d_k = `d_k`. Theory: d_k and 1.
pub fn dot_variance(d_k: usize, samples: usize, seed: u64) -> (f64, f64) {
    let mut rng = SplitMix64::new(seed ^ (d_k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let dots: Vec<f64> = (0..samples)
        .map(|_| (0..d_k).map(|_| normal(&mut rng) * normal(&mut rng)).sum())
        .collect();
    let (_, raw) = mean_variance(dots.iter().copied());
    let (_, scaled) = mean_variance(dots.iter().map(|d| d / (d_k as f64).sqrt()));
    (raw, scaled)
}

/// The variance of the learner's own q·k over every (query, key) pair of a head, before and
/// after dividing by √d_k. q: [n, d_k], k: [m, d_k].
pub fn head_dot_variance(q: ArrayView2<f32>, k: ArrayView2<f32>) -> (f64, f64) {
    let d_k = q.ncols() as f64;
    let dots = q.dot(&k.t());
    let (_, raw) = mean_variance(dots.iter().map(|&d| f64::from(d)));
    (raw, raw / d_k)
}

/// Each column of `m` [rows, cols] shifted to mean 0 and scaled to variance 1 over the rows:
/// what "components of mean 0 and variance 1" means for a handful of tokens. A column that does
/// not vary (one row, or a constant) stays 0.
pub fn standardise_columns(m: ArrayView2<f32>) -> Array2<f64> {
    let mut out = m.mapv(f64::from);
    for mut column in out.columns_mut() {
        let (mean, variance) = mean_variance(column.iter().copied());
        let scale = if variance > 1e-24 {
            1.0 / variance.sqrt()
        } else {
            0.0
        };
        column.mapv_inplace(|v| (v - mean) * scale);
    }
    out
}

/// The mean over the columns of each column's variance over the rows: the typical variance of
/// one component of a head's q (or k) on this input.
pub fn component_variance(m: ArrayView2<f32>) -> f64 {
    let columns = m.ncols().max(1) as f64;
    m.columns()
        .into_iter()
        .map(|c| mean_variance(c.iter().map(|&v| f64::from(v))).1)
        .sum::<f64>()
        / columns
}

/// The variance of q·k over every (query, key) pair, measured on a head's q and k as they are
/// and on q and k standardised (each component of mean 0 and variance 1 over the tokens, the
/// premise of the √d_k argument).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DotVariances {
    /// The typical variance of one component of q and of k (1 under the premise).
    pub q_component: f64,
    pub k_component: f64,
    /// var(q·k) and var(q·k / √d_k), as computed: about d_k · q_component · k_component.
    pub raw: f64,
    pub raw_scaled: f64,
    /// var(q̃·k̃) and var(q̃·k̃ / √d_k) on the standardised components: about d_k and 1, up to
    /// the noise of measuring on n × m pairs.
    pub standard: f64,
    pub standard_scaled: f64,
}

/// [`DotVariances`] of one head. q: [n, d_k], k: [m, d_k]. The standardised figures need two
/// tokens on each side (with one, no component varies) and are 0 without them.
pub fn head_dot_variances(q: ArrayView2<f32>, k: ArrayView2<f32>) -> DotVariances {
    let d_k = q.ncols().max(1) as f64;
    let (raw, raw_scaled) = head_dot_variance(q, k);
    let dots = standardise_columns(q).dot(&standardise_columns(k).t());
    let (_, standard) = mean_variance(dots.iter().copied());
    DotVariances {
        q_component: component_variance(q),
        k_component: component_variance(k),
        raw,
        raw_scaled,
        standard,
        standard_scaled: standard / d_k,
    }
}

/// The histogram of `values` in `bins` equal bins over [low, high] (values outside are clamped
/// into the end bins): counts per bin.
pub fn histogram(values: &[f64], low: f64, high: f64, bins: usize) -> Vec<usize> {
    let mut counts = vec![0; bins.max(1)];
    for &v in values {
        let f = ((v - low) / (high - low) * bins as f64).floor();
        let i = (f.max(0.0) as usize).min(bins - 1);
        counts[i] += 1;
    }
    counts
}

/// The softmax's gradient on the largest weight, p (1 − p): near 0 when softmax saturates (one
/// weight near 1), largest (0.25) when p = ½.
pub fn saturation_gradient(weights: &[f64]) -> f64 {
    let p = weights.iter().cloned().fold(0.0, f64::max);
    p * (1.0 - p)
}

// ---------------------------------------------------------------------------------------------
// Several heads, and sharing K/V
// ---------------------------------------------------------------------------------------------

/// How differently two heads attend: the mean over queries of the total variation distance
/// ½ Σ_j |a_ij − b_ij| between their weight rows (0: identical, 1: disjoint).
pub fn head_distance(a: ArrayView2<f32>, b: ArrayView2<f32>) -> f64 {
    let rows = a.nrows().max(1) as f64;
    a.outer_iter()
        .zip(b.outer_iter())
        .map(|(x, y)| {
            0.5 * x
                .iter()
                .zip(y.iter())
                .map(|(p, q)| f64::from((p - q).abs()))
                .sum::<f64>()
        })
        .sum::<f64>()
        / rows
}

/// The parameters of one attention layer's projections (no biases): W_Q and W_O take
/// d_model × h·d_k and h·d_v × d_model; W_K and W_V d_model × kv·d_k and d_model × kv·d_v.
pub fn attention_parameters(
    d_model: usize,
    heads: usize,
    kv_heads: usize,
    d_k: usize,
    d_v: usize,
) -> usize {
    d_model * heads * d_k + d_model * kv_heads * (d_k + d_v) + heads * d_v * d_model
}

/// The bytes a KV cache holds per token and per layer: K and V of every K/V head, at
/// `bytes_per_number` each (2 for f16).
pub fn kv_cache_bytes(kv_heads: usize, d_k: usize, d_v: usize, bytes_per_number: usize) -> usize {
    kv_heads * (d_k + d_v) * bytes_per_number
}

// ---------------------------------------------------------------------------------------------
// LayerNorm and stacks of blocks
// ---------------------------------------------------------------------------------------------

/// Each row's mean and standard deviation.
pub fn row_stats(x: ArrayView2<f32>) -> Vec<(f64, f64)> {
    x.outer_iter()
        .map(|row| {
            let (mean, var) = mean_variance(row.iter().map(|&v| f64::from(v)));
            (mean, var.sqrt())
        })
        .collect()
}

/// Where LayerNorm goes in a residual block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// x + F(LN(x))
    Pre,
    /// LN(x + F(x))
    Post,
}

/// The root-mean-square size of the residual stream after each of `depth` blocks, each adding
/// F(x) = x W (W a random d × d matrix, entries N(0, gain² / d)), with LayerNorm placed as
/// `placement`: Pre-LN lets the stream grow block after block (the identity path is never
/// normalised), Post-LN holds it at 1.
pub fn stream_growth(
    x: ArrayView2<f32>,
    depth: usize,
    placement: Placement,
    gain: f64,
    seed: u64,
) -> Vec<f64> {
    let d = x.ncols();
    let mut rng = SplitMix64::new(seed);
    let mut stream = x.to_owned();
    let rms = |m: &Array2<f32>| {
        (m.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>() / m.len().max(1) as f64).sqrt()
    };
    let mut sizes = vec![rms(&stream)];
    for _ in 0..depth {
        let w = Array2::from_shape_simple_fn((d, d), || {
            (normal(&mut rng) * gain / (d as f64).sqrt()) as f32
        });
        stream = match placement {
            Placement::Pre => &stream + &layer_norm(stream.view()).dot(&w),
            Placement::Post => layer_norm((&stream + &stream.dot(&w)).view()),
        };
        sizes.push(rms(&stream));
    }
    sizes
}

/// A stack of `depth` random residual blocks in f64, the blocks of [`stream_growth`] (the same
/// draws of W), with a loss to backpropagate: L = Σ x_L ⊙ R / rows, R a fixed random readout.
/// Backpropagation here is written out by hand, block by block; a test checks it against
/// finite differences.
struct Stack {
    placement: Placement,
    /// [d, d] per block.
    weights: Vec<Array2<f64>>,
    /// [rows, d]
    readout: Array2<f64>,
}

/// The LayerNorm of the lab (ε = 10⁻⁶, no γ or β) on each row, in f64.
fn layer_norm_f64(x: &Array2<f64>) -> Array2<f64> {
    let mut out = x.clone();
    for mut row in out.rows_mut() {
        let (mean, variance) = mean_variance(row.iter().copied());
        let inverse = 1.0 / (variance + f64::from(crate::layer_norm::EPSILON)).sqrt();
        row.mapv_inplace(|v| (v - mean) * inverse);
    }
    out
}

/// The gradient through LayerNorm: with x̂ = (x − μ) / σ and g = ∂L/∂LN(x) on each row,
/// ∂L/∂x = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / σ.
fn layer_norm_backward(x: &Array2<f64>, g: &Array2<f64>) -> Array2<f64> {
    let mut out = g.clone();
    for (mut out_row, x_row) in out.rows_mut().into_iter().zip(x.rows()) {
        let (mean, variance) = mean_variance(x_row.iter().copied());
        let inverse = 1.0 / (variance + f64::from(crate::layer_norm::EPSILON)).sqrt();
        let normed: Vec<f64> = x_row.iter().map(|v| (v - mean) * inverse).collect();
        let d = normed.len().max(1) as f64;
        let g_mean = out_row.sum() / d;
        let g_dot = out_row.iter().zip(&normed).map(|(g, n)| g * n).sum::<f64>() / d;
        for (v, n) in out_row.iter_mut().zip(&normed) {
            *v = (*v - g_mean - n * g_dot) * inverse;
        }
    }
    out
}

impl Stack {
    fn new(
        rows: usize,
        d: usize,
        depth: usize,
        placement: Placement,
        gain: f64,
        seed: u64,
    ) -> Self {
        let mut rng = SplitMix64::new(seed);
        let weights = (0..depth)
            .map(|_| {
                Array2::from_shape_simple_fn((d, d), || {
                    f64::from((normal(&mut rng) * gain / (d as f64).sqrt()) as f32)
                })
            })
            .collect();
        let mut rng = SplitMix64::new(seed ^ 0x005e_ed0f_4ead);
        let readout = Array2::from_shape_simple_fn((rows, d), || normal(&mut rng));
        Self {
            placement,
            weights,
            readout,
        }
    }

    fn block(&self, l: usize, x: &Array2<f64>) -> Array2<f64> {
        let w = &self.weights[l];
        match self.placement {
            Placement::Pre => x + &layer_norm_f64(x).dot(w),
            Placement::Post => layer_norm_f64(&(x + &x.dot(w))),
        }
    }

    /// The stream entering block `from` is `x`: the loss at the end of the stack (what the
    /// finite differences of the test perturb).
    #[cfg(test)]
    fn loss_from(&self, from: usize, x: &Array2<f64>) -> f64 {
        let mut stream = x.clone();
        for l in from..self.weights.len() {
            stream = self.block(l, &stream);
        }
        (&stream * &self.readout).sum() / self.readout.nrows().max(1) as f64
    }

    /// ∂L/∂x_l for l = 0 … depth (x_0 the input, x_depth the last block's output).
    fn gradients(&self, x: &Array2<f64>) -> Vec<Array2<f64>> {
        let mut streams = vec![x.clone()];
        for l in 0..self.weights.len() {
            let next = self.block(l, &streams[l]);
            streams.push(next);
        }
        let mut g = &self.readout / self.readout.nrows().max(1) as f64;
        let mut gradients = vec![g.clone()];
        for l in (0..self.weights.len()).rev() {
            let (x, w) = (&streams[l], &self.weights[l]);
            g = match self.placement {
                // x + LN(x) W: the identity passes g on untouched.
                Placement::Pre => &g + &layer_norm_backward(x, &g.dot(&w.t())),
                // LN(x + x W): every path goes through the LayerNorm.
                Placement::Post => {
                    let through = layer_norm_backward(&(x + &x.dot(w)), &g);
                    &through + &through.dot(&w.t())
                }
            };
            gradients.push(g.clone());
        }
        gradients.reverse();
        gradients
    }
}

/// The size of the gradient ∂L/∂x_l at the input of each block l = 0 … `depth` (the last is the
/// stack's output), relative to the output's: the blocks of [`stream_growth`] (same draws), at
/// initialisation, for a loss that reads the output through a fixed random readout. Pre-LN's
/// identity path hands every block at least the gradient the output gets; under Post-LN every
/// block's gradient has passed through the LayerNorms above it.
pub fn gradient_flow(
    x: ArrayView2<f32>,
    depth: usize,
    placement: Placement,
    gain: f64,
    seed: u64,
) -> Vec<f64> {
    let stack = Stack::new(x.nrows(), x.ncols(), depth, placement, gain, seed);
    let norm = |g: &Array2<f64>| g.iter().map(|v| v * v).sum::<f64>().sqrt();
    let gradients = stack.gradients(&x.mapv(f64::from));
    let top = gradients
        .last()
        .map(norm)
        .unwrap_or(1.0)
        .max(f64::MIN_POSITIVE);
    gradients.iter().map(|g| norm(g) / top).collect()
}

// ---------------------------------------------------------------------------------------------
// Numerical stability and precision
// ---------------------------------------------------------------------------------------------

/// The largest finite f16.
pub const F16_MAX: f32 = 65504.0;

/// `x` rounded to the nearest f16 (ties to even), as f32: ±∞ beyond the f16 range, subnormals
/// below 2⁻¹⁴, exactly as an f16 store would.
pub fn to_f16(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let bits = f16_bits(x);
    crate::api::f16_to_f32(bits)
}

/// IEEE 754 binary16 bits of `x`, rounded to nearest, ties to even.
pub fn f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x007f_ffff;
    if exponent == 0xff {
        return sign | 0x7c00 | if mantissa != 0 { 0x200 } else { 0 };
    }
    let e = exponent - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00; // overflow: ±∞
    }
    if e <= 0 {
        // Subnormal (or zero): shift the implicit 1 in, round to nearest even.
        if e < -10 {
            return sign;
        }
        let m = mantissa | 0x0080_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rounded = m + half - 1 + ((m >> shift) & 1);
        return sign | (rounded >> shift) as u16;
    }
    let rounded = mantissa + 0x0fff + ((mantissa >> 13) & 1);
    if rounded & 0x0080_0000 != 0 {
        // The mantissa carried into the exponent.
        let e = e + 1;
        if e >= 0x1f {
            return sign | 0x7c00;
        }
        return sign | ((e as u16) << 10);
    }
    sign | ((e as u16) << 10) | (rounded >> 13) as u16
}

/// What softmax gives when computed one way or another, in a precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    F32,
    /// Every intermediate rounded to f16.
    F16,
}

fn round(x: f32, precision: Precision) -> f32 {
    match precision {
        Precision::F32 => x,
        Precision::F16 => to_f16(x),
    }
}

/// softmax of `scores` · `factor` + `shift`, without subtracting the row maximum (`stable`
/// false) or with it, every step rounded to `precision`. Adding the same `shift` to every score
/// changes no weight in exact arithmetic; without the maximum it decides how exp fails: above
/// ln(largest float) (88.7 in f32, 11.09 in f16) it overflows to ∞ and ∞ / ∞ gives NaN; when
/// every exponent is below the smallest float's log (−104 in f32, −17.3 in f16) every exp rounds
/// to 0 and 0 / 0 gives NaN.
pub fn softmax_in(
    scores: ArrayView1<f32>,
    factor: f32,
    shift: f32,
    stable: bool,
    precision: Precision,
) -> Vec<f32> {
    let exponents = exponents_in(scores, factor, shift, stable, precision);
    let exps: Vec<f32> = exponents
        .iter()
        .map(|&s| round(s.exp(), precision))
        .collect();
    let sum = exps
        .iter()
        .fold(0.0f32, |acc, &e| round(acc + e, precision));
    exps.iter().map(|&e| round(e / sum, precision)).collect()
}

/// What exp receives in [`softmax_in`]: k · s + c rounded to `precision`, minus the largest when
/// `stable`.
fn exponents_in(
    scores: ArrayView1<f32>,
    factor: f32,
    shift: f32,
    stable: bool,
    precision: Precision,
) -> Vec<f32> {
    let scaled: Vec<f32> = scores
        .iter()
        .map(|&s| round(round(s * factor, precision) + shift, precision))
        .collect();
    let max = if stable {
        scaled.iter().cloned().fold(f32::NEG_INFINITY, f32::max)
    } else {
        0.0
    };
    scaled.iter().map(|&s| round(s - max, precision)).collect()
}

/// How a softmax computed without subtracting the maximum fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakdown {
    /// An exp, or their sum, passed the largest float: ∞ / ∞ = NaN (or every weight 0).
    Overflow,
    /// Every exp rounded to 0: 0 / 0 = NaN.
    Underflow,
}

impl Breakdown {
    /// "overflow" or "underflow", as the JSON names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Overflow => "overflow",
            Self::Underflow => "underflow",
        }
    }
}

/// How the naive softmax of `scores` · `factor` + `shift` fails in `precision`, if it does: a
/// weight that is not finite, or weights that no longer sum to 1 (an overflowing sum makes them
/// all 0).
pub fn breakdown(
    scores: ArrayView1<f32>,
    factor: f32,
    shift: f32,
    precision: Precision,
) -> Option<Breakdown> {
    if scores.is_empty() {
        return None;
    }
    let weights = softmax_in(scores, factor, shift, false, precision);
    let sum: f32 = weights.iter().sum();
    if weights.iter().all(|w| w.is_finite()) && (sum - 1.0).abs() < 0.01 {
        return None;
    }
    let exps: Vec<f32> = exponents_in(scores, factor, shift, false, precision)
        .iter()
        .map(|&s| round(s.exp(), precision))
        .collect();
    if exps.iter().all(|&e| e == 0.0) {
        Some(Breakdown::Underflow)
    } else {
        Some(Breakdown::Overflow)
    }
}

/// Where the naive softmax first fails as the factor k grows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakPoint {
    /// The smallest k (to about 4 significant figures) at which it fails.
    pub factor: f32,
    pub kind: Breakdown,
    /// The largest exponent, k · max + c, at that k: about ln(largest float) for an overflow
    /// of the largest exp, a little less when the sum overflows first, and about ln(smallest
    /// float) for an underflow.
    pub exponent: f32,
    /// An overflow of the sum while every exp still fits (several scores near the largest).
    pub sum_first: bool,
}

/// The smallest factor k in (0, `limit`] at which the unstable softmax of `scores` · k +
/// `shift` fails in `precision`, and how; `None` if it never does below `limit`. The factors
/// are scanned on a log grid from 10⁻³ first (failure need not be monotone in k: a negative
/// shift underflows small factors), then the first failure is narrowed by bisection.
pub fn break_point(
    scores: ArrayView1<f32>,
    shift: f32,
    precision: Precision,
    limit: f32,
) -> Option<BreakPoint> {
    let fails = |k: f32| breakdown(scores, k, shift, precision);
    let steps = 280;
    let low_end = 1e-3f32;
    let grid = |i: usize| low_end * (limit / low_end).powf(i as f32 / steps as f32);
    let first = (0..=steps).find(|&i| fails(grid(i)).is_some())?;
    let (mut low, mut high) = (if first == 0 { 0.0 } else { grid(first - 1) }, grid(first));
    for _ in 0..40 {
        let mid = 0.5 * (low + high);
        if fails(mid).is_some() {
            high = mid;
        } else {
            low = mid;
        }
    }
    let kind = fails(high)?;
    let largest = scores.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let every_exp_fits = exponents_in(scores, high, shift, false, precision)
        .iter()
        .all(|&s| round(s.exp(), precision).is_finite());
    Some(BreakPoint {
        factor: high,
        kind,
        exponent: high * largest + shift,
        sum_first: kind == Breakdown::Overflow && every_exp_fits,
    })
}

/// QKᵀ computed with inputs and products rounded to f16 (and sums kept in f16), against f32: the
/// largest absolute and relative error.
pub fn f16_matmul_error(q: ArrayView2<f32>, k: ArrayView2<f32>) -> (f32, f32) {
    let exact = q.dot(&k.t());
    let mut worst = (0.0f32, 0.0f32);
    for (i, qi) in q.outer_iter().enumerate() {
        for (j, kj) in k.outer_iter().enumerate() {
            let half = qi.iter().zip(kj.iter()).fold(0.0f32, |acc, (&a, &b)| {
                to_f16(acc + to_f16(to_f16(a) * to_f16(b)))
            });
            let error = (half - exact[[i, j]]).abs();
            worst.0 = worst.0.max(error);
            worst.1 = worst.1.max(error / exact[[i, j]].abs().max(1e-3));
        }
    }
    worst
}

// ---------------------------------------------------------------------------------------------
// Cost, sparse and linear attention
// ---------------------------------------------------------------------------------------------

/// The slope of log(y) against log(x) by least squares: 2 for something that grows as n².
pub fn log_log_slope(points: &[(f64, f64)]) -> f64 {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    let n = logs.len() as f64;
    let (mx, my) = (
        logs.iter().map(|p| p.0).sum::<f64>() / n,
        logs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let cov: f64 = logs.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let var: f64 = logs.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    cov / var
}

/// A sparse attention pattern (Child et al., 2019), as the allowed cells of an n × n causal mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SparsePattern {
    /// Each query sees the previous `stride` keys and every `stride`-th key before them.
    Strided { stride: usize },
    /// Each query sees its own block of `stride` keys and the last key of every earlier block.
    Fixed { stride: usize },
}

impl SparsePattern {
    /// [n, n]: true where query i may look at key j.
    pub fn mask(self, n: usize) -> Array2<bool> {
        Array2::from_shape_fn((n, n), |(i, j)| {
            if j > i {
                return false;
            }
            match self {
                Self::Strided { stride } => i - j < stride || (i - j) % stride == 0,
                Self::Fixed { stride } => i / stride == j / stride || j % stride == stride - 1,
            }
        })
    }
}

/// The cells a mask lets attention compute.
pub fn allowed_cells(mask: &Array2<bool>) -> usize {
    mask.iter().filter(|&&a| a).count()
}

/// elu(x) + 1: the feature map of linear attention (Katharopoulos et al., 2020), always > 0.
pub fn elu_plus_one(x: f32) -> f32 {
    if x > 0.0 { x + 1.0 } else { x.exp() }
}

/// Linear attention: φ(Q) (φ(K)ᵀ V) normalised by φ(Q) (φ(K)ᵀ 1), φ = elu + 1, with a causal
/// version that sums keys up to each query. Cost O(n · d_k · d_v) instead of O(n² · d). Returns
/// [n, d_v].
pub fn linear_attention(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    causal: bool,
) -> Array2<f32> {
    let fq = q.mapv(elu_plus_one);
    let fk = k.mapv(elu_plus_one);
    let (n, d_v) = (q.nrows(), v.ncols());
    let mut out = Array2::zeros((n, d_v));
    if causal {
        let mut kv = Array2::<f32>::zeros((k.ncols(), d_v));
        let mut z = Array1::<f32>::zeros(k.ncols());
        for i in 0..n {
            for a in 0..k.ncols() {
                for b in 0..d_v {
                    kv[[a, b]] += fk[[i, a]] * v[[i, b]];
                }
                z[a] += fk[[i, a]];
            }
            let num = fq.row(i).dot(&kv);
            let den = fq.row(i).dot(&z);
            out.row_mut(i).assign(&(num / den));
        }
    } else {
        let kv = fk.t().dot(&v);
        let z = fk.sum_axis(ndarray::Axis(0));
        for i in 0..n {
            let num = fq.row(i).dot(&kv);
            let den = fq.row(i).dot(&z);
            out.row_mut(i).assign(&(num / den));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, array};

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn entropy_is_zero_for_one_hot_and_ln_n_for_uniform() {
        assert_eq!(entropy(&[1.0, 0.0, 0.0]), 0.0);
        assert!(close(entropy(&[0.25; 4]), 4f64.ln(), 1e-12));
        assert!(close(entropy(&[0.5, 0.5]), 2f64.ln(), 1e-12));
    }

    #[test]
    fn the_temperature_sweep_runs_from_arg_max_to_uniform() {
        let scores = array![2.0f32, 1.0, 0.0, -1.0];
        let sweep = temperature_sweep(scores.view(), 0.05, 10.0, 25);
        assert_eq!(sweep.len(), 25);
        assert!(
            close(sweep[0].temperature, 0.05, 1e-12) && close(sweep[24].temperature, 10.0, 1e-9)
        );
        assert!(sweep[0].largest > 0.999_99, "cold: arg-max");
        assert!(
            close(sweep[24].entropy, 4f64.ln(), 0.02),
            "hot: close to uniform"
        );
        assert!(
            sweep.windows(2).all(|w| w[1].entropy >= w[0].entropy),
            "entropy grows with T"
        );
        // Hand-worked: softmax([2, 1, 0, −1]) at T = 1.
        let w = softmax(scores.view(), 1.0);
        let e: Vec<f64> = [2.0f64, 1.0, 0.0, -1.0].iter().map(|s| s.exp()).collect();
        let sum: f64 = e.iter().sum();
        assert!(w.iter().zip(&e).all(|(a, b)| close(*a, b / sum, 1e-12)));
    }

    #[test]
    fn the_variance_of_a_dot_product_grows_as_d_k_and_scaling_brings_it_back_to_one() {
        for d_k in [4, 64, 512] {
            let (raw, scaled) = dot_variance(d_k, 4000, 7);
            let d = d_k as f64;
            assert!((raw / d - 1.0).abs() < 0.1, "d_k {d_k}: variance {raw}");
            assert!(
                (scaled - 1.0).abs() < 0.1,
                "d_k {d_k}: scaled variance {scaled}"
            );
        }
        let q = array![[1.0f32, 0.0], [0.0, 1.0]];
        let k = array![[1.0f32, 1.0], [-1.0, 1.0]];
        // q·k = [[1, −1], [1, 1]]: mean ½, variance ¾; divided by d_k = 2 for the scaled dot.
        let (raw, scaled) = head_dot_variance(q.view(), k.view());
        assert!(close(raw, 0.75, 1e-9) && close(scaled, 0.375, 1e-9));
    }

    #[test]
    fn saturation_kills_the_softmax_gradient() {
        assert!(close(saturation_gradient(&[0.5, 0.5]), 0.25, 1e-12));
        let unscaled = softmax(array![40.0f32, 0.0, -40.0].view(), 1.0);
        assert!(saturation_gradient(&unscaled) < 1e-12);
        assert_eq!(
            histogram(&[-5.0, 0.1, 0.2, 0.9, 7.0], 0.0, 1.0, 2),
            vec![3, 2]
        );
    }

    #[test]
    fn head_distance_is_zero_for_identical_and_one_for_disjoint_heads() {
        let a = array![[1.0f32, 0.0], [0.0, 1.0]];
        let b = array![[0.0f32, 1.0], [1.0, 0.0]];
        assert_eq!(head_distance(a.view(), a.view()), 0.0);
        assert_eq!(head_distance(a.view(), b.view()), 1.0);
        let c = array![[0.5f32, 0.5], [0.5, 0.5]];
        assert!(close(head_distance(a.view(), c.view()), 0.5, 1e-9));
    }

    #[test]
    fn parameters_and_kv_cache_follow_the_shape() {
        // 8 heads of 64 over d_model 512: 4 · 512² parameters, as one head of 512 would have.
        assert_eq!(attention_parameters(512, 8, 8, 64, 64), 4 * 512 * 512);
        assert_eq!(attention_parameters(512, 1, 1, 512, 512), 4 * 512 * 512);
        // Multi-query: K and V shrink to one head.
        assert_eq!(
            attention_parameters(512, 8, 1, 64, 64),
            2 * 512 * 512 + 2 * 512 * 64
        );
        assert_eq!(kv_cache_bytes(8, 64, 64, 2), 2048);
        assert_eq!(kv_cache_bytes(1, 64, 64, 2), 256);
    }

    #[test]
    fn pre_ln_lets_the_stream_grow_and_post_ln_holds_it() {
        let x = Array2::from_shape_fn((6, 32), |(i, j)| ((i * 7 + j * 3) % 11) as f32 / 5.0 - 1.0);
        let pre = stream_growth(x.view(), 12, Placement::Pre, 1.0, 3);
        let post = stream_growth(x.view(), 12, Placement::Post, 1.0, 3);
        assert_eq!(pre.len(), 13);
        assert!(pre[12] > 2.0 * pre[1], "Pre-LN grows: {pre:?}");
        assert!(
            post[1..].iter().all(|s| close(*s, 1.0, 0.01)),
            "Post-LN stays at 1: {post:?}"
        );
        let stats = row_stats(array![[1.0f32, 3.0], [2.0, 2.0]].view());
        assert_eq!(stats, vec![(2.0, 1.0), (2.0, 0.0)]);
    }

    #[test]
    fn f16_rounding_matches_ieee_binary16() {
        assert_eq!(f16_bits(1.0), 0x3c00);
        assert_eq!(f16_bits(-2.0), 0xc000);
        assert_eq!(f16_bits(65504.0), 0x7bff);
        assert_eq!(f16_bits(65520.0), 0x7c00, "rounds up to ∞");
        assert_eq!(
            f16_bits(65519.0),
            0x7bff,
            "rounds down to the largest finite"
        );
        assert_eq!(f16_bits(1.0 + 1.0 / 2048.0), 0x3c00, "a tie goes to even");
        assert_eq!(f16_bits(1.0 + 3.0 / 2048.0), 0x3c02, "a tie goes to even");
        assert_eq!(f16_bits(2f32.powi(-24)), 0x0001, "the smallest subnormal");
        assert_eq!(f16_bits(2f32.powi(-26)), 0x0000, "below half of it: zero");
        assert_eq!(f16_bits(f32::INFINITY), 0x7c00);
        assert!(to_f16(f32::NAN).is_nan());
        assert_eq!(to_f16(0.1), 0.099_975_586);
        // Every f16 survives the round trip.
        for bits in 0u16..0x7c00 {
            let x = crate::api::f16_to_f32(bits);
            assert_eq!(f16_bits(x), bits, "{bits:#06x}");
            assert_eq!(f16_bits(-x), bits | 0x8000);
        }
    }

    /// Backpropagation through the stack, checked against central finite differences of the
    /// loss at the input of every block, for both placements.
    #[test]
    fn backpropagation_through_the_stack_matches_finite_differences() {
        let mut rng = SplitMix64::new(3);
        let x = Array2::from_shape_simple_fn((3, 5), || normal(&mut rng));
        for placement in [Placement::Pre, Placement::Post] {
            let stack = Stack::new(3, 5, 4, placement, 1.0, 9);
            let gradients = stack.gradients(&x);
            assert_eq!(gradients.len(), 5);
            let mut streams = vec![x.clone()];
            for l in 0..4 {
                let next = stack.block(l, &streams[l]);
                streams.push(next);
            }
            for l in 0..=4 {
                for (i, j) in [(0, 0), (1, 3), (2, 4)] {
                    let h = 1e-5;
                    let (mut up, mut down) = (streams[l].clone(), streams[l].clone());
                    up[[i, j]] += h;
                    down[[i, j]] -= h;
                    let numeric = (stack.loss_from(l, &up) - stack.loss_from(l, &down)) / (2.0 * h);
                    let analytic = gradients[l][[i, j]];
                    assert!(
                        (numeric - analytic).abs() < 1e-6 * (1.0 + analytic.abs()),
                        "{placement:?} block {l} ({i}, {j}): {numeric} against {analytic}"
                    );
                }
            }
        }
    }

    /// Pre-LN's identity path hands the output's gradient to every block, and each block adds
    /// its own: the gradient at the input is several times the output's. Post-LN's passes a
    /// LayerNorm per block and arrives at the input smaller than Pre-LN's.
    #[test]
    fn pre_ln_carries_the_gradient_down_and_post_ln_passes_it_through_every_layer_norm() {
        for d in [16, 64] {
            let mut rng = SplitMix64::new(1);
            let x = Array2::from_shape_simple_fn((11, d), || normal(&mut rng) as f32);
            let pre = gradient_flow(x.view(), 24, Placement::Pre, 1.0, 0);
            let post = gradient_flow(x.view(), 24, Placement::Post, 1.0, 0);
            assert_eq!((pre.len(), post.len()), (25, 25));
            assert_eq!((pre[24], post[24]), (1.0, 1.0), "relative to the output's");
            assert!(pre[0] > 3.0, "{pre:?}");
            assert!(pre.iter().all(|&g| g >= 0.99), "{pre:?}");
            assert!(
                pre.windows(2).filter(|w| w[0] < w[1]).count() <= 3,
                "{pre:?}"
            );
            assert!(post[0] < pre[0], "{post:?}");
        }
    }

    #[test]
    fn unstable_softmax_overflows_at_ln_of_the_largest_float() {
        let scores = array![1.0f32, 0.5, 0.0];
        let f16 = break_point(scores.view(), 0.0, Precision::F16, 1000.0).unwrap();
        assert_eq!(f16.kind, Breakdown::Overflow);
        assert!(
            (f16.factor - 65504f32.ln()).abs() < 0.01 && (f16.exponent - 11.09).abs() < 0.01,
            "f16 breaks at k ≈ 11.09: {f16:?}"
        );
        let f32_ = break_point(scores.view(), 0.0, Precision::F32, 1000.0).unwrap();
        assert_eq!(f32_.kind, Breakdown::Overflow);
        assert!(
            (f32_.factor - f32::MAX.ln()).abs() < 0.05,
            "f32 breaks at k ≈ 88.7: {f32_:?}"
        );
        let broken = softmax_in(scores.view(), 20.0, 0.0, false, Precision::F16);
        assert!(broken[0].is_nan(), "∞/∞: {broken:?}");
        for precision in [Precision::F16, Precision::F32] {
            let stable = softmax_in(scores.view(), 1000.0, 0.0, true, precision);
            assert!(stable.iter().all(|w| w.is_finite()));
            assert!((stable[0] - 1.0).abs() < 1e-3);
        }
        assert_eq!(
            break_point(array![0.0f32, 0.0].view(), 0.0, Precision::F16, 1000.0),
            None
        );
        // A shift changes nothing in exact arithmetic, and moves the break: + 5 overflows f16
        // once k · 1 + 5 passes 11.09.
        let shifted = break_point(scores.view(), 5.0, Precision::F16, 1000.0).unwrap();
        // (the sum of the three exps passes 65 504 a little before the largest alone does)
        assert_eq!(shifted.kind, Breakdown::Overflow);
        assert!(shifted.factor > 5.9 && shifted.factor < 6.09, "{shifted:?}");
    }

    #[test]
    fn unstable_softmax_of_negative_scores_underflows_instead() {
        // Every score negative (as on many rows): exp cannot overflow; once every k · s is
        // below ln(2⁻²⁵) ≈ −17.33 in f16 every exp rounds to 0 and 0/0 = NaN.
        let scores = array![-0.68f32, -1.5, -2.0];
        let f16 = break_point(scores.view(), 0.0, Precision::F16, 1e4).unwrap();
        assert_eq!(f16.kind, Breakdown::Underflow);
        assert!((f16.exponent + 17.33).abs() < 0.02, "{f16:?}");
        assert!((f16.factor - 25.5).abs() < 0.05, "{f16:?}");
        let f32_ = break_point(scores.view(), 0.0, Precision::F32, 1e4).unwrap();
        assert_eq!(f32_.kind, Breakdown::Underflow);
        assert!((f32_.exponent + 103.97).abs() < 0.05, "{f32_:?}");
        let broken = softmax_in(scores.view(), 30.0, 0.0, false, Precision::F16);
        assert!(broken.iter().all(|w| w.is_nan()), "0/0: {broken:?}");
        assert_eq!(
            breakdown(scores.view(), 30.0, 0.0, Precision::F16),
            Some(Breakdown::Underflow)
        );
        assert_eq!(breakdown(scores.view(), 1.0, 0.0, Precision::F16), None);
        // Shifted up by 12 the same row overflows at k = 1: the largest exponent is 11.32.
        assert_eq!(
            breakdown(scores.view(), 1.0, 12.0, Precision::F16),
            Some(Breakdown::Overflow)
        );
        // The stable softmax is the same at every shift and never breaks.
        let stable = softmax_in(scores.view(), 30.0, 0.0, true, Precision::F16);
        assert!(stable.iter().all(|w| w.is_finite()) && stable[0] > 0.99);
        assert_eq!(
            stable,
            softmax_in(scores.view(), 30.0, 7.0, true, Precision::F16)
        );
    }

    #[test]
    fn a_sum_that_overflows_zeroes_every_weight_and_counts_as_overflow() {
        // 20 equal scores: each exp(10) = 22 026 fits in f16, their sum does not.
        let scores = Array1::from_elem(20, 1.0f32);
        let weights = softmax_in(scores.view(), 10.0, 0.0, false, Precision::F16);
        assert!(weights.iter().all(|&w| w == 0.0), "{weights:?}");
        assert_eq!(
            breakdown(scores.view(), 10.0, 0.0, Precision::F16),
            Some(Breakdown::Overflow)
        );
        let at = break_point(scores.view(), 0.0, Precision::F16, 1e4).unwrap();
        assert!(at.exponent < 11.09 - 2.9, "ln(65504 / 20) = 8.09: {at:?}");
        assert!(at.sum_first, "{at:?}");
        let alone = break_point(array![1.0f32, -5.0].view(), 0.0, Precision::F16, 1e4).unwrap();
        assert!(
            !alone.sum_first && (alone.exponent - 11.09).abs() < 0.01,
            "{alone:?}"
        );
    }

    #[test]
    fn qk_in_f16_loses_digits_that_f32_keeps() {
        let q = Array2::from_shape_fn((4, 64), |(i, j)| ((i * 13 + j * 7) % 17) as f32 / 3.0 - 2.5);
        let k = Array2::from_shape_fn((5, 64), |(i, j)| ((i * 5 + j * 11) % 19) as f32 / 4.0 - 2.0);
        let (absolute, relative) = f16_matmul_error(q.view(), k.view());
        assert!(absolute > 1e-3, "f16 leaves an error: {absolute}");
        assert!(relative < 0.05, "but a small one: {relative}");
    }

    #[test]
    fn the_log_log_slope_of_n_squared_is_two() {
        let points: Vec<(f64, f64)> = [64.0, 128.0, 256.0, 512.0]
            .iter()
            .map(|&n: &f64| (n, 3.0 * n * n))
            .collect();
        assert!(close(log_log_slope(&points), 2.0, 1e-12));
    }

    #[test]
    fn sparse_patterns_compute_about_n_root_n_cells() {
        let n = 64;
        let stride = 8;
        for pattern in [
            SparsePattern::Strided { stride },
            SparsePattern::Fixed { stride },
        ] {
            let mask = pattern.mask(n);
            assert!(
                (0..n).all(|i| mask[[i, i]]),
                "{pattern:?}: every token sees itself"
            );
            assert!(
                (0..n).all(|i| (i + 1..n).all(|j| !mask[[i, j]])),
                "{pattern:?}: causal"
            );
            let cells = allowed_cells(&mask);
            assert!(
                cells < n * (n + 1) / 2 / 2,
                "{pattern:?}: {cells} of {}",
                n * (n + 1) / 2
            );
            assert!(
                cells <= 2 * n * stride,
                "{pattern:?}: about n√n = {}",
                n * stride
            );
        }
        // Strided, stride 2, n 4: rows see {0}, {0,1}, {0,1,2}, {1,2,3}.
        let mask = SparsePattern::Strided { stride: 2 }.mask(4);
        assert_eq!(allowed_cells(&mask), 1 + 2 + 3 + 3);
        assert!(!mask[[3, 0]] && mask[[3, 1]]);
    }

    #[test]
    fn linear_attention_equals_its_formula() {
        let q = array![[0.5f32, -1.0], [1.0, 0.0], [-0.5, 2.0]];
        let k = array![[1.0f32, 0.5], [-2.0, 0.0], [0.0, 1.0]];
        let v = array![[1.0f32, 0.0, 2.0], [0.0, 1.0, -1.0], [3.0, 1.0, 0.0]];
        let phi = |x: f32| if x > 0.0 { x + 1.0 } else { x.exp() };
        for causal in [false, true] {
            let out = linear_attention(q.view(), k.view(), v.view(), causal);
            for i in 0..3 {
                let keys = if causal { i + 1 } else { 3 };
                let sims: Vec<f32> = (0..keys)
                    .map(|j| (0..2).map(|a| phi(q[[i, a]]) * phi(k[[j, a]])).sum())
                    .collect();
                let total: f32 = sims.iter().sum();
                for b in 0..3 {
                    let expected: f32 = (0..keys).map(|j| sims[j] * v[[j, b]]).sum::<f32>() / total;
                    assert!(
                        (out[[i, b]] - expected).abs() < 1e-5,
                        "causal {causal} [{i}][{b}]"
                    );
                }
            }
        }
        let row: Array1<f32> = linear_attention(q.view(), k.view(), v.view(), true)
            .row(0)
            .to_owned();
        assert_eq!(row, v.row(0), "the first query sees only the first value");
    }
}
