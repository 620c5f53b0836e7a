//! The GPU's work: asynchronous in the browser, so a change that goes to the GPU keeps showing
//! the last result until the GPU's arrives. One GPU job runs at a time; changes made meanwhile are
//! coalesced into the next job.

use leptos::prelude::*;

use super::outcome::Outcome;
use crate::ui::browser::clock::now_ms;
use crate::ui::logic::TraceRef;
use crate::ui::logic::backend::{Fallback, FallbackReason, GpuStatus};
use attention_core::api::Request;
use attention_gpu::GpuBackend;

/// The GPU of the session and its job queue (browser-only objects: kept in local storage).
#[derive(Clone, Copy)]
pub struct GpuJobs {
    /// The backend while no job holds it.
    backend: StoredValue<Option<GpuBackend>, LocalStorage>,
    busy: StoredValue<bool>,
    /// The newest request that arrived while a job ran.
    queued: StoredValue<Option<Request>>,
    /// The last finished GPU computation and the request it answers.
    pub done: RwSignal<Option<(Request, Outcome)>>,
}

impl GpuJobs {
    pub fn new() -> Self {
        Self {
            backend: StoredValue::new_local(None),
            busy: StoredValue::new(false),
            queued: StoredValue::new(None),
            done: RwSignal::new(None),
        }
    }
}

impl Default for GpuJobs {
    fn default() -> Self {
        Self::new()
    }
}

impl GpuJobs {
    /// Looks for a GPU (again, after a loss); `gpu` says how it went.
    pub fn probe(self, gpu: RwSignal<GpuStatus>) {
        gpu.set(GpuStatus::Probing);
        self.backend.set_value(None);
        leptos::task::spawn_local(async move {
            match GpuBackend::new().await {
                Ok(backend) => {
                    let info = backend.info().clone();
                    self.backend.set_value(Some(backend));
                    gpu.set(GpuStatus::Ready(info));
                }
                Err(error) => gpu.set(GpuStatus::failed(&error)),
            }
        });
    }

    /// Computes `request` on the GPU, now or after the running job, reusing the config of the
    /// result on screen (`shown`) where it can; a lost device is reported in `gpu`.
    pub fn schedule(
        self,
        request: Request,
        shown: Memo<Option<TraceRef>>,
        gpu: RwSignal<GpuStatus>,
    ) {
        if self.busy.get_value() {
            self.queued.set_value(Some(request));
            return;
        }
        self.busy.set_value(true);
        leptos::task::spawn_local(run(self, request, shown, gpu));
    }

    /// Destroys the GPU device as a driver reset would (for tests of the recovery path).
    pub fn simulate_loss(self) {
        self.backend.with_value(|backend| {
            if let Some(backend) = backend {
                backend.simulate_loss();
            }
        });
    }
}

async fn run(
    jobs: GpuJobs,
    request: Request,
    shown: Memo<Option<TraceRef>>,
    gpu: RwSignal<GpuStatus>,
) {
    let started_ms = now_ms();
    let previous = shown.get_untracked();
    let config = request
        .to_params()
        .and_then(|params| Ok(params.validate_reusing(previous.as_ref().map(|t| &t.0.config))?));
    let backend = jobs.backend.try_update_value(Option::take).flatten();
    match (config, backend) {
        (Err(error), backend) => {
            jobs.backend.set_value(backend);
            let outcome = Outcome::computed(Err(error), now_ms() - started_ms, started_ms);
            jobs.done.set(Some((request.clone(), outcome)));
        }
        (Ok(config), Some(mut backend)) => {
            let result = backend.trace(&config).await;
            match result {
                Ok(trace) => {
                    jobs.backend.set_value(Some(backend));
                    let trace = TraceRef::new(trace);
                    let outcome = Outcome::computed(Ok(trace), now_ms() - started_ms, started_ms);
                    jobs.done.set(Some((request.clone(), outcome)));
                }
                // The backend is dropped; the status change sends the work back to the CPU.
                Err(error) => gpu.set(GpuStatus::failed(&error)),
            }
        }
        (Ok(_), None) => gpu.set(GpuStatus::Unavailable(Fallback::new(
            FallbackReason::NotReady,
            "",
        ))),
    }
    jobs.busy.set_value(false);
    if let Some(next) = jobs.queued.try_update_value(Option::take).flatten()
        && next != request
    {
        jobs.schedule(next, shown, gpu);
    }
}
