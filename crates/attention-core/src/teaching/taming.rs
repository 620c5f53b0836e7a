//! The taming-the-scores chapter: the selected query's scores under a few soft-caps, QK-norm's
//! bound |q·k|/√d_k ≤ √d_k on every head (and what happens to it when q and k grow, as weights do
//! in training), and a sink logit that lets a row give its attention to nothing.

use ndarray::{Array1, ArrayView2};

use crate::math::scoring::qk_norm;
use crate::math::softmax::masked_softmax_row;
use crate::pipeline::trace::Trace;

use super::focus::Focus;

/// The caps compared (none first).
pub const CAPS: [Option<f32>; 4] = [None, Some(30.0), Some(5.0), Some(1.0)];
/// How much q and k are scaled to stand for weights grown in training.
pub const GROWTH: f32 = 10.0;

#[derive(Debug, Clone, PartialEq)]
pub struct CapRow {
    pub cap: Option<f32>,
    /// The row's largest |score| after the cap (before ÷T), its top weight and the weights'
    /// entropy in nats.
    pub largest: f32,
    pub top_weight: f32,
    pub entropy: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QkNormRow {
    pub head: usize,
    /// max |q·k|/√d_k without QK-norm and with it; the same with q and k × [`GROWTH`].
    pub raw: f32,
    pub normed: f32,
    pub raw_grown: f32,
    pub normed_grown: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SinkRow {
    /// The sink logit (before ÷T); `None`: no sink.
    pub logit: Option<f32>,
    /// What the visible keys get in all (1 − the sink's share), and the top key's weight.
    pub kept: f32,
    pub top_weight: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TamingExperiment {
    pub head: usize,
    pub query: usize,
    pub d_k: usize,
    pub bound: f32,
    pub caps: Vec<CapRow>,
    pub qk_norm: Vec<QkNormRow>,
    /// The row's largest visible score (÷T included), where the sink logits are placed.
    pub row_max: f32,
    pub sinks: Vec<SinkRow>,
}

/// max |q·k| / √d_k over every pair.
fn largest_score(q: ArrayView2<f32>, k: ArrayView2<f32>, inv_sqrt_d_k: f32) -> f32 {
    q.dot(&k.t()).iter().fold(0.0f32, |m, v| m.max(v.abs())) * inv_sqrt_d_k
}

fn entropy(weights: &Array1<f32>) -> f32 {
    -weights
        .iter()
        .filter(|&&w| w > 0.0)
        .map(|&w| w * w.ln())
        .sum::<f32>()
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> TamingExperiment {
    let config = &trace.config;
    let (head, query) = (focus.head(trace), focus.query(trace));
    let d_k = config.dims().d_k;
    let inv_sqrt_d_k = 1.0 / (d_k as f32).sqrt();
    let inv_t = 1.0 / config.temperature();
    let m = config.key_len();
    let keys = config.mask().row_keys(query, 0..m);
    let h = &trace.heads[head];
    // The row before any cap: q·k/√d_k plus ALiBi's bias, from the q and k the scores read.
    let scoring = config.scoring(head);
    let z: Array1<f32> = h
        .scored_k()
        .outer_iter()
        .enumerate()
        .map(|(j, k)| h.scored_q().row(query).dot(&k) * inv_sqrt_d_k + scoring.bias(query, j))
        .collect();
    let softmax = |scores: &Array1<f32>, sink: Option<f32>| {
        let mut w = Array1::zeros(m);
        masked_softmax_row(scores.view(), &keys, sink, w.view_mut());
        w
    };
    let visible = |v: &Array1<f32>| -> Vec<f32> {
        (0..m).filter(|&j| keys.allows(j)).map(|j| v[j]).collect()
    };
    let caps = CAPS
        .iter()
        .map(|&cap| {
            let capped = z.mapv(|s| cap.map_or(s, |c| c * (s / c).tanh()));
            let w = softmax(&capped.mapv(|s| s * inv_t), None);
            CapRow {
                cap,
                largest: visible(&capped).iter().fold(0.0f32, |a, v| a.max(v.abs())),
                top_weight: w.iter().fold(0.0f32, |a, &v| a.max(v)),
                entropy: entropy(&w),
            }
        })
        .collect();
    let qk_norm_rows = trace
        .heads
        .iter()
        .enumerate()
        .map(|(index, h)| {
            let (q, k) = (h.q.view(), h.k.view());
            let normed = |x: ArrayView2<f32>| {
                let mut x = x.to_owned();
                qk_norm(x.view_mut());
                x
            };
            let grown = |x: ArrayView2<f32>| x.mapv(|v| v * GROWTH);
            let (qg, kg) = (grown(q), grown(k));
            QkNormRow {
                head: index,
                raw: largest_score(q, k, inv_sqrt_d_k),
                normed: largest_score(normed(q).view(), normed(k).view(), inv_sqrt_d_k),
                raw_grown: largest_score(qg.view(), kg.view(), inv_sqrt_d_k),
                normed_grown: largest_score(
                    normed(qg.view()).view(),
                    normed(kg.view()).view(),
                    inv_sqrt_d_k,
                ),
            }
        })
        .collect();
    // The row as the lab scores it (cap and ÷T included), and sink logits around its maximum.
    let scores = h.scores.row(query).to_owned();
    let row_max = visible(&scores)
        .into_iter()
        .fold(f32::NEG_INFINITY, f32::max);
    let logits: Vec<Option<f32>> = if row_max.is_finite() {
        let around = (row_max / inv_t).round();
        vec![None, Some(around - 5.0), Some(around), Some(around + 5.0)]
    } else {
        vec![None]
    };
    let sinks = logits
        .into_iter()
        .map(|logit| {
            let w = softmax(&scores, logit.map(|s| s * inv_t));
            SinkRow {
                logit,
                kept: w.sum(),
                top_weight: w.iter().fold(0.0f32, |a, &v| a.max(v)),
            }
        })
        .collect();
    TamingExperiment {
        head,
        query,
        d_k,
        bound: (d_k as f32).sqrt(),
        caps,
        qk_norm: qk_norm_rows,
        row_max,
        sinks,
    }
}

#[cfg(test)]
mod tests {
    use crate::Params;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};

    #[test]
    fn caps_bound_the_row_qk_norm_bounds_every_head_and_a_sink_takes_a_share() {
        let t = trace(Params {
            n_heads: 4,
            ..Params::sentence("the cat sat on the mat because it was tired")
        });
        let focus = Focus {
            query: 5,
            head: 1,
            ..Focus::default()
        };
        let Experiment::Taming(e) = experiment(Chapter::Taming, &t, &focus) else {
            panic!()
        };
        assert_eq!(e.caps[0].cap, None);
        for row in &e.caps[1..] {
            assert!(row.largest < row.cap.unwrap());
        }
        assert_eq!(e.qk_norm.len(), 4);
        for row in &e.qk_norm {
            assert!(row.normed <= e.bound * 1.00001 && row.normed_grown <= e.bound * 1.00001);
            // Growing q and k by 10 multiplies raw scores by 100 and leaves normed ones.
            assert!((row.raw_grown / row.raw - 100.0).abs() < 0.01, "{row:?}");
            assert!((row.normed_grown - row.normed).abs() < 1e-4, "{row:?}");
        }
        assert_eq!(e.sinks[0].logit, None);
        assert!((e.sinks[0].kept - 1.0).abs() < 1e-5);
        // A sink logit 5 above the row's largest score takes almost everything.
        let last = e.sinks.last().unwrap();
        assert!(last.kept < 0.05, "{last:?}");
        assert!(e.sinks.windows(2).all(|w| w[1].kept < w[0].kept));
    }
}
