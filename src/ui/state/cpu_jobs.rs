//! Large traces on the CPU, off the page's thread: from `engine::LATER_CELLS` up, a request goes
//! to the Web Worker (`crates/attention-worker`), so the text box, sliders and scrolling never
//! wait for it. Only the newest request matters: one that arrives while the worker computes an
//! older one is computed next, and if the older one would take longer than
//! [`CANCEL_AFTER_MS`] more, ends it (the worker is terminated and a new one started); a result
//! that is already stale is never read, let alone drawn. While it
//! computes, `progress` counts the heads done.
//!
//! Where no worker can start (its files are missing, as under wasm-bindgen-test, or the browser
//! refuses), the same jobs run on the page's thread after a paint, newest request only.

use leptos::prelude::*;

use super::lab::{Lab, Outcome, compute, validate};
use crate::ui::browser::clock::now_ms;
use crate::ui::browser::worker::{FromWorker, WorkerHandle};
use crate::ui::model::TraceRef;
use attention_core::api::Request;
use attention_core::{Backend, Computed, Config, FlashDetail, trace_from};

/// The worker's state.
enum Worker {
    /// Not needed yet.
    Unstarted,
    /// Loading its module: requests wait.
    Starting(WorkerHandle),
    Ready(WorkerHandle),
    /// It cannot run here: jobs run on the page's thread.
    Unavailable,
}

/// A computation expected to run longer than this is ended by a newer request rather than
/// waited for (starting a new worker costs a module compile, ~20 ms on this machine).
pub const CANCEL_AFTER_MS: f64 = 150.0;

/// The request the worker is computing.
struct Running {
    id: u32,
    request: Request,
    config: Config,
    started_ms: f64,
    /// Traced cells (heads × queries × keys): what its time is estimated from.
    cells: f64,
}

#[derive(Clone, Copy)]
pub struct CpuJobs {
    worker: StoredValue<Worker, LocalStorage>,
    running: StoredValue<Option<Running>, LocalStorage>,
    next_id: StoredValue<u32>,
    /// A job runs on the page's thread (no worker).
    busy: StoredValue<bool>,
    /// The newest request that arrived while a job waited or ran.
    queued: StoredValue<Option<Request>>,
    /// The last finished computation and the request it answers.
    pub done: RwSignal<Option<(Request, Outcome)>>,
    /// Heads done and heads in all, while the worker computes.
    pub progress: RwSignal<Option<(usize, usize)>>,
    /// How many jobs finished (for tests: coalesced changes run once).
    pub runs: StoredValue<usize>,
    /// How many computations a newer request cancelled.
    pub cancelled: StoredValue<usize>,
    /// Milliseconds per traced cell, from the last finished computation.
    rate: StoredValue<f64>,
}

impl CpuJobs {
    pub fn new() -> Self {
        Self {
            worker: StoredValue::new_local(Worker::Unstarted),
            running: StoredValue::new_local(None),
            next_id: StoredValue::new(0),
            busy: StoredValue::new(false),
            queued: StoredValue::new(None),
            done: RwSignal::new(None),
            progress: RwSignal::new(None),
            runs: StoredValue::new(0),
            cancelled: StoredValue::new(0),
            // 4 heads × 1024² cells in ~120 ms, until measured.
            rate: StoredValue::new(3e-5),
        }
    }

    /// Whether the worker computes (false before it is needed, and where none can run).
    pub fn in_worker(&self) -> bool {
        self.worker
            .with_value(|w| matches!(w, Worker::Starting(_) | Worker::Ready(_)))
    }
}

impl Default for CpuJobs {
    fn default() -> Self {
        Self::new()
    }
}

/// Computes `request` in the worker (or, without one, after the next paint); a newer request
/// replaces one still waiting and cancels one being computed.
pub fn schedule(lab: Lab, request: Request) {
    let jobs = lab.cpu_jobs;
    if jobs
        .done
        .with_untracked(|d| d.as_ref().is_some_and(|(r, _)| *r == request))
    {
        return;
    }
    jobs.queued.set_value(Some(request));
    if jobs.worker.with_value(|w| matches!(w, Worker::Unstarted)) {
        start_worker(lab);
    }
    pump(lab);
}

fn start_worker(lab: Lab) {
    let state = match WorkerHandle::spawn(move |answer| on_answer(lab, answer)) {
        Some(handle) => Worker::Starting(handle),
        None => Worker::Unavailable,
    };
    lab.cpu_jobs.worker.set_value(state);
}

/// Starts the next job if it can.
fn pump(lab: Lab) {
    let jobs = lab.cpu_jobs;
    let waiting = jobs.queued.with_value(Option::is_some);
    match jobs.worker.with_value(|w| match w {
        Worker::Unstarted | Worker::Starting(_) => None,
        Worker::Ready(_) => Some(true),
        Worker::Unavailable => Some(false),
    }) {
        None => {}
        Some(false) => schedule_here(lab),
        Some(true) if !waiting => {}
        // A newer request while the worker computes: end that computation if it would still
        // take long, and start afresh; else wait for it.
        Some(true) if jobs.running.with_value(Option::is_some) => {
            let rate = jobs.rate.get_value();
            let remaining = jobs.running.with_value(|r| {
                r.as_ref()
                    .map_or(0.0, |r| r.cells * rate - (now_ms() - r.started_ms))
            });
            if remaining > CANCEL_AFTER_MS {
                jobs.running.set_value(None);
                jobs.progress.set(None);
                jobs.cancelled.update_value(|n| *n += 1);
                start_worker(lab);
            }
        }
        Some(true) => send_next(lab),
    }
}

