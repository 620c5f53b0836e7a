//! The course page's element, `<attention-lab>`, as data: its attributes (the request's link
//! parameters from the core's table of fields, the page's view settings, and its own), each with
//! its type and what it means. `assets/custom-elements.json` (its manifest) and the attribute
//! table inside `assets/attention-lab.js` are written from here (`tests/element.rs` checks that
//! they are, and rewrites them with `UPDATE_EXPECT=1`), so no description is written twice.

use attention_core::api::FIELDS;
use attention_core::api::fields::{Field, Form, Link, Scope};
use serde_json::{Value, json};

/// A view setting: what the user is looking at, kept beside the request in links, in
/// `attentionLab.set()` and in the element's attributes.
#[derive(Debug, Clone, Copy)]
pub struct ViewSetting {
    pub name: &'static str,
    /// Its type as TypeScript writes it.
    pub type_text: &'static str,
    pub description: &'static str,
}

/// The view settings `set()` and the element take (links take these and more: the generation,
/// the embedding, the file).
pub const VIEW_SETTINGS: [ViewSetting; 9] = [
    ViewSetting {
        name: "head",
        type_text: "number",
        description: "The head shown, from 1.",
    },
    ViewSetting {
        name: "layer",
        type_text: "number",
        description: "The trained model's layer (or an imported file's), from 1.",
    },
    ViewSetting {
        name: "step",
        type_text: "number",
        description: "The FlashAttention player's step, from 1.",
    },
    ViewSetting {
        name: "lang",
        type_text: "\"en\" | \"zh\"",
        description: "The language of the lab's words.",
    },
    ViewSetting {
        name: "theme",
        type_text: "\"auto\" | \"light\" | \"dark\"",
        description: "Colours: the reader's system's (auto), light or dark.",
    },
    ViewSetting {
        name: "view",
        type_text: "string",
        description: "The section in view (its id, as a section's link names it).",
    },
    ViewSetting {
        name: "lesson",
        type_text: "string",
        description: "A Learn chapter's id: the chapter instead of the lab.",
    },
    ViewSetting {
        name: "scale",
        type_text: "\"honest\" | \"contrast\"",
        description: "Colour scales: one honest scale per kind, or each matrix's own range.",
    },
    ViewSetting {
        name: "panels",
        type_text: "string",
        description: "The panels shown, comma-separated: weights, head-view, all-heads, flash, \
            sentence, controls, any stage (x, q, k, v, dot, scaled, masked, weights, head-output, \
            concat, projected, output), model-view, head-roles, circuit (how the trained model's \
            heads compose), next-token, generate (the trained \
            model generating with its KV cache), stream (the Llama model reading past its \
            context, with attention sinks).",
    },
];

/// The element's own attributes: what it does itself rather than pass to the lab.
pub const OWN_ATTRIBUTES: [ViewSetting; 3] = [
    ViewSetting {
        name: "src",
        type_text: "string",
        description: "A JSON file of one's own attention ({attention, tokens} or {q, k, v, \
            tokens}), fetched by this page and shown in the lab.",
    },
    ViewSetting {
        name: "model-src",
        type_text: "string",
        description: "A Hugging Face model folder's address (config.json, tokenizer.json and \
            model.safetensors, or its index and shards, beside each other; relative to this \
            page): the lab fetches it and runs the model on the sentence, as a link's model_src.",
    },
    ViewSetting {
        name: "height",
        type_text: "number",
        description: "The element's height in CSS pixels; without it, the element fits the lab's \
            content (560 px until the lab has drawn).",
    },
];

/// One attribute of the element.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub name: &'static str,
    /// As TypeScript writes it (`number`, `"en" | "zh"`).
    pub type_text: String,
    /// What its property returns: `"number"`, `"boolean"` or `"string"`.
    pub property: &'static str,
    pub description: String,
    /// The attributes sent to the lab together when this one changes (a mask's kind with its
    /// numbers); empty for the element's own.
    pub group: Vec<&'static str>,
}

/// The property type of an attribute of this TypeScript type.
fn property_of(type_text: &str) -> &'static str {
    match type_text {
        "number" => "number",
        "boolean" => "boolean",
        _ => "string",
    }
}

fn form_property(form: Form) -> &'static str {
    match form {
        Form::Integer | Form::Number => "number",
        Form::Flag => "boolean",
        _ => "string",
    }
}

/// The attributes a request field gives the element: its link parameters.
fn field_attributes(field: &Field) -> Vec<Attribute> {
    let group = field.link_names();
    match field.link {
        Link::None => Vec::new(),
        Link::Plain(form) => vec![Attribute {
            name: field.name,
            type_text: form.type_text(),
            property: form_property(form),
            description: field.description(),
            group,
        }],
        Link::Object { kinds, parts } => {
            let kind = (!kinds.is_empty()).then(|| {
                let form = Form::Name(kinds);
                Attribute {
                    name: field.name,
                    type_text: form.type_text(),
                    property: "string",
                    description: field.description(),
                    group: group.clone(),
                }
            });
            kind.into_iter()
                .chain(parts.iter().map(|part| Attribute {
                    name: part.link,
                    type_text: part.form.type_text(),
                    property: form_property(part.form),
                    description: part.description.to_string(),
                    group: group.clone(),
                }))
                .collect()
        }
    }
}

