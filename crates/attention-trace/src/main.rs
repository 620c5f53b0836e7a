//! `attention-trace`: one JSON request on stdin, one JSON trace on stdout.
//! Bad input: exit status 2 and a one-line message naming the field on stderr.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use std::io::{Read, Write};
    use std::process::ExitCode;

    use attention_core::api::{BackendChoice, outputs_json, parse_request, trace_json};
    use attention_core::{compute_outputs, compute_trace};
    use attention_gpu::GpuBackend;

    let fail = |message: String| {
        eprintln!("attention-trace: {message}");
        ExitCode::from(2)
    };
    let mut input = String::new();
    if let Err(error) = std::io::stdin().read_to_string(&mut input) {
        return fail(format!("could not read stdin: {error}"));
    }
    let request = match parse_request(&input) {
        Ok(request) => request,
        Err(error) => return fail(error.to_string()),
    };
    let config = match request.to_params().and_then(|p| Ok(p.validate()?)) {
        Ok(config) => config,
        Err(error) => return fail(error.to_string()),
    };
    let traced = request.trace.unwrap_or(true);
    // The CLI computes where it is told: "cpu" (and "auto") on the CPU, "gpu" on the machine's
    // GPU through wgpu, failing with the reason when there is none.
    let json = if request.backend == Some(BackendChoice::Gpu) {
        let computed = pollster::block_on(async {
            let mut gpu = GpuBackend::new().await?;
            if traced {
                gpu.trace(&config).await.map(|t| trace_json(&t))
            } else {
                gpu.outputs(&config).await.map(|o| outputs_json(&o))
            }
        });
        match computed {
            Ok(json) => json,
            Err(error) => return fail(format!("backend: {error}")),
        }
    } else if traced {
        trace_json(&compute_trace(&config))
    } else {
        outputs_json(&compute_outputs(&config))
    };
    let written = json.map_err(std::io::Error::from).and_then(|json| {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(json.as_bytes())?;
        stdout.write_all(b"\n")
    });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("attention-trace: could not write the trace: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
