//! `attention-trace`: one JSON request on stdin, one JSON trace on stdout.
//! Bad input: exit status 2 and a one-line message naming the field on stderr.
//! `attention-trace --schema`: the request's JSON Schema (every field, its type, its default and
//! what it means) on stdout.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use std::io::Read;
    use std::process::ExitCode;

    use attention_core::api::{BackendChoice, outputs_json, parse_request, trace_json};
    use attention_core::{compute_outputs, compute_trace};
    use attention_gpu::GpuBackend;

    let fail = |message: String| {
        eprintln!("attention-trace: {message}");
        ExitCode::from(2)
    };
    match std::env::args().nth(1).as_deref() {
        None => {}
        Some("--schema") => {
            print!("{}", attention_core::api::request_schema_text());
            return ExitCode::SUCCESS;
        }
        Some("--help" | "-h") => {
            println!(
                "attention-trace: one JSON request on stdin (see --schema), one JSON trace on stdout.\n\n\
                 Usage: attention-trace < request.json\n       attention-trace --schema"
            );
            return ExitCode::SUCCESS;
        }
        Some(other) => return fail(format!("{other}: unknown option (try --schema or --help)")),
    }
    let mut input = String::new();
    if let Err(error) = std::io::stdin().read_to_string(&mut input) {
        return fail(format!("could not read stdin: {error}"));
    }
    // A user's own attention from a file: {"load": {"path": …}, "mask": …, "temperature": …}.
    if let Some(command) = attention_core::api::import::parse_load(&input) {
        let command = match command {
            Ok(command) => command,
            Err(error) => return fail(error.to_string()),
        };
        let bytes = match std::fs::read(&command.load.path) {
            Ok(bytes) => bytes,
            Err(error) => {
                return fail(format!(
                    "load.path: cannot read {:?}: {error}",
                    command.load.path
                ));
            }
        };
        return match command.run(&bytes) {
            Ok(json) => write(json.to_string()),
            Err(message) => fail(message),
        };
    }
    let request = match parse_request(&input) {
        Ok(request) => request,
        Err(error) => return fail(error.to_string()),
    };
    let lesson = match request.lesson() {
        Ok(lesson) => lesson,
        Err(error) => return fail(error.to_string()),
    };
    if let Some(lesson) = lesson {
        return match lesson_experiment(&request, lesson) {
            Ok(json) => write(json),
            Err(message) => fail(message),
        };
    }
    if let Some(block) = request.replay_block {
        return match replay(&request, block) {
            Ok(json) => write(json),
            Err(message) => fail(message),
        };
    }
    if request.stream_eval.is_some() {
        return match stream_eval(&request) {
            Ok(json) => write(json),
            Err(message) => fail(message),
        };
    }
    if request.generate.is_some() {
        return match generate(&request) {
            Ok(json) => write(json),
            Err(message) => fail(message),
        };
    }
    if request.is_trained() {
        return match trained(&request) {
            Ok(json) => write(json),
            Err(message) => fail(message),
        };
    }
    let config = match request.to_params().and_then(|p| Ok(p.validate()?)) {
        Ok(config) => config,
        Err(error) => return fail(error.to_string()),
    };
    let traced = request.trace.unwrap_or(true);
    let circuits = request.explain.is_some()
        || request.ablate.is_some()
        || request.logit_attribution.is_some()
        || request.composition.is_some();
    if circuits && !traced {
        return fail(
            "trace: explain and ablate read the trace; leave \"trace\" out or true".into(),
        );
    }
    // A refused `ablate` before anything is computed.
    if let Err(error) = request.knockouts().and_then(|k| {
        attention_core::pipeline::knockout::check_knockouts(&k, 1, config.dims().n_heads)?;
        Ok(())
    }) {
        return fail(error.to_string());
    }
    let finish = |mut trace: attention_core::Trace| -> Result<String, String> {
        request.knock_out(&mut trace).map_err(|e| e.to_string())?;
        let extra = attention_core::api::trace_circuits_json(&trace, &request)?;
        let json = trace_json(&trace).map_err(|e| e.to_string())?;
        attention_core::api::with_fields(json, extra)
    };
    // The CLI computes where it is told: "cpu" (and "auto") on the CPU, "gpu" on the machine's
    // GPU through wgpu, failing with the reason when there is none.
    let json = if request.backend == Some(BackendChoice::Gpu) {
        let computed = pollster::block_on(async {
            let mut gpu = GpuBackend::new().await?;
            if traced {
                gpu.trace(&config).await.map(&finish)
            } else {
                gpu.outputs(&config)
                    .await
                    .map(|o| outputs_json(&o).map_err(|e| e.to_string()))
            }
        });
        match computed {
            Ok(Ok(json)) => Ok(json),
            Ok(Err(message)) => return fail(message),
            Err(error) => return fail(format!("backend: {error}")),
        }
    } else if traced {
        match finish(compute_trace(&config)) {
            Ok(json) => Ok(json),
            Err(message) => return fail(message),
        }
    } else {
        outputs_json(&compute_outputs(&config))
    };
    match json {
        Ok(json) => write(json),
        Err(error) => {
            eprintln!("attention-trace: could not write the trace: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `json` and a line break to stdout.
#[cfg(not(target_arch = "wasm32"))]
fn write(json: String) -> std::process::ExitCode {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(json.as_bytes())
        .and_then(|()| stdout.write_all(b"\n"))
    {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("attention-trace: could not write the trace: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `"replay_block": b`: FlashAttention's tile steps of query block b of every head, at any
/// length (nothing n² is recorded, so no trace limit applies).
#[cfg(not(target_arch = "wasm32"))]
fn replay(request: &attention_core::api::Request, block: usize) -> Result<String, String> {
    use attention_core::api::{BackendChoice, replay_json};
    if request.backend == Some(BackendChoice::Gpu) {
        return Err("backend: the tile replay runs on the CPU; use \"cpu\"".into());
    }
    if request.is_trained() {
        return Err(
            "replay_block: the tile replay is for the random-weight lab, not the trained model"
                .into(),
        );
    }
    let mut params = request.to_params().map_err(|e| e.to_string())?;
    params.trace = false;
    let config = params.validate().map_err(|e| e.to_string())?;
    let heads =
        attention_core::replay_flash(&config, block..block + 1).map_err(|e| e.to_string())?;
    replay_json(&config, block, &heads).map_err(|e| e.to_string())
}

/// The trained models shipped with the lab (assets/gpt2: GPT-2; assets/llama: Llama;
/// assets/llama-gated: its twin with output gates; assets/hybrid: Qwen3-Next's hybrid layout),
/// built into the binary.
#[cfg(not(target_arch = "wasm32"))]
const MODEL: (&[u8], &str, &str) = (
    include_bytes!("../../../assets/gpt2/model.safetensors"),
    include_str!("../../../assets/gpt2/config.json"),
    include_str!("../../../assets/gpt2/vocab.json"),
);
#[cfg(not(target_arch = "wasm32"))]
const LLAMA: (&[u8], &str, &str) = (
    include_bytes!("../../../assets/llama/model.safetensors"),
    include_str!("../../../assets/llama/config.json"),
    include_str!("../../../assets/llama/vocab.json"),
);
#[cfg(not(target_arch = "wasm32"))]
const LLAMA_GATED: (&[u8], &str, &str) = (
    include_bytes!("../../../assets/llama-gated/model.safetensors"),
    include_str!("../../../assets/llama-gated/config.json"),
    include_str!("../../../assets/llama-gated/vocab.json"),
);
#[cfg(not(target_arch = "wasm32"))]
const HYBRID: (&[u8], &str, &str) = (
    include_bytes!("../../../assets/hybrid/model.safetensors"),
    include_str!("../../../assets/hybrid/config.json"),
    include_str!("../../../assets/hybrid/vocab.json"),
);

/// The trained model the request names (`"trained"` or `"gpt2"`, `"llama"`, `"llama-gated"` or
/// `"hybrid"`), or the Hugging Face model folder it names (`{"path": "folder"}`).
#[cfg(not(target_arch = "wasm32"))]
fn load_trained(
    request: &attention_core::api::Request,
) -> Result<attention_core::models::Model, String> {
    use attention_core::models::Shipped;
    if let Some(path) = request.model.as_ref().and_then(|m| m.folder()) {
        let folder = std::path::Path::new(path);
        let name = folder
            .file_name()
            .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned());
        return attention_core::io::hf_folder::read_folder(folder)
            .map_err(attention_core::models::ModelError::from)
            .and_then(|files| attention_core::models::hf::from_folder(&name, &files))
            .map_err(|e| format!("model: {e}"));
    }
    let (safetensors, config, vocab) = match request.shipped_model() {
        Some(Shipped::Llama) => LLAMA,
        Some(Shipped::LlamaGated) => LLAMA_GATED,
        Some(Shipped::Hybrid) => HYBRID,
        _ => MODEL,
    };
    attention_core::models::Model::from_files(safetensors, config, vocab)
        .map_err(|e| format!("model: {e}"))
}

/// `"model": "trained"` (or `"gpt2"`, `"llama"`, `"llama-gated"`, `"hybrid"`): the shipped model on the request's
/// sentence, every layer traced, with the next-token predictions.
#[cfg(not(target_arch = "wasm32"))]
fn trained(request: &attention_core::api::Request) -> Result<String, String> {
    use attention_core::api::{BackendChoice, forward_json};
    let (sentence, run) = request.trained_run().map_err(|e| e.to_string())?;
    let model = load_trained(request)?;
    let forward = if request.backend == Some(BackendChoice::Gpu) {
        // Each layer's attention on the machine's GPU, its MLP on the CPU.
        let reading = model.reading(&sentence, &run);
        pollster::block_on(async {
            let mut gpu = attention_gpu::GpuBackend::new()
                .await
                .map_err(|e| format!("backend: {e}"))?;
            gpu.forward(&model, &reading)
                .await
                .map_err(|e| e.to_string())
        })?
    } else {
        model.read(&sentence, &run).map_err(|e| e.to_string())?
    };
    let extra = attention_core::api::model_circuits_json(&model, &forward, request)?;
    attention_core::api::with_fields(
        forward_json(&model, &forward).map_err(|e| e.to_string())?,
        extra,
    )
}

/// `"generate": {…}`: a trained model continues the sentence one character at a time, with the
/// KV cache or without, each step timed here and checked against a recompute.
#[cfg(not(target_arch = "wasm32"))]
fn generate(request: &attention_core::api::Request) -> Result<String, String> {
    if !request.is_trained() {
        return Err(
            "generate: generation needs a trained model; add \"model\": \"trained\", \"llama\" or \"hybrid\""
                .into(),
        );
    }
    if request.ablate.is_some() {
        return Err("ablate: generation runs the whole model; knock heads out in a forward pass (leave \"generate\" out)".into());
    }
    let model = load_trained(request)?;
    let started = std::time::Instant::now();
    let clock = move || started.elapsed().as_secs_f64() * 1000.0;
    attention_core::api::generate_json(&model, request, &clock).map(|json| json.to_string())
}

/// `"stream_eval": {…}`: the Llama model reads a long text through a rolling cache, with and
/// without sink tokens, beside a sliding-window recompute.
#[cfg(not(target_arch = "wasm32"))]
fn stream_eval(request: &attention_core::api::Request) -> Result<String, String> {
    if !request.is_trained() || request.trained_layout().is_some_and(|l| !l.streams()) {
        return Err("stream_eval: add \"model\": \"llama\" or \"llama-gated\" (positions move inside the cache only with RoPE)".into());
    }
    let model = load_trained(request)?;
    if !model.config.layout.streams() {
        return Err(format!(
            "stream_eval: {} adds its positions to X; positions move inside the cache only with RoPE (a Llama-layout model)",
            model.name
        ));
    }
    attention_core::api::stream_eval_json(&model, request).map(|json| json.to_string())
}

/// `"lesson": "<chapter>"`: the chapter's experiment on the request's trace (with the trained
/// model, on the focus's layer); for `complexity`, timed here from 64 to 2048 tokens.
#[cfg(not(target_arch = "wasm32"))]
fn lesson_experiment(
    request: &attention_core::api::Request,
    (chapter, focus, layer): (
        attention_core::teaching::Chapter,
        attention_core::teaching::Focus,
        usize,
    ),
) -> Result<String, String> {
    use attention_core::api::lesson_json;
    use attention_core::teaching::{
        Chapter, Experiment, circuits_experiment, experiment, measure_cost,
    };
    // Why a head attends: the chapter runs the trained model itself (and knocks a head out).
    if chapter == Chapter::Circuits {
        if !request.is_trained() {
            return Err("lesson: the circuits chapter needs a trained model; add \"model\": \"trained\" or \"llama\"".into());
        }
        let (sentence, run) = request.trained_run().map_err(|e| e.to_string())?;
        let model = load_trained(request)?;
        let measured =
            circuits_experiment(&model, &sentence, &run).map_err(|e| format!("sentence: {e}"))?;
        return lesson_json(chapter, &Experiment::Circuits(Some(measured)), None)
            .map_err(|e| e.to_string());
    }
    let trace = if request.is_trained() {
        let (sentence, run) = request.trained_run().map_err(|e| e.to_string())?;
        let model = load_trained(request)?;
        let forward = model.read(&sentence, &run).map_err(|e| e.to_string())?;
        if layer >= forward.layers.len() {
            return Err(format!(
                "focus.layer: the trained model has {} layers",
                forward.layers.len()
            ));
        }
        forward.layer_trace(layer)
    } else {
        let config = request
            .to_params()
            .and_then(|p| Ok(p.validate()?))
            .map_err(|e| e.to_string())?;
        attention_core::compute_trace(&config)
    };
    let result = experiment(chapter, &trace, &focus);
    let cost = (chapter == Chapter::Complexity).then(|| {
        let started = std::time::Instant::now();
        let clock = move || started.elapsed().as_secs_f64() * 1000.0;
        measure_cost(&[64, 128, 256, 512, 1024, 2048], &clock)
    });
    lesson_json(chapter, &result, cost.as_ref()).map_err(|e| e.to_string())
}

#[cfg(target_arch = "wasm32")]
fn main() {}
