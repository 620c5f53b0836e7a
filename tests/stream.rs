//! Streaming past the context through a rolling KV cache (the Llama model): without eviction it
//! is the ordinary forward pass; with it, positions stay inside the cache; sinks, window and text
//! are checked with clear messages. Natively and in the browser.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::models::Model;
use attention_core::models::stream::{StreamError, StreamSpec, stream_eval};

fn llama() -> Model {
    Model::from_files(
        include_bytes!("../assets/llama/model.safetensors"),
        include_str!("../assets/llama/config.json"),
        include_str!("../assets/llama/vocab.json"),
    )
    .unwrap()
}

const TEXT: &str = "The cat sat on the mat because it was tired, and the dog sat beside it. \
                    Then the cat got up and went to sleep in the sun, and the dog followed it.";

#[test]
fn a_cache_that_evicts_nothing_is_the_ordinary_forward_pass() {
    let model = llama();
    let text: String = TEXT.chars().take(64).collect();
    let n = text.chars().count();
    let eval = stream_eval(
        &model,
        &text,
        StreamSpec {
            window: n,
            sink_tokens: 0,
        },
    )
    .unwrap();
    assert_eq!(eval.with_sinks.losses.len(), n - 1);
    for (i, (a, b)) in eval
        .with_sinks
        .losses
        .iter()
        .zip(&eval.recompute.losses)
        .enumerate()
    {
        assert!(
            (a - b).abs() < 1e-4,
            "position {i}: rolling {a}, recompute {b}"
        );
    }
    assert_eq!(eval.with_sinks, eval.without_sinks);
}

#[test]
fn a_short_window_matches_the_recompute_until_it_first_evicts() {
    let model = llama();
    let window = 24;
    let eval = stream_eval(
        &model,
        TEXT,
        StreamSpec {
            window,
            sink_tokens: 4,
        },
    )
    .unwrap();
    let (rolling, recompute) = (&eval.without_sinks.losses, &eval.recompute.losses);
    for t in 0..window - 1 {
        assert!((rolling[t] - recompute[t]).abs() < 1e-4, "{t}");
    }
    // After it, the window run reads keys computed with context since evicted: not the same.
    let later = rolling[window..]
        .iter()
        .zip(&recompute[window..])
        .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
    assert!(later > 1e-3, "{later}");
    // The page's recompute, a point at a time, is the same.
    let t = window + 5;
    let point = attention_core::models::stream::recompute_at(&model, &eval.ids, t, window);
    assert_eq!(point, recompute[t]);
    // Sinks change what is kept from the first eviction on, not before.
    let sinks = &eval.with_sinks.losses;
    assert_eq!(sinks[..window - 1], rolling[..window - 1]);
    assert_ne!(sinks[window..], rolling[window..]);
    for row in &eval.first_token_share {
        assert_eq!(row.len(), model.config.n_heads);
        assert!(row.iter().all(|&s| (0.0..=1.0).contains(&s)));
    }
    for run in [&eval.with_sinks, &eval.without_sinks, &eval.recompute] {
        assert!(run.mean().is_finite() && run.mean() > 0.0);
    }
}

#[test]
fn bad_streams_are_refused_by_name() {
    let model = llama();
    let run = |window, sink_tokens, text: &str| {
        stream_eval(
            &model,
            text,
            StreamSpec {
                window,
                sink_tokens,
            },
        )
        .unwrap_err()
    };
    assert_eq!(run(0, 0, TEXT), StreamError::ZeroWindow);
    assert!(matches!(
        run(8, 8, TEXT),
        StreamError::SinksNotBelowWindow { .. }
    ));
    let past = run(250, 10, TEXT).to_string();
    assert!(past.contains("context of 256"), "{past}");
    assert!(matches!(run(8, 1, "a"), StreamError::Length { .. }));
    assert!(run(8, 1, "ab🙂").to_string().contains("🙂"));
    let gpt2 = Model::from_files(
        include_bytes!("../assets/gpt2/model.safetensors"),
        include_str!("../assets/gpt2/config.json"),
        include_str!("../assets/gpt2/vocab.json"),
    )
    .unwrap();
    assert_eq!(
        stream_eval(
            &gpt2,
            TEXT,
            StreamSpec {
                window: 8,
                sink_tokens: 1
            }
        )
        .unwrap_err(),
        StreamError::LearnedPositions
    );
}

