//! What of a link can work with the rest: values the engine refuses left out one by one (and
//! named), a head or layer past the lab's, and what a shared link leaves behind.

use super::codec::shorten;
use super::notice::{LinkNotice, ShareWarning};
use super::state::{LONG_LINK, ViewSettings};
use attention_core::api::fields::{Field, Scope, to_link};
use attention_core::api::{FIELDS, Request, field};

/// The request a link asks for on top of `defaults`, keeping every value that can work: a value
/// the engine refuses (a temperature of 0.00001, a causal mask over a source of another length,
/// 3 K/V heads for 4 heads) is left out and named in a notice, and the rest of the link is used.
/// Only when leaving values out cannot help are the defaults used, with the reason.
pub fn usable_request(defaults: &Request, link: &Request) -> (Request, Vec<LinkNotice>) {
    let mut request = defaults.merged(link);
    let mut notices = Vec::new();
    // Checked as the page checks what it computes: it keeps overviews of long inputs, never
    // every n² matrix, so the CLI's limit on traced cells does not apply (a link restores
    // anything the page accepted).
    let check = |request: &Request| {
        request.to_params().and_then(|mut p| {
            p.trace = false;
            Ok(p.validate()?)
        })
    };
    // Each round leaves out one value; a request has fewer fields than this.
    for _ in 0..16 {
        let error = match check(&request) {
            Ok(_) => return (request, notices),
            Err(error) => error,
        };
        match leave_out(&mut request, defaults, &error.field()) {
            Some((name, value)) => notices.push(LinkNotice::Dropped {
                name,
                value,
                reason: error,
            }),
            None => return (defaults.clone(), vec![LinkNotice::Impossible(error)]),
        }
    }
    let error = check(&request).err();
    match error {
        None => (request, notices),
        Some(error) => (defaults.clone(), vec![LinkNotice::Impossible(error)]),
    }
}

/// Puts the parameter an error names (`path`, as the engine names it) back to its default (a
/// sentence with its other forms); returns its link name and the value left out (as a link
/// writes it), or `None` when nothing changed.
fn leave_out(request: &mut Request, defaults: &Request, path: &str) -> Option<(String, String)> {
    let name = path.split('.').next().unwrap_or(path);
    // Too many cells to trace is the input's length.
    let name = if name == "trace" { "sentence" } else { name };
    let named = field(name)?;
    let members: Vec<&Field> = match named.group {
        Some(group) => FIELDS.iter().filter(|f| f.group == Some(group)).collect(),
        None => vec![named],
    };
    let shown = members.first().copied().unwrap_or(named);
    if members
        .iter()
        .all(|f| request.field_json(f.name) == defaults.field_json(f.name))
    {
        return None;
    }
    let old = to_link(shown, &request.field_json(shown.name));
    // An object's kind says which it was (`mask` "window"); else its parts, or its text.
    let value = match old.as_slice() {
        [(first, text), ..] if *first == shown.name => shorten(text, 40),
        parts => parts
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    for member in members {
        request.take_field(defaults, member.name);
    }
    Some((shown.name.to_string(), value))
}

/// What a link's head and layer name that the lab does not have, once it knows its heads and
/// layers (1 for random weights, a single block): the notices, and the head and layer (from 0)
/// to show instead.
pub fn check_view(
    view: &ViewSettings,
    heads: usize,
    layers: usize,
) -> (Vec<LinkNotice>, usize, usize) {
    let mut notices = Vec::new();
    let mut head = view.head;
    let mut layer = view.layer;
    if head >= heads.max(1) {
        notices.push(LinkNotice::NoSuchHead {
            value: head + 1,
            heads,
        });
        head = 0;
    }
    if layer >= layers.max(1) {
        notices.push(LinkNotice::NoSuchLayer {
            value: layer + 1,
            layers,
        });
        layer = 0;
    }
    (notices, head, layer)
}

/// What a link made from `request` (the link's text: `link`) leaves behind or risks.
pub fn share_warnings(request: &Request, link: &str) -> Vec<ShareWarning> {
    let mut warnings = Vec::new();
    // The page's numbers no link carries: one's own X, tokens or weights.
    let given: Vec<&'static str> = FIELDS
        .iter()
        .filter(|f| f.scope == Scope::Lab && f.link_names().is_empty())
        .filter(|f| request.is_given(f.name))
        .map(|f| f.name)
        .collect();
    if !given.is_empty() {
        warnings.push(ShareWarning::Tensors(given));
    }
    if link.len() > LONG_LINK {
        warnings.push(ShareWarning::Long(link.len()));
    }
    warnings
}
