//! A user's model in a worker of its own (the model messages of `crates/attention-worker`), so
//! that its forward pass never holds up the page: a model of GPT-2 small's size takes a second
//! of arithmetic per edit, which on the page's thread froze typing and drawing for as long.
//!
//! The page keeps its copy of the model for what is cheap to read from a forward pass (one
//! position's logits, the circuit views) and tokenizes the text (its tokenizer module is here);
//! the worker holds a second copy, built from the same files, and runs each forward pass
//! (`Model::forward_work`), sending back each layer's matrix products; the page puts the same
//! forward pass together (`Model::forward_from`, no projection or MLP computed again). An edit's
//! pass replaces the one under way (the worker drops it between two blocks, and waits while edits
//! come as fast as typing). Where no worker can start, or it fails, the page computes the pass.
//! The worker generates too ([`ModelJobs::generate`]), one step asked for at a time.

use std::collections::BTreeMap;
use std::sync::Arc;

use js_sys::{Array, Object};
use leptos::prelude::*;
use wasm_bindgen::JsValue;

mod answers;
mod composing;
mod forwarded;
mod generation;
mod holding;
mod reopening;
mod streaming;

pub use answers::{Composed, Generated, Streamed};
use answers::{Composing, OnGenerated, OnStreamed, OnWhole};

use super::model::{self, ForwardRef, trained_request};
use crate::ui::browser::js_bytes::JsBytes;
use crate::ui::browser::worker::{FromWorker, WorkerHandle};
use crate::ui::logic::backend::ModelPass;
use attention_core::api::{BackendChoice, Request, RequestError, step_from_json};
use attention_core::models::Model;
use attention_core::models::model::Reading;

/// A forward pass finished, and the request it answers.
pub type Answered = (Request, Result<ForwardRef, RequestError>);

/// What the worker holds.
#[derive(Clone, Default)]
enum Held {
    #[default]
    Nothing,
    /// Reading the model sent with message `id`.
    Opening(u32, Arc<Model>),
    Holding(Arc<Model>),
    /// It could not start or read the model: the page computes.
    Failed,
}

/// A forward pass the worker is computing.
struct Job {
    id: u32,
    /// The pass of the sentence with every head on, to compare knocked-out heads with
    /// ([`ModelJobs::compare`]), rather than the pass the page shows.
    compared: bool,
    request: Request,
    model: Arc<Model>,
    reading: Reading,
    /// Whether its attention is asked of the worker's GPU.
    gpu: bool,
}

/// The model's message, waiting for the worker to listen: its files and vocabulary, or `None`
/// for a folder the worker was given before and builds again from the files it kept.
struct Opening {
    id: u32,
    name: String,
    files: Option<(Object, Array)>,
}

/// The model worker and its queue (browser objects: kept in local storage).
#[derive(Clone, Copy)]
pub struct ModelJobs {
    worker: StoredValue<Option<WorkerHandle>, LocalStorage>,
    listening: StoredValue<bool>,
    waiting: StoredValue<Option<Opening>, LocalStorage>,
    held: RwSignal<Held, LocalStorage>,
    running: StoredValue<Option<Job>, LocalStorage>,
    queued: StoredValue<Option<(Request, Arc<Model>)>, LocalStorage>,
    /// A comparison pass waiting for the worker (after any pass the page shows).
    compare_queued: StoredValue<Option<(Request, Arc<Model>)>, LocalStorage>,
    next_id: StoredValue<u32>,
    /// The generation the worker runs, by message id, and where its answers go.
    generator: StoredValue<Option<(u32, OnGenerated)>, LocalStorage>,
    /// The stream evaluation the worker runs, by message id, and where its answers go.
    streamer: StoredValue<Option<(u32, OnStreamed)>, LocalStorage>,
    /// The whole generations the worker runs for `attentionLab.generate()`, by message id.
    wholes: StoredValue<Vec<(u32, OnWhole)>, LocalStorage>,
    /// The composition the worker computes, and who waits for it.
    composer: StoredValue<Option<Composing>, LocalStorage>,
    /// What waits for the worker to start (an API call asked while its module loads, or while
    /// it builds again a folder it may not have kept), run once it listens or once it cannot
    /// start, or once it answers that folder ([`ModelJobs::when_started`]).
    after_start: StoredValue<Vec<Box<dyn FnOnce()>>, LocalStorage>,
    /// The message asking the worker to build again a folder from the files it kept, until it
    /// answers (built, or not kept: then the page computes).
    reopening: StoredValue<Option<u32>>,
    /// The last forward pass finished and the request it answers.
    pub done: RwSignal<Option<Answered>, LocalStorage>,
    /// The last comparison pass finished ([`ModelJobs::compare`]) and the request it answers.
    pub compared: RwSignal<Option<Answered>, LocalStorage>,
    /// Whether a forward pass is being computed.
    pub busy: RwSignal<bool>,
    /// Where the pass in [`ModelJobs::done`] was computed, as far as the GPU goes (set with it).
    pub pass: RwSignal<ModelPass, LocalStorage>,
    /// How long the worker's last forward pass took there, ms (for `state()`).
    pub worker_ms: StoredValue<Option<f64>>,
    /// The worker's WebAssembly memory, bytes, as it last said.
    pub worker_memory: StoredValue<Option<f64>>,
    /// The bytes of the folders' files the worker keeps (JavaScript's memory, beside its
    /// WebAssembly memory), as it said when it last built a model.
    pub worker_kept: StoredValue<Option<f64>>,
}

