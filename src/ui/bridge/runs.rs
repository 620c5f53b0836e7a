//! What `window.attentionLab` runs on the lab's current state and answers as the CLI would:
//! `generate(options)`, `explain(options)` and `composition()`.
//!
//! `generate` and `composition` answer with a Promise: a folder's model (which may be of a
//! billion parameters) generates and composes its heads in its worker, so that the page's thread
//! waits for none of it; the lab's own models, small, answer on the page's thread at once.

use std::sync::Arc;

use crate::ui::state::model::ModelKey;
use attention_core::api::Request;
use attention_core::models::Model;
use attention_core::models::generate::{Decoder, GenerateSpec};
use js_sys::{Function, Promise};
use leptos::prelude::*;
use serde_json::{Value, json};
use wasm_bindgen::JsValue;

use crate::ui::state::Composed;
use crate::ui::state::Lab;
use crate::ui::state::model::trained_request;

/// A Promise and the function that resolves it.
fn pending() -> (Promise, Function) {
    let mut resolver = None;
    let promise = Promise::new(&mut |resolve, _| resolver = Some(resolve));
    // `Promise::new` calls its executor before it returns.
    (
        promise,
        resolver.unwrap_or_else(|| Function::new_no_args("")),
    )
}

/// `value` as the JavaScript object its JSON is.
fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap_or(JsValue::NULL)
}

/// Calls a promise's `resolve` with `value`.
fn answer(resolve: &Function, value: &Value) {
    let _ = resolve.call1(&JsValue::NULL, &to_js(value));
}

fn resolved(value: &Value) -> Promise {
    Promise::resolve(&to_js(value))
}

fn refused(error: String) -> Value {
    json!({ "ok": false, "error": error })
}

/// `json` (an object) with `ok: true` added.
fn with_ok(mut json: Value) -> Value {
    if let Some(object) = json.as_object_mut() {
        object.insert("ok".into(), true.into());
    }
    json
}

/// `attentionLab.generate(options)`: the trained model in use continues the sentence, as the
/// CLI's `"generate"` does (`options` is its object: `steps`, `cache`, `sampling`, `check`),
/// timed with the clock of the thread that computes it. Resolves to the CLI's response with
/// `ok: true`, or to `{ok: false, error}`.
pub fn generate_in_page(lab: Lab, options: &str) -> Promise {
    start_generation(lab, options).unwrap_or_else(|error| resolved(&refused(error)))
}

fn start_generation(lab: Lab, options: &str) -> Result<Promise, String> {
    let generate: attention_core::api::GenerateRequest =
        serde_json::from_str(options).map_err(|e| format!("generate: {e}"))?;
    let request = lab.request.get_untracked();
    let Some(key) = ModelKey::of(&request) else {
        return Err("generate: choose a trained model first (GPT-2 layout, Llama layout, hybrid or your own)".into());
    };
    let model = lab
        .model_status
        .with_untracked(|s| s.ready(Some(&key)).cloned())
        .ok_or("generate: the model is not loaded yet")?;
    let mut request = trained_request(&request);
    request.generate = Some(generate);
    let (promise, resolve) = pending();
    generate_with(lab, model, request, generate.spec(), resolve);
    Ok(promise)
}

