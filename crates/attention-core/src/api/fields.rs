//! A request's fields as data: each field's name, what it means, its JSON Schema and default,
//! whether the page keeps it, how it reads and writes in a link, and whether a trained model
//! fixes it. [`super::Request`] and its table [`super::FIELDS`] come from one definition
//! (`request.rs`); from the table come the CLI's JSON Schema ([`schema`]), the link's parameters
//! ([`to_link`], [`from_link`]), which fields a trained model refuses, the page's "leave out what
//! cannot work", and the course element's attributes and manifest. Adding a field is one entry
//! there, and its computation.

use serde_json::{Map, Value, json};

use crate::models::Shipped;

/// One field of a request.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    /// Its doc comment, as written (see [`Field::description`]).
    pub doc: &'static str,
    /// The JSON Schema of its value (JSON text).
    pub schema: &'static str,
    /// What leaving it out means, as JSON text, where that is one value.
    pub default: Option<&'static str>,
    pub scope: Scope,
    /// Fields that give one thing in several forms (a sentence, its tokens or its X): giving
    /// one drops the others.
    pub group: Option<&'static str>,
    pub link: Link,
    pub fixed: Fixed,
}

/// Who keeps a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The lab's state: the page keeps it (`set()` changes it) and a link may carry it.
    Lab,
    /// A request of the CLI only (a lesson's experiment, a generation, a stream): the page does
    /// these in views of their own.
    Cli,
}

/// Whether a trained model fixes a field.
#[derive(Debug, Clone, Copy)]
pub enum Fixed {
    /// The model runs with any value (the lab's controls that act on every layer).
    Never,
    /// The model has its own (its shape, its weights, its input).
    Always,
    /// The model has its own, which a request may give: whether the given value (JSON) is what
    /// the model of this layout has anyway.
    Unless(fn(&Value, Shipped) -> bool),
}

/// How a field reads and writes in a link.
#[derive(Debug, Clone, Copy)]
pub enum Link {
    /// Links do not carry it (tensors, and what only the CLI asks for).
    None,
    /// One parameter of the field's own name.
    Plain(Form),
    /// An object as parameters of their own: the field's name carries its `kind` (one of
    /// `kinds`; none for an object without kinds), each part one of its keys.
    Object {
        kinds: &'static [&'static str],
        parts: &'static [Part],
    },
}

/// How a value is written as a link parameter's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// As it is.
    Text,
    /// A whole number ≥ 0.
    Integer,
    /// A finite number, as Rust writes the shortest text that reads back the same.
    Number,
    /// `1` or `0` (`true` and `false` read too).
    Flag,
    /// One of these names.
    Name(&'static [&'static str]),
    /// Finite numbers joined by commas.
    Numbers,
    /// Rows of 0 and 1 joined by dots (`100.110.111`).
    Cells,
    /// Heads as `L{layer}H{head}` (from 1), `m` after one knocked out by its mean, joined by
    /// commas (`L1H2,L2H1m`).
    Heads,
}

/// One key of an object field, as a link parameter of its own.
#[derive(Debug, Clone, Copy)]
pub struct Part {
    /// The parameter's name in a link.
    pub link: &'static str,
    /// The object's key.
    pub key: &'static str,
    pub form: Form,
    /// The kinds that have this key (all, when empty).
    pub kinds: &'static [&'static str],
    /// Its value when a link leaves it out, as link text (a link leaves it out when it is
    /// this); `None`: a link must give it.
    pub default: Option<&'static str>,
    pub description: &'static str,
}

/// What a link's parameters for a field got wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// The parameter's text is not a value of its form (the default is used, where there is one).
    Malformed { name: &'static str, value: String },
    /// An object of this kind needs the parameter, and the link does not give it.
    Missing { name: &'static str, kind: String },
}

impl Field {
    /// What it means: its doc comment as one paragraph.
    pub fn description(&self) -> String {
        paragraph(self.doc)
    }

    /// Its JSON Schema, with its description and default.
    pub fn json_schema(&self) -> Value {
        let mut schema: Value = serde_json::from_str(self.schema).unwrap_or_else(|_| json!({}));
        if let Value::Object(object) = &mut schema {
            object.insert("description".into(), self.description().into());
            if let Some(default) = self.default.and_then(|d| serde_json::from_str(d).ok()) {
                object.insert("default".into(), default);
            }
        }
        schema
    }

    /// The link parameters it may be written as.
    pub fn link_names(&self) -> Vec<&'static str> {
        match self.link {
            Link::None => Vec::new(),
            Link::Plain(_) => vec![self.name],
            Link::Object { kinds, parts } => (!kinds.is_empty())
                .then_some(self.name)
                .into_iter()
                .chain(parts.iter().map(|p| p.link))
                .collect(),
        }
    }

    /// Whether the shipped model `model` refuses `value` (JSON) for this field.
    pub fn fixed_by(&self, value: &Value, model: Shipped) -> bool {
        match self.fixed {
            Fixed::Never => false,
            Fixed::Always => true,
            Fixed::Unless(is_the_models) => !is_the_models(value, model),
        }
    }
}

