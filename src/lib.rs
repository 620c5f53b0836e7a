//! Attention Lab: an interactive visualiser of Transformer attention — the web app.
//!
//! The engine lives in its own crates, each depending only on those before it:
//! - `attention-core`: the attention math over ndarray and the JSON shapes (no browser, GPU or UI);
//! - `attention-gpu`: the same computation on wgpu compute shaders, returning the core's trace;
//! - this crate, [`ui`]: the Leptos app that shows a trace. Nothing depends on it.
//!
//! See ARCHITECTURE.md for the map and the invariants.

pub mod ui;