/// What the Learn chapter and the page say of this model, checked on the page's own text at its
/// default window and sinks: no sink effect. The passage is nearly four times the context; the
/// sinks change the mean loss by less than 0.02 nats, and no head gives the first character a
/// tenth of its weight. (Natively only; the page's recompute, a point at a time, is
/// `recompute_at`, checked against `stream_eval`'s in the test above.)
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_small_llama_model_shows_no_sink_effect_on_the_pages_text() {
    use attention_core::models::stream::{SAMPLE_TEXT, first_token_share, rolling, stream_ids};
    let model = llama();
    let spec = StreamSpec {
        window: 64,
        sink_tokens: 4,
    };
    let ids = stream_ids(&model, SAMPLE_TEXT, spec).unwrap();
    assert_eq!(ids.len(), 956);
    assert!(ids.len() > 3 * model.config.context);
    let with = rolling(&model, &ids, spec).mean();
    let without = rolling(
        &model,
        &ids,
        StreamSpec {
            sink_tokens: 0,
            ..spec
        },
    )
    .mean();
    let share = first_token_share(&model, &ids)
        .iter()
        .flatten()
        .fold(0.0f32, |m, &s| m.max(s));
    assert!(
        (with - without).abs() < 0.02,
        "sinks change the mean loss: {with} vs {without}"
    );
    assert!(share < 0.1, "a head gives the first character {share}");
    println!(
        "with sinks {with:.4}, without {without:.4}; largest first-character share {share:.4}"
    );
}

