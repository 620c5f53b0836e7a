//! The CPU's job queue's state: the workers, the computation they run, the request waiting, and
//! what was last computed; with the numbers that decide where and when a job runs.

use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::ui::browser::worker::{Numbers, WorkerHandle};
use crate::ui::logic::TraceRef;
use crate::ui::state::outcome::Outcome;
use attention_core::Config;
use attention_core::api::Request;
use attention_core::pipeline::units::Unit;

/// Units a worker holds at a time: the one it computes and the next, so that it never waits for
/// the page's thread (busy laying out a long text, say) to hand it another.
pub const UNITS_AHEAD: usize = 2;

/// A computation expected to run longer than this is ended by a newer request rather than
/// waited for (a new worker starts in milliseconds: the page hands it the compiled module).
pub const CANCEL_AFTER_MS: f64 = 150.0;

/// An edit that comes while the workers still compute (or wait for) the previous one means the
/// user types faster than the lab computes: that computation is dropped, and the next starts
/// once the edits pause for [`QUIET_MS`], so that the workers do not take the processors the
/// page needs to show each character (on 2 cores, two busy workers made each typed character at
/// 1024 tokens cost 47 ms instead of 22). An edit that finds them idle starts as soon as its own
/// frame is painted when that edit changed the sentence ([`pump_after_paint`]), at once
/// otherwise, however long its computation: nothing waits for its own sake. Jobs the workers
/// finish within about a frame ([`FRAME_MS`]) never wait.
pub const QUIET_MS: u64 = 150;
pub const FRAME_MS: f64 = 20.0;

/// A computation expected to take less than this runs on the page's thread after a paint, as a
/// task of its own: quicker than a worker's round trip and its result's transfer (typing at 256
/// tokens: 16 / 29 ms a character on the page's thread, 31 / 55 ms through the workers).
pub const HERE_BELOW_MS: f64 = 50.0;

/// The workers' state.
pub(super) enum Workers {
    /// Not needed yet.
    Unstarted,
    /// Started; each is ready once its module is loaded (requests wait until all are).
    Started(Vec<(WorkerHandle, bool)>),
    /// None can run here: jobs run on the page's thread.
    Unavailable,
}

/// The request the workers are computing.
pub(super) struct Running {
    pub id: u32,
    pub request: Request,
    /// Its config, checked when it was sent (the parts are read against it).
    pub config: Config,
    pub started_ms: f64,
    /// Traced cells (heads × queries × keys): what its time is estimated from.
    pub cells: f64,
    /// Every unit of it, the next one to hand out, and each one's numbers once back.
    pub units: Vec<Unit>,
    pub next: usize,
    pub parts: Vec<Option<Numbers>>,
    /// Q, K and V, which the first worker sends back.
    pub projections: Option<Numbers>,
    /// The request as JSON, made once and posted to each worker that begins it (made per
    /// worker, the string was decoded into JavaScript twice: 3 ms of a 4096-word edit's task).
    pub json: JsValue,
    /// Per worker: whether it has begun this request, and its units not yet back.
    pub begun: Vec<bool>,
    pub outstanding: Vec<usize>,
}

impl Running {
    /// Heads whose every unit is back, and heads in all.
    pub fn heads_done(&self) -> (usize, usize) {
        let heads = self.config.dims().n_heads;
        let mut missing = vec![false; heads];
        for (unit, part) in self.units.iter().zip(&self.parts) {
            if part.is_none() {
                missing[unit.head] = true;
            }
        }
        (missing.iter().filter(|m| !**m).count(), heads)
    }

    /// How many workers share it.
    pub fn threads(&self) -> f64 {
        self.begun.iter().filter(|b| **b).count().max(1) as f64
    }

    pub fn complete(&self) -> bool {
        self.projections.is_some() && self.parts.iter().all(Option::is_some)
    }
}

#[derive(Clone, Copy)]
pub struct CpuJobs {
    pub(super) workers: StoredValue<Workers, LocalStorage>,
    pub(super) running: StoredValue<Option<Running>, LocalStorage>,
    pub(super) next_id: StoredValue<u32>,
    /// A job runs on the page's thread (no worker).
    pub(super) busy: StoredValue<bool>,
    /// The newest request that arrived while a job waited or ran.
    pub(super) queued: StoredValue<Option<Request>>,
    /// The last finished computation and the request it answers.
    pub done: RwSignal<Option<(Request, Outcome)>>,
    /// Heads done and heads in all, while the workers compute.
    pub progress: RwSignal<Option<(usize, usize)>>,
    /// How many jobs finished (for tests: coalesced changes run once).
    pub runs: StoredValue<usize>,
    /// How many computations a newer request cancelled.
    pub cancelled: StoredValue<usize>,
    /// Milliseconds per traced cell for one thread, from the last computation the workers
    /// finished: their time × how many shared it. A job on the page's thread alone takes about
    /// cells × rate; shared among n workers, cells × rate / n. (One rate for both sent 1024
    /// tokens to the page's thread once the workers got fast: 46 ms predicted, 90 ms taken.)
    pub(super) rate: StoredValue<f64>,
    /// The pause a long computation waits for.
    pub(super) quiet: StoredValue<Option<TimeoutHandle>, LocalStorage>,
}

impl CpuJobs {
    pub fn new() -> Self {
        Self {
            workers: StoredValue::new_local(Workers::Unstarted),
            running: StoredValue::new_local(None),
            next_id: StoredValue::new(0),
            busy: StoredValue::new(false),
            queued: StoredValue::new(None),
            done: RwSignal::new(None),
            progress: RwSignal::new(None),
            runs: StoredValue::new(0),
            cancelled: StoredValue::new(0),
            // 4 heads × 1024² cells in ~210 ms on one thread, until measured.
            rate: StoredValue::new(5e-5),
            quiet: StoredValue::new_local(None),
        }
    }

    /// Whether workers compute (false before they are needed, and where none can run).
    pub fn in_worker(&self) -> bool {
        self.workers
            .with_value(|w| matches!(w, Workers::Started(_)))
    }
}

impl Default for CpuJobs {
    fn default() -> Self {
        Self::new()
    }
}

/// What a job needs of the lab: the queue's own state, and the result on screen (whose config
/// the next computation reuses).
#[derive(Clone, Copy)]
pub(super) struct Queue {
    pub jobs: CpuJobs,
    pub shown: Memo<Option<TraceRef>>,
}
