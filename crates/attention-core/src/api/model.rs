//! A trained model's runs as JSON: a forward pass, a generation and a stream.

use serde_json::{Value, json};

use super::response::{matrix_json, trace_heads_json};
use super::{Request, RequestError};
use crate::MaskSpec;
use crate::models::generate::{CacheSizes, Step};
use crate::models::{Forward, Model, Prediction};

/// A forward pass as JSON: the tokens, each layer's heads (in the trace's per-head shape: q, k,
/// v, scores, weights, output) with the residual stream in and out, and the five most likely
/// next tokens after every position.
pub fn forward_json(model: &Model, forward: &Forward) -> Result<String, serde_json::Error> {
    let layers: Vec<Value> = forward
        .layers
        .iter()
        .map(|layer| {
            json!({
                // Qwen3-Next's names: a hybrid's layers are one kind or the other.
                "kind": if layer.attention.config.linear().is_some() {
                    "linear_attention"
                } else {
                    "full_attention"
                },
                "output_gate": layer.attention.config.output_gate().is_some(),
                // Where its attention was computed ("cpu", or "gpu" with `"backend": "gpu"`).
                "backend": layer.attention.backend.name(),
                "heads": trace_heads_json(&layer.attention),
                "residual_in": matrix_json(layer.residual_in.view()),
                "attention_output": matrix_json(layer.attention.projected.view()),
                "mlp_output": matrix_json(layer.mlp.view()),
                "residual_out": matrix_json(layer.residual_out.view()),
            })
        })
        .collect();
    let predictions: Vec<Value> = (0..forward.tokens.len())
        .map(|position| {
            model
                .predictions(forward, position, 5)
                .iter()
                .map(|p| json!({"token": model.vocab[p.id as usize], "p": p.p}))
                .collect()
        })
        .collect();
    // The run's temperature and mask as a softmax layer has them (a hybrid's linear layers
    // have neither).
    let first = forward
        .layers
        .iter()
        .map(|l| &l.attention)
        .find(|a| a.config.linear().is_none())
        .unwrap_or(&forward.layers[0].attention);
    serde_json::to_string(&json!({
        "model": model.name,
        "layout": model.config.model_type,
        "tokens": forward.tokens,
        "ids": forward.ids,
        "token_ids": forward.ids,
        "context": model.config.context,
        "dropped": forward.dropped,
        "n_layer": model.config.n_layers,
        "n_head": model.config.n_heads,
        "n_kv_head": model.config.n_kv_heads,
        "n_embd": model.config.d_model,
        "d_k": model.config.d_head(),
        "temperature": first.config.temperature(),
        "mask": super::response::mask_name(first),
        "embeddings": matrix_json(forward.embeddings.view()),
        "positions": matrix_json(forward.positions.view()),
        "layers": layers,
        "predictions": predictions,
    }))
}

/// Why a request cannot generate (the page words each in the reader's language).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GenerationRefusal {
    #[error(transparent)]
    Request(#[from] RequestError),
    #[error("mask: generation runs the model as it was trained, under its causal mask")]
    Mask,
    #[error(
        "softcap, qk_norm, sink_logits: generation runs the model as it was trained; leave them out"
    )]
    Shaping,
}

/// What a generation reads from a request: its sentence (the prompt) and attention temperature.
/// Generation runs the model as it was trained: under its causal mask, without a soft-cap,
/// QK-norm or sink logits.
pub fn generation_input(request: &Request) -> Result<(String, f64), GenerationRefusal> {
    let (sentence, run) = request.trained_run()?;
    if run.mask != MaskSpec::Causal {
        return Err(GenerationRefusal::Mask);
    }
    let shaping = &run.shaping;
    if shaping.softcap.is_some() || shaping.qk_norm || shaping.sink_logits.is_some() {
        return Err(GenerationRefusal::Shaping);
    }
    Ok((sentence, run.temperature))
}

/// `"generate"` on a trained model, as JSON: the prompt (the request's sentence), its prefill,
/// every step (the character, the five likeliest with their probabilities, the cache's length
/// and bytes, the step's time, the largest |Δ| of its logits against a recompute without the
/// cache), and the cache's bytes per character for this model and as MHA, GQA, MQA and MLA
/// would keep it. `clock` gives milliseconds.
pub fn generate_json(
    model: &Model,
    request: &Request,
    clock: &dyn Fn() -> f64,
) -> Result<Value, String> {
    generation_json(model, request, None, clock)
}

