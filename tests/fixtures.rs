//! The engines against an independent float64 numpy reference (tests/reference/attention.py):
//! every mask, temperatures, GQA/MQA, cross-attention, LayerNorm and uneven flash blocks. Each
//! case goes through the JSON API, as the CLI's input. One test body, run on every engine: the
//! CPU core and the GPU backend, natively (lavapipe) and in the browser (SwiftShader).

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use attention_core::api::parse_request;
use serde_json::Value;
use support::{Expected, TestBackend, Tolerance, assert_trace_close};

const FIXTURES: &str = include_str!("fixtures/attention.json");
/// The score options (RoPE, ALiBi, soft-caps, QK-norm, sink logits, the sliding mask with sink
/// tokens), from tests/reference/shaping.py.
const SHAPING: &str = include_str!("fixtures/shaping.json");

async fn matches_the_reference(engine: &mut impl TestBackend, tolerance: Tolerance) {
    matches(FIXTURES, engine, tolerance).await;
}

/// The cases of one fixture file, each through the JSON API on `engine`.
async fn matches(fixtures: &str, engine: &mut impl TestBackend, tolerance: Tolerance) {
    let fixtures: Value = serde_json::from_str(fixtures).unwrap();
    let cases = fixtures["cases"].as_array().unwrap();
    assert!(cases.len() >= 20);
    for case in cases {
        let name = format!("{} on {}", case["name"].as_str().unwrap(), engine.name());
        let request = parse_request(&case["request"].to_string()).unwrap();
        let config = request.to_params().unwrap().validate().unwrap();
        let trace = engine.trace(&config).await;
        assert_trace_close(
            &name,
            &trace,
            &Expected::from_json(&case["expected"]),
            tolerance,
        );
    }
}

/// The CPU's float32 against float64.
const CPU: Tolerance = Tolerance {
    atol: 1e-5,
    rtol: 1e-5,
};
/// The GPU's float32 (another summation order, another exp) against float64.
const GPU: Tolerance = Tolerance {
    atol: 1e-4,
    rtol: 1e-4,
};

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::*;

    #[test]
    fn the_cpu_matches_the_numpy_reference() {
        pollster::block_on(matches_the_reference(&mut support::Cpu, CPU));
    }

    #[test]
    fn the_cpu_matches_the_numpy_reference_with_every_score_option() {
        pollster::block_on(matches(SHAPING, &mut support::Cpu, CPU));
    }

    #[test]
    fn the_gpu_matches_the_numpy_reference_with_every_score_option() {
        let mut gpu = pollster::block_on(attention_gpu::GpuBackend::new())
            .expect("a Vulkan adapter (install mesa-vulkan-drivers)");
        pollster::block_on(matches(SHAPING, &mut gpu, GPU));
    }

    #[test]
    fn the_gpu_matches_the_numpy_reference() {
        // The CI machine has lavapipe (mesa-vulkan-drivers): no adapter here is a failure.
        let mut gpu = pollster::block_on(attention_gpu::GpuBackend::new())
            .expect("a Vulkan adapter (install mesa-vulkan-drivers)");
        pollster::block_on(matches_the_reference(&mut gpu, GPU));
    }
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test]
async fn the_cpu_matches_the_numpy_reference_in_the_browser() {
    matches_the_reference(&mut support::Cpu, CPU).await;
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test]
async fn the_cpu_matches_the_numpy_reference_with_every_score_option_in_the_browser() {
    matches(SHAPING, &mut support::Cpu, CPU).await;
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test]
async fn the_gpu_matches_the_numpy_reference_in_the_browser() {
    let mut gpu = attention_gpu::GpuBackend::new()
        .await
        .expect("WebGPU (SwiftShader) in headless Chromium");
    matches_the_reference(&mut gpu, GPU).await;
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test]
async fn the_gpu_matches_the_numpy_reference_with_every_score_option_in_the_browser() {
    let mut gpu = attention_gpu::GpuBackend::new()
        .await
        .expect("WebGPU (SwiftShader) in headless Chromium");
    matches(SHAPING, &mut gpu, GPU).await;
}
