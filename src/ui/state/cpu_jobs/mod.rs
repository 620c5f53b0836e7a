//! Large traces on the CPU, off the page's thread: from `backend::LATER_CELLS` up, a request goes
//! to the page's Web Workers (`crates/attention-worker`, one per processor up to 4, each
//! computing some of the heads), so the text box, sliders and scrolling never wait for it.
//!
//! The request is cut into units (`attention_core::pipeline::units`: a head, or a band of a long
//! head's queries); each worker holds [`UNITS_AHEAD`] of them and gets another as each comes back,
//! so that a worker slowed by the page's own work takes fewer and all finish together.
//!
//! Only the newest request matters: one that arrives while the workers compute an older one is
//! computed next, and if the older one would take longer than [`CANCEL_AFTER_MS`] more, ends it
//! (the workers are told to drop it, which they do after the unit they are on); a result that is
//! already stale is never read, let alone drawn. While they compute, `progress` counts heads done.
//!
//! Where no worker starts (no files, as under wasm-bindgen-test), the page's thread runs them.

use leptos::prelude::*;
use wasm_bindgen::JsValue;

mod queue;

pub use queue::{CANCEL_AFTER_MS, CpuJobs, FRAME_MS, HERE_BELOW_MS, QUIET_MS, UNITS_AHEAD};
use queue::{Queue, Running, Workers};

use crate::ui::browser::clock::now_ms;
use crate::ui::browser::worker::{FromWorker, WorkerHandle, pool_size};
use crate::ui::logic::TraceRef;
use crate::ui::state::outcome::{Outcome, compute, validate};
use attention_core::api::Request;
use attention_core::pipeline::overview::summarises;
use attention_core::pipeline::units::{UnitPart, projections_from_flat, units};
use attention_core::{Backend, Computed, FlashDetail, trace_from};

impl CpuJobs {
    /// Computes `request` in the workers (or, without them, after the next paint); a newer
    /// request replaces one still waiting and cancels one being computed. `shown` is the result
    /// on screen, whose config the computation reuses where it can.
    pub fn schedule(self, request: Request, shown: Memo<Option<TraceRef>>) {
        schedule(Queue { jobs: self, shown }, request);
    }
}

fn schedule(queue: Queue, request: Request) {
    let jobs = queue.jobs;
    if jobs
        .done
        .with_untracked(|d| d.as_ref().is_some_and(|(r, _)| *r == request))
    {
        return;
    }
    let here = cells(&request) * jobs.rate.get_value();
    // The workers are still on an earlier edit (computing it, or waiting for a pause).
    let typing = jobs.running.with_value(Option::is_some)
        || jobs.quiet.with_value(Option::is_some)
        || jobs.queued.with_value(Option::is_some);
    jobs.queued.set_value(Some(request));
    if here < HERE_BELOW_MS {
        // What the workers compute now is stale.
        if jobs.running.with_value(Option::is_some) {
            cancel(queue);
        }
        return schedule_here(queue);
    }
    if jobs.workers.with_value(|w| matches!(w, Workers::Unstarted)) {
        start_workers(queue);
    }
    let quick = here / pool_size() as f64 <= FRAME_MS;
    if quick || !jobs.in_worker() {
        return pump(queue);
    }
    if !typing {
        // Only an edit of the sentence makes a costly frame (its text box laid out again).
        let retyped = jobs.queued.with_value(|queued| {
            jobs.done.with_untracked(|done| match (queued, done) {
                (Some(new), Some((old, _))) => {
                    new.sentence != old.sentence || new.source_sentence != old.source_sentence
                }
                _ => true,
            })
        });
        return if retyped {
            pump_after_paint(queue)
        } else {
            pump(queue)
        };
    }
    // Typing: the running computation is stale, end it now; start once the edits pause.
    if jobs.running.with_value(Option::is_some) {
        cancel(queue);
    }
    if let Some(timer) = jobs.quiet.try_update_value(Option::take).flatten() {
        timer.clear();
    }
    let timer = set_timeout_with_handle(
        move || {
            queue.jobs.quiet.set_value(None);
            pump(queue);
        },
        std::time::Duration::from_millis(QUIET_MS),
    );
    jobs.quiet.set_value(timer.ok());
}

/// Traced cells of `request`: heads × queries × keys.
fn cells(request: &Request) -> f64 {
    let heads = request
        .n_heads
        .unwrap_or(attention_core::pipeline::config::DEFAULT_N_HEADS);
    let (queries, keys) = request.lengths();
    let queries = queries.unwrap_or(0);
    (heads * queries * keys.unwrap_or(queries)) as f64
}

