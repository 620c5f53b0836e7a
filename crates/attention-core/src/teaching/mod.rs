//! The lessons' chapters and the experiment each runs on the learner's own trace: the same
//! numbers for the page's Learn mode and for the CLI (`"lesson": "scaling"`).
//!
//! Each experiment reads a [`Trace`] (the current sentence and settings) and a [`Focus`] (the
//! head and query the learner looks at) and returns plain numbers, computed in the chapter's own
//! module. `api::lesson_json` writes them as JSON for the CLI.
//!
//! Each chapter is one module, one place to read: its numbers, the `run` that computes them on
//! a trace, and (where it computes more than it reads) its tests. This module holds the list of chapters, the dispatch and the helpers
//! several chapters share.

use crate::pipeline::trace::Trace;

mod chapter;
mod focus;
mod stats;

mod circuits;
mod complexity;
mod cross;
mod delta_rule;
mod flash;
mod gqa;
mod hybrids;
mod kv_cache;
mod layernorm;
pub mod linear;
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

pub use chapter::Chapter;
pub use focus::{Focus, decimal};
pub use stats::{entropy, mean_variance, normal, softmax};

pub use circuits::{CircuitsExperiment, CircuitsRefusal, run as circuits_experiment};
pub use complexity::*;
pub use cross::*;
pub use delta_rule::*;
pub use flash::*;
pub use gqa::*;
pub use hybrids::*;
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
    /// The circuits chapter needs a trained model: its experiment is
    /// [`circuits_experiment`], run on the model by the caller; a trace alone gives none.
    Circuits(Option<CircuitsExperiment>),
    Variants(VariantsExperiment),
    DeltaRule(DeltaRuleExperiment),
    Hybrids(HybridsExperiment),
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
        Chapter::Circuits => Experiment::Circuits(None),
        Chapter::Variants => Experiment::Variants(variants::run(trace, focus)),
        Chapter::DeltaRule => Experiment::DeltaRule(delta_rule::run(trace, focus)),
        Chapter::Hybrids => Experiment::Hybrids(hybrids::run(trace)),
        Chapter::Exercises => Experiment::Exercises,
    }
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