impl Default for ModelJobs {
    fn default() -> Self {
        Self {
            worker: StoredValue::new_local(None),
            listening: StoredValue::new(false),
            waiting: StoredValue::new_local(None),
            held: RwSignal::new_local(Held::Nothing),
            running: StoredValue::new_local(None),
            queued: StoredValue::new_local(None),
            compare_queued: StoredValue::new_local(None),
            next_id: StoredValue::new(0),
            generator: StoredValue::new_local(None),
            streamer: StoredValue::new_local(None),
            wholes: StoredValue::new_local(Vec::new()),
            composer: StoredValue::new_local(None),
            after_start: StoredValue::new_local(Vec::new()),
            reopening: StoredValue::new(None),
            done: RwSignal::new_local(None),
            compared: RwSignal::new_local(None),
            busy: RwSignal::new(false),
            pass: RwSignal::new_local(ModelPass::Page),
            worker_ms: StoredValue::new(None),
            worker_memory: StoredValue::new(None),
            worker_kept: StoredValue::new(None),
        }
    }
}

impl ModelJobs {
    fn next_id(self) -> u32 {
        self.next_id.update_value(|id| *id = id.wrapping_add(1));
        self.next_id.get_value()
    }

    /// Gives the worker `model`, read from `files` (a folder's files), to hold instead of any
    /// other; its forward passes go there from now on (the page computes them until it can).
    pub fn open(self, model: Arc<Model>, files: BTreeMap<String, JsBytes>) {
        if !self.switch() {
            return;
        }
        let object = Object::new();
        // Handed over (transferred), not copied: the page built its model from them already.
        for (name, bytes) in files {
            let _ = js_sys::Reflect::set(&object, &name.into(), &bytes.buffer());
        }
        let vocab: Array = model.vocab.iter().map(|p| JsValue::from_str(p)).collect();
        self.post_opening(model, Some((object, vocab)));
    }

    /// Ends what was computed for the model before, and starts the worker if it has not
    /// started; `false` when it cannot start.
    fn switch(self) -> bool {
        self.running.set_value(None);
        self.queued.set_value(None);
        self.compare_queued.set_value(None);
        // A generation of the model before ends with it.
        if let Some((_, on)) = self.generator.try_update_value(Option::take).flatten() {
            on(Generated::Dropped);
        }
        self.tell_streamer(None, Streamed::Ended);
        self.tell_composer(None, Composed::Ended);
        self.tell_whole(
            None,
            Err("another model was opened before the generation ended".into()),
        );
        self.set_busy(false);
        self.done.set(None);
        self.compared.set(None);
        if self.worker.with_value(Option::is_none) {
            let handle = WorkerHandle::spawn(move |answer| self.answer(answer));
            if handle.is_none() {
                self.held.set(Held::Failed);
                return false;
            }
            self.listening.set_value(false);
            self.worker.set_value(handle);
        }
        true
    }

    /// Posts `model`'s message, with its files and vocabulary or (`None`) to be built again from
    /// the files the worker kept, once the worker listens.
    fn post_opening(self, model: Arc<Model>, files: Option<(Object, Array)>) {
        let id = self.next_id();
        self.reopening.set_value(files.is_none().then_some(id));
        self.held.set(Held::Opening(id, model.clone()));
        self.waiting.set_value(Some(Opening {
            id,
            name: model.name.clone(),
            files,
        }));
        if self.listening.get_value() {
            self.post_waiting();
        }
    }

