//! `attention-trace`: one JSON request on stdin, one JSON trace on stdout.
//! Bad input: exit status 2 and a one-line message naming the field on stderr.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use std::io::{Read, Write};
    use std::process::ExitCode;

    use attention_lab::api::{BackendChoice, outputs_json, parse_request, trace_json};
    use attention_lab::core::{compute_outputs, compute_trace};

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
    if request.backend == Some(BackendChoice::Gpu) {
        return fail("backend: the GPU backend is not built yet; use \"cpu\"".into());
    }
    let config = match request.to_params().and_then(|p| Ok(p.validate()?)) {
        Ok(config) => config,
        Err(error) => return fail(error.to_string()),
    };
    let json = if request.trace.unwrap_or(true) {
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
