//! A model's JSON files as the loaders read them: `config.json`'s fields by name, and
//! `vocab.json`'s tokens (a list of strings, index = id). Which fields a layout reads is the
//! layout's own business (`models::gpt2`, `models::llama`).

use serde_json::{Map, Value};

/// A model's `config.json`, read.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigJson(Map<String, Value>);

impl ConfigJson {
    /// The fields of `text`, which must be a JSON object.
    pub fn parse(text: &str) -> Result<Self, String> {
        match serde_json::from_str(text).map_err(|e| e.to_string())? {
            Value::Object(fields) => Ok(Self(fields)),
            _ => Err("not a JSON object".into()),
        }
    }

    /// A whole number ≥ 0.
    pub fn usize(&self, name: &str) -> Option<usize> {
        self.0
            .get(name)
            .and_then(Value::as_u64)
            .and_then(|v| usize::try_from(v).ok())
    }

    pub fn f64(&self, name: &str) -> Option<f64> {
        self.0.get(name).and_then(Value::as_f64)
    }

    pub fn bool(&self, name: &str) -> Option<bool> {
        self.0.get(name).and_then(Value::as_bool)
    }

    /// The first string of a list (`"architectures": ["LlamaForCausalLM"]`).
    pub fn first_str(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
    }

    /// A list of strings (`"layer_types": ["sliding_attention", …]`); a non-string entry reads
    /// as "".
    pub fn strs(&self, name: &str) -> Option<Vec<&str>> {
        self.0
            .get(name)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|v| v.as_str().unwrap_or("")).collect())
    }

    /// A list of whole numbers (`"mlp_only_layers": [0, 3]`); `None` if any entry is not one.
    pub fn usizes(&self, name: &str) -> Option<Vec<usize>> {
        self.0.get(name).and_then(Value::as_array).and_then(|a| {
            a.iter()
                .map(|v| v.as_u64().and_then(|n| usize::try_from(n).ok()))
                .collect()
        })
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    /// Whether the field is there at all (null included).
    pub fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// Whether the field is there with a value other than null.
    pub fn is_set(&self, name: &str) -> bool {
        self.0.get(name).is_some_and(|v| !v.is_null())
    }
}

/// The tokens of a `vocab.json`: a JSON list of strings, index = id.
pub fn vocab_from_json(text: &str) -> Result<Vec<String>, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}
