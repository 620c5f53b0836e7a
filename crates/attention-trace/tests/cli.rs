//! The `attention-trace` binary, driven as a course author would: JSON in, JSON out.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).
#![cfg(not(target_arch = "wasm32"))]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Runs the CLI on `input`; returns (exit code, stdout, stderr).
fn run(input: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_attention-trace"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn trace(input: &str) -> Value {
    let (code, stdout, stderr) = run(input);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn a_sentence_gives_the_documented_shape() {
    let t = trace(
        r#"{"sentence": "the cat sat", "d_model": 8, "n_heads": 2, "mask": {"kind": "causal"}, "block": {"rows": 2, "cols": 2}}"#,
    );
    assert_eq!(t["tokens"], serde_json::json!(["the", "cat", "sat"]));
    assert_eq!(t["x"].as_array().unwrap().len(), 3);
    assert_eq!(t["x"][0].as_array().unwrap().len(), 8);
    let heads = t["heads"].as_array().unwrap();
    assert_eq!(heads.len(), 2);
    for head in heads {
        for key in ["q", "k", "v", "scores", "weights", "output"] {
            assert_eq!(head[key].as_array().unwrap().len(), 3, "{key}");
        }
        assert!(head["scores"][0][1].is_null(), "masked scores are null");
        assert_eq!(head["weights"][0][0], 1.0, "token 0 sees only itself");
        assert_eq!(head["fully_masked_rows"], serde_json::json!([]));
    }
    assert_eq!(t["concat"][0].as_array().unwrap().len(), 8);
    assert_eq!(t["output"][0].as_array().unwrap().len(), 8);
    assert!(t["flash"]["max_abs_diff"].as_f64().unwrap() <= 1e-5);
    let steps = t["flash"]["heads"][0]["steps"].as_array().unwrap();
    // 2 row blocks × 2 column blocks; the tile above the diagonal is skipped.
    assert_eq!(steps.len(), 4);
    assert_eq!(steps[1]["skipped"], true);
    assert_eq!(
        (
            steps[1]["row_block"].as_u64(),
            steps[1]["col_block"].as_u64()
        ),
        (Some(0), Some(1))
    );
    for key in ["m", "l", "acc"] {
        assert!(steps[0][key].is_array(), "{key}");
    }
    assert_eq!(t["backend"], "cpu");
}

#[test]
fn cross_attention_takes_keys_from_the_source() {
    let t = trace(
        r#"{"sentence": "我 爱 猫", "source_sentence": "I love cats very much", "d_model": 6, "n_heads": 1}"#,
    );
    assert_eq!(t["source_tokens"].as_array().unwrap().len(), 5);
    assert_eq!(t["heads"][0]["weights"].as_array().unwrap().len(), 3);
    assert_eq!(t["heads"][0]["weights"][0].as_array().unwrap().len(), 5);
}

#[test]
fn untraced_runs_4096_tokens() {
    let sentence = "word ".repeat(4096);
    let input = serde_json::json!({
        "sentence": sentence, "d_model": 8, "n_heads": 1, "trace": false,
        "mask": {"kind": "causal"}, "block": {"rows": 64, "cols": 64},
    });
    let t = trace(&input.to_string());
    assert_eq!(t["tokens"].as_array().unwrap().len(), 4096);
    assert_eq!(t["output"].as_array().unwrap().len(), 4096);
    assert_eq!(t["flash"]["output"].as_array().unwrap().len(), 4096);
    assert!(t["flash"]["max_abs_diff"].as_f64().unwrap() <= 1e-5);
    assert!(t.get("heads").is_none(), "no trace was asked for");
}

#[test]
fn replay_block_gives_one_query_blocks_tiles_at_any_length() {
    // A small input: the replayed block's steps are the trace's, in the same JSON shape.
    let request = r#"{"sentence": "a b c d e f", "d_model": 8, "n_heads": 2, "mask": {"kind": "causal"}, "block": {"rows": 2, "cols": 2}"#;
    let whole = trace(&format!("{request}}}"));
    let replay = trace(&format!(r#"{request}, "replay_block": 1}}"#));
    assert_eq!(replay["query_block"], 1);
    assert_eq!(replay["rows"], serde_json::json!([2, 4]));
    assert_eq!(replay["mask"], "causal");
    for head in 0..2 {
        let steps = whole["flash"]["heads"][head]["steps"].as_array().unwrap();
        let expected: Vec<&Value> = steps.iter().filter(|s| s["row_block"] == 1).collect();
        let got: Vec<&Value> = replay["heads"][head]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .collect();
        assert_eq!(got, expected, "head {head}");
        let output = &whole["flash"]["heads"][head]["output"];
        assert_eq!(
            replay["heads"][head]["output"],
            serde_json::json!([output[2], output[3]])
        );
    }
    // 4096 tokens: far past the trace's limit, one block of 64 rows × 64 tiles.
    let sentence = vec!["w"; 4096].join(" ");
    let long = trace(&format!(
        r#"{{"sentence": "{sentence}", "mask": {{"kind": "causal"}}, "replay_block": 10}}"#
    ));
    assert_eq!(long["rows"], serde_json::json!([640, 704]));
    let steps = long["heads"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 64);
    assert_eq!(steps.iter().filter(|s| s["skipped"] == false).count(), 11);
    // Past the last block, a clear error naming the field.
    let (code, _, stderr) = run(&format!(
        r#"{{"sentence": "{sentence}", "replay_block": 64}}"#
    ));
    assert_eq!(code, 2);
    assert_eq!(
        stderr.trim(),
        "attention-trace: replay_block must be at most 63 (got 64)"
    );
}

#[test]
fn bad_input_exits_2_naming_the_field() {
    let cases = [
        (r#"{"sentence": ""}"#, "sentence"),
        (r#"{"sentence": "a b", "n_heads": "two"}"#, "n_heads"),
        (r#"{"sentence": "a b", "temprature": 2}"#, "temprature"),
        (
            r#"{"sentence": "a b", "n_heads": 4, "n_kv_heads": 3}"#,
            "n_kv_heads",
        ),
        (r#"{"sentence": "a b", "temperature": 0}"#, "temperature"),
        (
            r#"{"sentence": "a b", "mask": {"kind": "diagonal"}}"#,
            "mask",
        ),
        (
            r#"{"sentence": "a b", "mask": {"kind": "padding", "valid_len": 5}}"#,
            "mask",
        ),
        (
            r#"{"sentence": "a b", "source_sentence": "c", "mask": {"kind": "causal"}}"#,
            "mask",
        ),
        (r#"{"x": [[1, 2], [3]]}"#, "x"),
        (r#"{"tokens": ["a"], "sentence": "a"}"#, "sentence"),
        (r#"{"d_model": 4}"#, "sentence"),
        (r#"{"sentence": "a", "block": {"rows": 0}}"#, "block.rows"),
        ("not json", "request"),
    ];
    for (input, field) in cases {
        let (code, stdout, stderr) = run(input);
        assert_eq!(code, 2, "{input}: {stderr}");
        assert!(stdout.is_empty(), "{input}: nothing on stdout");
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "{input}: one line: {stderr}"
        );
        assert!(
            stderr.contains(field),
            "{input}: message names `{field}`: {stderr}"
        );
    }
    let (code, _, stderr) = run(&format!(r#"{{"sentence": "{}"}}"#, "a ".repeat(5000)));
    assert_eq!(code, 2);
    assert!(stderr.contains("4096"), "{stderr}");
}

#[test]
fn the_trained_model_traces_every_layer_and_predicts() {
    let t = trace(r#"{"model": "trained", "sentence": "xq7kb@ xq7kb"}"#);
    assert_eq!(t["model"], "trained");
    assert_eq!(
        t["tokens"].as_array().unwrap().len(),
        12,
        "one token per character"
    );
    assert_eq!(
        t["mask"], "causal",
        "the trained model reads causally by default"
    );
    let layers = t["layers"].as_array().unwrap();
    assert_eq!(layers.len(), t["n_layer"].as_u64().unwrap() as usize);
    for layer in layers {
        let heads = layer["heads"].as_array().unwrap();
        assert_eq!(heads.len(), t["n_head"].as_u64().unwrap() as usize);
        for key in ["q", "k", "v", "scores", "weights", "output"] {
            assert_eq!(heads[0][key].as_array().unwrap().len(), 12, "{key}");
        }
        for key in ["residual_in", "residual_out"] {
            assert_eq!(
                layer[key][0].as_array().unwrap().len(),
                t["n_embd"].as_u64().unwrap() as usize
            );
        }
    }
    let predictions = t["predictions"].as_array().unwrap();
    assert_eq!(predictions.len(), 12);
    let last = predictions[11].as_array().unwrap();
    assert_eq!(last.len(), 5);
    // The induction circuit: after "xq7kb" seen once before, "@" comes next.
    assert_eq!(last[0]["token"], "@", "{last:?}");
    let p: Vec<f64> = last.iter().map(|p| p["p"].as_f64().unwrap()).collect();
    assert!(
        p.windows(2).all(|w| w[0] >= w[1]),
        "most likely first: {p:?}"
    );

    // Temperature and mask reach every layer.
    let hot = trace(
        r#"{"model": "trained", "sentence": "abc", "temperature": 100, "mask": {"kind": "none"}}"#,
    );
    assert_eq!(hot["mask"], "none");
    for layer in hot["layers"].as_array().unwrap() {
        let row = layer["heads"][0]["weights"][0].as_array().unwrap();
        assert!(
            row.iter()
                .all(|w| (w.as_f64().unwrap() - 1.0 / 3.0).abs() < 0.05),
            "{row:?}"
        );
    }
}

#[test]
fn the_trained_models_fixed_shape_is_a_clear_error() {
    for (input, field) in [
        (
            r#"{"model": "trained", "sentence": "ab", "d_model": 16}"#,
            "d_model",
        ),
        (
            r#"{"model": "trained", "sentence": "ab", "n_heads": 2}"#,
            "n_heads",
        ),
        (
            r#"{"model": "trained", "sentence": "ab", "source_sentence": "c"}"#,
            "source_sentence",
        ),
        (r#"{"model": "trained", "x": [[1, 2]]}"#, "x"),
        (r#"{"model": "pretrained", "sentence": "ab"}"#, "model"),
    ] {
        let (code, stdout, stderr) = run(input);
        assert_eq!(code, 2, "{input}: {stdout}");
        assert!(stderr.contains(field), "{input}: {stderr}");
        assert!(stdout.is_empty());
    }
}

#[test]
fn every_lesson_runs_its_experiment_from_the_cli() {
    for chapter in [
        "tokens",
        "qkv",
        "scaling",
        "softmax",
        "masks",
        "multihead",
        "gqa",
        "cross",
        "layernorm",
        "stability",
        "flash",
        "variants",
        "exercises",
    ] {
        let out = trace(&format!(
            r#"{{"sentence": "the cat sat on the mat", "mask": {{"kind": "causal"}}, "lesson": "{chapter}", "focus": {{"head": 2, "query": 4}}}}"#
        ));
        assert_eq!(out["lesson"], chapter);
        let experiment = &out["experiment"];
        assert_eq!(experiment["chapter"], chapter);
        if let Some(query) = experiment.get("query") {
            assert_eq!(query, 4, "{chapter}: tokens count from 0, as in the trace");
        }
    }
    let softmax = trace(
        r#"{"sentence": "the cat sat on the mat", "mask": {"kind": "causal"}, "lesson": "softmax", "focus": {"query": 4}}"#,
    );
    assert_eq!(
        softmax["experiment"]["allowed"], 5,
        "token 4 sees tokens 0 to 4"
    );
    assert_eq!(softmax["experiment"]["sweep"].as_array().unwrap().len(), 41);
    let trained = trace(
        r#"{"model": "trained", "sentence": "xq7kb@ xq7kb", "lesson": "multihead", "focus": {"layer": 2}}"#,
    );
    assert_eq!(trained["experiment"]["n_heads"], 4);
}

#[test]
fn a_bad_lesson_is_a_clear_error() {
    for (input, field) in [
        (
            r#"{"sentence": "a b", "lesson": "nonsense"}"#,
            "lesson: unknown chapter",
        ),
        (
            r#"{"sentence": "a b", "lesson": "qkv", "focus": {"head": 0}}"#,
            "focus.head: counts from 1",
        ),
        (
            r#"{"sentence": "a b", "focus": {"head": 1}}"#,
            "focus: a focus needs a lesson",
        ),
        (
            r#"{"sentence": "a b", "lesson": "stability", "focus": {"factor": -1}}"#,
            "focus.factor",
        ),
        (
            r#"{"model": "trained", "sentence": "ab", "lesson": "qkv", "focus": {"layer": 9}}"#,
            "focus.layer: the trained model has 3 layers",
        ),
    ] {
        let (code, stdout, stderr) = run(input);
        assert_eq!(code, 2, "{input}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(field), "{input}: {stderr}");
    }
    // The unknown chapter's refusal names every chapter there is.
    let (_, _, stderr) = run(r#"{"sentence": "a b", "lesson": "nonsense"}"#);
    for chapter in attention_core::teaching::Chapter::ALL {
        let id = chapter.id();
        assert!(
            stderr.contains(&format!(" {id},")) || stderr.ends_with(&format!(" {id}\n")),
            "{id} is not among {stderr}"
        );
    }
}

#[test]
fn the_complexity_lesson_times_attention_and_fits_the_slope() {
    let out = trace(r#"{"sentence": "a b c", "lesson": "complexity"}"#);
    let points = out["measured"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 6);
    assert_eq!(points[0]["n"], 64);
    assert!(out["measured"]["standard_slope"].as_f64().unwrap() > 1.0);
}

/// The README's demo of the induction head must do what its sentence says: after the random
/// string typed twice, the model's most likely next character is the one that followed the
/// string the first time. (The README once showed a string the model did not copy.)
#[test]
fn the_readmes_induction_demo_does_what_it_says() {
    let readme = include_str!("../../../README.md");
    let at = readme
        .find("Type a random string twice, `")
        .expect("the README's demo sentence");
    let rest = &readme[at + "Type a random string twice, `".len()..];
    let demo = &rest[..rest.find('`').unwrap()];
    let said = rest
        .split("most likely next character is `")
        .nth(1)
        .and_then(|r| r.chars().next())
        .expect("the character the README says comes next");
    // What followed the repeated part the first time.
    let repeated = demo.rsplit(' ').next().unwrap();
    let first = demo.find(repeated).unwrap();
    let followed = demo[first + repeated.len()..].chars().next().unwrap();
    assert_eq!(said, followed, "the README's own claim is about copying");
    let request = serde_json::json!({"model": "trained", "sentence": demo}).to_string();
    let t = trace(&request);
    let predictions = t["predictions"].as_array().unwrap();
    let top = &predictions.last().unwrap()[0];
    assert_eq!(top["token"], said.to_string(), "{top}");
}

/// Past the model's context (128 characters) the CLI reads the last 128, as the page does,
/// and says how many came before.
#[test]
fn the_trained_model_reads_a_long_text_through_its_last_window() {
    let sentence = "The cat sat on the mat. ".repeat(8);
    let request = serde_json::json!({"model": "trained", "sentence": sentence}).to_string();
    let t = trace(&request);
    assert_eq!(t["context"], 128);
    assert_eq!(t["dropped"], 192 - 128);
    assert_eq!(t["tokens"].as_array().unwrap().len(), 128);
}

/// A user's own attention from a file: weights as they are, Q and K computed under the mask and
/// the temperature; what cannot be read is a one-line message and status 2.
#[test]
fn a_file_of_ones_own_attention_is_loaded() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/imports/");
    let t = trace(&format!(
        r#"{{"load": {{"path": "{root}attention_compressed.npz"}}}}"#
    ));
    assert_eq!(
        (&t["source"], &t["kind"]),
        (&"imported".into(), &"attention".into())
    );
    assert_eq!(
        t["tokens"],
        serde_json::json!(["the", "cat", "sat", "猫", "mat"])
    );
    let layers = t["layers"].as_array().unwrap();
    assert_eq!((layers.len(), layers[0].as_array().unwrap().len()), (2, 3));
    let row = &t["layers"][1][2]["weights"][4];
    let sum: f64 = row
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!((sum - 1.0).abs() < 1e-5, "{sum}");

    let t = trace(&format!(
        r#"{{"load": {{"path": "{root}qkv.safetensors"}}, "mask": {{"kind": "causal"}}, "temperature": 2}}"#
    ));
    assert_eq!(t["kind"], "q_k");
    // Saved before RoPE: turned first, and the weights change; ALiBi is refused for a file.
    let turned = trace(&format!(
        r#"{{"load": {{"path": "{root}qkv.safetensors"}}, "mask": {{"kind": "causal"}}, "temperature": 2, "position": {{"kind": "rope"}}}}"#
    ));
    assert_ne!(
        turned["layers"][0][0]["weights"],
        t["layers"][0][0]["weights"]
    );
    let (code, _, stderr) = run(&format!(
        r#"{{"load": {{"path": "{root}qkv.safetensors"}}, "position": {{"kind": "alibi"}}}}"#
    ));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("position: a file's q and k take RoPE"),
        "{stderr}"
    );
    let weights = &t["layers"][0][0]["weights"];
    assert_eq!(
        weights[0][1], 0.0,
        "causal: the first query sees only itself"
    );
    assert_eq!(weights[0][0], 1.0);
    assert!(
        t["layers"][0][0].get("output").is_none(),
        "no v in this file"
    );

    for (input, message) in [
        (
            format!(r#"{{"load": {{"path": "{root}missing.npz"}}}}"#),
            "load.path: cannot read",
        ),
        (
            format!(r#"{{"load": {{"path": "{root}expected.json"}}}}"#),
            "both \"attention\" and",
        ),
        (
            format!(r#"{{"load": {{"path": "{root}attention.npz"}}, "temperature": 2}}"#),
            "apply to q and k",
        ),
        (
            format!(r#"{{"load": {{"path": "{root}qkv.npz", "format": "safetensors"}}}}"#),
            "safetensors",
        ),
        (
            format!(r#"{{"load": {{"path": "{root}cross.json"}}, "sentence": "x"}}"#),
            "unknown field `sentence`",
        ),
        (
            format!(r#"{{"load": {{"path": "{root}attention.npy", "tokens": ["a"]}}}}"#),
            "tokens has 1 entries",
        ),
    ] {
        let (code, stdout, stderr) = run(&input);
        assert_eq!(code, 2, "{input}: {stdout}");
        assert!(
            stderr.contains(message) && stderr.lines().count() == 1,
            "{input}: {stderr}"
        );
    }
}

#[test]
fn the_llama_model_traces_every_layer_with_its_kv_heads() {
    let t = trace(r#"{"model": "llama", "sentence": "the cat sat on the mat"}"#);
    assert_eq!(
        (t["model"].as_str(), t["layout"].as_str()),
        (Some("llama"), Some("llama"))
    );
    let kv_heads = t["n_kv_head"].as_u64().unwrap();
    assert!(
        kv_heads * 2 <= t["n_head"].as_u64().unwrap(),
        "grouped-query attention"
    );
    assert!(t["context"].as_u64().unwrap() >= 256);
    assert_eq!(
        t["layers"].as_array().unwrap().len(),
        t["n_layer"].as_u64().unwrap() as usize
    );
    assert!(
        t["positions"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r.as_array().unwrap())
            .all(|v| v == 0.0),
        "no position vectors: RoPE is inside attention"
    );
    let gpt2 = trace(r#"{"model": "gpt2", "sentence": "ab"}"#);
    assert_eq!(gpt2["model"], "trained", "\"gpt2\" names the first model");
    let (code, _, stderr) =
        run(r#"{"model": "llama", "sentence": "ab", "position": {"kind": "alibi"}}"#);
    assert_eq!(code, 2);
    assert!(stderr.contains("position"), "{stderr}");
}

#[test]
fn generation_lists_each_step_with_its_cache_and_its_check() {
    for model in ["trained", "llama"] {
        let request = serde_json::json!({
            "model": model,
            "sentence": "The cat sat on the ",
            "generate": {"steps": 12, "cache": true, "sampling": "greedy"},
        });
        let g = trace(&request.to_string());
        let steps = g["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 12);
        assert_eq!(g["prompt_tokens"], 19);
        let per_token = g["cache_bytes_per_token"]["this_model"].as_u64().unwrap();
        for (i, step) in steps.iter().enumerate() {
            assert_eq!(step["cache_len"], 19 + i + 1);
            assert_eq!(
                step["cache_bytes"].as_u64().unwrap(),
                (19 + i as u64 + 1) * per_token
            );
            assert_eq!(step["top"].as_array().unwrap().len(), 5);
            assert!(
                step["max_delta"].as_f64().unwrap() <= 1e-4,
                "{model}: {step}"
            );
            assert!(step["ms"].as_f64().unwrap() >= 0.0);
        }
        let text: String = steps.iter().map(|s| s["token"].as_str().unwrap()).collect();
        assert_eq!(g["text"], text);
        // The speed is the steps' own: the checks against a recompute are not in it.
        assert_eq!(g["check_in_timing"], false);
        // The same characters without the cache, greedy and sampled alike.
        for sampling in [
            serde_json::json!("greedy"),
            serde_json::json!({"temperature": 0.7, "seed": 3}),
        ] {
            let mut request = request.clone();
            request["generate"]["sampling"] = sampling.clone();
            let with = trace(&request.to_string());
            request["generate"]["cache"] = false.into();
            let without = trace(&request.to_string());
            assert_eq!(with["text"], without["text"], "{model} {sampling}");
            assert_eq!(without["steps"][3]["cache_bytes"], 0);
        }
    }
}

#[test]
fn a_bad_generation_request_exits_2_naming_the_field() {
    for (input, expected) in [
        (
            r#"{"model": "llama", "sentence": "", "generate": {"steps": 3}}"#,
            "sentence: the prompt is empty",
        ),
        (
            r#"{"model": "llama", "sentence": "a🙂", "generate": {"steps": 3}}"#,
            "\"🙂\" not in the model's vocabulary",
        ),
        (
            r#"{"model": "trained", "sentence": "ab", "generate": {"steps": 127}}"#,
            "context of 128",
        ),
        (
            r#"{"model": "trained", "sentence": "ab", "generate": {"steps": 0}}"#,
            "generate.steps must be between 1",
        ),
        (
            r#"{"model": "llama", "sentence": "ab", "generate": {"steps": 2, "sampling": {"temperature": -1}}}"#,
            "temperature must be above 0",
        ),
        (
            r#"{"model": "llama", "sentence": "ab", "generate": {"steps": 2, "sampling": "hot"}}"#,
            "generate.sampling: expected \"greedy\"",
        ),
        (
            r#"{"model": "llama", "sentence": "ab", "generate": {"steps": 2, "beam": 4}}"#,
            "generate.beam",
        ),
        (
            r#"{"sentence": "ab", "generate": {"steps": 2}}"#,
            "generation needs a trained model",
        ),
        (
            r#"{"model": "llama", "sentence": "ab", "mask": {"kind": "none"}, "generate": {"steps": 2}}"#,
            "mask: generation",
        ),
    ] {
        let (code, stdout, stderr) = run(input);
        assert_eq!(code, 2, "{input}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(expected), "{input}: {stderr}");
    }
}

/// `"explain"`: a score taken apart into what wrote it, the terms summing to the score; on a
/// trained model's later layer the components name the earlier heads.
#[test]
fn explain_takes_a_score_apart_into_terms_that_sum_to_it() {
    let cell = trace(
        r#"{"model": "trained", "sentence": "abcabc", "explain": {"layer": 2, "head": 3, "query": 4, "key": 2}}"#,
    );
    let explain = &cell["explain"];
    let names: Vec<&str> = explain["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "token",
            "position",
            "L1.H1",
            "L1.H2",
            "L1.H3",
            "L1.H4",
            "L1.attn_bias",
            "L1.mlp",
            "bias"
        ]
    );
    let terms = explain["terms"].as_array().unwrap();
    assert_eq!(terms.len(), names.len());
    let sum: f64 = terms
        .iter()
        .flat_map(|r| r.as_array().unwrap())
        .map(|x| x.as_f64().unwrap())
        .sum();
    let score = explain["score"].as_f64().unwrap();
    assert!(
        (sum - score).abs() <= 1e-5 * score.abs().max(1.0),
        "{sum} vs {score}"
    );
    assert!((explain["sum"].as_f64().unwrap() - score).abs() <= 1e-5 * score.abs().max(1.0));
    // The layer's own trace holds the same score.
    let from_trace = cell["layers"][1]["heads"][2]["scores"][4][2]
        .as_f64()
        .unwrap();
    assert!((from_trace - score).abs() < 1e-6);

    // A row: every key, the masked ones explained with their weight 0.
    let row = trace(
        r#"{"model": "llama", "sentence": "abcabc", "explain": {"layer": 3, "head": 1, "query": 2, "explain_row": true}}"#,
    );
    let row = &row["explain"];
    assert_eq!(row["keys"].as_array().unwrap().len(), 6);
    assert_eq!(row["masked"][3], true);
    assert_eq!(row["weights"][3], 0.0);
    assert!(
        !row["components"]
            .as_array()
            .unwrap()
            .contains(&"position".into()),
        "RoPE adds no position vector"
    );
}

#[test]
fn logit_attribution_and_composition_answer_with_their_documented_shapes() {
    let out = trace(
        r#"{"model": "trained", "sentence": "the cat", "logit_attribution": {"position": 6, "chars": [" ", "s"]}}"#,
    );
    let attribution = &out["logit_attribution"];
    let names = attribution["components"].as_array().unwrap();
    assert_eq!(names.last().unwrap(), "bias");
    for c in [" ", "s"] {
        let parts = attribution["logits"][c].as_array().unwrap();
        assert_eq!(parts.len(), names.len());
        let sum: f64 = parts.iter().map(|x| x.as_f64().unwrap()).sum();
        let total = attribution["total"][c].as_f64().unwrap();
        assert!(
            (sum - total).abs() <= 1e-5 * total.abs().max(1.0),
            "{c}: {sum} vs {total}"
        );
    }
    let out = trace(r#"{"model": "llama", "sentence": "the cat", "composition": true}"#);
    let composition = &out["composition"];
    assert_eq!(composition["heads"].as_array().unwrap().len(), 12);
    for kind in ["q", "k", "v"] {
        let m = composition[kind].as_array().unwrap();
        assert_eq!(m.len(), 12);
        assert!(m[0][0].is_null() && m[0][4].is_number() && m[4][0].is_null());
    }
    assert!(composition["baseline"].as_f64().unwrap() > 0.0);
    assert!(composition["sentence"]["k"][0][4].is_number());
}

#[test]
fn ablate_recomputes_the_forward_pass_and_bad_circuit_requests_exit_2() {
    let whole = trace(r#"{"model": "trained", "sentence": "abcabc"}"#);
    let ablated = trace(
        r#"{"model": "trained", "sentence": "abcabc", "ablate": [{"layer": 1, "head": 2}, {"layer": 2, "head": 1, "how": "mean"}]}"#,
    );
    assert_eq!(
        whole["layers"][0]["heads"][1]["weights"], ablated["layers"][0]["heads"][1]["weights"],
        "the pattern stays"
    );
    assert_ne!(
        whole["predictions"], ablated["predictions"],
        "the predictions change"
    );
    assert!(
        ablated["layers"][0]["heads"][1]["output"][0]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x == 0.0)
    );
    for (input, expected) in [
        (
            r#"{"model": "trained", "sentence": "abc", "ablate": []}"#,
            "ablate: an empty list",
        ),
        (
            r#"{"model": "trained", "sentence": "abc", "ablate": [{"layer": 4, "head": 1}]}"#,
            "layer 4 is outside the model's layers (1 to 3)",
        ),
        (
            r#"{"model": "trained", "sentence": "abc", "ablate": [{"layer": 1, "head": 0}]}"#,
            "counted from 1",
        ),
        (
            r#"{"sentence": "abc", "n_heads": 1, "ablate": [{"layer": 1, "head": 1}]}"#,
            "all 1 heads knocked out",
        ),
        (
            r#"{"model": "trained", "sentence": "abc", "explain": {"layer": 2, "head": 5, "query": 0, "key": 0}}"#,
            "explain.head: 5 is outside the model's heads (1 to 4)",
        ),
        (
            r#"{"model": "trained", "sentence": "abc", "explain": {"layer": 9, "head": 1, "query": 0, "key": 0}}"#,
            "explain.layer: 9 is outside the model's layers (1 to 3)",
        ),
        (
            r#"{"model": "trained", "sentence": "abc", "explain": {"head": 1, "query": 5, "key": 0}}"#,
            "explain.query: position 5 is outside the sentence (0 to 2)",
        ),
        (
            r#"{"model": "trained", "sentence": "abc", "explain": {"head": 1, "query": 1}}"#,
            "explain.key: missing",
        ),
        (
            r#"{"sentence": "abc", "explain": {"layer": 2, "head": 1, "query": 0, "key": 0}}"#,
            "explain.layer: 2 is outside the model's layers (1 to 1)",
        ),
        (
            r#"{"sentence": "abc", "logit_attribution": {"position": 0, "chars": ["a"]}}"#,
            "random weights have no next-character logits",
        ),
        (
            r#"{"model": "trained", "sentence": "abc", "logit_attribution": {"position": 0, "chars": ["ab"]}}"#,
            "not one character",
        ),
        (
            r#"{"load": {"path": "x.npz"}, "explain": {"head": 1, "query": 0, "key": 0}}"#,
            "imported attention has no residual stream",
        ),
        (
            r#"{"model": "trained", "sentence": "ab", "ablate": [{"layer": 1, "head": 1}], "generate": {"steps": 2}}"#,
            "ablate: generation runs the whole model",
        ),
    ] {
        let (code, stdout, stderr) = run(input);
        assert_eq!(code, 2, "{input}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(expected), "{input}: {stderr}");
    }
}

#[test]
fn the_circuits_lesson_finds_the_induction_circuit_and_needs_a_trained_model() {
    let out = trace(r#"{"model": "trained", "sentence": "xq7kb@ xq7kb", "lesson": "circuits"}"#);
    let e = &out["experiment"];
    assert_eq!(e["previous_head"], "L1.H2");
    assert_eq!(e["induction_head"], "L2.H4");
    assert_eq!(
        (e["query"].as_u64(), e["target"].as_u64()),
        (Some(11), Some(5))
    );
    assert!(e["knocked_weight"].as_f64().unwrap() < 0.05);
    assert_eq!(e["key_writers"][0]["component"], "L1.mlp");
    for (input, expected) in [
        (
            r#"{"sentence": "abab", "lesson": "circuits"}"#,
            "needs a trained model",
        ),
        (
            r#"{"model": "trained", "sentence": "abc", "lesson": "circuits"}"#,
            "type a string twice",
        ),
    ] {
        let (code, _, stderr) = run(input);
        assert_eq!(code, 2, "{input}");
        assert!(stderr.contains(expected), "{input}: {stderr}");
    }
}

#[test]
fn linear_attention_traces_its_hidden_matrix_and_refuses_what_it_cannot_do() {
    let t = trace(
        r#"{"sentence": "the cat sat on the mat", "linear": {"kind": "delta", "chunk": 2}, "output_gate": true}"#,
    );
    assert_eq!(
        t["linear"],
        serde_json::json!({"kind": "delta", "chunk": 2})
    );
    assert_eq!(t["mask"], "causal", "causal by construction");
    let head = &t["heads"][0];
    for field in ["beta", "matrix", "state", "states", "gate"] {
        assert!(head[field].is_array(), "{field}");
    }
    assert!(head.get("alpha").is_none(), "no decay without gating");
    // The chunked form equals the token-by-token one.
    assert!(t["flash"]["max_abs_diff"].as_f64().unwrap() <= 1e-5);
    // 4096 tokens untraced: linear in the length.
    let long = serde_json::json!({
        "sentence": "word ".repeat(4096), "d_model": 8, "n_heads": 2, "trace": false,
        "linear": {"kind": "gated_delta", "chunk": 64},
    });
    let t = trace(&long.to_string());
    assert_eq!(t["output"].as_array().unwrap().len(), 4096);
    assert!(t["flash"]["max_abs_diff"].as_f64().unwrap() <= 1e-4);
    for (input, field) in [
        (
            r#"{"sentence": "a b", "linear": {"kind": "mamba"}}"#,
            "linear.kind",
        ),
        (
            r#"{"sentence": "a b", "linear": {"kind": "delta", "chunk": 0}}"#,
            "linear.chunk",
        ),
        (
            r#"{"sentence": "a b", "linear": {"kind": "elu"}, "mask": {"kind": "window", "radius": 1}}"#,
            "mask",
        ),
        (
            r#"{"model": "llama", "sentence": "a b", "output_gate": true}"#,
            "output_gate",
        ),
    ] {
        let (code, _, stderr) = run(input);
        assert_eq!(code, 2, "{input}: {stderr}");
        assert!(stderr.contains(field), "{input}: {stderr}");
    }
}

#[test]
fn a_gemma_folder_runs_from_the_command_line() {
    let folder = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/hf/gemma2"
    );
    let input =
        serde_json::json!({"model": {"path": folder}, "sentence": "The cat sat on the mat."});
    let t = trace(&input.to_string());
    assert_eq!(t["layout"], "gemma2");
    assert_eq!(t["n_layer"], 2);
    assert!(t["predictions"].is_array());
    assert!(t["token_ids"].as_array().unwrap().len() > 3);
}

#[test]
fn a_qwen3_next_hybrid_folder_runs_and_generates_from_the_command_line() {
    let folder = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/hf/qwen3_next"
    );
    let input =
        serde_json::json!({"model": {"path": folder}, "sentence": "The cat sat on the mat."});
    let t = trace(&input.to_string());
    assert_eq!(t["layout"], "qwen3_next");
    assert_eq!(t["n_layer"], 4);
    assert!(t["predictions"].is_array());
    let kinds: Vec<&str> = (0..4)
        .map(|l| t["layers"][l]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "linear_attention",
            "linear_attention",
            "linear_attention",
            "full_attention"
        ]
    );
    // A linear head carries β, α, its hidden matrix, its state and its gate.
    let head = &t["layers"][0]["heads"][0];
    for field in ["beta", "alpha", "matrix", "state", "states", "gate"] {
        assert!(head[field].is_array(), "{field}");
    }
    assert_eq!(t["layers"][3]["output_gate"], true);
    // Generation runs with the mixed cache: a key and a value per token for the one full
    // layer only (2 K/V heads × 16 numbers × 4 bytes each).
    let generate = serde_json::json!({
        "model": {"path": folder},
        "sentence": "The cat sat.",
        "generate": {"steps": 4, "sampling": "greedy"}
    });
    let g = trace(&generate.to_string());
    assert_eq!(g["steps"].as_array().unwrap().len(), 4);
    assert_eq!(g["cache_bytes_per_token"]["this_model"], 2 * 2 * 16 * 4);
    assert_eq!(g["linear_layers"], 3);
    assert_eq!(g["state_bytes"], 3 * (4 * 16 * 16 + 3 * 3 * 64) * 4);
    assert_eq!(g["crossover_tokens"], 26);
    // A rolling cache is refused for a hybrid, with exit 2 and the reason.
    let stream = serde_json::json!({
        "model": {"path": folder},
        "stream_eval": {"text": "The cat sat on the mat. The cat sat on the mat.", "window": 8}
    });
    let (code, _, stderr) = run(&stream.to_string());
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("hybrid"), "{stderr}");
}

#[test]
fn the_shipped_hybrid_runs_generates_and_refuses_what_it_fixes() {
    let t = trace(r#"{"model": "hybrid", "sentence": "The cat sat on the mat."}"#);
    assert_eq!(
        (t["model"].as_str(), t["layout"].as_str()),
        (Some("hybrid"), Some("qwen3_next"))
    );
    let layers = t["layers"].as_array().unwrap();
    assert_eq!(layers.len(), t["n_layer"].as_u64().unwrap() as usize);
    for (l, layer) in layers.iter().enumerate() {
        let kind = if (l + 1) % 4 == 0 {
            "full_attention"
        } else {
            "linear_attention"
        };
        assert_eq!(layer["kind"], kind, "layer {}", l + 1);
    }
    assert!(layers[0]["heads"][0]["matrix"].is_array(), "A");
    assert!(t["predictions"].is_array());
    // Generation: the full layers' keys and values per token (2 K/V heads × 32 numbers × 2 ×
    // 4 bytes each), three linear layers' states of a fixed size.
    let g = trace(
        r#"{"model": "hybrid", "sentence": "The cat sat on the ", "generate": {"steps": 8, "sampling": "greedy"}}"#,
    );
    let steps = g["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 8);
    assert!(
        steps
            .iter()
            .all(|s| s["max_delta"].as_f64().unwrap() <= 1e-4),
        "every step equals a recompute"
    );
    assert_eq!(g["linear_layers"], 3);
    assert_eq!(g["cache_bytes_per_token"]["this_model"], 2 * 2 * 32 * 4);
    assert_eq!(g["state_bytes"], 3 * (4 * 32 * 32 + 3 * 3 * 128) * 4);
    assert_eq!(g["crossover_tokens"], 42);
    for (input, field) in [
        (
            r#"{"model": "hybrid", "sentence": "ab", "output_gate": false}"#,
            "output_gate",
        ),
        (
            r#"{"model": "hybrid", "sentence": "ab", "n_heads": 2}"#,
            "n_heads",
        ),
        (
            r#"{"model": "hybrid", "stream_eval": {"text": "The cat sat on the mat. The cat sat.", "window": 8}}"#,
            "hybrid",
        ),
    ] {
        let (code, _, stderr) = run(input);
        assert_eq!(code, 2, "{input}: {stderr}");
        assert!(stderr.contains(field), "{input}: {stderr}");
    }
}

/// The Llama model's gated twin is built into the binary: a trace with its gates, a stream
/// evaluation with the sink measures, and its gate refused off.
#[test]
fn the_gated_llama_twin_runs_streams_and_keeps_its_gate() {
    let t = trace(r#"{"model": "llama-gated", "sentence": "The cat sat on the mat."}"#);
    assert_eq!(
        (t["model"].as_str(), t["layout"].as_str()),
        (Some("llama-gated"), Some("llama"))
    );
    for layer in t["layers"].as_array().unwrap() {
        assert_eq!(layer["output_gate"], true);
        assert!(layer["heads"][0]["gate"].is_array(), "σ(x·W_g) per head");
    }
    let s = trace(
        r#"{"model": "llama-gated", "stream_eval": {"text": "The cat sat on the mat. The cat sat on the mat.", "window": 16, "sink_tokens": 2}}"#,
    );
    let sink = &s["sink"];
    let cost =
        s["without_sinks"]["mean"].as_f64().unwrap() - s["with_sinks"]["mean"].as_f64().unwrap();
    assert!(
        (sink["drop_cost"].as_f64().unwrap() - cost).abs() < 1e-5,
        "{sink}"
    );
    assert_eq!(
        sink["has_sink"],
        sink["strongest_head"]["share"].as_f64().unwrap() >= sink["threshold"].as_f64().unwrap()
    );
    let (code, _, stderr) =
        run(r#"{"model": "llama-gated", "sentence": "ab", "output_gate": false}"#);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("output_gate"), "{stderr}");
}

#[test]
fn a_models_attention_runs_on_the_gpu_from_the_command_line() {
    // The shipped GPT-2 model (projection biases) and a Qwen3-Next folder (partial RoPE and
    // QK-norm's gains on its full layer; its linear layers stay on the CPU), on the machine's
    // GPU (lavapipe on CI): each softmax layer's attention there, the same predictions.
    let hybrid = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/hf/qwen3_next"
    );
    for model in [
        r#""gpt2""#.to_string(),
        format!(r#"{{"path": "{hybrid}"}}"#),
    ] {
        let ask = |backend: &str| {
            trace(&format!(
                r#"{{"model": {model}, "sentence": "The cat sat on the mat.", "backend": "{backend}"}}"#
            ))
        };
        let (cpu, gpu) = (ask("cpu"), ask("gpu"));
        let layers = gpu["layers"].as_array().unwrap();
        assert!(!layers.is_empty());
        for (c, g) in cpu["layers"].as_array().unwrap().iter().zip(layers) {
            assert_eq!(c["backend"], "cpu", "{model}");
            let softmax = g["kind"] == "full_attention";
            assert_eq!(g["backend"], if softmax { "gpu" } else { "cpu" }, "{model}");
        }
        assert!(
            layers.iter().any(|l| l["backend"] == "gpu"),
            "{model}: a layer on the GPU"
        );
        for (c, g) in cpu["predictions"]
            .as_array()
            .unwrap()
            .iter()
            .zip(gpu["predictions"].as_array().unwrap())
        {
            let (c, g) = (c[0]["p"].as_f64().unwrap(), g[0]["p"].as_f64().unwrap());
            assert!((c - g).abs() < 1e-4, "{model}: {c} against {g}");
        }
    }
}
