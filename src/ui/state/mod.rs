//! The lab's reactive state: the parameters, what the user looks at, the computed trace, and the
//! GPU's job queue. Shared by every view through the Leptos context; never touches the DOM.

pub mod cpu_jobs;
mod gpu_jobs;
pub mod imported;
mod lab;
pub mod model;

pub use gpu_jobs::{GpuJobs, probe, schedule, simulate_loss};
pub use lab::{ActiveCell, Lab, Outcome, Timing, compute, validate};
