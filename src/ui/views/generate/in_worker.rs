//! A generation in the worker that holds a user's model: the page checks the request and
//! tokenizes the prompt, the worker prefills it and takes one step per message, the page asks
//! for the next step as soon as one lands and draws it meanwhile. When the worker stops or
//! refuses, the run starts again on the page, the same characters coming.

use std::sync::Arc;

use leptos::prelude::*;
use std::time::Duration;

use super::run::{Generation, Run};
use crate::ui::i18n::model_errors::ModelProblem;
use crate::ui::state::Generated;
use attention_core::models::Model;
use attention_core::models::generate::{Decoder, GenerateSpec};

/// Where a generation's decoder runs.
pub enum Stepper {
    /// On the page's thread (the lab's own models; a user's model without its worker).
    Page(Decoder),
    /// In the worker that holds the user's model: generation `id` there, `steps` asked for,
    /// `taken` so far, a step asked for and not yet answered (`waiting`), all taken (`done`).
    Worker {
        id: u32,
        steps: usize,
        taken: usize,
        waiting: bool,
        done: bool,
    },
}

impl Stepper {
    pub(super) fn done(&self) -> bool {
        match self {
            Stepper::Page(decoder) => decoder.done(),
            Stepper::Worker {
                steps, taken, done, ..
            } => *done || taken >= steps,
        }
    }
}

impl Generation {
    /// The run in the worker that holds `model`, when it does: the request checked here first
    /// (so that a refusal is worded as on the page), the prompt prefilled there. `None`: the
    /// page generates.
    pub(super) fn start_in_worker(
        self,
        model: &Arc<Model>,
        request: &attention_core::api::Request,
        spec: &GenerateSpec,
        input: &Result<(String, f64), ModelProblem>,
    ) -> Option<bool> {
        let jobs = self.lab.model_jobs;
        if self.page_only.get_value() || !jobs.holds(model) {
            return None;
        }
        let prompt = match input {
            Ok((sentence, _)) => Decoder::prompt_for(model, sentence, spec),
            Err(problem) => {
                self.error.set(Some(problem.clone()));
                return Some(false);
            }
        };
        let prompt = match prompt {
            Ok(prompt) => prompt,
            Err(e) => {
                self.error.set(Some(ModelProblem::Generate(e)));
                return Some(false);
            }
        };
        let id = jobs.generate(model, request, &prompt, spec, move |answer| {
            self.answered(answer)
        })?;
        self.started(model, &prompt, spec);
        self.run.set_value(Some(Run {
            model: model.clone(),
            stepper: Stepper::Worker {
                id,
                steps: spec.steps,
                taken: 0,
                waiting: false,
                done: false,
            },
            cache: spec.cache,
        }));
        Some(true)
    }

    /// What the worker said of the run's step asked for.
    fn answered(self, answer: Generated) {
        if matches!(answer, Generated::Failed) {
            return self.again_on_page();
        }
        let mut stepped = None;
        let mut slot = 0;
        let ours = self
            .run
            .try_update_value(|run| {
                let Some(Run {
                    stepper:
                        Stepper::Worker {
                            taken,
                            waiting,
                            done,
                            ..
                        },
                    cache,
                    ..
                }) = run.as_mut()
                else {
                    return false;
                };
                slot = usize::from(!*cache);
                *waiting = false;
                match answer {
                    Generated::Step(Some(step)) => {
                        *taken += 1;
                        stepped = Some(step);
                    }
                    Generated::Step(None) => *done = true,
                    Generated::Failed => {}
                }
                true
            })
            .unwrap_or(false);
        if !ours {
            return;
        }
        if let Some(step) = stepped {
            self.speed.update(|s| {
                let (n, total) = s[slot].unwrap_or((0, 0.0));
                s[slot] = Some((n + 1, total + step.ms));
            });
            self.steps.update(|s| s.push(step));
        }
        // Unpaced, the next step is asked for at once: the worker computes it while the page
        // draws this one.
        match self.pace.get_value() {
            Duration::ZERO => self.tick(),
            pace => set_timeout(move || self.tick(), pace),
        }
    }

    /// The worker stopped or refused the run: the page runs it again from its start, with the
    /// same settings and seed (so the same characters), and generates from now on.
    pub(super) fn again_on_page(self) {
        let worker_run = self.run.with_value(|r| {
            matches!(
                r,
                Some(Run {
                    stepper: Stepper::Worker { .. },
                    ..
                })
            )
        });
        if !worker_run {
            return;
        }
        self.page_only.set_value(true);
        self.run.set_value(None);
        self.steps.set(Vec::new());
        self.ticking.set_value(false);
        self.go(self.target.get_untracked(), self.pace.get_value());
    }
}
