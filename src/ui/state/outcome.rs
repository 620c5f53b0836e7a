//! The result of computing a request, and how the page computes one on its own thread: the
//! checks into a config (reusing what the last one computed) and the trace. What the lab, the
//! CPU's workers and the GPU's jobs all answer with.

use leptos::prelude::*;

use crate::ui::browser::clock::now_ms;
use crate::ui::logic::TraceRef;
use crate::ui::logic::backend::{Fallback, FallbackReason, ModelPass, choice, model_fallback};
use attention_core::api::{BackendChoice, Request, RequestError};
use attention_core::pipeline::overview::summarises;
use attention_core::{Backend, Config, FlashDetail, compute_parts_with, trace_from};

/// How long the last update took, from the parameter change to the last redraw.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timing {
    pub started_ms: f64,
    pub update_ms: f64,
}

/// The result of computing the current request.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: Result<TraceRef, RequestError>,
    /// Wall time of validation plus computation.
    pub compute_ms: f64,
    /// When the computation started (see [`now_ms`]).
    pub started_ms: f64,
    /// Why the CPU computed when the GPU was asked for, or "auto" chose the CPU.
    pub fallback: Option<Fallback>,
    /// The GPU (or, with `later`, the CPU after a paint) is still computing this request;
    /// `result` is the previous one.
    pub pending: bool,
    /// The CPU computes this request as a job after the page has painted (a large trace).
    pub later: bool,
}

impl Outcome {
    /// The trace with the heads the request's `ablate` names switched off, as the CLI does it
    /// (random weights: one layer); a refused list is the outcome's error.
    pub fn knocked_out(self, request: &Request) -> Self {
        if request.ablate.is_none() {
            return self;
        }
        let result = self.result.and_then(|trace| {
            let mut trace = (*trace.0).clone();
            request.knock_out(&mut trace)?;
            Ok(TraceRef::new(trace))
        });
        Self { result, ..self }
    }

    pub fn computed(
        result: Result<TraceRef, RequestError>,
        compute_ms: f64,
        started_ms: f64,
    ) -> Self {
        Self {
            result,
            compute_ms,
            started_ms,
            fallback: None,
            pending: false,
            later: false,
        }
    }
}

/// Checks a request and computes its trace, reusing from `previous` what did not change.
/// FlashAttention's output is computed for every head, its steps only when a head is replayed
/// (`flash_views::Replay`): recording every tile of every head was half of a large trace; for a
/// summarised trace, only the query block being looked at is replayed.
/// Above 512 × 512 cells per head the trace is summarised (`attention_core::pipeline::overview`), so no
/// size the core accepts is refused for its trace.
pub fn compute(request: &Request, previous: Option<&Config>) -> Outcome {
    let started_ms = now_ms();
    let result = validate(request, previous).map(|config| {
        let parts = compute_parts_with(&config, summarises(&config), &mut |_, _| {});
        TraceRef::new(trace_from(
            &config,
            parts,
            Backend::Cpu,
            FlashDetail::OutputOnly,
        ))
    });
    Outcome::computed(result, now_ms() - started_ms, started_ms)
}

/// Checks `request` into a config, reusing from `previous` what did not change. The page keeps
/// overviews of long inputs (never every n² matrix), so the CLI's limit on traced cells does not
/// apply to it.
pub fn validate(request: &Request, previous: Option<&Config>) -> Result<Config, RequestError> {
    let mut params = request.to_params()?;
    params.trace = false;
    Ok(params.validate_reusing(previous)?)
}

/// The outcome of the trained model: the selected layer's attention, traced with FlashAttention's
/// steps, from the forward pass; while the model loads, the last result, marked pending.
/// Where the pass was computed (`pass`) says why the GPU chosen did not compute the layer on
/// view, when it did not.
pub fn trained_outcome(
    trace: Option<Result<(TraceRef, f64), RequestError>>,
    request: &Request,
    pass: &ModelPass,
    previous: Option<&Outcome>,
    timing: StoredValue<Timing>,
    computing: bool,
) -> Outcome {
    let fallback = match &trace {
        Some(Ok((trace, _))) => model_fallback(
            choice(request),
            pass,
            &trace.0.config,
            matches!(trace.0.backend, Backend::Gpu { .. }),
        ),
        _ => (choice(request) == BackendChoice::Gpu)
            .then(|| Fallback::new(FallbackReason::Probing, "")),
    };
    let outcome = match trace {
        // The trace on view already (a user's model's worker computes the next pass while the
        // sentence is typed): only whether it is computing may change, and nothing is redrawn.
        Some(Ok((trace, _)))
            if previous.is_some_and(|p| {
                p.result.as_ref().ok() == Some(&trace) && p.fallback == fallback
            }) =>
        {
            Outcome {
                pending: computing,
                later: computing,
                ..previous
                    .cloned()
                    .unwrap_or_else(|| Outcome::computed(Ok(trace), 0.0, 0.0))
            }
        }
        Some(Ok((trace, ms))) => Outcome {
            fallback,
            // The model's worker is computing the next pass: this one is on view meanwhile.
            pending: computing,
            later: computing,
            ..Outcome::computed(Ok(trace), ms, now_ms() - ms)
        },
        Some(Err(error)) => Outcome::computed(Err(error), 0.0, now_ms()),
        None => match previous {
            Some(previous) => Outcome {
                pending: true,
                ..previous.clone()
            },
            None => Outcome {
                pending: true,
                ..compute(&Request::default(), None)
            },
        },
    };
    timing.update_value(|timing| {
        if timing.started_ms == 0.0 {
            timing.started_ms = outcome.started_ms;
        }
        timing.update_ms = now_ms() - timing.started_ms;
    });
    outcome
}
