//! The page's side of the Web Worker (`crates/attention-worker`, built by Trunk next to the app):
//! starting it from the page's base address, posting requests, reading its answers, ending it.
//! What the messages mean is in the worker's crate; what to do with them is `state::cpu_jobs`.
//!
//! The worker's module is compiled once, by the page, and handed to every worker it starts: a
//! worker started to replace a cancelled one begins in a few milliseconds, with the code the
//! engine has already optimised, instead of compiling the module again.

use std::cell::RefCell;

use js_sys::{Array, Float32Array, WebAssembly};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, MessageEvent, Url, Worker};

/// Trunk's names for the worker's script and module (next to index.html).
const SCRIPT: &str = "attention-worker.js";
const MODULE: &str = "attention-worker_bg.wasm";

thread_local! {
    /// The worker's compiled module once the page has it, or its address where compiling failed.
    static COMPILED: RefCell<Option<JsValue>> = const { RefCell::new(None) };
    /// Workers waiting for the module while it compiles.
    static WAITING: RefCell<Vec<Worker>> = const { RefCell::new(Vec::new()) };
}

/// One answer from the worker.
pub enum FromWorker {
    /// It is listening (messages posted before this would be lost).
    Ready,
    /// Request `id` has `done` of `heads` heads computed.
    Progress { id: u32, done: usize, heads: usize },
    /// Request `id`'s result, as `Computed::to_flat`.
    Done { id: u32, flat: Numbers },
    /// Request `id` was refused (the page checks requests first, so this is a bug's trace).
    Error { id: u32, message: String },
    /// The worker could not start (its files are missing, as in wasm-bindgen-test) or stopped.
    Failed,
}

/// A worker's numbers, still in the buffer it transferred: read (copied into the page's memory)
/// only for a result that is not stale.
pub struct Numbers(Float32Array);

impl Numbers {
    pub fn to_vec(&self) -> Vec<f32> {
        self.0.to_vec()
    }
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
        let module_url = url(MODULE)?;
        // A classic worker: wasm-bindgen's no-modules glue, then the module the page sends (its
        // first message) — compiled already, or the address to compile it from.
        let source = format!(
            "importScripts({script:?});\n\
             self.onmessage = (event) => {{ self.onmessage = null; \
             wasm_bindgen({{ module_or_path: event.data }}); }};",
            script = url(SCRIPT)?,
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
        send_module(&worker, module_url);
        Some(Self {
            worker,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Asks for heads `heads` of request `id` (the CLI's JSON).
    pub fn post(&self, id: u32, request: &str, heads: std::ops::Range<usize>) -> bool {
        let message = Array::of4(
            &id.into(),
            &request.into(),
            &(heads.start as f64).into(),
            &(heads.end as f64).into(),
        );
        self.worker.post_message(&message).is_ok()
    }
}

/// How many workers the page starts: one per processor the browser reports, up to 4.
pub fn pool_size() -> usize {
    web_sys::window()
        .map_or(1.0, |w| w.navigator().hardware_concurrency())
        .clamp(1.0, 4.0) as usize
}

impl Drop for WorkerHandle {
    /// Ends the worker at once, in the middle of a computation if need be.
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
        WAITING.with_borrow_mut(|waiting| waiting.retain(|w| w != &self.worker));
    }
}

/// Gives `worker` the compiled module: at once if the page has it, else once compiled (the first
/// worker starts the compile).
fn send_module(worker: &Worker, url: String) {
    if let Some(module) = COMPILED.with_borrow(Clone::clone) {
        let _ = worker.post_message(&module);
        return;
    }
    let first = WAITING.with_borrow_mut(|waiting| {
        waiting.push(worker.clone());
        waiting.len() == 1
    });
    if !first {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let module = compile(&url).await.unwrap_or_else(|| url.into());
        COMPILED.with_borrow_mut(|compiled| *compiled = Some(module.clone()));
        for worker in WAITING.with_borrow_mut(std::mem::take) {
            let _ = worker.post_message(&module);
        }
    });
}

async fn compile(url: &str) -> Option<JsValue> {
    let response = web_sys::window()?.fetch_with_str(url);
    let module = JsFuture::from(WebAssembly::compile_streaming(&response))
        .await
        .ok()?;
    module
        .is_instance_of::<WebAssembly::Module>()
        .then_some(module)
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
            flat: Numbers(Float32Array::new(&message.get(2))),
        },
        Some("error") => FromWorker::Error {
            id,
            message: message.get(2).as_string().unwrap_or_default(),
        },
        _ => FromWorker::Failed,
    }
}
