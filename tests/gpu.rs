//! The GPU backend against the CPU core, written once: natively on the machine's Vulkan driver
//! (lavapipe on the CI machine, from mesa-vulkan-drivers) and in headless Chromium on WebGPU
//! (SwiftShader, with --enable-unsafe-webgpu). Plus every WGSL file validated with naga.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use attention_core::math::scoring::{Pairing, Position, Shaping};
use attention_core::{Config, MaskSpec, Params, compute_outputs, compute_trace};
use attention_gpu::GpuBackend;
use ndarray::ArrayView2;
use support::{
    Expected, TestBackend, Tolerance, assert_trace_close, random_config, random_shaped_config,
};

/// The largest difference the GPU may show against the CPU.
const TOLERANCE: Tolerance = Tolerance {
    atol: 1e-4,
    rtol: 0.0,
};

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

/// The configurations every backend is checked on: random shapes, masks, temperatures, GQA and
/// cross-attention, the same with random score options (RoPE of either pairing, ALiBi, offsets,
/// soft-caps, QK-norm, sink logits), plus a few chosen edge cases.
fn configs() -> Vec<(String, Config)> {
    let mut configs: Vec<(String, Config)> = (0..24)
        .map(|seed| (format!("random {seed}"), random_config(seed)))
        .chain((0..24).map(|seed| (format!("shaped {seed}"), random_shaped_config(seed))))
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
                block_rows: Some(16),
                block_cols: Some(8),
                d_model: Some(32),
                ..Params::sentence("the cat sat on a warm mat today ".repeat(9))
            },
        ),
        (
            "interleaved RoPE at offset 4000, QK-norm, a cap, sink logits, a sliding window with sinks",
            Params {
                n_heads: 4,
                n_kv_heads: Some(2),
                mask: MaskSpec::Sliding {
                    radius: 20,
                    sink_tokens: 3,
                },
                block_rows: Some(16),
                block_cols: Some(8),
                d_model: Some(32),
                shaping: Shaping {
                    position: Position::Rope {
                        base: 10_000.0,
                        pairing: Pairing::Interleaved,
                    },
                    offset: 4000,
                    softcap: Some(4.0),
                    qk_norm: true,
                    qk_gain: None,
                    sink_logits: Some(vec![0.0, 2.0, -1.0, 6.0]),
                },
                ..Params::sentence("the cat sat on a warm mat today ".repeat(6))
            },
        ),
        (
            "ALiBi over 6 heads, causal",
            Params {
                n_heads: 6,
                mask: MaskSpec::Causal,
                d_model: Some(24),
                shaping: Shaping {
                    position: Position::Alibi,
                    ..Shaping::default()
                },
                ..Params::sentence("the cat sat on a warm mat today ".repeat(6))
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
    configs.extend(model_layers());
    configs.extend(linear_configs());
    // The output gate on softmax heads, plain and with RoPE and a soft-cap.
    for (name, shaping) in [
        ("softmax with the output gate", Shaping::default()),
        (
            "softmax with the output gate, RoPE and a soft-cap",
            Shaping {
                position: Position::Rope {
                    base: 10_000.0,
                    pairing: Pairing::Half,
                },
                softcap: Some(3.0),
                ..Shaping::default()
            },
        ),
    ] {
        let params = Params {
            n_heads: 4,
            n_kv_heads: Some(2),
            d_model: Some(24),
            mask: MaskSpec::Causal,
            output_gate: true,
            shaping,
            ..Params::sentence("the cat sat on the mat because it was tired, 猫坐在垫子上")
        };
        configs.push((name.to_string(), params.validate().unwrap()));
    }
    configs
}

/// Linear attention of every kind, in chunks that do and do not divide the length, with grouped
/// K/V and the output gate: the GPU's chunked form against the CPU's token-by-token one.
fn linear_configs() -> Vec<(String, Config)> {
    use attention_core::math::linear::{LinearKind, LinearSpec};
    let sentence =
        "the cat sat on the mat and then the cat sat on the warm mat again, 猫坐在垫子上";
    let mut configs = Vec::new();
    for (i, kind) in LinearKind::ALL.into_iter().enumerate() {
        for (chunk, gate, kv_heads) in
            [(1, false, 4), (4, true, 2), (16, i == 2, 1), (64, false, 4)]
        {
            let params = Params {
                n_heads: 4,
                n_kv_heads: Some(kv_heads),
                d_model: Some(24),
                seed: 3 + chunk as u64,
                mask: MaskSpec::Causal,
                linear: Some(LinearSpec { kind, chunk }),
                output_gate: gate,
                ..Params::sentence(sentence)
            };
            configs.push((
                format!(
                    "linear {} chunk {chunk}{}",
                    kind.name(),
                    if gate { " gated" } else { "" }
                ),
                params.validate().unwrap(),
            ));
        }
    }
    configs
}

/// The trained models whose layers the GPU computes: the shipped GPT-2 model (projection
/// biases), Llama model (grouped K/V) and hybrid (a partial rotation, QK-norm's gains and the
/// output gate), and Hugging Face folders made by transformers (Qwen2: biases on grouped Q/K/V;
/// Qwen3: QK-norm; Gemma 2: soft-caps and sliding windows).
fn trained_models() -> Vec<(&'static str, attention_core::models::Model)> {
    use attention_core::models::Model;
    let from_files =
        |bytes: &[u8], config: &str, vocab: &str| Model::from_files(bytes, config, vocab).unwrap();
    macro_rules! folder {
        ($name:literal) => {{
            let mut files = std::collections::BTreeMap::new();
            for (file, bytes) in [
                (
                    "config.json",
                    &include_bytes!(concat!("fixtures/hf/", $name, "/config.json"))[..],
                ),
                (
                    "model.safetensors",
                    &include_bytes!(concat!("fixtures/hf/", $name, "/model.safetensors"))[..],
                ),
                (
                    "tokenizer.json",
                    &include_bytes!(concat!("fixtures/hf/", $name, "/tokenizer.json"))[..],
                ),
            ] {
                files.insert(file.to_string(), bytes.to_vec());
            }
            attention_core::models::hf::from_folder($name, &files).unwrap()
        }};
    }
    vec![
        (
            "the GPT-2 model",
            from_files(
                include_bytes!("../assets/gpt2/model.safetensors"),
                include_str!("../assets/gpt2/config.json"),
                include_str!("../assets/gpt2/vocab.json"),
            ),
        ),
        (
            "the Llama model",
            from_files(
                include_bytes!("../assets/llama/model.safetensors"),
                include_str!("../assets/llama/config.json"),
                include_str!("../assets/llama/vocab.json"),
            ),
        ),
        (
            "the hybrid",
            from_files(
                include_bytes!("../assets/hybrid/model.safetensors"),
                include_str!("../assets/hybrid/config.json"),
                include_str!("../assets/hybrid/vocab.json"),
            ),
        ),
        ("Qwen2", folder!("qwen2")),
        ("Qwen3", folder!("qwen3")),
        ("Gemma 2", folder!("gemma2")),
    ]
}

/// Every softmax layer's attention of [`trained_models`], as their forward passes give it to
/// the backends (the hybrid's linear layers, a short convolution first, stay on the CPU).
fn model_layers() -> Vec<(String, Config)> {
    use attention_core::models::ModelRun;
    let models = trained_models();
    let mut layers = Vec::new();
    for (name, model) in models {
        let (tokens, ids): (Vec<String>, Vec<u32>) = model
            .tokenize("The cat sat on the mat. The cat sat on the 猫")
            .into_iter()
            .unzip();
        let forward = model.forward(&tokens, &ids, &ModelRun::default()).unwrap();
        for (l, layer) in forward.layers.iter().enumerate() {
            let config = layer.attention.config.clone();
            if config.linear().is_some() {
                continue;
            }
            layers.push((format!("{name}'s layer {}", l + 1), config));
        }
    }
    // What the GPU computes now, and a layer before could not: present in what was checked.
    let has = |test: &dyn Fn(&Config) -> bool| layers.iter().any(|(_, c)| test(c));
    assert!(has(&|c| c.weights().biases.is_some()), "projection biases");
    assert!(has(
        &|c| c.weights().biases.is_some() && c.dims().n_kv_heads < c.dims().n_heads
    ));
    assert!(has(&|c| matches!(
        c.shaping().position,
        Position::Rope {
            pairing: Pairing::HalfOf(_),
            ..
        }
    )));
    layers
}

async fn parity_on(backend: &mut GpuBackend) {
    for (name, config) in configs() {
        let gpu = TestBackend::trace(backend, &config).await;
        let cpu = compute_trace(&config);
        assert_trace_close(&name, &gpu, &Expected::from_trace(&cpu), TOLERANCE);
        // The memory-lean path (no trace) gives the same outputs.
        let outputs = backend
            .outputs(&config)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let cpu = compute_outputs(&config);
        let diff = max_diff(&name, outputs.output.view(), cpu.output.view());
        assert!(
            diff <= TOLERANCE.atol,
            "{name}: untraced output differs by {diff:e}"
        );
        let diff = max_diff(&name, outputs.flash_output.view(), cpu.flash_output.view());
        assert!(
            diff <= TOLERANCE.atol,
            "{name}: untraced flash output differs by {diff:e}"
        );
    }
}

/// Each trained model's forward pass with its attention on the GPU (`GpuBackend::forward`) is
/// its forward pass on the CPU: every layer's residual stream and every head's weights, each
/// softmax layer's trace naming the GPU and each linear layer's the CPU.
async fn forward_parity_on(backend: &mut GpuBackend) {
    use attention_core::models::ModelRun;
    for (name, model) in trained_models() {
        let reading = model.reading(
            "The cat sat on the mat. The cat sat on the 猫",
            &ModelRun::default(),
        );
        let (gpu, work) = backend
            .forward_work(&model, &reading)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let cpu = model
            .forward(&reading.tokens, &reading.ids, &reading.run)
            .unwrap();
        // The page's model worker sends the work as numbers, the GPU's name beside them; the
        // page puts the same pass together, each layer naming the backend that computed it.
        let adapter = backend.info().name.clone();
        let sent =
            attention_core::models::remote::ForwardWork::from_flat(&work.to_flat(), &adapter)
                .unwrap_or_else(|| panic!("{name}: the work read back"));
        assert_eq!(sent, work, "{name}: the work read back");
        let together = model
            .forward_from(&reading.tokens, &reading.ids, &reading.run, sent)
            .unwrap();
        assert_eq!(together, gpu, "{name}: put together from the GPU's work");
        assert_eq!(gpu.layers.len(), cpu.layers.len(), "{name}");
        for (l, (g, c)) in gpu.layers.iter().zip(&cpu.layers).enumerate() {
            let what = format!("{name}, layer {}", l + 1);
            let linear = c.attention.config.linear().is_some();
            assert_eq!(
                matches!(g.attention.backend, attention_core::Backend::Gpu { .. }),
                !linear,
                "{what}: computed on the GPU unless linear"
            );
            let residual = max_diff(&what, g.residual_out.view(), c.residual_out.view());
            let scale = c.residual_out.iter().fold(1.0f32, |m, v| m.max(v.abs()));
            assert!(
                residual <= FORWARD_TOLERANCE * scale,
                "{what}: the residual stream differs by {residual:e} (largest value {scale})"
            );
            for (h, (gh, ch)) in g.attention.heads.iter().zip(&c.attention.heads).enumerate() {
                let weights = max_diff(&what, gh.weights.view(), ch.weights.view());
                assert!(
                    weights <= TOLERANCE.atol,
                    "{what}, head {h}: weights differ by {weights:e}"
                );
            }
        }
    }
}

/// How far a model's residual stream on the GPU may drift from the CPU's, relative to its
/// largest value (rounding compounds over the layers; measured on lavapipe: at most 6.7e-7).
const FORWARD_TOLERANCE: f32 = 1e-5;

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::*;

    /// Each shader parsed and validated by naga, the way wgpu compiles it.
    fn module(shader: &attention_gpu::Shader) -> naga::Module {
        let module = naga::front::wgsl::parse_str(shader.source)
            .unwrap_or_else(|e| panic!("{}: {}", shader.name, e.emit_to_string(shader.source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}: {e:?}", shader.name));
        module
    }

    #[test]
    fn every_shader_is_valid_wgsl() {
        for shader in attention_gpu::SHADERS {
            module(&shader);
        }
    }

    /// The contract between Rust and WGSL, read from the WGSL by naga: the workgroup size, every
    /// binding's index, name and access, the parameter block's field offsets and size, and the
    /// mask kinds' numbers.
    #[test]
    fn rust_and_wgsl_agree_on_layouts_bindings_and_constants() {
        use attention_gpu::{Binding, mask_kind};
        use naga::{AddressSpace, Expression, Literal, StorageAccess, TypeInner};
        for shader in attention_gpu::SHADERS {
            let name = shader.name;
            let module = module(&shader);
            let main = module
                .entry_points
                .iter()
                .find(|e| e.name == "main")
                .unwrap_or_else(|| panic!("{name}: no entry point main"));
            assert_eq!(
                main.workgroup_size, shader.workgroup_size,
                "{name}: @workgroup_size"
            );

            let bound: Vec<_> = module
                .global_variables
                .iter()
                .filter_map(|(_, g)| Some((g.binding?, g)))
                .collect();
            assert_eq!(
                bound.len(),
                shader.bindings.len(),
                "{name}: number of bindings"
            );
            for (index, (var_name, binding)) in shader.bindings.iter().enumerate() {
                let (resource, global) = bound
                    .iter()
                    .find(|(_, g)| g.name.as_deref() == Some(*var_name))
                    .unwrap_or_else(|| panic!("{name}: no binding named {var_name}"));
                assert_eq!(
                    (resource.group, resource.binding),
                    (0, index as u32),
                    "{name}: {var_name}"
                );
                let space_ok = match binding {
                    Binding::Params => global.space == AddressSpace::Uniform,
                    Binding::Read => {
                        global.space
                            == AddressSpace::Storage {
                                access: StorageAccess::LOAD,
                            }
                    }
                    Binding::Write => {
                        matches!(global.space, AddressSpace::Storage { access } if access.contains(StorageAccess::STORE))
                    }
                };
                assert!(
                    space_ok,
                    "{name}: {var_name} is bound as {binding:?} but declared {:?}",
                    global.space
                );
            }

            let params = module
                .types
                .iter()
                .find(|(_, t)| t.name.as_deref() == Some(shader.params.wgsl_name))
                .unwrap_or_else(|| panic!("{name}: no struct {}", shader.params.wgsl_name))
                .1;
            let TypeInner::Struct { members, span } = &params.inner else {
                panic!("{name}: {} is not a struct", shader.params.wgsl_name);
            };
            assert_eq!(
                *span as usize, shader.params.size,
                "{name}: size of {}",
                shader.params.wgsl_name
            );
            let wgsl_fields: Vec<(String, usize)> = members
                .iter()
                .filter_map(|m| Some((m.name.clone()?, m.offset as usize)))
                .filter(|(n, _)| !n.starts_with('_'))
                .collect();
            let rust_fields: Vec<(String, usize)> = shader
                .params
                .fields
                .iter()
                .map(|(n, offset)| (n.to_string(), *offset))
                .collect();
            assert_eq!(
                wgsl_fields, rust_fields,
                "{name}: fields and offsets of {}",
                shader.params.wgsl_name
            );

            let constant = |wanted: &str| {
                module
                    .constants
                    .iter()
                    .find(|(_, c)| c.name.as_deref() == Some(wanted))
                    .map(|(_, c)| match module.global_expressions[c.init] {
                        Expression::Literal(Literal::U32(v)) => v,
                        ref other => panic!("{name}: {wanted} = {other:?}"),
                    })
            };
            if shader.source.contains("fn mask_allows") {
                for (wgsl_name, value) in mask_kind::ALL {
                    assert_eq!(constant(wgsl_name), Some(value), "{name}: {wgsl_name}");
                }
            }
            if shader.name == "gate.wgsl" {
                for (wgsl_name, value) in attention_gpu::gate_mode::ALL {
                    assert_eq!(constant(wgsl_name), Some(value), "{name}: {wgsl_name}");
                }
            }
            if shader.name == "linear.wgsl" {
                for (wgsl_name, value) in attention_gpu::LINEAR_KINDS {
                    assert_eq!(constant(wgsl_name), Some(value), "{name}: {wgsl_name}");
                }
            }
            // Each shader's WORKGROUP constant is its declared workgroup size.
            if let Some(size) = constant("WORKGROUP") {
                assert_eq!(size, shader.workgroup_size[0], "{name}: WORKGROUP");
            }
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
        pollster::block_on(forward_parity_on(&mut backend));
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
        // Software rasterisers are correct but slower than the CPU path: "auto" must never
        // prefer them for speed. By type where the driver says it, by name where it does not.
        use attention_gpu::DeviceType::{Cpu, DiscreteGpu, IntegratedGpu, Other, VirtualGpu};
        use attention_gpu::is_software;
        let cases = [
            ("llvmpipe (LLVM 15.0.7, 256 bits)", Cpu, true),
            ("llvmpipe (LLVM 15.0.7, 256 bits)", Other, true),
            ("SwiftShader Device (Subzero)", Other, true),
            ("Microsoft Basic Render Driver", VirtualGpu, true),
            ("anything", Cpu, true),
            ("NVIDIA H200", DiscreteGpu, false),
            ("Apple M2", IntegratedGpu, false),
            ("", Other, false),
        ];
        for (name, kind, software) in cases {
            assert_eq!(is_software(name, kind), software, "{name} ({kind:?})");
        }
        // And the adapter this machine gives: its flag is the rule's (lavapipe here; a real
        // GPU on a lent machine).
        let backend = backend();
        let info = backend.info();
        let named_software = ["llvmpipe", "lavapipe", "swiftshader"]
            .iter()
            .any(|n| info.name.to_lowercase().contains(n));
        assert!(info.software || !named_software, "{info:?}");
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
    forward_parity_on(&mut backend).await;
}
