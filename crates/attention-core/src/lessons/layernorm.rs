//! The layernorm chapter: each token before and after; a stack of blocks under Pre-LN and Post-LN.

use crate::experiments::{Placement, gradient_flow, row_stats, stream_growth};
use crate::layer_norm::layer_norm;
use crate::trace::Trace;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;
    use crate::lessons::{Chapter, Experiment, Focus, experiment, trace};

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