/// The share of attention on the first token, read through a KV cache (no query's weights
/// kept), is the traced forward pass's column 0, averaged over queries 1 … n − 1; and a stream
/// evaluation read a piece at a time (as the model's worker reads it) is `stream_eval`.
#[test]
fn the_sink_share_and_a_stream_read_in_pieces_are_the_whole_computations() {
    use attention_core::models::ModelRun;
    use attention_core::models::stream::{
        SHARE_TOKENS, StreamPhase, StreamSteps, first_token_share, stream_ids,
    };
    let model = llama();
    let ids = stream_ids(
        &model,
        TEXT,
        StreamSpec {
            window: 16,
            sink_tokens: 2,
        },
    )
    .unwrap();
    let n = ids.len().min(model.config.context).min(SHARE_TOKENS);
    let tokens: Vec<String> = ids[..n]
        .iter()
        .map(|&i| model.vocab[i as usize].clone())
        .collect();
    let forward = model
        .forward(&tokens, &ids[..n], &ModelRun::default())
        .unwrap();
    let share = first_token_share(&model, &ids);
    assert_eq!(share.len(), model.config.n_layers);
    for (layer, row) in forward.layers.iter().zip(&share) {
        assert_eq!(row.len(), model.config.n_heads);
        for (head, &got) in layer.attention.heads.iter().zip(row) {
            let column = head.weights.slice(ndarray::s![1..n, 0]);
            let want = column.sum() / (n - 1) as f32;
            assert!((got - want).abs() < 1e-5, "{got} vs {want}");
        }
    }
    // Piece by piece: the phases in order, each one's progress counting up to its end.
    let spec = StreamSpec {
        window: 16,
        sink_tokens: 2,
    };
    let whole = stream_eval(&model, TEXT, spec).unwrap();
    // The largest |value| of the residual stream after each layer, where it is, and the mean:
    // the forward pass's own residual_out.
    assert_eq!(whole.largest_activation.len(), model.config.n_layers);
    for (layer, got) in forward.layers.iter().zip(&whole.largest_activation) {
        let out = &layer.residual_out;
        let want = out.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        assert!(
            (got.value.abs() - want).abs() <= 1e-4 * want,
            "{got:?} vs {want}"
        );
        assert!((out[[got.position, got.dimension]] - got.value).abs() <= 1e-4 * want);
        let mean = out.iter().map(|v| v.abs()).sum::<f32>() / out.len() as f32;
        assert!(
            (got.mean_abs - mean).abs() <= 1e-4 * mean,
            "{} vs {mean}",
            got.mean_abs
        );
    }
    let mut steps = StreamSteps::new(&model, ids.clone(), spec).unwrap();
    let mut seen = vec![steps.phase()];
    let mut last = (0, 0);
    loop {
        let before = (steps.phase(), steps.progress());
        let after = steps.advance(&model);
        if after == StreamPhase::Done {
            break;
        }
        if after == before.0 {
            assert!(steps.progress().0 > before.1.0, "{before:?}");
        } else {
            seen.push(after);
        }
        last = steps.progress();
    }
    assert!(last.0 <= last.1);
    assert_eq!(
        seen,
        [
            StreamPhase::WithSinks,
            StreamPhase::WithoutSinks,
            StreamPhase::Share,
            StreamPhase::Recompute
        ]
    );
    assert_eq!(
        steps.advance(&model),
        StreamPhase::Done,
        "nothing after the end"
    );
    assert_eq!(steps.into_eval(), whole);
    // The worker's refusals: a token past the vocabulary, one token (counted as tokens: a
    // folder's tokenizer can read two characters as one), a window of nothing.
    let past = model.vocab.len() as u32;
    assert!(StreamSteps::new(&model, vec![1, past], spec).is_err());
    assert!(matches!(
        StreamSteps::new(&model, vec![1], spec),
        Err(StreamError::TooFewTokens { count: 1 })
    ));
    assert!(matches!(
        StreamSteps::new(
            &model,
            ids.clone(),
            StreamSpec {
                window: 0,
                sink_tokens: 0
            }
        ),
        Err(StreamError::ZeroWindow)
    ));
}

/// The shipped Llama with tensors added or replaced (f32, row-major: name, shape, values) and
/// `attention_output_gate` set to `gated`: the sink twin's layout on the shipped weights.
fn edited_llama(tensors: &[(String, Vec<usize>, Vec<f32>)], gated: bool) -> Model {
    use serde_json::{Value, json};
    let bytes: &[u8] = include_bytes!("../assets/llama/model.safetensors");
    let length = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let mut header: serde_json::Map<String, Value> =
        serde_json::from_slice(&bytes[8..8 + length]).unwrap();
    let mut data = bytes[8 + length..].to_vec();
    for (name, shape, values) in tensors {
        let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        match header.get(name) {
            Some(entry) => {
                let at = |i: usize| entry["data_offsets"][i].as_u64().unwrap() as usize;
                data[at(0)..at(1)].copy_from_slice(&raw);
            }
            None => {
                let from = data.len();
                data.extend(&raw);
                header.insert(
                    name.clone(),
                    json!({"dtype": "F32", "shape": shape, "data_offsets": [from, data.len()]}),
                );
            }
        }
    }
    let head = serde_json::to_vec(&header).unwrap();
    let mut file = (head.len() as u64).to_le_bytes().to_vec();
    file.extend(head);
    file.extend(data);
    let mut config: Value =
        serde_json::from_str(include_str!("../assets/llama/config.json")).unwrap();
    config["attention_output_gate"] = json!(gated);
    Model::from_files(
        &file,
        &config.to_string(),
        include_str!("../assets/llama/vocab.json"),
    )
    .unwrap()
}

