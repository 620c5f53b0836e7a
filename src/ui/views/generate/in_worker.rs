//! Where a generation's decoder runs, and a run started in the worker that holds a user's
//! model: the page checks the request and tokenizes the prompt, the worker prefills it and takes
//! one step per message ([`super::run`] asks for the next step as soon as one lands, and starts
//! the run again on the page when the worker stops or refuses).

use std::sync::Arc;

use crate::ui::i18n::model_errors::ModelProblem;
use crate::ui::state::{Generated, ModelJobs};
use attention_core::api::Request;
use attention_core::models::Model;
use attention_core::models::generate::{Decoder, GenerateSpec};

/// Where a generation's decoder runs.
pub enum Stepper {
    /// On the page's thread (the lab's own models; a user's model without its worker).
    Page(Box<Decoder>),
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
    pub fn done(&self) -> bool {
        match self {
            Stepper::Page(decoder) => decoder.done(),
            Stepper::Worker {
                steps, taken, done, ..
            } => *done || taken >= steps,
        }
    }
}

/// A run of `model` started in `jobs`' worker, when it holds the model: the request checked
/// here first (so that a refusal is worded as on the page), the prompt prefilled there, each
/// answer to `on`. `None`: the page generates; `Some(Err)`: refused; `Some(Ok)`: the prompt's
/// ids and the run's stepper.
pub fn start(
    jobs: ModelJobs,
    model: &Arc<Model>,
    request: &Request,
    spec: &GenerateSpec,
    input: &Result<(String, f64), ModelProblem>,
    on: impl Fn(Generated) + 'static,
) -> Option<Result<(Vec<u32>, Stepper), ModelProblem>> {
    if !jobs.holds(model) {
        return None;
    }
    let prompt = match input {
        Ok((sentence, _)) => Decoder::prompt_for(model, sentence, spec),
        Err(problem) => return Some(Err(problem.clone())),
    };
    let prompt = match prompt {
        Ok(prompt) => prompt,
        Err(e) => return Some(Err(ModelProblem::Generate(e))),
    };
    let id = jobs.generate(model, request, &prompt, spec, on)?;
    let stepper = Stepper::Worker {
        id,
        steps: spec.steps,
        taken: 0,
        waiting: false,
        done: false,
    };
    Some(Ok((prompt, stepper)))
}
