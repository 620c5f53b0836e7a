//! The attention math: tokens → embeddings → multi-head attention → output, and FlashAttention;
//! the trained models that run it layer after layer; the lessons' experiments; and, in [`api`],
//! the JSON shape of a request and of a trace.
//!
//! Plain Rust over `ndarray`. This crate knows nothing about the browser, the GPU or the UI (its
//! `Cargo.toml` has no such dependency: Cargo enforces it); those crates depend on it, never the
//! reverse. Inputs are checked once, in [`pipeline::config`], into a [`Config`]; computing a
//! trace or the outputs from a `Config` cannot fail.
//!
//! The folders, each using only those before it (`tests/architecture.rs` checks it):
//! - [`math`]: attention itself, one head at a time (masks, scores, softmax, FlashAttention's
//!   tiles, the matrix products, norms, seeded random numbers);
//! - [`pipeline`]: a request's parameters checked into a [`Config`], and the [`Trace`] of every
//!   intermediate (all heads, concat, W_O), whole or as overviews and units for workers;
//! - [`io`]: users' files (safetensors, NumPy, JSON tensors, a model's `config.json`) and their
//!   attention as the lab shows it;
//! - [`models`]: the trained models, one file per layout, with generation and streaming;
//! - [`circuits`]: why a head attends: scores and logits taken apart into what wrote them, heads
//!   composed;
//! - [`teaching`]: the Learn mode's chapters, each with its mathematics and its experiment;
//! - [`api`]: the JSON of a request, a trace, a lesson and a model's run.
//!
//! JSON (serde) appears only in [`io`] (file formats) and [`api`].

pub mod api;
pub mod circuits;
pub mod io;
pub mod math;
pub mod models;
pub mod pipeline;
pub mod teaching;

pub use math::mask::{Mask, MaskSpec};
pub use pipeline::computed::Computed;
pub use pipeline::config::{Config, Input, LayerNormMode, Params};
pub use pipeline::error::ConfigError;
pub use pipeline::trace::{
    Backend, FlashDetail, Outputs, Trace, compute_outputs, compute_trace, compute_trace_with,
    outputs_from, replay_flash, trace_from,
};
pub use pipeline::units::{compute_part, compute_parts, compute_parts_with};
