//! What `window.attentionLab` runs on the lab's current state and answers as the CLI would:
//! `generate(options)`, `explain(options)` and `composition()`.

use crate::ui::state::model::ModelKey;
use leptos::prelude::*;
use serde_json::Value;

use crate::ui::state::Lab;
use crate::ui::state::model::trained_request;

/// `attentionLab.generate(options)`: the trained model in use continues the sentence, as the
/// CLI's `"generate"` does (`options` is its object: `steps`, `cache`, `sampling`, `check`),
/// timed with the page's clock. The response is the CLI's, with `ok: true`; or `{ok: false,
/// error}`.
pub fn generate_in_page(lab: Lab, options: &str) -> Result<Value, String> {
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
    let mut json =
        attention_core::api::generate_json(&model, &request, &crate::ui::browser::clock::now_ms)?;
    if let Some(object) = json.as_object_mut() {
        object.insert("ok".into(), true.into());
    }
    Ok(json)
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
/// measured on the current sentence), with `ok: true` and `ms`; or `{ok: false, error}`.
pub fn composition_in_page(lab: Lab) -> Result<Value, String> {
    let request = attention_core::api::Request {
        composition: Some(true),
        ..attention_core::api::Request::default()
    };
    circuit_in_page(lab, &request, "composition")
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
