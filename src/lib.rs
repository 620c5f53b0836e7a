//! Attention Lab: an interactive visualiser of Transformer attention.
//!
//! Layers, each depending only on those above it in this list:
//! - [`core`]: the attention math over ndarray (no browser, GPU or UI types);
//! - [`api`]: the JSON shape of requests and traces (CLI, page API, tests);
//! - [`gpu`]: the same computation on wgpu compute shaders, returning the core's trace;
//! - [`ui`]: the Leptos app that shows a trace.
//!
//! See ARCHITECTURE.md for the map and the invariants.

pub mod api;
pub mod core;
pub mod gpu;
pub mod ui;
