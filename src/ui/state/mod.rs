//! The lab's reactive state: the parameters, what the user looks at, the computed trace, and the
//! job queues that compute it off the page's frame (the CPU's workers, the GPU). Shared by every
//! view through the Leptos context; never touches the DOM. The queues keep their own state and
//! are given what they need of the lab; the result they all answer with is [`Outcome`].

pub mod cpu_jobs;
mod gpu_jobs;
pub mod imported;
mod lab;
pub mod model;
mod model_jobs;
pub mod next_logits;
mod outcome;

pub use gpu_jobs::GpuJobs;
pub use lab::{ActiveCell, Lab};
pub use model_jobs::{Composed, Generated, ModelJobs, Streamed};
pub use outcome::{Outcome, Timing, compute, validate};
