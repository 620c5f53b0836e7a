//! The model worker's forward pass answered: the page puts the same pass together from the
//! worker's numbers (`Model::forward_from`), each layer naming the backend that computed its
//! attention, and notes where the pass was computed ([`ModelPass`]).

use std::sync::Arc;

use leptos::prelude::*;

use super::ModelJobs;
use crate::ui::browser::clock::now_ms;
use crate::ui::browser::worker::FromWorker;
use crate::ui::logic::backend::{Fallback, ModelPass};
use crate::ui::state::model::ForwardRef;
use crate::ui::state::next_logits;
use attention_core::api::RequestError;
use attention_core::models::model::Reading;
use attention_core::models::remote::ForwardWork;

impl ModelJobs {
    /// `FromWorker::Forward`: the pass asked for, finished (another's is not wanted any more).
    pub(super) fn forwarded(self, answer: FromWorker) {
        let FromWorker::Forward {
            id,
            flat,
            ms,
            memory,
            last_logits,
            adapter,
            gpu_failed,
        } = answer
        else {
            return;
        };
        self.worker_memory.set_value(Some(memory));
        let mine = self
            .running
            .with_value(|job| job.as_ref().is_some_and(|j| j.id == id));
        if !mine {
            return;
        }
        let Some(job) = self.running.try_update_value(Option::take).flatten() else {
            return;
        };
        if !job.compared {
            self.worker_ms.set_value(Some(ms));
        }
        let work = ForwardWork::from_flat(&flat.to_vec(), adapter.as_deref().unwrap_or_default())
            .unwrap_or_default();
        let Reading {
            tokens,
            ids,
            dropped,
            run,
        } = &job.reading;
        // The pass's time: the worker's computing (not its waits while a sentence is typed) and
        // putting it together here.
        let put = now_ms();
        let result = job
            .model
            .forward_from(tokens, ids, run, work)
            .map(|mut forward| {
                forward.dropped = *dropped;
                let forward = Arc::new(forward);
                if let (Some(logits), Some(last)) = (last_logits, forward.ids.len().checked_sub(1))
                {
                    let logits = ndarray::Array1::from(logits.to_vec());
                    if logits.len() == job.model.config.vocab_size {
                        next_logits::seed(&forward, last, logits);
                    }
                }
                ForwardRef(forward, ms + now_ms() - put)
            })
            .map_err(RequestError::from);
        let pass = match (job.gpu, gpu_failed) {
            (false, _) => ModelPass::Worker,
            (true, failed) => {
                ModelPass::WorkerGpu(failed.map(|(code, detail)| Fallback::named(&code, detail)))
            }
        };
        self.finish(job.request, result, job.compared, pass);
    }
}
