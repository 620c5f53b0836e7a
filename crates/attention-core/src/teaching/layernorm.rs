//! The layernorm chapter: each token before and after; a stack of blocks under Pre-LN and Post-LN.

use ndarray::{Array2, ArrayView2};

use crate::math::norm::layer_norm;
use crate::math::rng::SplitMix64;
use crate::pipeline::trace::Trace;
use crate::teaching::stats::{mean_variance, normal};

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

pub(super) fn run(trace: &Trace) -> LayernormExperiment {
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
        let inverse = 1.0 / (variance + f64::from(crate::math::norm::EPSILON)).sqrt();
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
        let inverse = 1.0 / (variance + f64::from(crate::math::norm::EPSILON)).sqrt();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};
    use ndarray::array;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn pre_ln_lets_a_synthetic_stream_grow_and_post_ln_holds_it() {
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
}