fn start_workers(queue: Queue) {
    let handles: Option<Vec<_>> = (0..pool_size())
        .map(|index| {
            WorkerHandle::spawn(move |answer| on_answer(queue, index, answer)).map(|h| (h, false))
        })
        .collect();
    let state = match handles {
        Some(handles) => Workers::Started(handles),
        None => Workers::Unavailable,
    };
    queue.jobs.workers.set_value(state);
}

/// Ends the running computation: each worker drops it after the head it is on (its answers are
/// ignored from now on). The workers stay: the next request waits in their queues meanwhile.
fn cancel(queue: Queue) {
    let jobs = queue.jobs;
    if let Some(id) = jobs
        .running
        .try_update_value(Option::take)
        .flatten()
        .map(|r| r.id)
    {
        jobs.workers.with_value(|w| {
            if let Workers::Started(handles) = w {
                for (handle, _) in handles {
                    handle.cancel(id);
                }
            }
        });
    }
    jobs.progress.set(None);
    jobs.cancelled.update_value(|n| *n += 1);
}

/// Starts the next job once the edit that asked for it is painted, in a task of its own. Only a
/// job longer than a frame waits, only when the edit changed the sentence (whose text box the
/// frame lays out again), and only for that frame: on 2 cores, the frame of a character typed at
/// 4096 words took 97 ms when both workers started in its task (its layout 52 ms, not 35, shared
/// with them), and about 50 ms when they started after it. A temperature's frame is short:
/// waiting for it only delayed the result (at 1024 words by 10–15 ms).
fn pump_after_paint(queue: Queue) {
    request_animation_frame(move || {
        set_timeout(move || pump(queue), std::time::Duration::ZERO);
    });
}

/// Starts the next job if it can.
fn pump(queue: Queue) {
    let jobs = queue.jobs;
    if jobs.quiet.with_value(Option::is_some) {
        return; // A long computation waits for the edits to pause.
    }
    let waiting = jobs.queued.with_value(Option::is_some);
    match jobs.workers.with_value(|w| match w {
        Workers::Unstarted => None,
        Workers::Started(handles) => Some(handles.iter().all(|(_, ready)| *ready)).filter(|r| *r),
        Workers::Unavailable => Some(false),
    }) {
        None => {}
        Some(false) => schedule_here(queue),
        Some(true) if !waiting => {}
        // A newer request while the workers compute: end that computation if it would still
        // take long, and start afresh; else wait for it.
        Some(true) if jobs.running.with_value(Option::is_some) => {
            let rate = jobs.rate.get_value();
            let remaining = jobs.running.with_value(|r| {
                r.as_ref().map_or(0.0, |r| {
                    r.cells * rate / r.threads() - (now_ms() - r.started_ms)
                })
            });
            if remaining > CANCEL_AFTER_MS {
                cancel(queue);
                send_next(queue);
            }
        }
        Some(true) => send_next(queue),
    }
}

/// Starts the newest request in the workers: checked here (an invalid one is answered at once;
/// a long sentence typed at its end reuses the shown config's rows, so this costs a few
/// milliseconds even at 4096 words), cut into units, [`UNITS_AHEAD`] handed to each worker. A
/// quick job is sent in the task of the edit that asked for it; a long one from idle, when the
/// edit changed the sentence, right after that edit's frame ([`pump_after_paint`]), so the
/// frame does not share the processors with it.
fn send_next(queue: Queue) {
    let jobs = queue.jobs;
    if jobs.queued.with_value(Option::is_none) {
        return;
    }
    if jobs.running.with_value(Option::is_some) {
        cancel(queue); // a send already scheduled started another meanwhile
    }
    let Some(request) = jobs.queued.try_update_value(Option::take).flatten() else {
        return;
    };
    let started_ms = now_ms();
    let previous = queue.shown.get_untracked();
    let config = match validate(&request, previous.as_ref().map(|t| &t.0.config)) {
        Ok(config) => config,
        Err(error) => {
            let outcome = Outcome::computed(Err(error), 0.0, started_ms);
            finish(queue, request, outcome);
            return pump(queue);
        }
    };
    let workers = jobs.workers.with_value(|w| match w {
        Workers::Started(handles) => handles.len(),
        _ => 0,
    });
    if workers == 0 {
        jobs.queued.set_value(Some(request));
        return workers_failed(queue);
    }
    let id = jobs.next_id.get_value().wrapping_add(1);
    jobs.next_id.set_value(id);
    let units = units(&config, summarises(&config));
    let json = JsValue::from_str(&serde_json::to_string(&request).unwrap_or_default());
    jobs.progress.set(Some((0, config.dims().n_heads)));
    jobs.running.set_value(Some(Running {
        id,
        cells: cells(&request),
        request,
        config,
        started_ms,
        parts: units.iter().map(|_| None).collect(),
        units,
        next: 0,
        projections: None,
        json,
        begun: vec![false; workers],
        outstanding: vec![0; workers],
    }));
    for worker in 0..workers {
        if !hand_out(queue, worker) {
            return lost(queue);
        }
    }
}

