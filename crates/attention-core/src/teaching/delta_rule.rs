//! The delta-rule chapter: why a state of fixed size forgets, and what the delta rule and the
//! decay do about it. Key–value pairs are written into a d_k × d_v state one after another, and
//! then each key asks for its value back: with plain linear attention (S ← S + k vᵀ) the
//! answers blur as soon as keys overlap; with the delta rule (S ← S + k β (v − Sᵀk)) each write
//! first removes what the state already said for its key, so the newest pairs come back exactly
//! and the older ones degrade only once more pairs than d_k dimensions crowd the state; with a
//! decay α < 1 the oldest fade on purpose. And on the learner's own sentence: the selected head
//! as the gated delta rule, its chunked form against token by token for several chunk sizes.

use ndarray::{Array1, Array2};

use crate::math::linear::{LinearKind, LinearSpec, delta_step};
use crate::math::rng::{SplitMix64, stream_seed};
use crate::pipeline::trace::Trace;

use super::focus::Focus;
use super::linear::linear_view;

/// The decay of the gated rule in the recall test.
pub const RECALL_ALPHA: f32 = 0.9;
/// The chunk sizes the sentence's check runs.
pub const CHUNKS: [usize; 4] = [1, 4, 16, 64];

/// How well each rule gives back what was written.
#[derive(Debug, Clone, PartialEq)]
pub struct DeltaRuleExperiment {
    /// The state's key dimensions (the lab's d_k) and value dimensions (d_v).
    pub d_k: usize,
    pub d_v: usize,
    /// How many pairs were written, for each point.
    pub pairs: Vec<usize>,
    /// Mean relative recall error ‖Sᵀk_i − v_i‖ / ‖v_i‖ over every pair written, for plain
    /// linear attention, the delta rule (β = 1) and the gated delta rule (α = [`RECALL_ALPHA`]).
    pub additive: Vec<f64>,
    pub delta: Vec<f64>,
    pub gated: Vec<f64>,
    /// The delta rule's error for the newest pair only (the one written last).
    pub delta_newest: Vec<f64>,
    /// The mean error over the last d_k / 4 pairs written, for the delta rule and the gated one:
    /// what the decay buys (recent pairs cleaner, old ones let go).
    pub delta_recent: Vec<f64>,
    pub gated_recent: Vec<f64>,
    /// The selected head of the learner's sentence as the gated delta rule: chunked against token
    /// by token, for each of [`CHUNKS`] (`None` where the view cannot be drawn).
    pub head: usize,
    pub chunk_diffs: Option<Vec<(usize, f32)>>,
}

/// A unit vector of `n` numbers drawn from `rng`.
fn unit(rng: &mut SplitMix64, n: usize) -> Array1<f32> {
    let v = Array1::from_shape_simple_fn(n, || rng.next_unit() as f32 * 2.0 - 1.0);
    let norm = v.dot(&v).sqrt().max(f32::MIN_POSITIVE);
    v / norm
}

/// The recall test with `pairs` pairs of the given keys and values under `rule`: the relative
/// error of every pair, oldest first.
fn recall(keys: &[Array1<f32>], values: &[Array1<f32>], rule: Rule) -> Vec<f64> {
    let (d_k, d_v) = (keys[0].len(), values[0].len());
    let mut state = Array2::<f32>::zeros((d_k, d_v));
    for (k, v) in keys.iter().zip(values) {
        match rule {
            Rule::Additive => {
                for (mut row, &k_i) in state.rows_mut().into_iter().zip(k) {
                    row.scaled_add(k_i, v);
                }
            }
            Rule::Delta(alpha) => {
                delta_step(&mut state, [k.view(), k.view(), v.view()], 1.0, alpha.ln());
            }
        }
    }
    let error = |k: &Array1<f32>, v: &Array1<f32>| {
        let back = state.t().dot(k);
        let d = &back - v;
        f64::from(d.dot(&d).sqrt() / v.dot(v).sqrt().max(f32::MIN_POSITIVE))
    };
    keys.iter().zip(values).map(|(k, v)| error(k, v)).collect()
}

fn mean(errors: &[f64]) -> f64 {
    errors.iter().sum::<f64>() / errors.len().max(1) as f64
}