/// The sink twin's gate σ(x·W_g) on each head's output, read from `g_proj`: with W_g = 0 every
/// head's output is halved, which is the ungated model with W_O halved; with any W_g, the
/// rolling cache (which applies the gate itself) reads what the cached forward pass does.
#[test]
fn the_output_gate_of_the_sink_twin_is_read_and_applied_on_every_path() {
    use attention_core::math::rng::SplitMix64;
    use attention_core::models::ModelRun;
    let plain = llama();
    let (layers, d) = (plain.config.n_layers, plain.config.d_model);
    let width = plain.config.n_heads * plain.config.d_head();
    let gate = |layer: usize, values: Vec<f32>| {
        (
            format!("model.layers.{layer}.self_attn.g_proj.weight"),
            vec![width, d],
            values,
        )
    };
    let zero: Vec<_> = (0..layers).map(|l| gate(l, vec![0.0; width * d])).collect();
    let halved_w_o: Vec<_> = (0..layers)
        .map(|l| {
            // o_proj is [d, width] in the file, W_O [width, d] in the lab.
            let w = plain.blocks[l]
                .attention
                .w_o
                .t()
                .iter()
                .map(|v| v * 0.5)
                .collect();
            (
                format!("model.layers.{l}.self_attn.o_proj.weight"),
                vec![d, width],
                w,
            )
        })
        .collect();
    let half_open = edited_llama(&zero, true);
    let halved = edited_llama(&halved_w_o, false);
    assert!(half_open.config.output_gate && !halved.config.output_gate);
    assert!(half_open.blocks.iter().all(|b| b.gate.is_some()));
    let text = "The cat sat on the mat because it was tired.";
    let run = ModelRun::default();
    let (a, b) = (
        half_open.read(text, &run).unwrap(),
        halved.read(text, &run).unwrap(),
    );
    let (a, b) = (half_open.all_logits(&a), halved.all_logits(&b));
    let worst = a
        .iter()
        .zip(&b)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
    assert!(worst < 1e-4, "σ(0)·heads against W_O/2: {worst}");
    // Any gate: the rolling cache that evicts nothing is the cached forward pass.
    let mut rng = SplitMix64::new(7);
    let random: Vec<_> = (0..layers)
        .map(|l| {
            gate(
                l,
                (0..width * d)
                    .map(|_| rng.next_symmetric(0.5) as f32)
                    .collect(),
            )
        })
        .collect();
    let gated = edited_llama(&random, true);
    let n = 48;
    let short: String = TEXT.chars().take(n).collect();
    let spec = StreamSpec {
        window: n,
        sink_tokens: 0,
    };
    let eval = stream_eval(&gated, &short, spec).unwrap();
    for (i, (x, y)) in eval
        .with_sinks
        .losses
        .iter()
        .zip(&eval.recompute.losses)
        .enumerate()
    {
        assert!(
            (x - y).abs() < 1e-4,
            "position {i}: rolling {x}, recompute {y}"
        );
    }
    let ungated = stream_eval(&plain, &short, spec).unwrap();
    assert!(
        (eval.with_sinks.mean() - ungated.with_sinks.mean()).abs() > 1e-3,
        "the gate changes the numbers"
    );
}

/// The CLI's `stream_eval` JSON carries each layer's largest activation with its place.
#[test]
fn the_stream_evals_json_names_each_layers_largest_activation() {
    let model = llama();
    let request = attention_core::api::parse_request(
        r#"{"model": "llama", "stream_eval": {"text": "The cat sat on the mat. The cat sat on the mat.", "window": 16, "sink_tokens": 2}}"#,
    )
    .unwrap();
    let json = attention_core::api::stream_eval_json(&model, &request).unwrap();
    let layers = json["largest_activation"].as_array().unwrap();
    assert_eq!(layers.len(), model.config.n_layers);
    for layer in layers {
        let value = layer["value"].as_f64().unwrap().abs();
        let mean = layer["mean_abs"].as_f64().unwrap();
        assert!(value >= mean && mean > 0.0, "{layer}");
        assert!(layer["position"].as_u64().unwrap() < 48);
        assert!(layer["dimension"].as_u64().unwrap() < model.config.d_model as u64);
    }
}
