//! The lab's state as `attentionLab.state()` returns it and an embedding posts it to its host:
//! the parameters, the view settings, and what was computed.

use crate::ui::state::model::ModelKey;
use attention_core::api::ModelChoice;
use leptos::prelude::*;
use serde_json::{Value, json};

use crate::ui::state::Lab;
use crate::ui::state::model::ModelStatus;

/// The state as `attentionLab.state()` returns it (and the embedding protocol posts), as JSON text:
/// the parameters, the view settings, and what was computed.
pub fn state_json(lab: Lab) -> String {
    let request = lab.request.get_untracked();
    let outcome = lab.outcome.get_untracked();
    let trace = lab.shown.get_untracked();
    let mut state = serde_json::to_value(&request).unwrap_or_else(|_| json!({}));
    if let Some(object) = state.as_object_mut() {
        object.insert("head".into(), json!(lab.selected_head_untracked() + 1));
        object.insert("lang".into(), json!(lab.lang.get_untracked().name()));
        object.insert("theme".into(), json!(lab.theme.get_untracked().name()));
        object.insert("step".into(), json!(lab.flash_step.get_untracked() + 1));
        object.insert("scale".into(), json!(lab.scale_mode.get_untracked().name()));
        object.insert("layer".into(), json!(lab.layer.get_untracked() + 1));
        if request.is_trained() && request.mask.is_none() {
            // The mask the trained model runs under when none is chosen: its training mask.
            object.insert("mask".into(), json!({"kind": "causal"}));
        }
        object.insert(
            "model_status".into(),
            json!(
                lab.model_status
                    .with_untracked(|s| s.name(ModelKey::of(&request).as_ref()))
            ),
        );
        if let Some(Ok(run)) = lab.forward.get_untracked() {
            let next: Vec<Value> = match lab.model_status.get_untracked() {
                ModelStatus::Ready(gpt) => run
                    .0
                    .tokens
                    .len()
                    .checked_sub(1)
                    .map(|last| {
                        crate::ui::state::next_logits::predictions(&gpt.0, &run.0, last, 5)
                            .iter()
                            .map(|p| json!({"token": gpt.0.vocab.get(p.id as usize), "p": p.p}))
                            .collect()
                    })
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            object.insert("predictions".into(), json!(next));
            object.insert("forward_ms".into(), json!(run.1));
        }
        // Whether a user's model runs in its worker, and how long its last pass took there.
        let in_use = crate::ui::state::model::in_use(lab.request, lab.model_status);
        // The bytes the model's numbers take in each module (page and worker hold one each).
        object.insert(
            "model_bytes".into(),
            json!(in_use.as_ref().map(|gpt| gpt.bytes())),
        );
        let in_worker = in_use.is_some_and(|gpt| untrack(|| lab.model_jobs.serves(&gpt)));
        object.insert("model_in_worker".into(), json!(in_worker));
        object.insert(
            "forward_worker_ms".into(),
            json!(lab.model_jobs.worker_ms.get_value()),
        );
        object.insert(
            "model_worker_memory_bytes".into(),
            json!(lab.model_jobs.worker_memory.get_value()),
        );
        object.insert(
            "model_worker_kept_bytes".into(),
            json!(lab.model_jobs.worker_kept.get_value()),
        );
        let memory = js_sys::Reflect::get(&wasm_bindgen::memory(), &"buffer".into())
            .ok()
            .and_then(|b| js_sys::Reflect::get(&b, &"byteLength".into()).ok())
            .and_then(|n| n.as_f64());
        object.insert("wasm_memory_bytes".into(), json!(memory));
        object.insert("view".into(), json!(lab.view.get_untracked()));
        let imported = lab.imported.get_untracked();
        object.insert(
            "source".into(),
            json!(if imported.is_some() {
                "imported"
            } else if matches!(request.model, Some(ModelChoice::Folder(_))) {
                "model"
            } else {
                "computed"
            }),
        );
        if let Some(file) = &imported {
            object.insert("file".into(), json!(file.name));
            object.insert("n_layers".into(), json!(file.data.tensors.layers()));
            object.insert("imported_heads".into(), json!(file.data.tensors.heads()));
            let view = lab.import_view.get_untracked();
            object.insert(
                "import_view".into(),
                json!({"hide_special": view.hide_special, "mean": view.mean.map(|m| m.name())}),
            );
        }
        object.insert(
            "lesson".into(),
            json!(lab.lesson.get_untracked().map(|c| c.id())),
        );
        if let Some(embed) = lab.embed.get_untracked() {
            object.insert("panels".into(), json!(embed.panels));
        }
        object.insert(
            "tokens".into(),
            // A file's tokens as shown (its special tokens hidden or not).
            json!(match (&imported, lab.imported_ok()) {
                (Some(_), Some(run)) => Some(run.0.tokens.clone()),
                (Some(file), None) => Some(file.data.tokens.clone()),
                (None, _) => trace.as_ref().map(|t| t.0.config.tokens().to_vec()),
            }),
        );
        let backend = outcome.result.as_ref().ok().map(|t| t.0.backend.clone());
        object.insert(
            "backend".into(),
            json!(backend.as_ref().map_or("cpu", |b| b.name())),
        );
        object.insert(
            "adapter".into(),
            json!(match &backend {
                Some(attention_core::Backend::Gpu { adapter }) => Some(adapter.clone()),
                _ => None,
            }),
        );
        object.insert(
            "fallback_reason".into(),
            json!(outcome.fallback.as_ref().map(|f| f.reason.code())),
        );
        object.insert(
            "fallback_message".into(),
            json!(
                outcome
                    .fallback
                    .as_ref()
                    .map(|f| f.message(lab.lang.get_untracked()))
            ),
        );
        object.insert("pending".into(), json!(outcome.pending));
        object.insert("gpu".into(), json!(lab.gpu.with_untracked(|g| g.code())));
        object.insert("compute_ms".into(), json!(outcome.compute_ms));
        object.insert(
            "max_flash_diff".into(),
            json!(trace.as_ref().map(|t| t.0.flash.max_abs_diff)),
        );
        object.insert("update_ms".into(), json!(lab.timing.get_value().update_ms));
        object.insert(
            "error".into(),
            json!(
                outcome
                    .result
                    .as_ref()
                    .err()
                    .map(|e| lab.lang.get_untracked().request_error(e))
            ),
        );
    }
    state.to_string()
}
