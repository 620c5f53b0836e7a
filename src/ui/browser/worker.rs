//! The page's side of the Web Worker (`crates/attention-worker`, built by Trunk next to the app):
//! starting it from the page's base address, posting requests, reading its answers, ending it.
//! What the messages mean is in the worker's crate; what to do with them is `state::cpu_jobs`.

use js_sys::{Array, Float32Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Blob, BlobPropertyBag, MessageEvent, Url, Worker};

/// Trunk's names for the worker's script and module (next to index.html).
const SCRIPT: &str = "attention-worker.js";
const MODULE: &str = "attention-worker_bg.wasm";

/// One answer from the worker.
pub enum FromWorker {
    /// It is listening (messages posted before this would be lost).
    Ready,
    /// Request `id` has `done` of `heads` heads computed.
    Progress { id: u32, done: usize, heads: usize },
    /// Request `id`'s result, as `Computed::to_flat`.
    Done { id: u32, flat: Float32Array },
    /// Request `id` was refused (the page checks requests first, so this is a bug's trace).
    Error { id: u32, message: String },
    /// The worker could not start (its files are missing, as in wasm-bindgen-test) or stopped.
    Failed,
}

/// A running worker and the callbacks it calls, which live as long as it does.
pub struct WorkerHandle {
    worker: Worker,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(JsValue)>,
}

impl WorkerHandle {
    /// Starts a worker; `on_answer` receives its answers. `None` when the browser refuses.
    pub fn spawn(on_answer: impl Fn(FromWorker) + Clone + 'static) -> Option<Self> {
        let base = web_sys::window()?.document()?.base_uri().ok()??;
        let url = |name: &str| Url::new_with_base(name, &base).ok().map(|u| u.href());
        // A classic worker whose script loads wasm-bindgen's no-modules glue and then the module.
        let source = format!(
            "importScripts({script:?}); wasm_bindgen({module:?});",
            script = url(SCRIPT)?,
            module = url(MODULE)?,
        );
        let options = BlobPropertyBag::new();
        options.set_type("text/javascript");
        let blob =
            Blob::new_with_str_sequence_and_options(&Array::of1(&source.into()), &options).ok()?;
        let blob_url = Url::create_object_url_with_blob(&blob).ok()?;
        let worker = Worker::new(&blob_url).ok();
        let _ = Url::revoke_object_url(&blob_url);
        let worker = worker?;
        let answer = on_answer.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            answer(read(&event.data()));
        });
        let on_error = Closure::<dyn Fn(JsValue)>::new(move |_| on_answer(FromWorker::Failed));
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Some(Self {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Asks for request `id` (the CLI's JSON).
    pub fn post(&self, id: u32, request: &str) -> bool {
        self.worker
            .post_message(&Array::of2(&id.into(), &request.into()))
            .is_ok()
    }
}

impl Drop for WorkerHandle {
    /// Ends the worker at once, in the middle of a computation if need be.
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

fn read(data: &JsValue) -> FromWorker {
    let message = Array::from(data);
    let id = message.get(0).as_f64().unwrap_or(0.0) as u32;
    let number = |i| message.get(i).as_f64().unwrap_or(0.0) as usize;
    match message.get(1).as_string().as_deref() {
        _ if message.get(0).as_string().as_deref() == Some("ready") => FromWorker::Ready,
        Some("progress") => FromWorker::Progress {
            id,
            done: number(2),
            heads: number(3),
        },
        Some("done") => FromWorker::Done {
            id,
            flat: Float32Array::new(&message.get(2)),
        },
        Some("error") => FromWorker::Error {
            id,
            message: message.get(2).as_string().unwrap_or_default(),
        },
        _ => FromWorker::Failed,
    }
}
