//! What the model worker holds, as the page asks before sending it work: the model it serves,
//! whether it is still starting, and what waits for its start.

use std::sync::Arc;

use attention_core::models::Model;
use leptos::prelude::*;

use super::{Held, ModelJobs};

impl ModelJobs {
    /// Whether the worker computes `model`'s forward passes (tracked).
    pub fn serves(self, model: &Arc<Model>) -> bool {
        self.held.with(|held| match held {
            Held::Opening(_, m) | Held::Holding(m) => Arc::ptr_eq(m, model),
            Held::Nothing | Held::Failed => false,
        })
    }

    /// Whether the worker is still starting, with `model` to hold once it listens, or is
    /// building `model` again from a folder's files it may not have kept: what is asked of
    /// `model` now is better asked once it has (of the worker, or computed on the page's thread
    /// where the files were not kept: [`ModelJobs::when_started`]) than of a worker that may
    /// hold no model.
    pub fn starting_with(self, model: &Arc<Model>) -> bool {
        let opening = self.held.with_untracked(|held| match held {
            Held::Opening(_, m) => Arc::ptr_eq(m, model),
            _ => false,
        });
        let starting = !self.listening.get_value() && self.worker.with_value(Option::is_some);
        opening && (starting || self.reopening.get_value().is_some())
    }

    /// Runs `then` once the worker listens (the model's message posted before it), or once it
    /// cannot start (then nothing holds the model, and the page computes what `then` asks), or
    /// once it has answered a folder it was asked to build again.
    pub fn when_started(self, then: impl FnOnce() + 'static) {
        self.after_start
            .update_value(|waiting| waiting.push(Box::new(then)));
    }

    pub(super) fn run_after_start(self) {
        let waiting = self
            .after_start
            .try_update_value(std::mem::take)
            .unwrap_or_default();
        for then in waiting {
            then();
        }
    }

    /// Whether the worker holds `model`, or is reading it from a message already posted (it
    /// reads its messages in order, so what is asked next waits for the model) (untracked).
    pub fn holds(self, model: &Arc<Model>) -> bool {
        let posted = self.listening.get_value() && self.waiting.with_value(Option::is_none);
        posted
            && self.held.with_untracked(|held| match held {
                Held::Opening(_, m) | Held::Holding(m) => Arc::ptr_eq(m, model),
                Held::Nothing | Held::Failed => false,
            })
    }
}