/// Gives worker `index` units of the running request until it holds [`UNITS_AHEAD`] (or none is
/// left); `false` when it could not be posted to.
fn hand_out(queue: Queue, index: usize) -> bool {
    let jobs = queue.jobs;
    loop {
        // The next unit for this worker, and the request's JSON when this worker begins it.
        let next = jobs.running.try_update_value(|running| {
            let r = running.as_mut()?;
            if r.next >= r.units.len() || *r.outstanding.get(index)? >= UNITS_AHEAD {
                return None;
            }
            let unit = r.next;
            r.next += 1;
            r.outstanding[index] += 1;
            let begin = !std::mem::replace(&mut r.begun[index], true);
            let json = begin.then(|| r.json.clone());
            Some((r.id, unit, json))
        });
        let Some((id, unit, json)) = next.flatten() else {
            return true;
        };
        let posted = jobs.workers.with_value(|w| match w {
            Workers::Started(handles) => {
                handles.get(index).is_some_and(|(handle, _)| match &json {
                    // The first worker sends Q, K and V back as well.
                    Some(json) => handle.begin(id, json, index == 0, unit),
                    None => handle.unit(id, unit),
                })
            }
            _ => false,
        });
        if !posted {
            return false;
        }
    }
}

/// A worker could not be posted to, or stopped: the running request is computed again, without
/// workers.
fn lost(queue: Queue) {
    let jobs = queue.jobs;
    if let Some(running) = jobs.running.try_update_value(Option::take).flatten()
        && jobs.queued.with_value(Option::is_none)
    {
        jobs.queued.set_value(Some(running.request));
    }
    workers_failed(queue);
}

fn on_answer(queue: Queue, index: usize, answer: FromWorker) {
    let jobs = queue.jobs;
    let current = |id: u32| {
        jobs.running
            .with_value(|r| r.as_ref().is_some_and(|r| r.id == id))
    };
    match answer {
        FromWorker::Ready => {
            jobs.workers.update_value(|w| {
                if let Workers::Started(handles) = w
                    && let Some((_, ready)) = handles.get_mut(index)
                {
                    *ready = true;
                }
            });
            pump(queue);
        }
        FromWorker::Projections { id, flat } if current(id) => {
            jobs.running.update_value(|r| {
                if let Some(r) = r.as_mut() {
                    r.projections = Some(flat);
                }
            });
            check_complete(queue);
        }
        FromWorker::Unit { id, unit, flat } if current(id) => {
            let counts = jobs.running.try_update_value(|r| {
                let r = r.as_mut()?;
                *r.parts.get_mut(unit)? = Some(flat);
                if let Some(outstanding) = r.outstanding.get_mut(index) {
                    *outstanding = outstanding.saturating_sub(1);
                }
                Some(r.heads_done())
            });
            jobs.progress.set(counts.flatten());
            if !hand_out(queue, index) {
                return lost(queue);
            }
            check_complete(queue);
        }
        FromWorker::Error { id, .. } if current(id) => {
            // Computed here instead, which names what is wrong.
            let running = jobs.running.try_update_value(Option::take).flatten();
            if let Some(running) = running {
                let outcome = compute(&running.request, Some(&running.config));
                finish(queue, running.request, outcome);
            }
            jobs.progress.set(None);
            pump(queue);
        }
        FromWorker::Failed => lost(queue),
        // Answers to cancelled requests.
        FromWorker::Projections { .. }
        | FromWorker::Unit { .. }
        | FromWorker::Error { .. }
        | FromWorker::Kernel { .. }
        | FromWorker::ModelOpened { .. }
        | FromWorker::Forward { .. }
        | FromWorker::Stepped { .. }
        | FromWorker::Generated { .. }
        | FromWorker::NotKept { .. }
        | FromWorker::Streaming { .. }
        | FromWorker::Streamed { .. }
        | FromWorker::Recomputed { .. }
        | FromWorker::Composing { .. }
        | FromWorker::Composed { .. } => {}
    }
}

