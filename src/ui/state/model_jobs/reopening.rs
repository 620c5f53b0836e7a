//! A folder's model the page goes back to, after another was opened: the worker builds it again
//! from the files it kept (while they are small: `crates/attention-worker`'s `KEEP_BYTES`),
//! so that its passes leave the page's thread again; where it kept none, the page computes.

use std::sync::Arc;

use attention_core::models::Model;
use leptos::prelude::*;

use super::{Held, ModelJobs};

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
}
