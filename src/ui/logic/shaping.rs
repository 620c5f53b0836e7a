//! What the score-shaping views show, from a trace: RoPE's q and k before and after their turn
//! and the angle of every pair, how much the scores move with the offset, ALiBi's bias matrix and
//! slopes, the soft-cap's curve with a row's scores on it, QK-norm's bound, and the weights with
//! the sink's share as an extra column. Every number is the core's (`attention_core::math::scoring`):
//! nothing here computes attention a second way.

use ndarray::{Array2, ArrayView2};

use super::colormap::Scale;
use super::matrix::{Legend, MatrixView};
use super::visible_all;
use attention_core::Trace;
use attention_core::math::scoring::{Position, Shaping, Side, alibi_slopes};

/// Whether the shown trace has anything for these views: a position kind other than absolute
/// positions, a soft-cap, QK-norm or sink logits (and a trace whose heads keep every cell).
pub fn has_views(trace: &Trace) -> bool {
    let shaping = trace.config.shaping();
    !shaping.is_plain() || shaping.offset > 0
}

/// RoPE's views of one head: Q and K as projected, the same turned (after QK-norm where it
/// applies), all four on one diverging scale so that lengths compare, and the angles.
pub struct RopeViews {
    /// [q, q turned, k, k turned].
    pub matrices: [MatrixView; 4],
    pub angles: MatrixView,
    /// Per column of `angles`: (pair p, its two dimensions, θ_p).
    pub pairs: Vec<(usize, usize, usize, f64)>,
}

pub fn rope_views(trace: &Trace, head: usize) -> Option<RopeViews> {
    let config = &trace.config;
    let shaping = config.shaping();
    let Position::Rope { base, pairing } = shaping.position else {
        return None;
    };
    let h = trace.heads.get(head)?;
    let (q_turned, k_turned) = (h.q_scored.as_ref()?, h.k_scored.as_ref()?);
    let d_k = config.dims().d_k;
    let all = [&h.q, q_turned, &h.k, k_turned];
    let limit = all
        .iter()
        .flat_map(|m| m.iter())
        .fold(0.0f32, |m, v| m.max(v.abs()));
    let dims: Vec<String> = (0..d_k).map(|c| c.to_string()).collect();
    let queries = visible_all(config.tokens());
    let keys = visible_all(&config.key_sequence().tokens);
    let matrix = |values: &Array2<f32>, rows: &[String]| MatrixView {
        values: values.clone(),
        row_labels: rows.to_vec(),
        col_labels: dims.clone(),
        scale: Scale::Diverging { limit },
        legend: Legend::SharedTurns,
        blocks: None,
    };
    let r = pairing.rotated(d_k);
    let pairs: Vec<(usize, usize, usize, f64)> = (0..r / 2)
        .map(|p| {
            let (a, b) = pairing.dims(p, r);
            (p, a, b, base.powf(-2.0 * p as f64 / r as f64))
        })
        .collect();
    let positions = config.seq_len().max(config.key_len());
    let angles = Array2::from_shape_fn((positions, pairs.len()), |(r, p)| {
        wrap((r + shaping.offset) as f64 * pairs[p].3) as f32
    });
    let longer = if keys.len() >= queries.len() {
        &keys
    } else {
        &queries
    };
    Some(RopeViews {
        matrices: [
            matrix(&h.q, &queries),
            matrix(q_turned, &queries),
            matrix(&h.k, &keys),
            matrix(k_turned, &keys),
        ],
        angles: MatrixView {
            values: angles,
            row_labels: (0..positions)
                .map(|r| format!("{} {}", r + shaping.offset, longer[r]))
                .collect(),
            col_labels: pairs
                .iter()
                .map(|(_, a, b, _)| format!("{a}·{b}"))
                .collect(),
            scale: Scale::Diverging {
                limit: std::f32::consts::PI,
            },
            legend: Legend::Radians,
            blocks: None,
        },
        pairs,
    })
}

/// An angle in radians brought into (−π, π].
pub fn wrap(angle: f64) -> f64 {
    let turn = std::f64::consts::TAU;
    let a = angle.rem_euclid(turn);
    if a > std::f64::consts::PI {
        a - turn
    } else {
        a
    }
}

/// The largest change of `head`'s scores (before the mask) between the trace's offset and offset
/// 0, computed by the core from the head's q and k: ~1e-7 with RoPE or ALiBi, whose scores depend
/// on i − j only. `None` at offset 0, for absolute positions (the offset changes X itself, so
/// the trace cannot answer alone) and for positions "none" (no position anywhere).
pub fn offset_change(trace: &Trace, head: usize) -> Option<f32> {
    let config = &trace.config;
    let shaping = config.shaping();
    if shaping.offset == 0 || !matches!(shaping.position, Position::Rope { .. } | Position::Alibi) {
        return None;
    }
    let h = trace.heads.get(head)?;
    if h.scores.is_empty() {
        return None;
    }
    let at_zero = Shaping {
        offset: 0,
        ..shaping.clone()
    };
    let d_k = config.dims().d_k;
    let q = at_zero.prepare(h.q.view(), d_k, 0, Side::Query);
    let k = at_zero.prepare(h.k.view(), d_k, 0, Side::Key);
    let view = |turned: &Option<Array2<f32>>, raw: &Array2<f32>| -> Array2<f32> {
        turned.clone().unwrap_or_else(|| raw.clone())
    };
    let mut scores = view(&q, &h.q).dot(&view(&k, &h.k).t());
    config.scoring(head).apply(scores.view_mut(), 0, 0);
    Some(max_change(scores.view(), h.scores.view()))
}

