//! What the model worker answers the views that asked it for a generation, a stream evaluation
//! or a composition, and where those answers go.

use std::rc::Rc;

use attention_core::circuits::composition::Composition;
use attention_core::models::generate::Step;

/// What the model worker says of the generation it runs for the page.
pub enum Generated {
    /// The next step (`None`: every asked step is taken).
    Step(Option<Step>),
    /// The worker stopped, or refused the generation: the page generates instead.
    Failed,
    /// Another model was given to the worker: the generation is over.
    Dropped,
}

/// Where a generation's answers go.
pub(super) type OnGenerated = Rc<dyn Fn(Generated)>;

/// What the model worker says of the stream evaluation it runs for the page
/// ([`ModelJobs::stream`]).
pub enum Streamed {
    /// How far it has read: the rolling cache with sinks (phase 0), without (1), the share on
    /// the first token (2); `done` of `total` tokens.
    Reading {
        phase: usize,
        done: usize,
        total: usize,
    },
    /// Both rolling runs' losses and each head's share on the first token [layer][head].
    Read {
        with_sinks: Vec<f32>,
        without_sinks: Vec<f32>,
        share: Vec<Vec<f32>>,
    },
    /// The recompute's losses at positions `from ..`.
    Recomputed { from: usize, losses: Vec<f32> },
    /// The worker stopped or refused it, or another model was given to it.
    Ended,
}

/// Where a stream evaluation's answers go.
pub(super) type OnStreamed = Rc<dyn Fn(Streamed)>;

/// What the model worker says of the composition of the heads it computes for the page
/// ([`ModelJobs::compose`]): how far it is (steps done, all), the scores, or that it stopped.
pub enum Composed {
    Progress(usize, usize),
    Done(Composition),
    Ended,
}

pub(super) type OnComposed = Rc<dyn Fn(Composed)>;

/// Where a whole generation's answer goes: the CLI's `"generate"` JSON, or why there is none.
pub(super) type OnWhole = Rc<dyn Fn(Result<String, String>)>;

/// The composition the worker computes: its message, for which model (its address) and shape,
/// and who waits for it (each by the number `ModelJobs::compose` gave it).
pub(super) struct Composing {
    pub(super) id: u32,
    pub(super) model: usize,
    pub(super) config: attention_core::models::ModelConfig,
    pub(super) listeners: Vec<(u32, OnComposed)>,
}
