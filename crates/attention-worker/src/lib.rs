//! Attention Lab's Web Worker: the page posts a request, this computes it on its own thread and
//! posts the result back, so that typing, scrolling and drawing never wait for a large trace.
//!
//! Messages (arrays, so that the page needs no schema):
//! - to the worker: `[id, request, first_head, end_head]`, the request as the CLI's JSON and the
//!   heads this worker computes (the page splits the heads among several workers);
//! - from the worker: `["ready"]` once it listens; `[id, "progress", heads_done, heads]` after
//!   each head; `[id, "done", buffer]` with its part ([`attention_core::compute_part`]) as
//!   `Computed::to_flat` in a transferred `ArrayBuffer` (the page joins the parts and rebuilds
//!   the trace with `trace_from`, from its own copy of the config); `[id, "error", message]`
//!   when the request is invalid;
//! - to the worker: `[id, "kernel", options]`, issue 24's kernel measure
//!   ([`attention_core::api::kernel_bench`], `options` its JSON); from it `[id, "kernel", result]`,
//!   the result's JSON.
//!
//! - to the worker: `[id, "cancel"]`: request `id` is stale. The worker computes one head at a
//!   time and reads its messages between heads, so it stops within a head (terminating a busy
//!   worker does not stop it at once: Chromium lets it run on for up to two seconds).
//!
//! Two builds of this crate run in the page: `attention-worker` (WebAssembly simd128) and
//! `attention-worker-relaxed`, the same code with the feature `relaxed-simd` (the products' kernels
//! with fused multiply-add, [`attention_core::gemm`]). The page starts the second where the
//! browser validates a relaxed-SIMD instruction, the first elsewhere.

#[cfg(target_arch = "wasm32")]
pub mod worker {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use attention_core::Config;
    use attention_core::api::Request;
    use attention_core::trace::PartJob;
    use js_sys::{Array, Float32Array};
    use wasm_bindgen::prelude::*;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    thread_local! {
        /// The id of the request being computed; NaN when none is (or it was cancelled).
        static CURRENT: Cell<f64> = const { Cell::new(f64::NAN) };
    }

    pub fn start() {
        console_error_panic_hook::set_once();
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let reply = scope.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let message = Array::from(&event.data());
            let id = message.get(0);
            let request = message.get(1).as_string().unwrap_or_default();
            if request == "kernel" {
                let options = message.get(2).as_string().unwrap_or_default();
                return kernel(&reply, id, &options);
            }
            if request == "cancel" {
                if CURRENT.get() == id.as_f64().unwrap_or(f64::NAN) {
                    CURRENT.set(f64::NAN);
                }
                return;
            }
            let head = |i| message.get(i).as_f64().map(|h| h as usize);
            answer(&reply, id, &request, head(2), head(3));
        });
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
        post(&scope, &Array::of1(&"ready".into()), None);
    }

    fn answer(
        scope: &DedicatedWorkerGlobalScope,
        id: JsValue,
        request: &str,
        first: Option<usize>,
        end: Option<usize>,
    ) {
        let config = serde_json::from_str::<Request>(request)
            .map_err(|e| e.to_string())
            .and_then(|r| r.to_params().map_err(|e| e.to_string()))
            .and_then(|mut params| {
                // As the page: long inputs are summarised, so no trace is too large.
                params.trace = false;
                params.validate().map_err(|e| e.to_string())
            });
        let config = match config {
            Ok(config) => config,
            Err(message) => {
                let reply = Array::of3(&id, &"error".into(), &message.into());
                return post(scope, &reply, None);
            }
        };
        let summarise = attention_core::overview::summarises(&config);
        let all = config.dims().n_heads;
        let heads = first.unwrap_or(0).min(all)..end.unwrap_or(all).min(all);
        let job = PartJob::new(&config, summarise, heads);
        let number = id.as_f64().unwrap_or(f64::NAN);
        CURRENT.set(number);
        let state = Rc::new(RefCell::new(Some((config, job))));
        next_head(scope.clone(), number, state);
    }

    /// One more head of request `id`, then a pause for the worker's messages (a "cancel", or a
    /// newer request, is read there) before the next; the part is posted after the last.
    fn next_head(
        scope: DedicatedWorkerGlobalScope,
        id: f64,
        state: Rc<RefCell<Option<(Config, PartJob)>>>,
    ) {
        if CURRENT.get() != id {
            return; // Cancelled, or a newer request came.
        }
        let mut slot = state.borrow_mut();
        let Some((config, job)) = slot.as_mut() else {
            return;
        };
        if job.step(config) {
            let reply = Array::of4(
                &id.into(),
                &"progress".into(),
                &(job.done() as f64).into(),
                &(job.heads() as f64).into(),
            );
            post(&scope, &reply, None);
            drop(slot);
            let (again, scope_again) = (state.clone(), scope.clone());
            let next = Closure::once_into_js(move || next_head(scope_again, id, again));
            if scope
                .set_timeout_with_callback_and_timeout_and_arguments_0(next.unchecked_ref(), 0)
                .is_err()
            {
                CURRENT.set(f64::NAN);
            }
            return;
        }
        let Some((config, job)) = slot.take() else {
            return;
        };
        drop(slot);
        CURRENT.set(f64::NAN);
        let flat = Float32Array::from(job.finish(&config).to_flat().as_slice());
        let buffer = flat.buffer();
        post(
            &scope,
            &Array::of3(&id.into(), &"done".into(), &buffer),
            Some(&Array::of1(&buffer)),
        );
    }

    fn kernel(scope: &DedicatedWorkerGlobalScope, id: JsValue, options: &str) {
        let options = serde_json::from_str(options).unwrap_or_default();
        let performance = js_sys::Reflect::get(scope, &"performance".into()).ok();
        let now_fn = performance
            .as_ref()
            .and_then(|p| js_sys::Reflect::get(p, &"now".into()).ok())
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let now = || match (&performance, &now_fn) {
            (Some(p), Some(f)) => f.call0(p).ok().and_then(|t| t.as_f64()).unwrap_or(0.0),
            _ => js_sys::Date::now(),
        };
        let result = attention_core::api::kernel_bench(&options, &now).to_string();
        post(
            scope,
            &Array::of3(&id, &"kernel".into(), &result.into()),
            None,
        );
    }

    fn post(scope: &DedicatedWorkerGlobalScope, message: &Array, transfer: Option<&Array>) {
        // A failed post (the page has gone) leaves nothing to tell.
        let _ = match transfer {
            Some(transfer) => scope.post_message_with_transfer(message, transfer),
            None => scope.post_message(message),
        };
    }
}

/// Starts listening for the page's messages (in a browser's worker), or says where this belongs.
pub fn start() {
    #[cfg(target_arch = "wasm32")]
    worker::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!(
        "attention-worker runs inside Attention Lab's page (Trunk builds it); use attention-trace on the command line."
    );
}