/// Lands the running request once every unit and the projections are back.
fn check_complete(queue: Queue) {
    let jobs = queue.jobs;
    if !jobs
        .running
        .with_value(|r| r.as_ref().is_some_and(Running::complete))
    {
        return;
    }
    let Some(running) = jobs.running.try_update_value(Option::take).flatten() else {
        return;
    };
    jobs.progress.set(None);
    let elapsed = now_ms() - running.started_ms;
    let threads = running.threads();
    jobs.rate
        .set_value(elapsed * threads / running.cells.max(1.0));
    // Stale already: a newer request waits; never decode it.
    if jobs.queued.with_value(Option::is_none) {
        land(queue, running);
    }
    pump(queue);
}

/// Traced cells up to which a finished job's result is read and shown in one task (4 heads ×
/// 1024²: no task of the page's thread over 50 ms in 32 such edits here, benches/README.md).
pub const LAND_AT_ONCE_CELLS: f64 = (4 << 20) as f64;

/// A finished job's result, read and shown in three tasks of the page's thread, each after the
/// previous one, so that none is long when a long input's result lands (at 4096 tokens the whole
/// took 95 ms in one task): the workers' parts read and assembled; the trace rebuilt from them;
/// then the trace shown (the views redraw). Dropped at any step if a newer request has come
/// meanwhile.
fn land(queue: Queue, running: Running) {
    let jobs = queue.jobs;
    let stale =
        move || jobs.queued.with_value(Option::is_some) || jobs.running.with_value(Option::is_some);
    // Up to LAND_AT_ONCE_CELLS the three steps run in one task: short enough, and each task
    // given back to the browser let it paint a frame (26 ms at 1024 tokens) before the next.
    let at_once = running.cells <= LAND_AT_ONCE_CELLS;
    let later = move |f: Box<dyn FnOnce()>| {
        if at_once {
            f()
        } else {
            set_timeout(f, std::time::Duration::ZERO)
        }
    };
    later(Box::new(move || {
        if stale() {
            return;
        }
        let computed = read_parts(&running);
        later(Box::new(move || {
            if stale() {
                return;
            }
            let outcome = match computed {
                Some(computed) => {
                    let config = &running.config;
                    let trace = trace_from(config, computed, Backend::Cpu, FlashDetail::OutputOnly);
                    Outcome::computed(
                        Ok(TraceRef::new(trace)),
                        now_ms() - running.started_ms,
                        running.started_ms,
                    )
                }
                // Not what this config expects (never seen): computed here instead.
                None => compute(&running.request, Some(&running.config)),
            };
            later(Box::new(move || {
                if !stale() {
                    finish(queue, running.request, outcome);
                }
            }));
        }));
    }));
}

/// The workers' parts of a finished job and its projections, read and assembled.
fn read_parts(running: &Running) -> Option<Computed> {
    let config = &running.config;
    let projections = projections_from_flat(config, &running.projections.as_ref()?.to_vec())?;
    let parts: Option<Vec<UnitPart>> = running
        .parts
        .iter()
        .map(|part| UnitPart::from_flat(config, &part.as_ref()?.to_vec()))
        .collect();
    Computed::assemble(config, 0..config.dims().n_heads, projections, parts?)
}

/// No workers from now on: the page's thread computes.
fn workers_failed(queue: Queue) {
    queue.jobs.workers.set_value(Workers::Unavailable);
    queue.jobs.progress.set(None);
    pump(queue);
}

fn finish(queue: Queue, request: Request, outcome: Outcome) {
    queue.jobs.runs.update_value(|n| *n += 1);
    queue.jobs.done.set(Some((request, outcome)));
}

/// Without a worker: the newest request, after a paint, in a task of its own.
fn schedule_here(queue: Queue) {
    let jobs = queue.jobs;
    if jobs.busy.get_value() || jobs.queued.with_value(Option::is_none) {
        return;
    }
    jobs.busy.set_value(true);
    // After a frame has been painted (the character, the "computing" note), then in a task of
    // its own.
    request_animation_frame(move || {
        set_timeout(move || run_here(queue), std::time::Duration::ZERO);
    });
}

fn run_here(queue: Queue) {
    let jobs = queue.jobs;
    let Some(request) = jobs.queued.try_update_value(Option::take).flatten() else {
        jobs.busy.set_value(false);
        return;
    };
    let previous = queue.shown.get_untracked();
    let outcome = compute(&request, previous.as_ref().map(|t| &t.0.config));
    finish(queue, request, outcome);
    jobs.busy.set_value(false);
    // Changes made while this one ran: the newest of them, after the next paint.
    schedule_here(queue);
}
