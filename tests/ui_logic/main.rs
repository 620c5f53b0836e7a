//! The UI's pure logic, without a browser: what each stage shows and how a tooltip explains a cell
//! (checked against the trace's own numbers), and the helpers behind the controls.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::{LayerNormMode, MaskSpec, Params, compute_trace};
use attention_lab::ui::i18n::Lang;
use attention_lab::ui::logic::controls::{
    divisors, kv_heads_for, slider_to_temperature, temperature_slider_max, temperature_to_slider,
};
use attention_lab::ui::logic::explain::explain;
use attention_lab::ui::logic::stages::Stage;

fn trace(params: Params) -> attention_core::Trace {
    compute_trace(&params.validate().unwrap())
}

mod backend_choice;
mod circuit;
mod controls;
mod flash_frames;
mod honest_views;
mod imported;
mod links;
mod long_inputs;
mod messages;
mod shaping_views;
mod stages;
mod teacher_links;
mod text_alternatives;
mod trained_model;
mod why;
mod words;