/// Generates `request` with `model` where it is held: in its worker (once the worker has
/// started, where it is starting), else on the page's thread; `resolve` is called with the
/// answer.
fn generate_with(
    lab: Lab,
    model: Arc<Model>,
    request: Request,
    spec: GenerateSpec,
    resolve: Function,
) {
    if lab.model_jobs.starting_with(&model) {
        lab.model_jobs.when_started(move || {
            // Another model opened meanwhile: not this one's generation on the page's thread.
            // Still this one (held by the worker, or on the page where the worker failed or
            // kept none of its files): generated where it is held now.
            let still = current_model(lab).is_some_and(|m| Arc::ptr_eq(&m, &model));
            if still || lab.model_jobs.holds(&model) {
                generate_with(lab, model, request, spec, resolve);
            } else {
                let refusal = refused(
                    "generate: another model was opened before the generation started".into(),
                );
                answer(&resolve, &refusal);
            }
        });
        return;
    }
    let tell = move |value: Value| {
        answer(&resolve, &value);
    };
    if lab.model_jobs.holds(&model) {
        // Checked and tokenized here (the worker holds no tokenizer), generated there.
        let prompt = attention_core::api::generation_input(&request)
            .map_err(|e| e.to_string())
            .and_then(|(sentence, _)| {
                Decoder::prompt_for(&model, &sentence, &spec).map_err(|e| e.to_string())
            });
        let ids = match prompt {
            Ok(ids) => ids,
            Err(error) => return tell(refused(error)),
        };
        let held = model.clone();
        let told = tell.clone();
        let on = move |answer: Result<String, String>| {
            told(match answer {
                Ok(json) => serde_json::from_str(&json)
                    .map(|json| with_ok(decoded_here(&held, json)))
                    .unwrap_or_else(|e| refused(format!("generate: {e}"))),
                Err(error) => refused(format!("generate: {error}")),
            });
        };
        if lab.model_jobs.generate_whole(&model, &request, &ids, on) {
            return;
        }
    }
    let json =
        attention_core::api::generate_json(&model, &request, &crate::ui::browser::clock::now_ms);
    tell(json.map_or_else(refused, with_ok));
}

/// A worker's generation with its `text` decoded by the page's tokenizer, as the CLI decodes
/// it (the worker holds the vocabulary's pieces only, which a byte-level or SentencePiece
/// tokenizer does not simply join).
fn decoded_here(model: &Model, mut json: Value) -> Value {
    let ids: Vec<u32> = json["steps"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .filter_map(|s| s["token_id"].as_u64().map(|id| id as u32))
                .collect()
        })
        .unwrap_or_default();
    if let Some(object) = json.as_object_mut() {
        object.insert("text".into(), model.decode(&ids).into());
    }
    json
}

/// `attentionLab.explain(options)`: one score of the current computation taken apart, as the
/// CLI's `"explain"` does (`options` is its object: `layer`, `head`, `query`, `key`,
/// `explain_row`), with `ms`, the time it took in the page (components, terms and JSON). The
/// response is the CLI's `explain` object with `ok: true`; or `{ok: false, error}`.
pub fn explain_in_page(lab: Lab, options: &str) -> Result<Value, String> {
    let asked: attention_core::api::ExplainRequest =
        serde_json::from_str(options).map_err(|e| format!("explain: {e}"))?;
    let request = attention_core::api::Request {
        explain: Some(asked),
        ..attention_core::api::Request::default()
    };
    circuit_in_page(lab, &request, "explain")
}

/// `attentionLab.composition()`: how the trained model's heads compose, as the CLI's
/// `"composition": true` gives it (`heads`, `q`, `k`, `v`, `baseline`, and `sentence`: the same
/// measured on the current sentence), with `ok: true` and `ms`; or `{ok: false, error}`. A
/// folder's model composes in its worker (joining the circuit view's composition when it is
/// under way), the lab's own on the page's thread.
pub fn composition_in_page(lab: Lab) -> Promise {
    let (promise, resolve) = pending();
    compose_with(lab, None, resolve);
    promise
}

/// The model of the current request, once loaded.
fn current_model(lab: Lab) -> Option<Arc<Model>> {
    let current = lab.request.get_untracked();
    current
        .is_trained()
        .then(|| {
            lab.model_status
                .with_untracked(|s| s.ready(ModelKey::of(&current).as_ref()).cloned())
        })
        .flatten()
}