/// [`generate_json`] after the prompt's `ids`, tokenized by the caller from the request's
/// sentence (a model's worker holds no tokenizer: the page sends the ids). The same JSON.
pub fn generate_json_from_ids(
    model: &Model,
    request: &Request,
    ids: Vec<u32>,
    clock: &dyn Fn() -> f64,
) -> Result<Value, String> {
    generation_json(model, request, Some(ids), clock)
}

fn generation_json(
    model: &Model,
    request: &Request,
    ids: Option<Vec<u32>>,
    clock: &dyn Fn() -> f64,
) -> Result<Value, String> {
    let mut run = GenerationJson::start(model, request, ids, clock)?;
    while run.step(model, clock) {}
    Ok(run.finish(model))
}

/// [`generate_json`] a step at a time: started (the prompt prefilled), stepped until
/// [`GenerationJson::step`] says every asked step is taken, then turned into the same JSON. A
/// model's worker takes a few steps a turn, so that a forward pass asked for meanwhile (the
/// learner typing) is not held back by a whole generation.
pub struct GenerationJson {
    request: crate::api::request_types::GenerateRequest,
    spec: crate::models::generate::GenerateSpec,
    sentence: String,
    decoder: crate::models::generate::Decoder,
    steps: Vec<crate::models::generate::Step>,
}

impl GenerationJson {
    /// Checks `request` (its `"generate"` object) and prefills its prompt: the request's
    /// sentence, or `ids` (tokenized by the caller) when given.
    pub fn start(
        model: &Model,
        request: &Request,
        ids: Option<Vec<u32>>,
        clock: &dyn Fn() -> f64,
    ) -> Result<Self, String> {
        use crate::models::generate::Decoder;
        let Some(generate_request) = request.generate else {
            return Err("generate: missing".into());
        };
        let (sentence, temperature) = generation_input(request).map_err(|e| e.to_string())?;
        let spec = generate_request.spec();
        let decoder = match ids {
            Some(ids) => Decoder::from_ids(model, ids, &spec, temperature, clock),
            None => Decoder::new(model, &sentence, &spec, temperature, clock),
        }
        .map_err(|e| e.to_string())?;
        Ok(Self {
            request: generate_request,
            spec,
            sentence,
            steps: Vec::with_capacity(decoder.asked()),
            decoder,
        })
    }

    /// The next step; `false` once every asked step is taken (nothing more to do).
    pub fn step(&mut self, model: &Model, clock: &dyn Fn() -> f64) -> bool {
        match self.decoder.step(model, clock) {
            Some(step) => {
                self.steps.push(step);
                true
            }
            None => false,
        }
    }

    /// The steps taken so far and how many were asked for.
    pub fn progress(&self) -> (usize, usize) {
        (self.steps.len(), self.decoder.asked())
    }

    /// The generation as [`generate_json`] gives it.
    pub fn finish(self, model: &Model) -> Value {
        let generation = crate::models::generate::Generation {
            prompt: self.decoder.prompt().to_vec(),
            prefill_ms: self.decoder.prefill_ms,
            steps: self.steps,
        };
        generation_value(
            model,
            &self.sentence,
            &self.spec,
            &self.request,
            &generation,
        )
    }
}

fn generation_value(
    model: &Model,
    sentence: &str,
    spec: &crate::models::generate::GenerateSpec,
    generate_request: &crate::api::request_types::GenerateRequest,
    generation: &crate::models::generate::Generation,
) -> Value {
    let shape = model.config;
    let sizes = CacheSizes::of(&shape);
    let steps: Vec<Value> = generation
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            json!({
                "step": i + 1,
                "token": step.token,
                "token_id": step.id,
                "top": step.top.iter().map(|p| json!({"token": model.vocab[p.id as usize], "p": p.p})).collect::<Vec<_>>(),
                "cache_len": step.cache_len,
                "cache_bytes": step.cache_bytes,
                "ms": step.ms,
                "max_delta": step.max_delta,
            })
        })
        .collect();
    let total_ms: f64 = generation.steps.iter().map(|s| s.ms).sum();
    json!({
        "model": model.name,
        "prompt": sentence,
        "prompt_tokens": generation.prompt.len(),
        "context": shape.context,
        "cache": spec.cache,
        "sampling": generate_request.sampling,
        "prefill_ms": generation.prefill_ms,
        "text": model.decode(&generation.steps.iter().map(|s| s.id).collect::<Vec<_>>()),
        "steps": steps,
        "chars_per_second": if total_ms > 0.0 { generation.steps.len() as f64 * 1000.0 / total_ms } else { 0.0 },
        // Each step is timed before its check against a recompute (`max_delta`) runs.
        "check_in_timing": false,
        "max_delta": generation.steps.iter().filter_map(|s| s.max_delta).reduce(f32::max),
        "cache_bytes_per_token": {
            "this_model": sizes.this_model,
            "mha": sizes.mha,
            "gqa": sizes.gqa,
            "gqa_kv_heads": sizes.gqa_kv_heads,
            "mqa": sizes.mqa,
            // DeepSeek-V2's multi-head latent attention: a formula, not run here.
            "mla_formula": sizes.mla_formula,
        },
        // A hybrid's linear layers hold a state of a fixed size instead.
        "linear_layers": sizes.linear_layers,
        "state_bytes": sizes.state_bytes,
        "crossover_tokens": sizes.crossover_tokens(),
    })
}