fn max_change(a: ArrayView2<f32>, b: ArrayView2<f32>) -> f32 {
    a.iter()
        .zip(b.iter())
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()))
}

/// ALiBi's bias −m_h·|i − j| of `head`, queries × keys, and its slope.
pub fn alibi_view(trace: &Trace, head: usize) -> Option<(MatrixView, f32)> {
    let config = &trace.config;
    let scoring = config.scoring(head);
    let slope = scoring.slope()?;
    let (n, m) = (config.seq_len(), config.key_len());
    let values = Array2::from_shape_fn((n, m), |(i, j)| scoring.bias(i, j));
    let limit = values.iter().fold(0.0f32, |a, v| a.max(v.abs()));
    Some((
        MatrixView {
            values,
            row_labels: visible_all(config.tokens()),
            col_labels: visible_all(&config.key_sequence().tokens),
            scale: Scale::Diverging { limit },
            legend: Legend::OwnRange,
            blocks: None,
        },
        slope,
    ))
}

/// One row of the slope table: the head (from 1), m, log₂ m, and the distance at which the bias
/// reaches −1 (1/m).
pub fn slope_rows(trace: &Trace) -> Vec<(usize, f32, f32, f32)> {
    if trace.config.shaping().position != Position::Alibi {
        return Vec::new();
    }
    alibi_slopes(trace.config.dims().n_heads)
        .into_iter()
        .enumerate()
        .map(|(h, m)| (h + 1, m, m.log2(), 1.0 / m))
        .collect()
}

/// The soft-cap c and query `row`'s scores of `head` at the cap: (before, after) for each
/// visible key, the score before being q·k/√d_k + ALiBi's bias, as the core computes it.
pub fn softcap_points(trace: &Trace, head: usize, row: usize) -> Option<(f32, Vec<(f32, f32)>)> {
    let config = &trace.config;
    let scoring = config.scoring(head);
    let cap = scoring.cap()?;
    let h = trace.heads.get(head)?;
    let dots = h.dots.as_ref()?;
    if row >= dots.nrows() {
        return None;
    }
    let inv_sqrt_d_k = 1.0 / (config.dims().d_k as f32).sqrt();
    let points = (0..dots.ncols())
        .filter(|&j| trace.mask[[row, j]])
        .map(|j| {
            let z = dots[[row, j]] * inv_sqrt_d_k + scoring.bias(row, j);
            (z, cap * (z / cap).tanh())
        })
        .collect();
    Some((cap, points))
}

/// How many of `points` sit within 5 % of ±c after the cap.
pub fn near_cap(cap: f32, points: &[(f32, f32)]) -> usize {
    points
        .iter()
        .filter(|(_, after)| after.abs() >= 0.95 * cap)
        .count()
}

/// QK-norm's bound √d_k on |q·k|/√d_k and `head`'s largest, from the q and k its scores read.
pub fn qk_norm_bound(trace: &Trace, head: usize) -> Option<(f32, f32)> {
    let config = &trace.config;
    if !config.shaping().qk_norm {
        return None;
    }
    let h = trace.heads.get(head)?;
    let sqrt_d_k = (config.dims().d_k as f32).sqrt();
    let dots = h.scored_q().dot(&h.scored_k().t());
    let largest = dots.iter().fold(0.0f32, |m, v| m.max(v.abs())) / sqrt_d_k;
    Some((sqrt_d_k, largest))
}

/// `head`'s weights with one more column: the share of each row that went to the sink logit
/// (1 − the row's sum, which the core's softmax leaves), on the weights' 0 … 1 scale.
pub fn sink_view(trace: &Trace, head: usize, sink_label: &str) -> Option<MatrixView> {
    let config = &trace.config;
    config.scoring(head).sink?;
    let h = trace.heads.get(head)?;
    if h.weights.is_empty() {
        return None;
    }
    let (n, m) = h.weights.dim();
    let values = Array2::from_shape_fn((n, m + 1), |(i, j)| {
        if j < m {
            h.weights[[i, j]]
        } else {
            (1.0 - h.weights.row(i).sum()).clamp(0.0, 1.0)
        }
    });
    let mut col_labels = visible_all(&config.key_sequence().tokens);
    col_labels.push(sink_label.to_string());
    Some(MatrixView {
        values,
        row_labels: visible_all(config.tokens()),
        col_labels,
        scale: Scale::UNIT,
        legend: Legend::Fixed,
        blocks: None,
    })
}
