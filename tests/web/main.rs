//! The app in a real browser: mount it into a fresh element, act on the DOM as a user would,
//! check what changed. Runs under `cargo test --target wasm32-unknown-unknown` (headless Chromium).
//! One test binary, split by area.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).
#![cfg(target_arch = "wasm32")]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod dom;
mod flash;
mod gpu;
mod input;
mod learn;
mod links;
mod long;
mod model;
mod views;
