//! What of a link can work with the rest: values the engine refuses left out one by one (and
//! named), a head or layer past the lab's, and what a shared link leaves behind.

use super::codec::shorten;
use super::notice::{LinkNotice, ShareWarning};
use super::state::{LONG_LINK, ViewSettings};
use attention_core::api::{MaskRequest, PositionRequest, Request};

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

/// Puts the parameter an error names (`field`, as the engine names it) back to its default;
/// returns its link name and the value left out, or `None` when nothing changed.
fn leave_out(request: &mut Request, defaults: &Request, field: &str) -> Option<(String, String)> {
    let text = |value: Option<String>| value.unwrap_or_default();
    macro_rules! number {
        ($field:ident) => {{
            let old = request.$field.take()?;
            request.$field = defaults.$field;
            Some((stringify!($field).to_string(), old.to_string()))
        }};
    }
    match field.split('.').next().unwrap_or(field) {
        "sentence" | "tokens" | "x" | "trace" => {
            let old = request.sentence.clone();
            if request.sentence == defaults.sentence
                && request.tokens.is_none()
                && request.x.is_none()
            {
                return None;
            }
            request.sentence = defaults.sentence.clone();
            request.tokens = None;
            request.x = None;
            Some(("sentence".into(), shorten(&text(old), 40)))
        }
        "source_sentence" | "source_tokens" | "source_x" => {
            let old = request.source_sentence.take();
            request.source_tokens = None;
            request.source_x = None;
            Some(("source_sentence".into(), shorten(&text(old), 40)))
        }
        "d_model" => number!(d_model),
        "n_heads" => number!(n_heads),
        "n_kv_heads" => number!(n_kv_heads),
        "d_k" => number!(d_k),
        "d_v" => number!(d_v),
        "temperature" => number!(temperature),
        "seed" => number!(seed),
        "mask" => {
            let old = request.mask.take()?;
            request.mask = defaults.mask.clone();
            let kind = match old {
                MaskRequest::None => "none",
                MaskRequest::Causal => "causal",
                MaskRequest::Padding { .. } => "padding",
                MaskRequest::Window { .. } => "window",
                MaskRequest::Sliding { .. } => "sliding",
                MaskRequest::Custom { .. } => "custom",
            };
            Some(("mask".into(), kind.into()))
        }
        "block" => {
            let old = request.block.take()?;
            request.block = defaults.block;
            let cells = |n: Option<usize>| n.map_or("auto".to_string(), |n| n.to_string());
            Some((
                "block".into(),
                format!("{} × {}", cells(old.rows), cells(old.cols)),
            ))
        }
        "weights" => {
            request.weights.take()?;
            request.weights = defaults.weights.clone();
            Some(("weights".into(), String::new()))
        }
        "position" => {
            let old = request.position.take()?;
            request.position = defaults.position;
            let kind = match old {
                PositionRequest::Absolute { .. } => "absolute",
                PositionRequest::None { .. } => "none",
                PositionRequest::Rope { .. } => "rope",
                PositionRequest::Alibi { .. } => "alibi",
            };
            Some(("position".into(), kind.into()))
        }
        "softcap" => {
            let old = request.softcap.take()?;
            request.softcap = defaults.softcap;
            Some(("softcap".into(), old.to_string()))
        }
        "sink_logits" => {
            let old = request.sink_logits.take()?;
            request.sink_logits = defaults.sink_logits.clone();
            let list: Vec<String> = old.iter().map(|l| l.to_string()).collect();
            Some(("sink_logits".into(), list.join(",")))
        }
        _ => None,
    }
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
    let given: Vec<&'static str> = [
        ("x", request.x.is_some()),
        ("tokens", request.tokens.is_some()),
        ("weights", request.weights.is_some()),
        ("source_x", request.source_x.is_some()),
        ("source_tokens", request.source_tokens.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, given)| given.then_some(name))
    .collect();
    if !given.is_empty() {
        warnings.push(ShareWarning::Tensors(given));
    }
    if link.len() > LONG_LINK {
        warnings.push(ShareWarning::Long(link.len()));
    }
    warnings
}
