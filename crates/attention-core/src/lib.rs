//! The attention math: tokens → embeddings → multi-head attention → output, and FlashAttention;
//! and, in [`api`], the JSON shape of a request and of a trace.
//!
//! Plain Rust over `ndarray`. This crate knows nothing about the browser, the GPU or the UI (its
//! `Cargo.toml` has no such dependency: Cargo enforces it); those crates depend on it, never the
//! reverse. Inputs are checked once, in [`config`], into a [`Config`]; after that every function
//! here is infallible. Only [`api`] knows about JSON (serde).

pub mod api;
pub mod attention;
pub mod config;
pub mod embed;
pub mod error;
pub mod experiments;
pub mod fastmath;
pub mod flash;
pub mod gemm;
pub mod generate;
pub mod gpt;
pub mod imported;
pub mod kernel;
pub mod layer_norm;
pub mod lessons;
pub mod mask;
pub mod overview;
pub mod rng;
pub mod scoring;
pub mod softmax;
pub mod stream;
pub mod tokenize;
pub mod trace;
pub mod units;
pub mod weights;

pub use config::{Config, Input, LayerNormMode, Params};
pub use error::ConfigError;
pub use mask::{Mask, MaskSpec};
pub use trace::{
    Backend, Computed, FlashDetail, Outputs, Trace, compute_outputs, compute_part, compute_parts,
    compute_parts_with, compute_trace, compute_trace_with, outputs_from, replay_flash, trace_from,
};
