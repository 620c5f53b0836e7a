//! The attention core: hand-worked cases, properties on random shapes, and determinism.
//! Runs natively (`cargo test`) and in headless Chromium (`cargo test --target wasm32-unknown-unknown`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[path = "../support/mod.rs"]
mod support;

use attention_core::math::weights::{Dims, Weights};
use attention_core::pipeline::tokenize::{Tokens, tokenize};
use attention_core::{ConfigError, MaskSpec, Params, compute_outputs, compute_trace};
use support::{
    assert_close, matrix, params_for_x, random_config, random_shaped_config, random_shaped_params,
};

fn tokens(text: &str) -> Vec<String> {
    match tokenize(text, 4096) {
        Tokens::Fit(tokens) => tokens,
        Tokens::TooMany { at_least } => panic!("{at_least} tokens"),
    }
}

mod circuits;
mod config;
mod fastmath;
mod flash;
mod gemm;
mod hand_worked;
mod linear;
mod overview;
mod scoring;
mod tokenize;
mod units;
mod weights;
