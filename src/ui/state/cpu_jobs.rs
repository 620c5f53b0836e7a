//! Large traces on the CPU, computed after the page has painted: the text box shows the typed
//! character and the views say they are computing before the work starts, and changes made
//! meanwhile are coalesced, so only the newest request is computed and a stale result is never
//! shown. (The work itself still runs on the page's thread; issue 14 moves it to a worker.)

use leptos::prelude::*;

use super::lab::{Lab, Outcome, compute};
use attention_core::api::Request;

#[derive(Clone, Copy)]
pub struct CpuJobs {
    busy: StoredValue<bool>,
    /// The newest request that arrived while a job waited or ran.
    queued: StoredValue<Option<Request>>,
    /// The last finished computation and the request it answers.
    pub done: RwSignal<Option<(Request, Outcome)>>,
    /// How many jobs ran (for tests: coalesced changes run once).
    pub runs: StoredValue<usize>,
}

impl CpuJobs {
    pub fn new() -> Self {
        Self {
            busy: StoredValue::new(false),
            queued: StoredValue::new(None),
            done: RwSignal::new(None),
            runs: StoredValue::new(0),
        }
    }
}

impl Default for CpuJobs {
    fn default() -> Self {
        Self::new()
    }
}

/// Computes `request` after the next paint, or after the running job; a newer request replaces
/// one still waiting.
pub fn schedule(lab: Lab, request: Request) {
    let jobs = lab.cpu_jobs;
    if jobs
        .done
        .with_untracked(|d| d.as_ref().is_some_and(|(r, _)| *r == request))
    {
        return;
    }
    jobs.queued.set_value(Some(request));
    if jobs.busy.get_value() {
        return;
    }
    jobs.busy.set_value(true);
    // After a frame has been painted (the character, the "computing" note), then in a task of
    // its own.
    request_animation_frame(move || {
        set_timeout(move || run(lab), std::time::Duration::ZERO);
    });
}

fn run(lab: Lab) {
    let jobs = lab.cpu_jobs;
    let Some(request) = jobs.queued.try_update_value(Option::take).flatten() else {
        jobs.busy.set_value(false);
        return;
    };
    let previous = lab.shown.get_untracked();
    let outcome = compute(&request, previous.as_ref().map(|t| &t.0.config));
    jobs.runs.update_value(|n| *n += 1);
    jobs.done.set(Some((request, outcome)));
    jobs.busy.set_value(false);
    // Changes made while this one ran: the newest of them, after the next paint.
    if let Some(next) = jobs.queued.try_update_value(Option::take).flatten() {
        schedule(lab, next);
    }
}