#[derive(Clone, Copy)]
enum Rule {
    Additive,
    /// The delta rule with β = 1 and this decay (1: none).
    Delta(f32),
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> DeltaRuleExperiment {
    let dims = trace.config.dims();
    let (d_k, d_v) = (dims.d_k.max(1), dims.d_v.max(1));
    let mut rng = SplitMix64::new(stream_seed(trace.config.seed(), "delta_rule_recall"));
    // Up to four times as many pairs as the state has key dimensions.
    let most = 4 * d_k;
    let keys: Vec<Array1<f32>> = (0..most).map(|_| unit(&mut rng, d_k)).collect();
    let values: Vec<Array1<f32>> = (0..most).map(|_| unit(&mut rng, d_v)).collect();
    let mut pairs: Vec<usize> = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
        .into_iter()
        .filter(|&n| n < most)
        .collect();
    pairs.extend(
        [d_k / 2, d_k, 2 * d_k, most]
            .into_iter()
            .filter(|&n| n >= 1),
    );
    pairs.sort_unstable();
    pairs.dedup();
    let mut out = DeltaRuleExperiment {
        d_k,
        d_v,
        pairs: pairs.clone(),
        additive: Vec::new(),
        delta: Vec::new(),
        gated: Vec::new(),
        delta_newest: Vec::new(),
        delta_recent: Vec::new(),
        gated_recent: Vec::new(),
        head: focus.head(trace),
        chunk_diffs: None,
    };
    let recent_count = (d_k / 4).max(1);
    for &n in &pairs {
        let (k, v) = (&keys[..n], &values[..n]);
        let recent = |errors: &[f64]| mean(&errors[errors.len().saturating_sub(recent_count)..]);
        out.additive.push(mean(&recall(k, v, Rule::Additive)));
        let delta = recall(k, v, Rule::Delta(1.0));
        out.delta.push(mean(&delta));
        out.delta_newest.push(delta[delta.len() - 1]);
        out.delta_recent.push(recent(&delta));
        let gated = recall(k, v, Rule::Delta(RECALL_ALPHA));
        out.gated.push(mean(&gated));
        out.gated_recent.push(recent(&gated));
    }
    out.chunk_diffs = CHUNKS
        .into_iter()
        .map(|chunk| {
            let spec = LinearSpec {
                kind: LinearKind::GatedDelta,
                chunk,
            };
            linear_view(trace, spec, out.head).map(|v| (chunk, v.chunked_diff))
        })
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::config::Params;

    #[test]
    fn the_delta_rule_recalls_what_plain_linear_attention_blurs() {
        let config = Params {
            d_model: Some(64),
            d_k: Some(16),
            ..Params::sentence("The cat sat on the mat because it was tired.")
        }
        .validate()
        .unwrap();
        let trace = crate::compute_trace(&config);
        let e = run(&trace, &Focus::default());
        assert_eq!((e.d_k, e.pairs.last().copied()), (16, Some(64)));
        let at = |n: usize| e.pairs.iter().position(|&p| p == n).unwrap();
        // One pair comes back exactly under every rule (a unit key, β = 1).
        for errors in [&e.additive, &e.delta] {
            assert!(errors[at(1)] < 1e-5, "{errors:?}");
        }
        // The delta rule gives back more than the sum at every count, its newest pair exactly;
        // the more pairs crowd the state, the worse even it recalls.
        for i in 1..e.pairs.len() {
            assert!(e.delta[i] < e.additive[i], "{e:?}");
        }
        assert!(e.delta_newest.iter().all(|&x| x < 1e-4), "{e:?}");
        assert!(e.delta[at(64)] > e.delta[at(8)]);
        // The decay lets old pairs go: past the state's size its recent pairs come back cleaner.
        assert!(e.gated_recent[at(64)] < e.delta_recent[at(64)], "{e:?}");
        // The sentence's head: chunks of every size give the token-by-token numbers.
        let diffs = e.chunk_diffs.unwrap();
        assert_eq!(diffs.len(), CHUNKS.len());
        assert!(diffs.iter().all(|&(_, d)| d < 1e-5), "{diffs:?}");
    }
}
