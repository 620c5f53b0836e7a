//! The positions chapter: absolute positions against RoPE against ALiBi on the learner's own
//! sentence and weights. What moving every position by the same amount does to each kind's
//! scores (RoPE's and ALiBi's depend on i − j only), and RoPE's two pairings: the same weights give
//! different scores, and permuting W_Q's and W_K's columns makes them equal.

use ndarray::{Array2, ArrayView2};

use crate::math::scoring::{Pairing, Position, Shaping, Side};
use crate::pipeline::config::Config;
use crate::pipeline::trace::{Trace, max_abs_diff};
use crate::pipeline::units::compute_part;

use super::focus::Focus;

/// How far every position moves in the experiment.
pub const SHIFT: usize = 100;

/// The longest input the chapter recomputes (eight passes of the selected head).
pub const MOST_TOKENS: usize = 512;

#[derive(Debug, Clone, PartialEq)]
pub struct PositionKindRow {
    /// "absolute", "none", "rope", "alibi".
    pub kind: &'static str,
    /// The largest change of the head's scores when every position moves by [`SHIFT`].
    pub shift_change: f32,
    /// The selected query's most attended key, and its weight.
    pub top_key: usize,
    pub top_weight: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PositionsExperiment {
    pub head: usize,
    pub query: usize,
    pub shift: usize,
    /// One row per kind; empty when the chapter cannot recompute (see `why_not`).
    pub kinds: Vec<PositionKindRow>,
    /// RoPE with the same weights: the largest difference between the half and interleaved
    /// pairings' scores, and after permuting the columns of q and k (as W_Q's and W_K's) so that
    /// interleaved pair (2p, 2p + 1) lands on half pair (p, p + d_k/2). `None` for an odd d_k.
    pub pairing_change: Option<f32>,
    pub permuted_change: Option<f32>,
    /// The permutation: column c of the half layout takes column `permutation[c]`.
    pub permutation: Vec<usize>,
    pub d_k: usize,
    /// Why the kinds could not be compared: "trained" (the model keeps its positions), "long"
    /// (more than [`MOST_TOKENS`]), or "own_x" (vectors given, no sentence to place).
    pub why_not: Option<&'static str>,
}

/// The selected head's scores (before the mask) and weights under `config`.
fn head_of(config: &Config, head: usize) -> (Array2<f32>, Array2<f32>) {
    let mut computed = compute_part(config, false, head..head + 1, &mut |_, _| {});
    (computed.scores.remove(0), computed.weights.remove(0))
}

/// The columns of the half layout, taken from the interleaved one: (2p, 2p + 1) → (p, p + d/2).
pub fn half_from_interleaved(d_k: usize) -> Vec<usize> {
    let pairs = d_k / 2;
    (0..d_k)
        .map(|c| {
            if c < pairs {
                2 * c
            } else {
                2 * (c - pairs) + 1
            }
        })
        .collect()
}

fn columns(x: ArrayView2<f32>, order: &[usize]) -> Array2<f32> {
    Array2::from_shape_fn((x.nrows(), order.len()), |(r, c)| x[[r, order[c]]])
}

fn rope(pairing: Pairing) -> Shaping {
    Shaping {
        position: Position::Rope {
            base: 10_000.0,
            pairing,
        },
        ..Shaping::default()
    }
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> PositionsExperiment {
    let config = &trace.config;
    let (head, query) = (focus.head(trace), focus.query(trace));
    let d_k = config.dims().d_k;
    let mut out = PositionsExperiment {
        head,
        query,
        shift: SHIFT,
        kinds: Vec::new(),
        pairing_change: None,
        permuted_change: None,
        permutation: Vec::new(),
        d_k,
        why_not: None,
    };
    out.why_not = if config.model_layer().is_some() {
        Some("trained")
    } else if config.target().parts.is_none() {
        Some("own_x")
    } else if config.seq_len().max(config.key_len()) > MOST_TOKENS {
        Some("long")
    } else {
        None
    };
    if out.why_not.is_some() {
        return out;
    }
    let kinds = [
        Position::Absolute,
        Position::None,
        Position::Rope {
            base: 10_000.0,
            pairing: Pairing::Half,
        },
        Position::Alibi,
    ];
    for position in kinds {
        let at = |offset: usize| {
            config.with_shaping(Shaping {
                position,
                offset,
                ..config.shaping().clone()
            })
        };
        // RoPE needs an even d_k: that kind is left out, and the page says why.
        let (Ok(here), Ok(moved)) = (at(0), at(SHIFT)) else {
            continue;
        };
        let (scores, weights) = head_of(&here, head);
        let (moved_scores, _) = head_of(&moved, head);
        let row = weights.row(query);
        let (top_key, top_weight) =
            row.iter()
                .enumerate()
                .fold((0, f32::NEG_INFINITY), |best, (j, &w)| {
                    if w > best.1 { (j, w) } else { best }
                });
        out.kinds.push(PositionKindRow {
            kind: position.kind(),
            shift_change: max_abs_diff(scores.view(), moved_scores.view()),
            top_key,
            top_weight,
        });
    }
    if d_k.is_multiple_of(2) {
        // One head's q and k as projected, turned both ways by the core's RoPE.
        let h = &trace.heads[head];
        let scores = |shaping: &Shaping, q: ArrayView2<f32>, k: ArrayView2<f32>| {
            let q = shaping
                .prepare(q, d_k, 0, Side::Query)
                .unwrap_or_else(|| q.to_owned());
            let k = shaping
                .prepare(k, d_k, 0, Side::Key)
                .unwrap_or_else(|| k.to_owned());
            q.dot(&k.t())
        };
        let half = scores(&rope(Pairing::Half), h.q.view(), h.k.view());
        let interleaved = scores(&rope(Pairing::Interleaved), h.q.view(), h.k.view());
        let order = half_from_interleaved(d_k);
        let permuted = scores(
            &rope(Pairing::Half),
            columns(h.q.view(), &order).view(),
            columns(h.k.view(), &order).view(),
        );
        out.pairing_change = Some(max_abs_diff(half.view(), interleaved.view()));
        out.permuted_change = Some(max_abs_diff(permuted.view(), interleaved.view()));
        out.permutation = order;
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::Params;
    use crate::math::mask::MaskSpec;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};

    fn run(params: Params) -> super::PositionsExperiment {
        let t = trace(params);
        let Experiment::Positions(e) = experiment(Chapter::Positions, &t, &Focus::default()) else {
            panic!()
        };
        e
    }

    #[test]
    fn only_absolute_positions_move_with_the_shift_and_the_pairings_agree_once_permuted() {
        let e = run(Params {
            mask: MaskSpec::Causal,
            n_heads: 2,
            ..Params::sentence("the cat sat on the mat because it was tired")
        });
        assert_eq!(e.why_not, None);
        let kinds: Vec<&str> = e.kinds.iter().map(|k| k.kind).collect();
        assert_eq!(kinds, ["absolute", "none", "rope", "alibi"]);
        assert!(e.kinds[0].shift_change > 0.05, "{:?}", e.kinds[0]);
        assert_eq!(e.kinds[1].shift_change, 0.0);
        assert!(e.kinds[2].shift_change < 1e-4, "{:?}", e.kinds[2]);
        assert_eq!(e.kinds[3].shift_change, 0.0);
        // Causal: query 0 sees only itself.
        assert!(
            e.kinds
                .iter()
                .all(|k| k.top_key == 0 && k.top_weight == 1.0)
        );
        assert!(e.pairing_change.unwrap() > 1e-3);
        assert!(e.permuted_change.unwrap() < 1e-5);
        assert_eq!(e.permutation, vec![0, 2, 4, 6, 1, 3, 5, 7]);
    }

    #[test]
    fn an_odd_d_k_leaves_rope_out_and_says_so() {
        let e = run(Params {
            d_k: Some(3),
            ..Params::sentence("a b c d")
        });
        let kinds: Vec<&str> = e.kinds.iter().map(|k| k.kind).collect();
        assert_eq!(kinds, ["absolute", "none", "alibi"]);
        assert_eq!(e.pairing_change, None);
    }
}
