//! A folder's model the page goes back to, after another was opened: the worker builds it again
//! from the files it kept (while they are small: `crates/attention-worker`'s `KEEP_BYTES`),
//! so that its passes leave the page's thread again; where it kept none, the page computes.

use std::sync::Arc;

use attention_core::models::Model;
use leptos::prelude::*;

use super::{Held, ModelJobs};
use crate::ui::logic::backend::ModelPass;

impl ModelJobs {
    /// Has the worker hold `model` again, a folder's model it was given before; nothing when it
    /// holds it already, or has stopped (the page computes then).
    pub fn reopen(self, model: Arc<Model>) {
        let skip = self.held.with_untracked(|held| match held {
            Held::Opening(_, m) | Held::Holding(m) => Arc::ptr_eq(m, &model),
            Held::Failed | Held::Nothing => true,
        });
        if skip || self.worker.with_value(Option::is_none) || !self.switch() {
            return;
        }
        self.post_opening(model, None);
    }

    /// The worker kept no files of the folder message `id` asked it to build again: it holds no
    /// model now, and the page computes that one's passes (the pass under way too); the worker
    /// stays for the next folder opened.
    pub(super) fn not_kept(self, id: u32) {
        let asked = self
            .held
            .with_untracked(|held| matches!(held, Held::Opening(i, _) if *i == id));
        if !asked {
            return;
        }
        self.held.set(Held::Nothing);
        self.reopening.set_value(None);
        self.queued.set_value(None);
        self.compare_queued.set_value(None);
        if let Some(job) = self.running.try_update_value(Option::take).flatten() {
            let result = crate::ui::state::model::run(&job.model, &job.request);
            self.finish(job.request, result, job.compared, ModelPass::Page);
        }
        self.set_busy(false);
        // What waited for the folder (`starting_with`) the page computes now.
        self.run_after_start();
    }
}