/// Doc comment lines as one paragraph.
pub fn paragraph(doc: &str) -> String {
    doc.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Form {
    /// `value` as link text; `None` when it is not a value of this form.
    pub fn write(self, value: &Value) -> Option<String> {
        match self {
            Form::Text | Form::Name(_) => value.as_str().map(String::from),
            Form::Integer => value.as_u64().map(|n| n.to_string()),
            Form::Number => value.as_f64().map(|x| x.to_string()),
            Form::Flag => value
                .as_bool()
                .map(|b| if b { "1" } else { "0" }.to_string()),
            Form::Numbers => {
                let numbers: Option<Vec<String>> = value
                    .as_array()?
                    .iter()
                    .map(|v| v.as_f64().map(|x| x.to_string()))
                    .collect();
                numbers.map(|n| n.join(","))
            }
            Form::Cells => {
                let rows: Option<Vec<String>> = value
                    .as_array()?
                    .iter()
                    .map(|row| {
                        row.as_array()?
                            .iter()
                            .map(|c| c.as_bool().map(|a| if a { '1' } else { '0' }))
                            .collect()
                    })
                    .collect();
                rows.map(|r| r.join("."))
            }
            Form::Heads => {
                let heads: Option<Vec<String>> = value
                    .as_array()?
                    .iter()
                    .map(|h| {
                        let layer = h.get("layer")?.as_u64()?;
                        let head = h.get("head")?.as_u64()?;
                        let mean = h.get("how").and_then(Value::as_str) == Some("mean");
                        Some(format!("L{layer}H{head}{}", if mean { "m" } else { "" }))
                    })
                    .collect();
                heads.map(|h| h.join(","))
            }
        }
    }

    /// Link text as a value of this form; `None` when it is not one.
    pub fn read(self, text: &str) -> Option<Value> {
        match self {
            Form::Text => Some(text.into()),
            Form::Name(names) => names.contains(&text).then(|| text.into()),
            Form::Integer => text.parse::<u64>().ok().map(Value::from),
            Form::Number => text
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .map(Value::from),
            Form::Flag => match text {
                "1" | "true" => Some(true.into()),
                "0" | "false" => Some(false.into()),
                _ => None,
            },
            Form::Numbers => {
                let numbers: Option<Vec<f64>> = text
                    .split(',')
                    .map(|v| v.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
                    .collect();
                numbers.filter(|n| !n.is_empty()).map(Value::from)
            }
            Form::Cells => {
                let rows: Option<Vec<Vec<bool>>> = text
                    .split('.')
                    .map(|row| {
                        row.chars()
                            .map(|c| match c {
                                '1' => Some(true),
                                '0' => Some(false),
                                _ => None,
                            })
                            .collect()
                    })
                    .collect();
                rows.map(|r| json!(r))
            }
            Form::Heads => {
                let heads: Option<Vec<Value>> = text
                    .split(',')
                    .map(|part| {
                        let part = part.trim();
                        let (part, how) = match part.strip_suffix('m') {
                            Some(rest) => (rest, "mean"),
                            None => (part, "zero"),
                        };
                        let (layer, head) = part.strip_prefix('L')?.split_once('H')?;
                        let (layer, head) = (layer.parse::<u64>().ok()?, head.parse::<u64>().ok()?);
                        (layer >= 1 && head >= 1)
                            .then(|| json!({"layer": layer, "head": head, "how": how}))
                    })
                    .collect();
                heads.filter(|h| !h.is_empty()).map(Value::from)
            }
        }
    }

    /// The type an attribute of this form has, as TypeScript writes it (for the element's
    /// manifest).
    pub fn type_text(self) -> String {
        match self {
            Form::Text | Form::Numbers | Form::Cells | Form::Heads => "string".into(),
            Form::Integer | Form::Number => "number".into(),
            Form::Flag => "boolean".into(),
            Form::Name(names) => names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(" | "),
        }
    }
}

/// The link parameters of `field`'s value (JSON; null when not given), in the table's order.
pub fn to_link(field: &Field, value: &Value) -> Vec<(&'static str, String)> {
    if value.is_null() {
        return Vec::new();
    }
    match field.link {
        Link::None => Vec::new(),
        Link::Plain(form) => form
            .write(value)
            .map(|text| vec![(field.name, text)])
            .unwrap_or_default(),
        Link::Object { kinds, parts } => {
            let kind = value.get("kind").and_then(Value::as_str);
            let mut pairs = Vec::new();
            if !kinds.is_empty() {
                let Some(kind) = kind else {
                    return pairs;
                };
                pairs.push((field.name, kind.to_string()));
            }
            for part in parts.iter().filter(|p| applies(p, kind)) {
                let Some(text) = value.get(part.key).and_then(|v| part.form.write(v)) else {
                    continue;
                };
                if part.default != Some(text.as_str()) {
                    pairs.push((part.link, text));
                }
            }
            pairs
        }
    }
}

fn applies(part: &Part, kind: Option<&str>) -> bool {
    part.kinds.is_empty() || kind.is_some_and(|k| part.kinds.contains(&k))
}

/// The value (JSON) a link gives `field`, from its parameters (`get(name)`: the text of the
/// parameter `name`), or `None` when it gives none; and what it got wrong. A malformed part of
/// an object is left at its default.
pub fn from_link(
    field: &Field,
    get: &dyn Fn(&str) -> Option<String>,
) -> (Option<Value>, Vec<LinkError>) {
    let malformed = |name: &'static str, value: String| LinkError::Malformed { name, value };
    match field.link {
        Link::None => (None, Vec::new()),
        Link::Plain(form) => match get(field.name) {
            None => (None, Vec::new()),
            Some(text) => match form.read(&text) {
                Some(value) => (Some(value), Vec::new()),
                None => (None, vec![malformed(field.name, text)]),
            },
        },
        Link::Object { kinds, parts } => {
            let mut errors = Vec::new();
            let mut object = Map::new();
            let kind = if kinds.is_empty() {
                None
            } else {
                match get(field.name) {
                    None => return (None, errors),
                    Some(kind) if kinds.contains(&kind.as_str()) => Some(kind),
                    Some(kind) => return (None, vec![malformed(field.name, kind)]),
                }
            };
            if let Some(kind) = &kind {
                object.insert("kind".into(), kind.clone().into());
            }
            let mut lacking = false;
            for part in parts.iter().filter(|p| applies(p, kind.as_deref())) {
                let given = get(part.link);
                let read = given.as_ref().and_then(|text| {
                    let value = part.form.read(text);
                    if value.is_none() {
                        errors.push(malformed(part.link, text.clone()));
                    }
                    value
                });
                // An object without kinds keeps only the parts a link gives.
                let default = part
                    .default
                    .filter(|_| kind.is_some())
                    .and_then(|d| part.form.read(d));
                match read.or(default) {
                    Some(value) => {
                        object.insert(part.key.into(), value);
                    }
                    // Missing, or given but unreadable: the object is left out, and said so.
                    None if kind.is_some() => {
                        lacking = true;
                        errors.push(LinkError::Missing {
                            name: part.link,
                            kind: kind.clone().unwrap_or_default(),
                        });
                    }
                    None => {}
                }
            }
            if lacking || (kind.is_none() && object.is_empty()) {
                return (None, errors);
            }
            (Some(Value::Object(object)), errors)
        }
    }
}

/// The JSON Schema (draft 2020-12) of a request with `fields`: an object of them, each
/// optional, no other.
pub fn schema(fields: &[Field]) -> Value {
    let properties: Map<String, Value> = fields
        .iter()
        .map(|f| (f.name.to_string(), f.json_schema()))
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "request.schema.json",
        "title": "Attention Lab request",
        "description": "One request to the lab: the CLI's input (attention-trace), the page's \
            attentionLab.set() and a course element's settings. Every field is optional; a field \
            the lab does not know is refused.",
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
    })
}
