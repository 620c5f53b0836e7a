//! The composition of a folder's model's heads, computed in its worker for the circuit view and
//! for `attentionLab.composition()` (about 90 billion multiply-adds for GPT-2 small's 144 heads:
//! seconds the page's thread would stop for), its progress and its scores answered to each that
//! waits for it: a second asker joins the composition under way instead of starting it again.

use std::rc::Rc;
use std::sync::Arc;

use attention_core::circuits::composition::Composition;
use attention_core::models::Model;
use leptos::prelude::*;

use super::ModelJobs;
use super::answers::{Composed, Composing, OnComposed};
use crate::ui::browser::worker::FromWorker;

impl ModelJobs {
    /// Asks for the composition of `model`'s heads in the worker: `on` is told its progress and
    /// its scores. It joins the composition of `model` under way, or starts one in place of any
    /// other (whose askers are told it ended). The number returned is this asker's, to stop
    /// waiting with ([`ModelJobs::stop_compose`]); `None` when the worker does not hold `model`
    /// (the page computes it).
    pub fn compose(self, model: &Arc<Model>, on: impl Fn(Composed) + 'static) -> Option<u32> {
        if !self.holds(model) {
            return None;
        }
        let address = Arc::as_ptr(model) as usize;
        let on: OnComposed = Rc::new(on);
        let listener = self.next_id();
        let joined = self
            .composer
            .try_update_value(|c| match c {
                Some(c) if c.model == address => {
                    c.listeners.push((listener, on.clone()));
                    true
                }
                _ => false,
            })
            .unwrap_or(false);
        if joined {
            return Some(listener);
        }
        self.tell_composer(None, Composed::Ended);
        let id = self.next_id();
        let posted = self
            .worker
            .with_value(|w| w.as_ref().is_some_and(|w| w.compose(id)));
        if !posted {
            return None;
        }
        // The scores are read back for this model's shape.
        self.composer.set_value(Some(Composing {
            id,
            model: address,
            config: model.config,
            listeners: vec![(listener, on)],
        }));
        Some(listener)
    }

    /// Asker `listener` waits no longer (its view is gone); with nobody left waiting, the
    /// worker is told to stop.
    pub fn stop_compose(self, listener: u32) {
        let nobody = self
            .composer
            .try_update_value(|c| {
                let Some(composing) = c else { return false };
                composing.listeners.retain(|(l, _)| *l != listener);
                let nobody = composing.listeners.is_empty();
                if nobody {
                    *c = None;
                }
                nobody
            })
            .unwrap_or(false);
        if nobody {
            self.worker
                .with_value(|w| w.as_ref().map(|w| w.drop_job("compose")));
        }
    }

    /// What the worker said of a composition, told to those waiting for it.
    pub(super) fn answer_compose(self, answer: FromWorker) {
        match answer {
            FromWorker::Composing { id, done, total } => {
                self.tell_composer(Some(id), Composed::Progress(done, total));
            }
            FromWorker::Composed { id, flat } => {
                let config = self
                    .composer
                    .with_value(|c| c.as_ref().filter(|c| c.id == id).map(|c| c.config));
                let Some(config) = config else { return };
                let answer =
                    Composition::from_flat(&config, &flat).map_or(Composed::Ended, Composed::Done);
                self.tell_composer(Some(id), answer);
            }
            _ => {}
        }
    }

    /// Tells those waiting for the composition under way (message `id`, or any) what the worker
    /// said of it; its scores or its end forget it.
    pub(super) fn tell_composer(self, id: Option<u32>, answer: Composed) {
        let listeners: Vec<OnComposed> = self.composer.with_value(|c| {
            c.as_ref()
                .filter(|c| id.is_none_or(|id| id == c.id))
                .map(|c| c.listeners.iter().map(|(_, on)| on.clone()).collect())
                .unwrap_or_default()
        });
        if listeners.is_empty() {
            return;
        }
        if matches!(answer, Composed::Ended | Composed::Done(_)) {
            self.composer.set_value(None);
        }
        for on in listeners {
            on(match &answer {
                Composed::Progress(done, all) => Composed::Progress(*done, *all),
                Composed::Done(c) => Composed::Done(c.clone()),
                Composed::Ended => Composed::Ended,
            });
        }
    }
}
