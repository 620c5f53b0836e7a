//! Why a head attends, as JSON: `"explain"` (a score taken apart), `"logit_attribution"` (a
//! logit taken apart) and `"composition"` (heads composed), added to a trace's or a forward
//! pass's response.

use serde_json::{Map, Value, json};

use super::Request;
use super::request_types::ExplainRequest;
use crate::circuits::composition::{Composition, composition, sentence_shares};
use crate::circuits::logit::logit_attribution;
use crate::circuits::{Components, ExplainError, Explanation, explain::Reading};
use crate::models::{Forward, Model};
use crate::pipeline::trace::Trace;

/// What a request's circuit fields add to a response, for a trained model's forward pass.
pub fn model_circuits_json(
    model: &Model,
    forward: &Forward,
    request: &Request,
) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    if let Some(asked) = &request.explain {
        let layers = forward.layers.len();
        let layer = counted("explain.layer", "layers", asked.layer, layers)?;
        let components = Components::entering(model, forward, layer);
        out.insert(
            "explain".into(),
            explain_json(&forward.layers[layer].attention, &components, asked)?,
        );
    }
    if let Some(asked) = &request.logit_attribution {
        let (names, parts) = logit_attribution(model, forward, asked.position, &asked.chars)
            .map_err(|e| e.to_string())?;
        let logits: Map<String, Value> = asked
            .chars
            .iter()
            .zip(&parts)
            .map(|(c, p)| (c.clone(), json!(p.parts)))
            .collect();
        let total: Map<String, Value> = asked
            .chars
            .iter()
            .zip(&parts)
            .map(|(c, p)| (c.clone(), json!(p.total)))
            .collect();
        out.insert(
            "logit_attribution".into(),
            json!({"position": asked.position, "components": names, "logits": logits, "total": total}),
        );
    }
    if request.composition == Some(true) {
        out.insert(
            "composition".into(),
            composition_json(model, forward, &composition(model)),
        );
    }
    Ok(out)
}

/// `"composition"`'s object: how `model`'s heads compose (`scores`, from
/// [`composition`] or computed elsewhere, as a model's worker does a step at a time), and the
/// same measured on `forward`'s sentence.
pub fn composition_json(model: &Model, forward: &Forward, scores: &Composition) -> Value {
    let n = scores.heads.len();
    let per_layer = model.config.n_heads;
    let mut sentence_q = vec![vec![Value::Null; n]; n];
    let mut sentence_k = sentence_q.clone();
    for b in 0..n {
        let (layer, head) = (b / per_layer, b % per_layer);
        let Some(shares) = sentence_shares(model, forward, layer, head) else {
            continue;
        };
        for (a, name) in scores.heads.iter().enumerate() {
            if let Some(c) = shares.names.iter().position(|x| x == name) {
                sentence_q[a][b] = json!(shares.query[c]);
                sentence_k[a][b] = json!(shares.key[c]);
            }
        }
    }
    json!({
        "heads": scores.heads,
        "q": scores.q,
        "k": scores.k,
        "v": scores.v,
        "baseline": scores.baseline,
        "sentence": {"q": sentence_q, "k": sentence_k},
    })
}

/// What a request's circuit fields add to a random-weight trace's response (one layer: its
/// input is the token embeddings and the positions).
pub fn trace_circuits_json(trace: &Trace, request: &Request) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    if request.logit_attribution.is_some() {
        return Err("logit_attribution: random weights have no next-character logits; add \"model\": \"trained\" or \"llama\"".into());
    }
    if request.composition.is_some() {
        return Err("composition: random weights have one layer, so no head reads another's output; add \"model\": \"trained\" or \"llama\"".into());
    }
    if let Some(asked) = &request.explain {
        counted("explain.layer", "layers", asked.layer, 1)?;
        let components = Components::of_sequence(trace.config.target());
        out.insert("explain".into(), explain_json(trace, &components, asked)?);
    }
    Ok(out)
}

fn counted(
    field: &'static str,
    what: &'static str,
    value: usize,
    max: usize,
) -> Result<usize, String> {
    crate::circuits::error::counted(field, what, value, max).map_err(|e| e.to_string())
}

/// One cell (or, with `explain_row`, every key of the query) taken apart.
pub fn explain_json(
    trace: &Trace,
    components: &Components,
    asked: &ExplainRequest,
) -> Result<Value, String> {
    let n_heads = trace.config.dims().n_heads;
    let head = counted("explain.head", "heads", asked.head, n_heads)?;
    if trace.config.linear().is_some() {
        return Err(format!(
            "explain.layer: layer {} is linear attention, which has no q·k score to take apart (its hidden matrix A is in the trace)",
            asked.layer
        ));
    }
    let reading = Reading::new(trace, components, head).map_err(|e: ExplainError| e.to_string())?;
    let mut out = json!({
        "layer": asked.layer,
        "head": asked.head,
        "query": asked.query,
        "components": reading.query_names(),
    });
    if reading.key_names() != reading.query_names() {
        out["key_components"] = json!(reading.key_names());
    }
    let cell = |e: &Explanation| {
        let mut cell = json!({
            "key": e.key,
            "terms": e.terms.rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
            "score": e.score,
            "sum": e.sum,
            "weight": e.weight,
            "masked": e.masked,
        });
        if let Some(a) = e.alibi {
            cell["alibi"] = json!(a);
        }
        if let Some(c) = e.softcap {
            cell["softcap"] = json!(c);
        }
        if e.masked {
            cell["note"] = json!(
                "the mask hides this key: its weight is 0; the score is taken apart all the same"
            );
        }
        cell
    };
    if asked.explain_row {
        let row = reading.row(asked.query).map_err(|e| e.to_string())?;
        let cells: Vec<Value> = row.iter().map(cell).collect();
        let pick = |name: &str| Value::Array(cells.iter().map(|c| c[name].clone()).collect());
        for name in ["key", "terms", "score", "sum", "weight", "masked"] {
            let plural = match name {
                "key" => "keys",
                "weight" => "weights",
                other => other,
            };
            out[plural] = pick(name);
        }
        if row.iter().any(|e| e.alibi.is_some()) {
            out["alibi"] = pick("alibi");
        }
        if row.iter().any(|e| e.softcap.is_some()) {
            out["softcap"] = pick("softcap");
        }
        return Ok(out);
    }
    let Some(key) = asked.key else {
        return Err("explain.key: missing; give a key (from 0) or \"explain_row\": true".into());
    };
    let e = reading.cell(asked.query, key).map_err(|e| e.to_string())?;
    if let (Value::Object(out), Value::Object(cell)) = (&mut out, cell(&e)) {
        out.extend(cell);
    }
    Ok(out)
}

/// `json` (an object's text) with `extra`'s keys added.
pub fn with_fields(json: String, extra: Map<String, Value>) -> Result<String, String> {
    if extra.is_empty() {
        return Ok(json);
    }
    let mut value: Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
    if let Value::Object(object) = &mut value {
        object.extend(extra);
    }
    serde_json::to_string(&value).map_err(|e| e.to_string())
}
