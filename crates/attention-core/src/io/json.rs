//! The JSON format: nested lists of numbers under `attention`, or `q`, `k` (and `v`), with
//! `tokens` (and `key_tokens`), as CircuitsVis and attnview take them.

use serde_json::Value;

use crate::io::found::{Found, ImportError, Raw, tokens_from_json};

/// The tensors the JSON format knows; any other key is left alone (a file may carry notes).
const TENSORS: [&str; 4] = ["attention", "q", "k", "v"];

pub(crate) fn read(bytes: &[u8]) -> Result<Found, ImportError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        if e.is_eof() {
            ImportError::Truncated {
                detail: format!("the JSON stops at line {}, column {}", e.line(), e.column()),
            }
        } else {
            ImportError::Format {
                format: "JSON",
                detail: e.to_string(),
            }
        }
    })?;
    from_value(&value)
}

pub(crate) fn from_value(value: &Value) -> Result<Found, ImportError> {
    let object = value.as_object().ok_or_else(|| ImportError::Format {
        format: "JSON",
        detail: "expected an object such as {\"attention\": [[…]], \"tokens\": […]}".into(),
    })?;
    let mut found = Found::default();
    for name in TENSORS {
        if let Some(tensor) = object.get(name).filter(|v| !v.is_null()) {
            found
                .tensors
                .push((name.to_string(), nested(name, tensor)?));
        }
    }
    // Saved one per layer: stacked in [`Found::stack_layers`].
    for (name, tensor) in object {
        if crate::io::found::per_layer(name).is_some() && !tensor.is_null() {
            found.tensors.push((name.clone(), nested(name, tensor)?));
        }
    }
    if let Some(tokens) = object.get("tokens").filter(|v| !v.is_null()) {
        found.tokens = Some(tokens_from_json(tokens, "tokens")?);
    }
    if let Some(tokens) = object.get("key_tokens").filter(|v| !v.is_null()) {
        found.key_tokens = Some(tokens_from_json(tokens, "key_tokens")?);
    }
    // The example to read from a batch, as `batch=` gives it beside a file.
    if let Some(batch) = object.get("batch").filter(|v| !v.is_null()) {
        let example = batch.as_u64().ok_or_else(|| ImportError::Header {
            tensor: "batch".into(),
            detail: format!("{batch} is not an example's number (0, 1, 2, …)"),
        })?;
        found.batch = Some(example as usize);
    }
    Ok(found)
}

/// A nested list of numbers as a row-major tensor; every list at one depth as long as the first.
fn nested(name: &str, value: &Value) -> Result<Raw, ImportError> {
    let bad = |detail: String| ImportError::Header {
        tensor: name.to_string(),
        detail,
    };
    // The shape, from the first element at each depth.
    let mut shape = Vec::new();
    let mut probe = value;
    while let Value::Array(items) = probe {
        shape.push(items.len());
        match items.first() {
            Some(first) => probe = first,
            None => break,
        }
    }
    if shape.is_empty() {
        return Err(bad("expected nested lists of numbers".into()));
    }
    let mut values = Vec::with_capacity(shape.iter().product());
    let mut index = Vec::with_capacity(shape.len());
    walk(value, &shape, &mut index, &mut values).map_err(|(at, what)| {
        bad(format!(
            "at [{}]: {what}",
            at.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    Ok(Raw {
        shape,
        values,
        rounding: crate::io::found::F32_ROUNDING,
    })
}

type WalkError = (Vec<usize>, String);

fn walk(
    value: &Value,
    shape: &[usize],
    index: &mut Vec<usize>,
    values: &mut Vec<f32>,
) -> Result<(), WalkError> {
    let depth = index.len();
    match (value, shape.get(depth)) {
        (Value::Array(items), Some(&len)) => {
            if items.len() != len {
                return Err((
                    index.clone(),
                    format!(
                        "{} entries where the first list at this depth has {len}",
                        items.len()
                    ),
                ));
            }
            for (i, item) in items.iter().enumerate() {
                index.push(i);
                walk(item, shape, index, values)?;
                index.pop();
            }
            Ok(())
        }
        (Value::Number(n), None) => {
            // Finite by construction: JSON has no NaN or ∞ (`null` stands for them below).
            values.push(n.as_f64().unwrap_or(f64::NAN) as f32);
            Ok(())
        }
        // NaN and ±∞ written by Python's json module as NaN / Infinity are not JSON; a null is
        // how most writers put them.
        (Value::Null, None) => Err((
            index.clone(),
            "null (a NaN or ±∞?): every number must be finite".into(),
        )),
        (Value::Array(_), None) => Err((index.clone(), "a list where a number belongs".into())),
        (other, Some(_)) => Err((index.clone(), format!("{other} where a list belongs"))),
        (other, None) => Err((index.clone(), format!("{other} where a number belongs"))),
    }
}