    fn post_waiting(self) {
        let Some(opening) = self.waiting.try_update_value(Option::take).flatten() else {
            return;
        };
        let posted = self.worker.with_value(|w| {
            w.as_ref().is_some_and(|w| match &opening.files {
                Some((files, vocab)) => w.open_model(opening.id, &opening.name, files, vocab),
                None => w.reopen_model(opening.id, &opening.name),
            })
        });
        if !posted {
            self.fail();
        }
    }

    /// The worker's last answer for `model`, whatever the request it answered (what the page
    /// shows while the next one is computed), and whether it answers `request`.
    pub fn last(self, request: &Request) -> Option<(Result<ForwardRef, RequestError>, bool)> {
        self.done.with(|done| {
            done.as_ref()
                .map(|(r, result)| (result.clone(), r == request))
        })
    }

    /// Runs `model` forward on `request`'s sentence in the worker, in place of the pass under
    /// way (the worker drops it between two blocks, and waits while edits come as fast as
    /// typing); nothing when that pass is already asked for.
    pub fn schedule(self, request: Request, model: Arc<Model>) {
        // Until the worker listens (its first message is its module).
        if !self.listening.get_value() {
            self.queued.set_value(Some((request, model)));
            // Waiting counts as computing (behind the worker's start).
            self.set_busy(true);
            return;
        }
        let asked = self.running.with_value(|job| {
            job.as_ref().is_some_and(|j| {
                !j.compared && j.request == request && Arc::ptr_eq(&j.model, &model)
            })
        });
        if asked {
            return;
        }
        // A comparison under way is dropped: it is asked for again once this pass lands.
        self.start(request, model, false);
    }

    /// Runs `model` forward on `request` (the sentence with every head on) in the worker for
    /// the knocked-out heads to be compared with, once no pass the page shows is waiting; the
    /// answer comes in [`ModelJobs::compared`]. Nothing when it already answers `request`.
    pub fn compare(self, request: Request, model: Arc<Model>) {
        let answered = self
            .compared
            .with_untracked(|c| c.as_ref().is_some_and(|(r, _)| *r == request));
        if answered {
            return;
        }
        let busy = self.running.with_value(Option::is_some)
            || self.queued.with_value(Option::is_some)
            || !self.listening.get_value();
        if busy {
            self.compare_queued.set_value(Some((request, model)));
            return;
        }
        self.start(request, model, true);
    }

    fn start(self, request: Request, model: Arc<Model>, compared: bool) {
        let trained = trained_request(&request);
        let reading = match trained.trained_run() {
            Ok((sentence, run)) => model.reading(&sentence, &run),
            Err(error) => {
                self.drop_running();
                return self.finish(request, Err(error), compared, ModelPass::Page);
            }
        };
        if reading.ids.is_empty() {
            self.drop_running();
            // Nothing to send: the page's own pass says why.
            let result = model::run(&model, &request);
            return self.finish(request, result, compared, ModelPass::Page);
        }
        let id = self.next_id();
        let json = serde_json::to_string(&trained).unwrap_or_default();
        let whole = reading.ids.len() + reading.dropped;
        let gpu = request.backend == Some(BackendChoice::Gpu);
        let posted = self.worker.with_value(|w| {
            w.as_ref().is_some_and(|w| {
                w.forward(
                    id,
                    &json,
                    &reading.tokens,
                    &reading.ids,
                    whole,
                    !compared,
                    gpu,
                )
            })
        });
        if !posted {
            self.fail();
            let result = model::run(&model, &request);
            return self.finish(request, result, compared, ModelPass::Page);
        }
        if !compared {
            self.set_busy(true);
        }
        self.running.set_value(Some(Job {
            id,
            compared,
            request,
            model,
            reading,
            gpu,
        }));
    }

    /// The pass under way is no longer wanted, and no other replaces it.
    fn drop_running(self) {
        if self
            .running
            .try_update_value(Option::take)
            .flatten()
            .is_some()
        {
            self.worker
                .with_value(|w| w.as_ref().map(|w| w.drop_job("pass")));
        }
    }

