//! The page's side of the Web Worker (`crates/attention-worker`, built by Trunk next to the app):
//! starting it from the page's base address, posting requests, reading its answers, ending it.
//! What the messages mean is in the worker's crate; what to do with them is `state::cpu_jobs`.
//!
//! The worker's module is compiled once, by the page, and handed to every worker it starts: a
//! worker started to replace a cancelled one begins in a few milliseconds, with the code the
//! engine has already optimised, instead of compiling the module again.
//!
//! The worker comes in two builds ([`Build`]): relaxed SIMD's fused multiply-add where the browser
//! validates it, simd128 elsewhere (a module with a relaxed-SIMD instruction would not even load
//! there). The page asks the browser once, with a ten-instruction probe module.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Promise, Uint8Array, WebAssembly};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, MessageEvent, Url, Worker};

use super::from_worker::read;
pub use super::from_worker::{FromWorker, Numbers};

/// The two builds of the worker (`crates/attention-worker`, two binaries Trunk builds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// WebAssembly's 128-bit SIMD: every browser with WebAssembly SIMD.
    Simd128,
    /// The same with relaxed SIMD (`f32x4.relaxed_madd`): Chromium 114+, Firefox 120+.
    Relaxed,
}

impl Build {
    /// Its name in `attentionLab`'s answers: `"simd128"` or `"relaxed-simd"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Simd128 => "simd128",
            Self::Relaxed => "relaxed-simd",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Simd128, Self::Relaxed]
            .into_iter()
            .find(|b| b.name() == name)
    }

    /// Trunk's names for its script and module (next to index.html).
    fn files(self) -> (&'static str, &'static str) {
        match self {
            Self::Simd128 => ("attention-worker.js", "attention-worker_bg.wasm"),
            Self::Relaxed => (
                "attention-worker-relaxed.js",
                "attention-worker-relaxed_bg.wasm",
            ),
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// The build this browser runs: relaxed SIMD where `WebAssembly.validate` accepts a module
    /// using it, else simd128. Asked once per page.
    pub fn chosen() -> Self {
        thread_local! {
            static CHOSEN: Build = if relaxed_simd_validates() { Build::Relaxed } else { Build::Simd128 };
        }
        CHOSEN.with(|b| *b)
    }
}

/// A module of one function, (v128, v128, v128) → v128, that returns `f32x4.relaxed_madd` of
/// its arguments: valid exactly where relaxed SIMD is supported (wasm-feature-detect's probe).
const RELAXED_SIMD_PROBE: [u8; 37] = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
    0x01, 0x08, 0x01, 0x60, 0x03, 0x7b, 0x7b, 0x7b, 0x01, 0x7b, // type: (v128 ×3) → v128
    0x03, 0x02, 0x01, 0x00, // function 0 has type 0
    0x0a, 0x0d, 0x01, 0x0b, 0x00, // code: one body of 11 bytes, no locals
    0x20, 0x00, 0x20, 0x01, 0x20, 0x02, // local.get 0, 1, 2
    0xfd, 0x85, 0x02, 0x0b, // f32x4.relaxed_madd, end
];

fn relaxed_simd_validates() -> bool {
    WebAssembly::validate(&Uint8Array::from(&RELAXED_SIMD_PROBE[..]).into()).unwrap_or(false)
}

