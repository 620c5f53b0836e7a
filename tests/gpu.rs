//! The GPU backend against the CPU core, written once: natively on the machine's Vulkan driver
//! (lavapipe on the CI machine, from mesa-vulkan-drivers) and in headless Chromium on WebGPU
//! (SwiftShader, with --enable-unsafe-webgpu). Plus every WGSL file validated with naga.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use attention_core::{Backend, Config, MaskSpec, Params, Trace, compute_outputs, compute_trace};
use attention_gpu::GpuBackend;
use ndarray::ArrayView2;
use support::random_config;

/// The largest difference the GPU may show against the CPU, on outputs and weights.
const TOLERANCE: f32 = 1e-4;

fn max_diff(what: &str, gpu: ArrayView2<f32>, cpu: ArrayView2<f32>) -> f32 {
    assert_eq!(gpu.dim(), cpu.dim(), "{what}: shapes");
    gpu.iter()
        .zip(cpu.iter())
        .map(|(g, c)| {
            assert!(g.is_finite(), "{what}: the GPU produced {g}");
            (g - c).abs()
        })
        .fold(0.0, f32::max)
}

/// Every number the views show, GPU against CPU.
fn assert_parity(name: &str, gpu: &Trace, cpu: &Trace) {
    assert!(
        matches!(gpu.backend, Backend::Gpu { .. }),
        "{name}: computed on the GPU"
    );
    for (h, (g, c)) in gpu.heads.iter().zip(&cpu.heads).enumerate() {
        for (what, a, b) in [
            ("q", &g.q, &c.q),
            ("k", &g.k, &c.k),
            ("v", &g.v, &c.v),
            ("scores", &g.scores, &c.scores),
            ("weights", &g.weights, &c.weights),
            ("output", &g.output, &c.output),
        ] {
            let diff = max_diff(&format!("{name} head {h} {what}"), a.view(), b.view());
            // Scores grow with 1/T; compare them relative to their size.
            let scale = if what == "scores" {
                b.iter().fold(1.0f32, |m, v| m.max(v.abs()))
            } else {
                1.0
            };
            assert!(
                diff <= TOLERANCE * scale,
                "{name}: head {h} {what} differs by {diff:e}"
            );
        }
        assert_eq!(
            g.fully_masked_rows, c.fully_masked_rows,
            "{name}: head {h} fully masked rows"
        );
        let masked_nonzero = g
            .weights
            .indexed_iter()
            .any(|((i, j), &w)| !gpu.mask[[i, j]] && w != 0.0);
        assert!(
            !masked_nonzero,
            "{name}: head {h} has a non-zero weight on a masked key"
        );
        let flash = max_diff(
            &format!("{name} head {h} flash"),
            gpu.flash.heads[h].output.view(),
            cpu.flash.heads[h].output.view(),
        );
        assert!(
            flash <= TOLERANCE,
            "{name}: head {h} flash output differs by {flash:e}"
        );
    }
    for (what, a, b) in [
        ("output", &gpu.output, &cpu.output),
        ("flash output", &gpu.flash.output, &cpu.flash.output),
    ] {
        let diff = max_diff(&format!("{name} {what}"), a.view(), b.view());
        assert!(diff <= TOLERANCE, "{name}: {what} differs by {diff:e}");
    }
    assert!(
        gpu.flash.max_abs_diff <= 1e-4,
        "{name}: GPU flash vs GPU standard {}",
        gpu.flash.max_abs_diff
    );
}

/// The configurations every backend is checked on: random shapes, masks, temperatures, GQA and
/// cross-attention, plus a few chosen edge cases.
fn configs() -> Vec<(String, Config)> {
    let mut configs: Vec<(String, Config)> = (0..24)
        .map(|seed| (format!("random {seed}"), random_config(seed)))
        .collect();
    let chosen = [
        (
            "every key masked",
            Params {
                mask: MaskSpec::Padding { valid_len: 0 },
                ..Params::sentence("nobody sees anything here")
            },
        ),
        (
            "causal, 70 tokens, 4/2 heads, blocks 16×8",
            Params {
                n_heads: 4,
                n_kv_heads: Some(2),
                mask: MaskSpec::Causal,
                block_rows: 16,
                block_cols: 8,
                d_model: Some(32),
                ..Params::sentence("the cat sat on a warm mat today ".repeat(9))
            },
        ),
        (
            "sharp temperature",
            Params {
                temperature: 0.05,
                ..Params::sentence("attention is all you need, 注意力就是一切")
            },
        ),
    ];
    configs.extend(
        chosen
            .into_iter()
            .map(|(name, params)| (name.to_string(), params.validate().unwrap())),
    );
    configs
}

async fn parity_on(backend: &mut GpuBackend) {
    for (name, config) in configs() {
        let gpu = backend
            .trace(&config)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_parity(&name, &gpu, &compute_trace(&config));
        // The memory-lean path (no trace) gives the same outputs.
        let outputs = backend
            .outputs(&config)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let cpu = compute_outputs(&config);
        let diff = max_diff(&name, outputs.output.view(), cpu.output.view());
        assert!(
            diff <= TOLERANCE,
            "{name}: untraced output differs by {diff:e}"
        );
        let diff = max_diff(&name, outputs.flash_output.view(), cpu.flash_output.view());
        assert!(
            diff <= TOLERANCE,
            "{name}: untraced flash output differs by {diff:e}"
        );
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::*;

    #[test]
    fn every_shader_is_valid_wgsl() {
        for (name, source) in attention_gpu::SHADERS {
            let module = naga::front::wgsl::parse_str(source)
                .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        }
    }

    fn backend() -> GpuBackend {
        // The CI machine has lavapipe (mesa-vulkan-drivers): no adapter here is a failure.
        pollster::block_on(GpuBackend::new())
            .expect("a Vulkan adapter (install mesa-vulkan-drivers)")
    }

    #[test]
    fn gpu_matches_cpu_on_random_shapes() {
        let mut backend = backend();
        eprintln!("GPU adapter: {:?}", backend.info());
        pollster::block_on(parity_on(&mut backend));
    }

    #[test]
    fn a_lost_device_is_reported_not_a_panic() {
        let mut backend = backend();
        let config = Params::sentence("the cat sat").validate().unwrap();
        assert!(pollster::block_on(backend.trace(&config)).is_ok());
        backend.simulate_loss();
        let error = pollster::block_on(backend.trace(&config)).expect_err("a lost device fails");
        assert_eq!(error.code(), "device-lost", "{error}");
    }

    #[test]
    fn software_adapters_are_recognised() {
        // lavapipe is a CPU rasteriser: "auto" must never prefer it for speed.
        let backend = backend();
        if backend.info().name.to_lowercase().contains("llvmpipe") {
            assert!(backend.info().software, "{:?}", backend.info());
        }
    }
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test]
async fn gpu_matches_cpu_on_random_shapes_in_the_browser() {
    // The browser runs with --enable-unsafe-webgpu (.ci/webdriver.json): SwiftShader's adapter.
    let mut backend = GpuBackend::new()
        .await
        .expect("WebGPU (SwiftShader) in headless Chromium");
    let info = backend.info();
    assert_eq!(info.api, "BrowserWebGpu", "{info:?}");
    assert!(
        !info.name.is_empty() && info.software,
        "SwiftShader is named and known to be software: {info:?}"
    );
    parity_on(&mut backend).await;
}
