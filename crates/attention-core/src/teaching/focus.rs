//! What the learner looks at (a head, a query, the stability chapter's factor and shift), and
//! what several chapters read of a trace there: a row's allowed scores and dots, norms and
//! distances.

use ndarray::{Array1, ArrayView1};

use crate::pipeline::trace::Trace;

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
    pub(crate) fn head(&self, trace: &Trace) -> usize {
        self.head.min(trace.heads.len().saturating_sub(1))
    }

    pub(crate) fn query(&self, trace: &Trace) -> usize {
        self.query.min(trace.config.seq_len().saturating_sub(1))
    }
}

/// An f32 as the f64 nearest its shortest decimal text: 0.3f32 becomes 0.3, never the
/// 0.30000001192092896 that widening gives.
pub fn decimal(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}

pub(crate) fn norm(row: ArrayView1<f32>) -> f64 {
    row.iter()
        .map(|&v| f64::from(v) * f64::from(v))
        .sum::<f64>()
        .sqrt()
}

pub(crate) fn distance(a: ArrayView1<f32>, b: ArrayView1<f32>) -> f64 {
    norm((&a - &b).view())
}

/// The raw q·k of `head`'s query row `i` over the keys the mask allows.
pub(crate) fn allowed_dots(trace: &Trace, head: usize, i: usize) -> Array1<f32> {
    let h = &trace.heads[head];
    let q = h.q.row(i);
    h.k.outer_iter()
        .enumerate()
        .filter(|&(j, _)| trace.mask[[i, j]])
        .map(|(_, k)| q.dot(&k))
        .collect()
}

pub(crate) fn allowed_scores(trace: &Trace, head: usize, i: usize) -> Array1<f32> {
    trace.heads[head]
        .scores
        .row(i)
        .iter()
        .zip(trace.mask.row(i))
        .filter(|&(_, &a)| a)
        .map(|(&s, _)| s)
        .collect()
}

#[cfg(test)]
pub(crate) fn trace(params: crate::Params) -> Trace {
    crate::pipeline::trace::compute_trace(&params.validate().unwrap())
}
