//! The composition of a folder's model's heads, computed in its worker for the circuit view
//! (about 90 billion multiply-adds for GPT-2 small's 144 heads: seconds the page's thread would
//! stop for), its progress and its scores answered to the view.

use std::rc::Rc;
use std::sync::Arc;

use attention_core::circuits::composition::Composition;
use attention_core::models::Model;
use leptos::prelude::*;

use super::ModelJobs;
use super::answers::{Composed, OnComposed};
use crate::ui::browser::worker::FromWorker;

impl ModelJobs {
    /// Starts the composition of `model`'s heads in the worker, in place of any before it; its
    /// progress and its scores are answered to `on`. `None` when the worker does not hold
    /// `model` (the page computes it).
    pub fn compose(self, model: &Arc<Model>, on: impl Fn(Composed) + 'static) -> Option<u32> {
        if !self.holds(model) {
            return None;
        }
        let id = self.next_id();
        let posted = self
            .worker
            .with_value(|w| w.as_ref().is_some_and(|w| w.compose(id)));
        if !posted {
            return None;
        }
        // The scores are read back for this model's shape.
        self.composer
            .set_value(Some((id, model.config, Rc::new(on) as OnComposed)));
        Some(id)
    }

    /// Forgets the composition under way (its view is gone) and tells the worker to stop.
    pub fn stop_compose(self) {
        if self
            .composer
            .try_update_value(Option::take)
            .flatten()
            .is_some()
        {
            self.worker
                .with_value(|w| w.as_ref().map(|w| w.drop_job("compose")));
        }
    }

    /// What the worker said of a composition, told to it.
    pub(super) fn answer_compose(self, answer: FromWorker) {
        match answer {
            FromWorker::Composing { id, done, total } => {
                self.tell_composer(Some(id), Composed::Progress(done, total));
            }
            FromWorker::Composed { id, flat } => {
                let config = self
                    .composer
                    .with_value(|c| c.as_ref().filter(|(i, ..)| *i == id).map(|(_, c, _)| *c));
                let read = config.and_then(|config| Composition::from_flat(&config, &flat));
                let answer = read.map_or(Composed::Ended, Composed::Done);
                self.tell_composer(Some(id), answer);
                if config.is_some() {
                    self.composer.set_value(None);
                }
            }
            _ => {}
        }
    }

    /// Tells the composition under way (message `id`, or any) what the worker said of it; its
    /// end forgets it.
    pub(super) fn tell_composer(self, id: Option<u32>, answer: Composed) {
        let on = self.composer.with_value(|c| {
            c.as_ref()
                .filter(|(i, ..)| id.is_none_or(|id| id == *i))
                .map(|(.., on)| on.clone())
        });
        if let Some(on) = on {
            if matches!(answer, Composed::Ended) {
                self.composer.set_value(None);
            }
            on(answer);
        }
    }
}
