//! Which engine computes, and the GPU's work: it is asynchronous in the browser, so a change that
//! goes to the GPU keeps showing the last result until the GPU's arrives. One GPU job runs at a
//! time; changes made meanwhile are coalesced into the next job.

use leptos::prelude::*;

use super::state::{Lab, Outcome, TraceRef, now_ms};
use attention_core::api::{BackendChoice, Request};
use attention_gpu::{GpuBackend, GpuError, GpuInfo};

/// "auto" uses the GPU from this many query tokens up (and only a hardware GPU): below, one
/// submission and read-back (0.5 ms at best, 5–15 ms typical in browsers) costs more than the
/// whole CPU computation, which takes under 1 ms at 64 tokens and about 4 ms at 128 here.
pub const AUTO_GPU_MIN_TOKENS: usize = 512;

/// The state of the GPU in this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuStatus {
    /// Looking for an adapter and opening a device.
    Probing,
    Ready(GpuInfo),
    /// No usable GPU: `code` as in [`GpuError::code`].
    Unavailable {
        code: &'static str,
        message: String,
    },
    /// The device was lost during the session; the user may retry.
    Lost(String),
}

/// Why the CPU computed although the GPU was asked for (or "auto" chose the CPU).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// A stable code: "no-webgpu", "device-lost", "software-adapter", "small-input", …
    pub code: &'static str,
    /// Details for people (a driver's message, an adapter's name).
    pub detail: String,
}

/// Where the current request will be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Engine {
    Cpu(Option<Fallback>),
    Gpu,
}

/// Chooses the engine for `choice`, given the GPU's state and the number of query tokens.
pub fn choose(choice: BackendChoice, status: &GpuStatus, tokens: usize) -> Engine {
    let unusable = |status: &GpuStatus| match status {
        GpuStatus::Probing => Some(Fallback {
            code: "probing",
            detail: String::new(),
        }),
        GpuStatus::Unavailable { code, message } => Some(Fallback {
            code,
            detail: message.clone(),
        }),
        GpuStatus::Lost(message) => Some(Fallback {
            code: "device-lost",
            detail: message.clone(),
        }),
        GpuStatus::Ready(_) => None,
    };
    match (choice, status) {
        (BackendChoice::Cpu, _) => Engine::Cpu(None),
        (BackendChoice::Gpu, status) => match unusable(status) {
            Some(fallback) => Engine::Cpu(Some(fallback)),
            None => Engine::Gpu,
        },
        (BackendChoice::Auto, GpuStatus::Ready(info)) if info.software => {
            Engine::Cpu(Some(Fallback {
                code: "software-adapter",
                detail: info.name.clone(),
            }))
        }
        (BackendChoice::Auto, GpuStatus::Ready(_)) if tokens < AUTO_GPU_MIN_TOKENS => {
            Engine::Cpu(Some(Fallback {
                code: "small-input",
                detail: AUTO_GPU_MIN_TOKENS.to_string(),
            }))
        }
        (BackendChoice::Auto, GpuStatus::Ready(_)) => Engine::Gpu,
        (BackendChoice::Auto, status) => Engine::Cpu(unusable(status)),
    }
}

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

/// Looks for a GPU (again, after a loss); the status says how it went.
pub fn probe(lab: Lab) {
    lab.gpu.set(GpuStatus::Probing);
    lab.jobs.backend.set_value(None);
    leptos::task::spawn_local(async move {
        match GpuBackend::new().await {
            Ok(backend) => {
                let info = backend.info().clone();
                lab.jobs.backend.set_value(Some(backend));
                lab.gpu.set(GpuStatus::Ready(info));
            }
            Err(error) => lab.gpu.set(unavailable(&error)),
        }
    });
}

fn unavailable(error: &GpuError) -> GpuStatus {
    match error {
        GpuError::DeviceLost(message) => GpuStatus::Lost(message.clone()),
        other => GpuStatus::Unavailable {
            code: other.code(),
            message: other.to_string(),
        },
    }
}

/// Computes `request` on the GPU, now or after the running job.
pub fn schedule(lab: Lab, request: Request) {
    if lab.jobs.busy.get_value() {
        lab.jobs.queued.set_value(Some(request));
        return;
    }
    lab.jobs.busy.set_value(true);
    leptos::task::spawn_local(run(lab, request));
}

async fn run(lab: Lab, request: Request) {
    let started_ms = now_ms();
    let previous = lab.shown.get_untracked();
    let config = request
        .to_params()
        .and_then(|params| Ok(params.validate_reusing(previous.as_ref().map(|t| &t.0.config))?));
    let backend = lab.jobs.backend.try_update_value(Option::take).flatten();
    match (config, backend) {
        (Err(error), backend) => {
            lab.jobs.backend.set_value(backend);
            let outcome = Outcome::computed(Err(error), now_ms() - started_ms, started_ms);
            lab.jobs.done.set(Some((request.clone(), outcome)));
        }
        (Ok(config), Some(mut backend)) => {
            let result = backend.trace(&config).await;
            match result {
                Ok(trace) => {
                    lab.jobs.backend.set_value(Some(backend));
                    let trace = TraceRef(std::sync::Arc::new(trace));
                    let outcome = Outcome::computed(Ok(trace), now_ms() - started_ms, started_ms);
                    lab.jobs.done.set(Some((request.clone(), outcome)));
                }
                // The backend is dropped; the status change sends the work back to the CPU.
                Err(error) => lab.gpu.set(unavailable(&error)),
            }
        }
        (Ok(_), None) => lab.gpu.set(GpuStatus::Unavailable {
            code: "not-ready",
            message: String::new(),
        }),
    }
    lab.jobs.busy.set_value(false);
    if let Some(next) = lab.jobs.queued.try_update_value(Option::take).flatten()
        && next != request
    {
        schedule(lab, next);
    }
}

/// Destroys the GPU device as a driver reset would (for tests of the recovery path).
pub fn simulate_loss(lab: Lab) {
    lab.jobs.backend.with_value(|backend| {
        if let Some(backend) = backend {
            backend.simulate_loss();
        }
    });
}

/// The request's choice of engine.
pub fn choice(request: &Request) -> BackendChoice {
    request.backend.unwrap_or_default()
}