/// `"stream_eval"` on the Llama model, as JSON: each position's loss (nats) and the mean through
/// the rolling cache with the sinks asked for, with none, and by a sliding-window recompute;
/// each head's share of attention on the first character; and each layer's largest |value| in
/// the residual stream over the same characters.
pub fn stream_eval_json(model: &Model, request: &Request) -> Result<Value, String> {
    use crate::models::stream::{StreamSpec, stream_eval};
    let Some(asked) = &request.stream_eval else {
        return Err("stream_eval: missing".into());
    };
    let spec = StreamSpec {
        window: asked.window,
        sink_tokens: asked.sink_tokens,
    };
    let eval = stream_eval(model, &asked.text, spec).map_err(|e| e.to_string())?;
    let run =
        |run: &crate::models::stream::StreamRun| json!({"losses": run.losses, "mean": run.mean()});
    Ok(json!({
        "model": model.name,
        "context": model.config.context,
        "length": eval.ids.len(),
        "window": spec.window,
        "sink_tokens": spec.sink_tokens,
        "with_sinks": run(&eval.with_sinks),
        "without_sinks": run(&eval.without_sinks),
        "recompute": run(&eval.recompute),
        "first_token_share": eval.first_token_share,
        "largest_activation": eval.largest_activation.iter().map(|a| json!({
            "value": a.value,
            "position": a.position,
            "dimension": a.dimension,
            "mean_abs": a.mean_abs,
        })).collect::<Vec<_>>(),
        "sink": sink_json(&crate::models::sinks::SinkReport::of_eval(&eval)),
    }))
}

/// A model's sink measures summed up: the strongest head's share on the first character,
/// whether that makes it a sink, and what dropping the sink tokens costs.
fn sink_json(report: &crate::models::sinks::SinkReport) -> Value {
    let strongest = report.strongest();
    json!({
        // Layers and heads from 1, as the page and the cards count them.
        "strongest_head": {"layer": strongest.layer + 1, "head": strongest.head + 1, "share": strongest.share},
        "has_sink": report.has_sink(),
        "threshold": crate::models::sinks::SINK_SHARE,
        "drop_cost": report.drop_cost(),
    })
}

/// A generation step as it travels from a model's worker to the page: every field, its finite
/// numbers exactly (an f32 written shortest and read back is the same f32; a model's weights are
/// checked finite when it is read, so its steps' numbers are); `None` (every step taken) is
/// `null`.
pub fn step_json(step: Option<Step>) -> String {
    let wire = step.map(|s| StepWire {
        id: s.id,
        token: s.token,
        top: s.top.iter().map(|p| (p.id, p.p)).collect(),
        cache_len: s.cache_len,
        cache_bytes: s.cache_bytes,
        ms: s.ms,
        max_delta: s.max_delta,
        attention: s.attention,
    });
    serde_json::to_string(&wire).unwrap_or_else(|_| "null".into())
}

/// [`step_json`] read back.
pub fn step_from_json(json: &str) -> Result<Option<Step>, String> {
    let wire: Option<StepWire> = serde_json::from_str(json).map_err(|e| e.to_string())?;
    Ok(wire.map(|w| Step {
        id: w.id,
        token: w.token,
        top: w
            .top
            .into_iter()
            .map(|(id, p)| Prediction { id, p })
            .collect(),
        cache_len: w.cache_len,
        cache_bytes: w.cache_bytes,
        ms: w.ms,
        max_delta: w.max_delta,
        attention: w.attention,
    }))
}

/// [`Step`]'s fields, for [`step_json`].
#[derive(serde::Serialize, serde::Deserialize)]
struct StepWire {
    id: u32,
    token: String,
    top: Vec<(u32, f32)>,
    cache_len: usize,
    cache_bytes: usize,
    ms: f64,
    max_delta: Option<f32>,
    attention: Vec<Vec<Vec<f32>>>,
}