/// Checks the newest request here (cheap, and the trace is rebuilt from this config) and posts
/// it to the worker.
fn send_next(lab: Lab) {
    let jobs = lab.cpu_jobs;
    let Some(request) = jobs.queued.try_update_value(Option::take).flatten() else {
        return;
    };
    let started_ms = now_ms();
    let previous = lab.shown.get_untracked();
    let config = validate(&request, previous.as_ref().map(|t| &t.0.config));
    let config = match config {
        Ok(config) => config,
        Err(error) => {
            let outcome = Outcome::computed(Err(error), now_ms() - started_ms, started_ms);
            return finish(lab, request, outcome);
        }
    };
    let id = jobs.next_id.get_value().wrapping_add(1);
    jobs.next_id.set_value(id);
    let json = serde_json::to_string(&request).unwrap_or_default();
    let posted = jobs.worker.with_value(|w| match w {
        Worker::Ready(handle) => handle.post(id, &json),
        _ => false,
    });
    if !posted {
        jobs.queued.set_value(Some(request));
        return worker_failed(lab);
    }
    let dims = config.dims();
    let cells = (dims.n_heads * config.seq_len() * config.key_len()) as f64;
    jobs.progress.set(Some((0, dims.n_heads)));
    jobs.running.set_value(Some(Running {
        id,
        request,
        config,
        started_ms,
        cells,
    }));
}

fn on_answer(lab: Lab, answer: FromWorker) {
    let jobs = lab.cpu_jobs;
    let current = |id: u32| {
        jobs.running
            .with_value(|r| r.as_ref().is_some_and(|r| r.id == id))
    };
    match answer {
        FromWorker::Ready => {
            jobs.worker.update_value(|w| {
                if let Worker::Starting(handle) = std::mem::replace(w, Worker::Unstarted) {
                    *w = Worker::Ready(handle);
                }
            });
            pump(lab);
        }
        FromWorker::Progress { id, done, heads } if current(id) => {
            jobs.progress.set(Some((done, heads)));
        }
        FromWorker::Done { id, flat } if current(id) => {
            let Some(running) = jobs.running.try_update_value(Option::take).flatten() else {
                return;
            };
            jobs.progress.set(None);
            let elapsed = now_ms() - running.started_ms;
            jobs.rate.set_value(elapsed / running.cells.max(1.0));
            // Stale already: a newer request waits; never decode it.
            if jobs.queued.with_value(Option::is_none) {
                let computed = Computed::from_flat(&running.config, &flat.to_vec());
                let outcome = match computed {
                    Some(computed) => {
                        let trace = trace_from(
                            &running.config,
                            computed,
                            Backend::Cpu,
                            FlashDetail::OutputOnly,
                        );
                        Outcome::computed(
                            Ok(TraceRef::new(trace)),
                            now_ms() - running.started_ms,
                            running.started_ms,
                        )
                    }
                    None => compute(&running.request, Some(&running.config)),
                };
                finish(lab, running.request, outcome);
            }
            pump(lab);
        }
        FromWorker::Error { id, .. } if current(id) => {
            // Computed here instead, which names what is wrong.
            let running = jobs.running.try_update_value(Option::take).flatten();
            if let Some(running) = running {
                let outcome = compute(&running.request, None);
                finish(lab, running.request, outcome);
            }
            pump(lab);
        }
        FromWorker::Failed => {
            let running = jobs.running.try_update_value(Option::take).flatten();
            if let Some(running) = running
                && jobs.queued.with_value(Option::is_none)
            {
                jobs.queued.set_value(Some(running.request));
            }
            worker_failed(lab);
        }
        // Answers to cancelled requests.
        FromWorker::Progress { .. } | FromWorker::Done { .. } | FromWorker::Error { .. } => {}
    }
}

/// No worker from now on: the page's thread computes.
fn worker_failed(lab: Lab) {
    lab.cpu_jobs.worker.set_value(Worker::Unavailable);
    lab.cpu_jobs.progress.set(None);
    pump(lab);
}

fn finish(lab: Lab, request: Request, outcome: Outcome) {
    lab.cpu_jobs.runs.update_value(|n| *n += 1);
    lab.cpu_jobs.done.set(Some((request, outcome)));
}

/// Without a worker: the newest request, after a paint, in a task of its own.
fn schedule_here(lab: Lab) {
    let jobs = lab.cpu_jobs;
    if jobs.busy.get_value() || jobs.queued.with_value(Option::is_none) {
        return;
    }
    jobs.busy.set_value(true);
    // After a frame has been painted (the character, the "computing" note), then in a task of
    // its own.
    request_animation_frame(move || {
        set_timeout(move || run_here(lab), std::time::Duration::ZERO);
    });
}

fn run_here(lab: Lab) {
    let jobs = lab.cpu_jobs;
    let Some(request) = jobs.queued.try_update_value(Option::take).flatten() else {
        jobs.busy.set_value(false);
        return;
    };
    let previous = lab.shown.get_untracked();
    let outcome = compute(&request, previous.as_ref().map(|t| &t.0.config));
    finish(lab, request, outcome);
    jobs.busy.set_value(false);
    // Changes made while this one ran: the newest of them, after the next paint.
    schedule_here(lab);
}