/// Every attribute of the element, in order: the request's, the view settings, its own.
pub fn attributes() -> Vec<Attribute> {
    let setting = |s: &ViewSetting, group: Vec<&'static str>| Attribute {
        name: s.name,
        type_text: s.type_text.to_string(),
        property: property_of(s.type_text),
        description: s.description.to_string(),
        group,
    };
    FIELDS
        .iter()
        .filter(|f| f.scope == Scope::Lab)
        .flat_map(field_attributes)
        .chain(VIEW_SETTINGS.iter().map(|s| setting(s, vec![s.name])))
        .chain(OWN_ATTRIBUTES.iter().map(|s| setting(s, Vec::new())))
        .collect()
}

/// The element's manifest (`custom-elements.json`, the Custom Elements Manifest format).
pub fn manifest() -> Value {
    let attributes = attributes();
    let attribute_entries: Vec<Value> = attributes
        .iter()
        .map(|a| {
            json!({
                "name": a.name,
                "type": {"text": a.type_text},
                "description": a.description,
                "fieldName": a.name,
            })
        })
        .collect();
    let mut members: Vec<Value> = attributes
        .iter()
        .map(|a| {
            json!({
                "kind": "field",
                "name": a.name,
                "type": {"text": format!("{} | null", a.property)},
                "description": a.description,
                "attribute": a.name,
                "reflects": true,
            })
        })
        .collect();
    members.push(json!({
        "kind": "field",
        "name": "state",
        "type": {"text": "object | null"},
        "description": "The lab's last state, as attentionLab.state() returns it.",
        "readonly": true,
    }));
    json!({
        "schemaVersion": "1.0.0",
        "readme": "README.md",
        "modules": [{
            "kind": "javascript-module",
            "path": "attention-lab.js",
            "declarations": [{
                "kind": "class",
                "name": "AttentionLabElement",
                "tagName": "attention-lab",
                "customElement": true,
                "description": "The Attention Lab in a course page: a sentence's attention computed live, or one's own tensors, started when it nears the viewport. Attributes are the lab's link parameters, reflected as typed properties (a number attribute's property is a number); changing one after the start changes the running lab without reloading it.",
                "attributes": attribute_entries,
                "members": members,
                "events": [
                    {
                        "name": "attention-lab-change",
                        "type": {"text": "CustomEvent"},
                        "description": "The lab's state changed (detail: the state, as attentionLab.state() returns it). Bubbles, and crosses shadow roots."
                    },
                    {
                        "name": "error",
                        "type": {"text": "CustomEvent"},
                        "description": "The lab refused a value, or src could not be fetched (detail: {error})."
                    }
                ],
                "cssParts": [{
                    "name": "placeholder",
                    "description": "What the element shows until the lab starts near the viewport."
                }]
            }],
            "exports": [
                {"kind": "custom-element-definition", "name": "attention-lab", "declaration": {"name": "AttentionLabElement", "module": "attention-lab.js"}}
            ]
        }]
    })
}

/// The manifest as the file holds it: indented JSON, a line break at the end.
pub fn manifest_text() -> String {
    let mut text = serde_json::to_string_pretty(&manifest()).unwrap_or_default();
    text.push('\n');
    text
}

/// The attribute table of `attention-lab.js`: each attribute's property type and the
/// attributes sent with it.
pub fn script_table() -> String {
    let mut lines = vec![
        "// Written from the lab's tables (src/ui/logic/element.rs) by".to_string(),
        "// `UPDATE_EXPECT=1 cargo test --test documents`: edit those, not this.".to_string(),
        "const ATTRIBUTES = {".to_string(),
    ];
    for a in attributes() {
        let group: Vec<String> = a.group.iter().map(|g| format!("'{g}'")).collect();
        // A name that is not an identifier (`model-src`) is quoted.
        let key = if a.name.contains('-') {
            format!("'{}'", a.name)
        } else {
            a.name.to_string()
        };
        lines.push(format!(
            "  {}: {{ type: '{}', group: [{}] }},",
            key,
            a.property,
            group.join(", ")
        ));
    }
    lines.push("};".into());
    lines.join("\n")
}

/// What the element's removed attributes put back, as `set()` parameters. `given` and `cleared`
/// are link parameter names: those the element still sets, and those of the changed attribute's
/// group that it no longer sets. A request field none of whose parameters is given any more goes
/// back to its default (null, as `set({linear: null})` clears it), and so does one of kinds whose
/// kind is gone (`radius` alone is no mask: a link without its kind reads as none); the head,
/// layer and step go
/// back to the first, and a lesson closes. The language, theme, scale, view and panels stay as
/// the reader left them.
pub fn cleared_params(given: &[String], cleared: &[String]) -> Vec<(&'static str, Value)> {
    let named = |names: &[String], name: &str| names.iter().any(|n| n == name);
    let fields = FIELDS.iter().filter(|f| f.scope == Scope::Lab).filter(|f| {
        let names = f.link_names();
        let kind_gone = matches!(f.link, Link::Object { kinds, .. } if !kinds.is_empty())
            && named(cleared, f.name)
            && !named(given, f.name);
        kind_gone
            || (names.iter().any(|n| named(cleared, n)) && !names.iter().any(|n| named(given, n)))
    });
    let view = VIEW_SETTINGS
        .iter()
        .filter(|s| named(cleared, s.name) && !named(given, s.name))
        .filter_map(|s| match s.name {
            "head" | "layer" | "step" => Some((s.name, Value::from(1))),
            "lesson" => Some((s.name, Value::Null)),
            _ => None,
        });
    fields.map(|f| (f.name, Value::Null)).chain(view).collect()
}
