//! Attention Lab's Web Worker: the page posts a request, this computes it on its own thread and
//! posts the result back, so that typing, scrolling and drawing never wait for a large trace.
//!
//! A request is computed in units ([`attention_core::pipeline::units`]: a head, or a band of a long head's
//! queries). The page hands each worker a unit or two at a time and another as each comes back,
//! so that a worker slowed by the page's own work takes fewer, and all finish together.
//!
//! Messages (arrays, so that the page needs no schema):
//! - to the worker: `[id, request, projections, unit]`, the request as the CLI's JSON, whether to
//!   send Q, K and V back, and the index of a unit among [`attention_core::pipeline::units::units`] of the
//!   request's config; it starts request `id` (dropping any other) and queues the unit.
//!   `[id, "unit", unit]` queues another unit of request `id`;
//! - from the worker: `["ready"]` once it listens; `[id, "projections", buffer]` (Q, K and V,
//!   [`UnitJob::projections_to_flat`]) when asked; `[id, "unit", unit, buffer]` with the unit's
//!   numbers as [`attention_core::pipeline::units::UnitPart::to_flat`] in a transferred `ArrayBuffer` (the
//!   page assembles the parts and rebuilds the trace from its own copy of the config);
//!   `[id, "error", message]` when the request is invalid;
//! - to the worker: `[id, "cancel"]`: request `id` is stale. The worker reads its messages between
//!   units, so it stops within one (terminating a busy worker does not stop it at once: Chromium
//!   lets it run on for up to two seconds);
//! - to the worker: `[id, "kernel", options]`, issue 24's kernel measure
//!   ([`attention_core::api::kernel_bench`], `options` its JSON); from it `[id, "kernel", result]`,
//!   the result's JSON.
//!
//! Two builds of this crate run in the page: `attention-worker` (WebAssembly simd128) and
//! `attention-worker-relaxed`, the same code with the feature `relaxed-simd` (the products' kernels
//! with fused multiply-add, [`attention_core::math::gemm`]). The page starts the second where the
//! browser validates a relaxed-SIMD instruction, the first elsewhere.

#[cfg(target_arch = "wasm32")]
mod model;
#[cfg(target_arch = "wasm32")]
mod scope;

#[cfg(target_arch = "wasm32")]
pub mod worker {
    use std::cell::RefCell;
    use std::collections::VecDeque;

    use attention_core::Config;
    use attention_core::api::Request;
    use attention_core::pipeline::units::{Unit, UnitJob, units};
    use js_sys::{Array, Float32Array};
    use wasm_bindgen::prelude::*;
    use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

    use super::scope::{now, post};

    /// The request being computed and the units still to do.
    struct Job {
        id: f64,
        config: Config,
        job: UnitJob,
        units: Vec<Unit>,
        queue: VecDeque<usize>,
    }

    thread_local! {
        static JOB: RefCell<Option<Job>> = const { RefCell::new(None) };
        /// The last request's config: the next one reuses what it can of it (a sentence typed
        /// at its end keeps its earlier rows of E and P).
        static LAST: RefCell<Option<Config>> = const { RefCell::new(None) };
        /// Whether a turn (`run`) is already scheduled.
        static SCHEDULED: RefCell<bool> = const { RefCell::new(false) };
        /// The worker's own channel: a message to it is a new task after the ones waiting (the
        /// page's messages), without the 4 ms that nested `setTimeout`s are held back.
        static TURN: RefCell<Option<MessageChannel>> = const { RefCell::new(None) };
    }

