//! The generation the model worker runs for the page: started after the page's prompt ids,
//! one step asked for at a time, each answered to the view that asked.

use std::rc::Rc;
use std::sync::Arc;

use attention_core::api::Request;
use attention_core::models::Model;
use attention_core::models::generate::{GenerateSpec, Sampling};
use leptos::prelude::*;

use super::ModelJobs;
use super::answers::{Generated, OnWhole};

impl ModelJobs {
    /// Starts a generation of `model` in the worker after `prompt` (the ids of the trained
    /// request `request`'s sentence, which the page tokenized and checked), as `spec` says;
    /// each step is asked for with [`ModelJobs::step`] and answered to `on`. `None` when the
    /// worker does not hold `model` (the page generates). A generation started replaces the one
    /// before.
    pub fn generate(
        self,
        model: &Arc<Model>,
        request: &Request,
        prompt: &[u32],
        spec: &GenerateSpec,
        on: impl Fn(Generated) + 'static,
    ) -> Option<u32> {
        if !self.holds(model) {
            return None;
        }
        let id = self.next_id();
        let json = serde_json::to_string(request).ok()?;
        let (temperature, seed) = match spec.sampling {
            Sampling::Temperature { temperature, seed } => (temperature, seed),
            Sampling::Greedy => (0.0, 0),
        };
        let posted = self.worker.with_value(|w| {
            w.as_ref().is_some_and(|w| {
                w.generate(id, &json, prompt, spec.steps, spec.cache, temperature, seed)
            })
        });
        if !posted {
            return None;
        }
        self.generator.set_value(Some((id, Rc::new(on))));
        Some(id)
    }

    /// Asks the worker for the next step of generation `id`, compared with a recompute of the
    /// whole text when `check`; `false` when it is not the generation under way or the worker
    /// is gone.
    pub fn step(self, id: u32, check: bool) -> bool {
        let current = self
            .generator
            .with_value(|g| g.as_ref().is_some_and(|(i, _)| *i == id));
        current
            && self
                .worker
                .with_value(|w| w.as_ref().is_some_and(|w| w.step(id, check)))
    }

    /// Tells the generation under way (message `id`, or any) what the worker said of it; a
    /// failure ends it.
    pub(super) fn tell_generator(self, id: Option<u32>, answer: Generated) {
        let on = self.generator.with_value(|g| {
            g.as_ref()
                .filter(|(i, _)| id.is_none_or(|id| id == *i))
                .map(|(_, on)| on.clone())
        });
        if let Some(on) = on {
            if matches!(answer, Generated::Failed) {
                self.generator.set_value(None);
            }
            on(answer);
        }
    }

    /// Runs a whole generation of `model` in the worker after `prompt` (the ids of the trained
    /// request `request`'s sentence, with its `"generate"` object), as `attentionLab.generate()`
    /// answers it: `on` gets the CLI's JSON, or why there is none. `false` when the worker does
    /// not hold `model` (the page generates).
    pub fn generate_whole(
        self,
        model: &Arc<Model>,
        request: &Request,
        prompt: &[u32],
        on: impl Fn(Result<String, String>) + 'static,
    ) -> bool {
        if !self.holds(model) {
            return false;
        }
        let Ok(json) = serde_json::to_string(request) else {
            return false;
        };
        let id = self.next_id();
        let posted = self.worker.with_value(|w| {
            w.as_ref()
                .is_some_and(|w| w.generate_json(id, &json, prompt))
        });
        if posted {
            self.wholes
                .update_value(|wholes| wholes.push((id, Rc::new(on) as OnWhole)));
        }
        posted
    }

    /// Tells the whole generations waiting (message `id`, or all) their answer; each is told once.
    pub(super) fn tell_whole(self, id: Option<u32>, answer: Result<String, String>) {
        let told: Vec<OnWhole> = self
            .wholes
            .try_update_value(|wholes| {
                let (told, waiting) = std::mem::take(wholes)
                    .into_iter()
                    .partition(|(i, _)| id.is_none_or(|id| id == *i));
                *wholes = waiting;
                told.into_iter().map(|(_, on)| on).collect::<Vec<_>>()
            })
            .unwrap_or_default();
        for on in told {
            on(answer.clone());
        }
    }
}