/// The composition of the current model's heads: in its worker where the worker holds it (once
/// the worker has started, where it is starting), else on the page's thread; `resolve` is
/// called with the answer.
fn compose_with(lab: Lab, asked_of: Option<Arc<Model>>, resolve: Function) {
    let started = crate::ui::browser::clock::now_ms();
    let model = current_model(lab);
    // Asked of a model that waited for its worker: another model opened meanwhile is refused.
    if let Some(asked) = &asked_of
        && !model.as_ref().is_some_and(|m| Arc::ptr_eq(m, asked))
    {
        let refusal = refused("composition: another model was opened before it started".into());
        answer(&resolve, &refusal);
        return;
    }
    if let Some(model) = &model {
        if lab.model_jobs.starting_with(model) {
            let asked = model.clone();
            lab.model_jobs
                .when_started(move || compose_with(lab, Some(asked), resolve));
            return;
        }
        if lab.model_jobs.holds(model) {
            return compose_in_worker(lab, model.clone(), started, resolve);
        }
    }
    let request = attention_core::api::Request {
        composition: Some(true),
        ..attention_core::api::Request::default()
    };
    let value = circuit_in_page(lab, &request, "composition").unwrap_or_else(refused);
    answer(&resolve, &value);
}

/// The composition of a folder's model that its worker holds, measured on the sentence
/// computed when it is done.
fn compose_in_worker(lab: Lab, model: Arc<Model>, started: f64, resolve: Function) {
    let held = model.clone();
    let tell = move |value: Value| {
        answer(&resolve, &value);
    };
    let told = tell.clone();
    let on = move |answer: Composed| {
        let value = match answer {
            Composed::Progress(..) => return,
            Composed::Done(scores) => {
                // The sentence's pass of this model (the page may have moved to another one).
                let same = current_model(lab).is_some_and(|m| Arc::ptr_eq(&m, &held));
                let forward = lab.forward.try_get_untracked().flatten().and_then(Result::ok);
                let Some(forward) = forward.filter(|_| same) else {
                    if !same {
                        return told(refused(
                            "composition: another model was chosen before it ended".into(),
                        ));
                    }
                    return told(refused(
                        "composition: the model has not run on this sentence".into(),
                    ));
                };
                let mut json = with_ok(attention_core::api::composition_json(
                    &held, &forward.0, &scores,
                ));
                if let Some(object) = json.as_object_mut() {
                    let ms = crate::ui::browser::clock::now_ms() - started;
                    object.insert("ms".into(), ms.into());
                }
                json
            }
            Composed::Ended => refused(
                "composition: the model's worker stopped, or another model was opened, before it ended"
                    .into(),
            ),
        };
        told(value);
    };
    if lab.model_jobs.compose(&model, on).is_none() {
        tell(refused(
            "composition: the model's worker could not be asked; ask again".into(),
        ));
    }
}

/// One circuit field of `request` (`field`) on the current computation, timed.
fn circuit_in_page(
    lab: Lab,
    request: &attention_core::api::Request,
    field: &str,
) -> Result<Value, String> {
    let started = crate::ui::browser::clock::now_ms();
    let current = lab.request.get_untracked();
    let mut found = if current.is_trained() {
        let model = lab
            .model_status
            .with_untracked(|s| s.ready(ModelKey::of(&current).as_ref()).cloned())
            .ok_or_else(|| format!("{field}: the model is not loaded yet"))?;
        let forward = lab
            .forward
            .get_untracked()
            .and_then(Result::ok)
            .ok_or_else(|| format!("{field}: the model has not run on this sentence"))?;
        attention_core::api::model_circuits_json(&model, &forward.0, request)?
    } else {
        let trace = lab
            .shown
            .get_untracked()
            .ok_or_else(|| format!("{field}: nothing is computed yet"))?;
        attention_core::api::trace_circuits_json(&trace.0, request)?
    };
    let mut json = found.remove(field).unwrap_or(Value::Null);
    if let Some(object) = json.as_object_mut() {
        object.insert("ok".into(), true.into());
        object.insert(
            "ms".into(),
            (crate::ui::browser::clock::now_ms() - started).into(),
        );
    }
    Ok(json)
}
