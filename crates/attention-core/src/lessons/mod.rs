//! The lessons' chapters and the experiment each runs on the learner's own trace: the same
//! numbers for the page's Learn mode and for the CLI (`"lesson": {"chapter": "scaling"}`).
//!
//! Each experiment reads a [`Trace`] (the current sentence and settings) and a [`Focus`] (the
//! head and query the learner looks at) and returns plain numbers; the mathematics is in
//! [`crate::experiments`]. `api::lesson_json` writes them as JSON for the CLI.
//!
//! Each chapter is one module, one place to read: its numbers, the `run` that computes them on
//! a trace, and its tests. This module holds the list of chapters, the dispatch and the helpers
//! several chapters share.

use ndarray::{Array1, ArrayView1};

use crate::trace::Trace;

mod complexity;
mod cross;
mod flash;
mod gqa;
mod kv_cache;
mod layernorm;
mod masks;
mod multihead;
mod positions;
mod qkv;
mod scaling;
mod softmax;
mod stability;
mod streaming;
mod taming;
mod tokens;
mod variants;
mod windows;

pub use complexity::*;
pub use cross::*;
pub use flash::*;
pub use gqa::*;
pub use kv_cache::*;
pub use layernorm::*;
pub use masks::*;
pub use multihead::*;
pub use positions::*;
pub use qkv::*;
pub use scaling::*;
pub use softmax::*;
pub use stability::*;
pub use streaming::*;
pub use taming::*;
pub use tokens::*;
pub use variants::*;
pub use windows::*;

/// The chapters, in the order a learner reads them. The id is the chapter's name in links
/// (`?lesson=<id>`), in `set({lesson})` and in the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chapter {
    Tokens,
    Qkv,
    Scaling,
    Softmax,
    Masks,
    Positions,
    Windows,
    Multihead,
    Gqa,
    Cross,
    Layernorm,
    Stability,
    Taming,
    Complexity,
    Flash,
    KvCache,
    Streaming,
    Variants,
    Exercises,
}

impl Chapter {
    pub const ALL: [Chapter; 19] = [
        Self::Tokens,
        Self::Qkv,
        Self::Scaling,
        Self::Softmax,
        Self::Masks,
        Self::Positions,
        Self::Windows,
        Self::Multihead,
        Self::Gqa,
        Self::Cross,
        Self::Layernorm,
        Self::Stability,
        Self::Taming,
        Self::Complexity,
        Self::Flash,
        Self::KvCache,
        Self::Streaming,
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
            Self::Positions => "positions",
            Self::Windows => "windows",
            Self::Taming => "taming",
            Self::Multihead => "multihead",
            Self::Gqa => "gqa",
            Self::Cross => "cross",
            Self::Layernorm => "layernorm",
            Self::Stability => "stability",
            Self::Complexity => "complexity",
            Self::Flash => "flash",
            Self::KvCache => "kv-cache",
            Self::Streaming => "streaming",
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
    Positions(PositionsExperiment),
    Windows(WindowsExperiment),
    Taming(TamingExperiment),
    Multihead(MultiheadExperiment),
    Gqa(GqaExperiment),
    Cross(CrossExperiment),
    Layernorm(LayernormExperiment),
    Stability(StabilityExperiment),
    Complexity(ComplexityExperiment),
    Flash(FlashExperiment),
    KvCache(KvCacheExperiment),
    Streaming(StreamingExperiment),
    Variants(VariantsExperiment),
    Exercises,
}

/// Runs `chapter`'s experiment on `trace`. Complexity's timings need a clock (see [`measure_cost`]);
/// here it has the counts only.
pub fn experiment(chapter: Chapter, trace: &Trace, focus: &Focus) -> Experiment {
    match chapter {
        Chapter::Tokens => Experiment::Tokens(tokens::run(trace)),
        Chapter::Qkv => Experiment::Qkv(qkv::run(trace, focus)),
        Chapter::Scaling => Experiment::Scaling(scaling::run(trace, focus)),
        Chapter::Softmax => Experiment::Softmax(softmax::run(trace, focus)),
        Chapter::Masks => Experiment::Masks(masks::run(trace, focus)),
        Chapter::Positions => Experiment::Positions(positions::run(trace, focus)),
        Chapter::Windows => Experiment::Windows(windows::run(trace, focus)),
        Chapter::Taming => Experiment::Taming(taming::run(trace, focus)),
        Chapter::Multihead => Experiment::Multihead(multihead::run(trace)),
        Chapter::Gqa => Experiment::Gqa(gqa::run(trace)),
        Chapter::Cross => Experiment::Cross(cross::run(trace, focus)),
        Chapter::Layernorm => Experiment::Layernorm(layernorm::run(trace)),
        Chapter::Stability => Experiment::Stability(stability::run(trace, focus)),
        Chapter::Complexity => Experiment::Complexity(complexity::run(trace)),
        Chapter::Flash => Experiment::Flash(flash::run(trace)),
        Chapter::KvCache => Experiment::KvCache(kv_cache::run(trace, focus)),
        Chapter::Streaming => Experiment::Streaming(streaming::run(trace)),
        Chapter::Variants => Experiment::Variants(variants::run(trace, focus)),
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

#[cfg(test)]
fn trace(params: crate::Params) -> Trace {
    crate::trace::compute_trace(&params.validate().unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