thread_local! {
    /// Per build: its compiled module once the page has it, or its address where compiling failed.
    static COMPILED: RefCell<[Option<JsValue>; 2]> = const { RefCell::new([None, None]) };
    /// Per build: workers waiting for the module while it compiles.
    static WAITING: RefCell<[Vec<Worker>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
}

/// A running worker and the callbacks it calls, which live as long as it does.
pub struct WorkerHandle {
    worker: Worker,
    build: Build,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(JsValue)>,
}

impl WorkerHandle {
    /// Starts a worker of the browser's build; `on_answer` receives its answers. `None` when
    /// the browser refuses.
    pub fn spawn(on_answer: impl Fn(FromWorker) + Clone + 'static) -> Option<Self> {
        Self::spawn_build(Build::chosen(), on_answer)
    }

    /// Starts a worker of `build`.
    pub fn spawn_build(
        build: Build,
        on_answer: impl Fn(FromWorker) + Clone + 'static,
    ) -> Option<Self> {
        let base = web_sys::window()?.document()?.base_uri().ok()??;
        let url = |name: &str| Url::new_with_base(name, &base).ok().map(|u| u.href());
        let (script, module) = build.files();
        let module_url = url(module)?;
        let blob_url = bootstrap(build, &url(script)?)?;
        let worker = Worker::new(&blob_url).ok()?;
        let answer = on_answer.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            answer(read(&event.data()));
        });
        let on_error = Closure::<dyn Fn(JsValue)>::new(move |_| on_answer(FromWorker::Failed));
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        send_module(build, &worker, module_url);
        Some(Self {
            worker,
            build,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Starts request `id` (the CLI's JSON) with its unit `unit`; with `projections`, the worker
    /// sends Q, K and V back too.
    pub fn begin(&self, id: u32, request: &JsValue, projections: bool, unit: usize) -> bool {
        let message = Array::of4(
            &id.into(),
            request,
            &projections.into(),
            &(unit as f64).into(),
        );
        self.worker.post_message(&message).is_ok()
    }

    /// One more unit of request `id`, which the worker has begun.
    pub fn unit(&self, id: u32, unit: usize) -> bool {
        let message = Array::of3(&id.into(), &"unit".into(), &(unit as f64).into());
        self.worker.post_message(&message).is_ok()
    }

    /// Tells the worker request `id` is stale: it stops after the unit it is on.
    pub fn cancel(&self, id: u32) {
        let _ = self
            .worker
            .post_message(&Array::of2(&id.into(), &"cancel".into()));
    }

    /// Gives the worker a user's model to hold: `files` an object of file name → `ArrayBuffer`
    /// (transferred: the page keeps no copy), `vocab` the pieces of its vocabulary, index = id.
    pub fn open_model(&self, id: u32, name: &str, files: &js_sys::Object, vocab: &Array) -> bool {
        let message = Array::of5(&id.into(), &"model".into(), &name.into(), files, vocab);
        let transfer: Array = js_sys::Object::values(files).iter().collect();
        self.worker
            .post_message_with_transfer(&message, &transfer)
            .is_ok()
    }

    /// Has the worker build again the folder's model `name` from the files it kept.
    pub fn reopen_model(&self, id: u32, name: &str) -> bool {
        let message = Array::of3(&id.into(), &"reopen".into(), &name.into());
        self.worker.post_message(&message).is_ok()
    }

    /// Runs the held model forward on `ids` (their pieces `tokens`, the last of a text of
    /// `whole` tokens) under the trained request `request` (its JSON), in place of the pass
    /// under way; `edit` for a pass the page shows (edits that come as fast as typing wait),
    /// `gpu` for its attention on the worker's WebGPU.
    #[allow(clippy::too_many_arguments)] // One message's fields, each named.
    pub fn forward(
        &self,
        id: u32,
        request: &str,
        tokens: &[String],
        ids: &[u32],
        whole: usize,
        edit: bool,
        gpu: bool,
    ) -> bool {
        let tokens: Array = tokens.iter().map(|t| JsValue::from_str(t)).collect();
        let message = Array::of5(
            &id.into(),
            &"forward".into(),
            &request.into(),
            &tokens,
            &js_sys::Uint32Array::from(ids),
        );
        message.push(&(whole as f64).into());
        message.push(&edit.into());
        message.push(&gpu.into());
        self.worker.post_message(&message).is_ok()
    }

    /// Starts a stream evaluation of the held model on a text's `ids` (tokenized here) with a
    /// rolling cache of `window` tokens and `sinks` sink tokens.
    pub fn stream(&self, id: u32, ids: &[u32], window: usize, sinks: usize) -> bool {
        let message = Array::of5(
            &id.into(),
            &"stream".into(),
            &js_sys::Uint32Array::from(ids),
            &(window as f64).into(),
            &(sinks as f64).into(),
        );
        self.worker.post_message(&message).is_ok()
    }

    /// Starts the composition of the held model's heads.
    pub fn compose(&self, id: u32) -> bool {
        let message = Array::of2(&id.into(), &"compose".into());
        self.worker.post_message(&message).is_ok()
    }

    /// Drops what the model worker computes and the page wants no longer, nothing to replace
    /// it: the forward pass (`"pass"`), the stream evaluation (`"stream"`) or the composition
    /// (`"compose"`).
    pub fn drop_job(&self, what: &str) {
        let message = Array::of3(&0.into(), &"drop".into(), &what.into());
        let _ = self.worker.post_message(&message);
    }

    /// Starts a generation of the held model after the prompt `ids` (the sentence of the
    /// trained request `request`, its JSON, tokenized here): `steps` at most, with the cache or
    /// not, greedy (`temperature` 0) or drawn from `seed`.
    #[allow(clippy::too_many_arguments)] // One message's fields, each named.
    pub fn generate(
        &self,
        id: u32,
        request: &str,
        ids: &[u32],
        steps: usize,
        cache: bool,
        temperature: f64,
        seed: u64,
    ) -> bool {
        let message = Array::of5(
            &id.into(),
            &"generate".into(),
            &request.into(),
            &(steps as f64).into(),
            &cache.into(),
        );
        message.push(&temperature.into());
        message.push(&seed.to_string().into());
        message.push(&js_sys::Uint32Array::from(ids));
        self.worker.post_message(&message).is_ok()
    }

    /// Runs a whole generation of the held model after the prompt `ids` under the trained
    /// request `request` (its JSON, with its `"generate"` object), answered at once.
    pub fn generate_json(&self, id: u32, request: &str, ids: &[u32]) -> bool {
        let message = Array::of4(
            &id.into(),
            &"generate_json".into(),
            &request.into(),
            &js_sys::Uint32Array::from(ids),
        );
        self.worker.post_message(&message).is_ok()
    }

    /// Asks for the next step of generation `id`, compared with a recompute or not (`check`).
    pub fn step(&self, id: u32, check: bool) -> bool {
        let message = Array::of3(&id.into(), &"step".into(), &check.into());
        self.worker.post_message(&message).is_ok()
    }

    /// Asks for the kernel measure with `options` (its JSON).
    pub fn post_kernel(&self, options: &str) -> bool {
        let message = Array::of3(&0.into(), &"kernel".into(), &options.into());
        self.worker.post_message(&message).is_ok()
    }
}

/// Issue 24's kernel measure in a fresh worker of `build` (which then ends): the result's JSON.
pub async fn kernel_bench(build: Build, options: String) -> String {
    let failed = || r#"{"ok":false,"error":"the worker could not start"}"#.to_string();
    let handle: Rc<RefCell<Option<WorkerHandle>>> = Rc::default();
    let resolver: Rc<RefCell<Option<js_sys::Function>>> = Rc::default();
    let answered = Promise::new(&mut |resolve, _| *resolver.borrow_mut() = Some(resolve));
    let (posting, resolving) = (handle.clone(), resolver.clone());
    let on_answer = move |answer| {
        let json = match answer {
            FromWorker::Ready => {
                if let Some(worker) = posting.borrow().as_ref() {
                    worker.post_kernel(&options);
                }
                return;
            }
            FromWorker::Kernel { json } => json,
            FromWorker::Failed => failed(),
            _ => return,
        };
        if let Some(resolve) = resolving.borrow_mut().take() {
            let _ = resolve.call1(&JsValue::NULL, &json.into());
        }
    };
    let Some(worker) = WorkerHandle::spawn_build(build, on_answer) else {
        return failed();
    };
    *handle.borrow_mut() = Some(worker);
    let json = JsFuture::from(answered)
        .await
        .ok()
        .and_then(|v| v.as_string());
    // Ended here, not in its own callback.
    handle.borrow_mut().take();
    json.unwrap_or_else(failed)
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
        WAITING
            .with_borrow_mut(|waiting| waiting[self.build.index()].retain(|w| w != &self.worker));
    }
}

/// The address of a worker's first script, per build, made once: a classic worker that loads
/// wasm-bindgen's no-modules glue, then the module the page sends as its first message
/// (compiled already, or the address to compile it from). Kept for the page's life, since
/// workers are started again on every cancelled computation (a Blob and its address cost about
/// a millisecond each time).
fn bootstrap(build: Build, script: &str) -> Option<String> {
    thread_local! {
        static URLS: RefCell<[Option<String>; 2]> = const { RefCell::new([None, None]) };
    }
    if let Some(url) = URLS.with_borrow(|urls| urls[build.index()].clone()) {
        return Some(url);
    }
    let source = format!(
        "importScripts({script:?});\n\
         self.onmessage = (event) => {{ self.onmessage = null; \
         wasm_bindgen({{ module_or_path: event.data }}); }};"
    );
    let options = BlobPropertyBag::new();
    options.set_type("text/javascript");
    let blob =
        Blob::new_with_str_sequence_and_options(&Array::of1(&source.into()), &options).ok()?;
    let url = Url::create_object_url_with_blob(&blob).ok()?;
    URLS.with_borrow_mut(|urls| urls[build.index()] = Some(url.clone()));
    Some(url)
}

/// Gives `worker` the compiled module: at once if the page has it, else once compiled (the first
/// worker starts the compile).
fn send_module(build: Build, worker: &Worker, url: String) {
    let at = build.index();
    if let Some(module) = COMPILED.with_borrow(|compiled| compiled[at].clone()) {
        let _ = worker.post_message(&module);
        return;
    }
    let first = WAITING.with_borrow_mut(|waiting| {
        waiting[at].push(worker.clone());
        waiting[at].len() == 1
    });
    if !first {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let module = compile(&url).await.unwrap_or_else(|| url.into());
        COMPILED.with_borrow_mut(|compiled| compiled[at] = Some(module.clone()));
        for worker in WAITING.with_borrow_mut(|waiting| std::mem::take(&mut waiting[at])) {
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