    /// Ends a pass with `result`, computed where `pass` says.
    fn finish(
        self,
        request: Request,
        result: Result<ForwardRef, RequestError>,
        compared: bool,
        pass: ModelPass,
    ) {
        if compared {
            self.compared.set(Some((request, result)));
        } else {
            if self.pass.with_untracked(|p| *p != pass) {
                self.pass.set(pass);
            }
            self.done.set(Some((request, result)));
        }
        if let Some((next, model)) = self.queued.try_update_value(Option::take).flatten() {
            let same = self
                .done
                .with_untracked(|d| d.as_ref().is_some_and(|(r, _)| *r == next));
            if !same && self.serves_untracked(&model) {
                return self.schedule(next, model);
            }
        }
        // No pass for the page left to compute.
        self.set_busy(false);
        self.start_compare_queued();
    }

    /// The comparison pass that waited, if the worker still holds its model.
    fn start_compare_queued(self) {
        if let Some((next, model)) = self.compare_queued.try_update_value(Option::take).flatten()
            && self.serves_untracked(&model)
        {
            self.compare(next, model);
        }
    }

    fn set_busy(self, busy: bool) {
        if self.busy.get_untracked() != busy {
            self.busy.set(busy);
        }
    }

    fn serves_untracked(self, model: &Arc<Model>) -> bool {
        untrack(|| self.serves(model))
    }

    /// The worker is gone or refused the model: the page computes from now on, the pass under
    /// way included.
    fn fail(self) {
        self.held.set(Held::Failed);
        self.reopening.set_value(None);
        self.worker.set_value(None);
        // What waited for the worker the page computes itself: nothing is left waiting.
        self.queued.set_value(None);
        self.compare_queued.set_value(None);
        if let Some(job) = self.running.try_update_value(Option::take).flatten() {
            let result = model::run(&job.model, &job.request);
            self.finish(job.request, result, job.compared, ModelPass::Page);
        }
        self.set_busy(false);
        self.tell_generator(None, Generated::Failed);
        self.tell_streamer(None, Streamed::Ended);
        self.tell_composer(None, Composed::Ended);
        self.tell_whole(None, Err("the model's worker stopped".into()));
        self.run_after_start();
    }

    fn answer(self, answer: FromWorker) {
        match answer {
            FromWorker::Ready => {
                self.listening.set_value(true);
                self.post_waiting();
                match self.queued.try_update_value(Option::take).flatten() {
                    Some((next, model)) => self.schedule(next, model),
                    None => self.start_compare_queued(),
                }
                self.run_after_start();
            }
            FromWorker::ModelOpened { id, memory, kept } => {
                self.worker_memory.set_value(Some(memory));
                self.worker_kept.set_value(Some(kept));
                let opened = self.held.with_untracked(|held| match held {
                    Held::Opening(i, model) if *i == id => Some(model.clone()),
                    _ => None,
                });
                if let Some(model) = opened {
                    self.held.set(Held::Holding(model));
                }
                // What waited for a folder built again goes to the worker now; what waited for
                // one since replaced is refused.
                if self.reopening.get_value() == Some(id) {
                    self.reopening.set_value(None);
                }
                self.run_after_start();
            }
            FromWorker::Forward { .. } => self.forwarded(answer),
            FromWorker::Stepped { id, json } => {
                let answer = step_from_json(&json).map_or(Generated::Failed, Generated::Step);
                self.tell_generator(Some(id), answer);
            }
            FromWorker::Streaming { .. }
            | FromWorker::Streamed { .. }
            | FromWorker::Recomputed { .. } => self.answer_stream(answer),
            FromWorker::Composing { .. } | FromWorker::Composed { .. } => {
                self.answer_compose(answer)
            }
            FromWorker::Generated { id, json } => self.tell_whole(Some(id), Ok(json)),
            FromWorker::NotKept { id } => self.not_kept(id),
            FromWorker::Error { id, message } => {
                self.tell_whole(Some(id), Err(message));
                // A generation the worker refused: the page generates it.
                self.tell_generator(Some(id), Generated::Failed);
                self.tell_streamer(Some(id), Streamed::Ended);
                self.tell_composer(Some(id), Composed::Ended);
                let opening = self
                    .held
                    .with_untracked(|held| matches!(held, Held::Opening(i, _) if *i == id));
                let running = self
                    .running
                    .with_value(|job| job.as_ref().is_some_and(|j| j.id == id));
                if opening || running {
                    self.fail();
                }
            }
            FromWorker::Failed => self.fail(),
            _ => {}
        }
    }
}
