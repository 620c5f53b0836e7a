//! The stream evaluation the model worker runs for the page (the streaming view on a model
//! folder of one's own): the text's ids sent once, what is read coming back turn by turn.

use std::rc::Rc;
use std::sync::Arc;

use attention_core::models::Model;
use attention_core::models::stream::StreamSpec;
use leptos::prelude::*;

use super::ModelJobs;
use super::answers::Streamed;
use crate::ui::browser::worker::FromWorker;

impl ModelJobs {
    /// Starts a stream evaluation of `model` on `ids` (a text the page tokenized and checked
    /// with `stream_ids`) under `spec` in the worker, in place of any before it; what it reads
    /// is answered to `on` as it comes. `None` when the worker does not hold `model`.
    pub fn stream(
        self,
        model: &Arc<Model>,
        ids: &[u32],
        spec: StreamSpec,
        on: impl Fn(Streamed) + 'static,
    ) -> Option<u32> {
        if !self.holds(model) {
            return None;
        }
        let id = self.next_id();
        let posted = self.worker.with_value(|w| {
            w.as_ref()
                .is_some_and(|w| w.stream(id, ids, spec.window, spec.sink_tokens))
        });
        if !posted {
            return None;
        }
        self.streamer.set_value(Some((id, Rc::new(on))));
        Some(id)
    }

    /// Forgets the stream evaluation under way (its view is gone) and tells the worker to stop.
    pub fn stop_stream(self) {
        if self
            .streamer
            .try_update_value(Option::take)
            .flatten()
            .is_some()
        {
            self.worker
                .with_value(|w| w.as_ref().map(|w| w.drop_job("stream")));
        }
    }

    /// What the worker read of a stream evaluation, told to it.
    pub(super) fn answer_stream(self, answer: FromWorker) {
        match answer {
            FromWorker::Streaming {
                id,
                phase,
                done,
                total,
            } => self.tell_streamer(Some(id), Streamed::Reading { phase, done, total }),
            FromWorker::Streamed {
                id,
                with_sinks,
                without_sinks,
                share,
                heads,
            } => {
                let share = share.to_vec();
                let share = share.chunks(heads.max(1)).map(<[f32]>::to_vec).collect();
                let (with_sinks, without_sinks) = (with_sinks.to_vec(), without_sinks.to_vec());
                let read = Streamed::Read {
                    with_sinks,
                    without_sinks,
                    share,
                };
                self.tell_streamer(Some(id), read);
            }
            FromWorker::Recomputed { id, from, losses } => {
                let losses = losses.to_vec();
                self.tell_streamer(Some(id), Streamed::Recomputed { from, losses });
            }
            _ => {}
        }
    }

    /// Tells the stream evaluation under way (message `id`, or any) what the worker said of it;
    /// its end forgets it.
    pub(super) fn tell_streamer(self, id: Option<u32>, answer: Streamed) {
        let on = self.streamer.with_value(|s| {
            s.as_ref()
                .filter(|(i, _)| id.is_none_or(|id| id == *i))
                .map(|(_, on)| on.clone())
        });
        if let Some(on) = on {
            if matches!(answer, Streamed::Ended) {
                self.streamer.set_value(None);
            }
            on(answer);
        }
    }
}