    pub fn start() {
        console_error_panic_hook::set_once();
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let reply = scope.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let message = Array::from(&event.data());
            let id = message.get(0);
            let number = id.as_f64().unwrap_or(f64::NAN);
            let unit = message.get(3).as_f64().map(|u| u as usize);
            match message.get(1).as_string().as_deref() {
                Some("model") => super::model::open(&reply, &message),
                Some("reopen") => super::model::reopen(&reply, &message),
                Some("forward") => super::model::forward(&reply, &message),
                Some("drop") => super::model::drop_job(&message),
                Some("stream") => super::model::stream(&reply, &message),
                Some("compose") => super::model::compose(&reply, &message),
                Some("generate") => super::model::generate(&reply, &message),
                Some("step") => super::model::step(&reply, &message),
                Some("generate_json") => super::model::generate_whole(&reply, &message),
                Some("kernel") => {
                    let options = message.get(2).as_string().unwrap_or_default();
                    kernel(&reply, id, &options)
                }
                Some("cancel") => JOB.with_borrow_mut(|job| {
                    if job.as_ref().is_some_and(|j| j.id == number) {
                        *job = None;
                    }
                }),
                Some("unit") => {
                    let unit = message.get(2).as_f64().map(|u| u as usize);
                    queue(&reply, number, unit);
                }
                Some(request) => {
                    let projections = message.get(2).as_bool().unwrap_or(false);
                    begin(&reply, number, request, projections);
                    queue(&reply, number, unit);
                }
                None => {}
            }
        });
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
        // Without a channel of its own (none can be made), the worker runs its units back to
        // back, reading its messages only between requests.
        if let Ok(channel) = MessageChannel::new() {
            let turn_scope = scope.clone();
            let on_turn = Closure::<dyn Fn(MessageEvent)>::new(move |_| run(&turn_scope));
            channel
                .port1()
                .set_onmessage(Some(on_turn.as_ref().unchecked_ref()));
            on_turn.forget();
            TURN.with_borrow_mut(|turn| *turn = Some(channel));
        }
        post(&scope, &Array::of1(&"ready".into()), None);
    }

    /// Starts request `id` unless it is the one being computed, dropping any other.
    fn begin(scope: &DedicatedWorkerGlobalScope, id: f64, request: &str, projections: bool) {
        if JOB.with_borrow(|job| job.as_ref().is_some_and(|j| j.id == id)) {
            return;
        }
        JOB.with_borrow_mut(|job| *job = None);
        let config = serde_json::from_str::<Request>(request)
            .map_err(|e| e.to_string())
            .and_then(|r| r.to_params().map_err(|e| e.to_string()))
            .and_then(|mut params| {
                // As the page: long inputs are summarised, so no trace is too large.
                params.trace = false;
                LAST.with_borrow(|last| params.validate_reusing(last.as_ref()))
                    .map_err(|e| e.to_string())
            });
        let config = match config {
            Ok(config) => config,
            Err(message) => {
                let reply = Array::of3(&id.into(), &"error".into(), &message.into());
                return post(scope, &reply, None);
            }
        };
        LAST.with_borrow_mut(|last| *last = Some(config.clone()));
        let summarise = attention_core::pipeline::overview::summarises(&config);
        let job = UnitJob::new(&config, summarise);
        if projections {
            let flat = Float32Array::from(job.projections_to_flat().as_slice());
            let buffer = flat.buffer();
            let reply = Array::of3(&id.into(), &"projections".into(), &buffer);
            post(scope, &reply, Some(&Array::of1(&buffer)));
        }
        let units = units(&config, summarise);
        JOB.with_borrow_mut(|slot| {
            *slot = Some(Job {
                id,
                config,
                job,
                units,
                queue: VecDeque::new(),
            })
        });
    }

    /// Queues unit `unit` of request `id` (if that is the request being computed).
    fn queue(scope: &DedicatedWorkerGlobalScope, id: f64, unit: Option<usize>) {
        let queued = JOB.with_borrow_mut(|job| match (job.as_mut(), unit) {
            (Some(job), Some(unit)) if job.id == id && unit < job.units.len() => {
                job.queue.push_back(unit);
                true
            }
            _ => false,
        });
        if queued {
            schedule(scope);
        }
    }

    fn schedule(scope: &DedicatedWorkerGlobalScope) {
        if SCHEDULED.replace(true) {
            return;
        }
        let posted = TURN.with_borrow(|turn| {
            turn.as_ref()
                .is_some_and(|t| t.port2().post_message(&JsValue::NULL).is_ok())
        });
        if !posted {
            SCHEDULED.set(false);
            run(scope);
        }
    }

    /// One unit, then a pause for the worker's messages (a "cancel", a newer request or more
    /// units are read there) before the next.
    fn run(scope: &DedicatedWorkerGlobalScope) {
        SCHEDULED.set(false);
        let computed = JOB.with_borrow_mut(|slot| {
            let job = slot.as_mut()?;
            let index = job.queue.pop_front()?;
            let part = job.job.compute(&job.config, &job.units[index]);
            Some((job.id, index, part.to_flat(), !job.queue.is_empty()))
        });
        let Some((id, index, flat, more)) = computed else {
            return;
        };
        let flat = Float32Array::from(flat.as_slice());
        let buffer = flat.buffer();
        let reply = Array::of4(&id.into(), &"unit".into(), &(index as f64).into(), &buffer);
        post(scope, &reply, Some(&Array::of1(&buffer)));
        if more {
            schedule(scope);
        }
    }

    fn kernel(scope: &DedicatedWorkerGlobalScope, id: JsValue, options: &str) {
        let options = serde_json::from_str(options).unwrap_or_default();
        let result = attention_core::api::kernel_bench(&options, &now).to_string();
        post(
            scope,
            &Array::of3(&id, &"kernel".into(), &result.into()),
            None,
        );
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
