//! The lab's state in a link: every parameter and view setting as a readable query parameter,
//! and back. Pure (no browser), so the round trip is tested natively and in the browser.
//!
//! Names follow the trace CLI's fields (`sentence`, `d_model`, `temperature`, `mask`, …); a custom
//! mask's cells are rows of 0/1 joined by dots (`cells=100.110.111`). Parsing never fails: an
//! unknown name, a malformed value or an over-long text is left out and reported as a
//! [`LinkNotice`]; markup is only ever text.

use attention_core::api::{
    BackendChoice, BlockRequest, LayerNormRequest, MaskRequest, ModelChoice, PairingRequest,
    PositionRequest, Request, RequestError,
};

use super::colormap::ScaleMode;
use super::controls::Choice;
use super::sections::is_panel;
use super::theme::Theme;
use crate::ui::i18n::Lang;
use attention_core::lessons::Chapter;

/// Texts longer than this are refused in a link: what a browser's address can hold (Chromium
/// takes 2 MB), far more than any sentence the engine accepts (4096 tokens), so a link brings
/// back whatever the page took. The engine's own limit on tokens still applies.
pub const MAX_TEXT: usize = 1_000_000;

/// Links longer than this may be refused by some servers, proxies and chat apps (browsers take
/// far more): the share bar says so.
pub const LONG_LINK: usize = 8 * 1024;

/// What the user is looking at, beside the parameters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ViewSettings {
    /// The selected head, from 0 (links count from 1, as the page does).
    pub head: usize,
    /// `None`: the browser's language decides.
    pub lang: Option<Lang>,
    pub theme: Theme,
    /// The FlashAttention player's position, from 0 (links count from 1, as the page does).
    pub step: usize,
    /// Honest colour scales, or each matrix's own range for contrast.
    pub scale: ScaleMode,
    /// The trained model's layer, from 0 (links count from 1).
    pub layer: usize,
    /// The part of the page in view (a step's id, see `views/pipeline.rs`).
    pub view: Option<String>,
    /// The Learn mode's chapter (`lesson=<id>`); `None`: the full lab.
    pub lesson: Option<Chapter>,
    /// The Generate view's run (`gen`, `gen_t`, `gen_seed`).
    pub generation: GenerationView,
}

/// What the Generate view generated, kept in links: regenerating it gives the same characters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GenerationView {
    /// Characters generated and shown (0: none).
    pub steps: usize,
    /// The sampling temperature (0: the likeliest character each time) and its seed.
    pub temperature: f64,
    pub seed: u64,
}

/// How the lab is embedded in another page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Embed {
    /// The panels to show; empty means the default ones.
    pub panels: Vec<String>,
    /// The only host origin whose messages are obeyed (and that receives the state).
    pub origin: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LinkState {
    pub request: Request,
    pub view: ViewSettings,
    pub embed: Option<Embed>,
    /// A file of one's own attention to show, fetched from where the page allows (a URL,
    /// absolute or relative to the lab).
    pub src: Option<String>,
}

/// Something in a link that was not used, and why.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkNotice {
    /// A name the lab does not know (shortened).
    Unknown(String),
    /// A known name with a value that is not what it should be (both shortened).
    Malformed { name: String, value: String },
    /// A text too long for a link.
    TooLong { name: String, length: usize },
    /// A custom mask without its cells.
    MissingCells,
    /// An embed panel the lab does not have.
    UnknownPanel(String),
    /// A value that cannot work with the rest (`name` as the link names it, the value as text):
    /// left out, everything else kept.
    Dropped {
        name: String,
        value: String,
        reason: RequestError,
    },
    /// The values are each fine but impossible together: the lab's defaults were used.
    Impossible(RequestError),
    /// A head (from 1) past the lab's heads: the first head is shown.
    NoSuchHead { value: usize, heads: usize },
    /// A layer (from 1) past the trained model's layers, or any layer but the first with random
    /// weights (a single block): the first layer is shown.
    NoSuchLayer { value: usize, layers: usize },
    /// A `view` that names no part of the page (shortened).
    UnknownView(String),
}

impl LinkNotice {
    /// The notice in words.
    pub fn describe(&self, lang: Lang) -> String {
        let texts = &lang.text().link;
        match self {
            Self::Unknown(name) => (texts.unknown)(name),
            Self::Malformed { name, value } => (texts.malformed)(name, value),
            Self::TooLong { name, length } => (texts.too_long)(name, *length),
            Self::MissingCells => texts.missing_cells.into(),
            Self::UnknownPanel(name) => (texts.unknown_panel)(name),
            Self::Dropped {
                name,
                value,
                reason,
            } => (texts.dropped)(
                name,
                value,
                lang.request_error(reason).trim_end_matches(['.', '。']),
            ),
            // The reason goes inside brackets, mid-sentence: without its own full stop.
            Self::Impossible(error) => {
                (texts.impossible)(lang.request_error(error).trim_end_matches(['.', '。']))
            }
            Self::NoSuchHead { value, heads } => (texts.no_such_head)(*value, *heads),
            Self::NoSuchLayer { value, layers } => (texts.no_such_layer)(*value, *layers),
            Self::UnknownView(name) => (texts.unknown_view)(name),
        }
    }
}

/// At most `max` characters of `text`, marked when cut (for messages about hostile input).
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max).collect();
        cut.push('…');
        cut
    }
}

/// Percent-encodes a query component: unreserved ASCII stays, everything else as UTF-8 bytes.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Decodes a query component (`+` is a space); `None` when it is not valid percent-encoded UTF-8.
pub fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' => {
                let hex = text.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The choice named `name`.
pub fn choice_named<T: Choice>(name: &str) -> Option<T> {
    T::all().into_iter().find(|c| c.name() == name)
}

/// The query string (without `?`) of `state`: fields the request leaves unset are left out, so
/// a link says only what was chosen.
pub fn to_query(state: &LinkState) -> String {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    let r = &state.request;
    if let Some(model) = r.model {
        pairs.push(("model", model.name().into()));
    }
    if let Some(sentence) = &r.sentence {
        pairs.push(("sentence", sentence.clone()));
    }
    if let Some(source) = &r.source_sentence {
        pairs.push(("source_sentence", source.clone()));
    }
    let numbers = [
        ("d_model", r.d_model),
        ("n_heads", r.n_heads),
        ("n_kv_heads", r.n_kv_heads),
        ("d_k", r.d_k),
        ("d_v", r.d_v),
    ];
    for (name, value) in numbers {
        if let Some(value) = value {
            pairs.push((name, value.to_string()));
        }
    }
    if let Some(t) = r.temperature {
        pairs.push(("temperature", t.to_string()));
    }
    match &r.mask {
        None => {}
        Some(MaskRequest::None) => pairs.push(("mask", "none".into())),
        Some(MaskRequest::Causal) => pairs.push(("mask", "causal".into())),
        Some(MaskRequest::Padding { valid_len }) => {
            pairs.push(("mask", "padding".into()));
            pairs.push(("valid_len", valid_len.to_string()));
        }
        Some(MaskRequest::Window { radius }) => {
            pairs.push(("mask", "window".into()));
            pairs.push(("radius", radius.to_string()));
        }
        Some(MaskRequest::Sliding {
            radius,
            sink_tokens,
        }) => {
            pairs.push(("mask", "sliding".into()));
            pairs.push(("radius", radius.to_string()));
            if *sink_tokens > 0 {
                pairs.push(("sink_tokens", sink_tokens.to_string()));
            }
        }
        Some(MaskRequest::Custom { allowed }) => {
            pairs.push(("mask", "custom".into()));
            let rows: Vec<String> = allowed
                .iter()
                .map(|row| row.iter().map(|&a| if a { '1' } else { '0' }).collect())
                .collect();
            pairs.push(("cells", rows.join(".")));
        }
    }
    if let Some(seed) = r.seed {
        pairs.push(("seed", seed.to_string()));
    }
    if let Some(block) = r.block {
        if let Some(rows) = block.rows {
            pairs.push(("block_rows", rows.to_string()));
        }
        if let Some(cols) = block.cols {
            pairs.push(("block_cols", cols.to_string()));
        }
    }
    if let Some(backend) = r.backend {
        pairs.push(("backend", backend.name().into()));
    }
    if let Some(mode) = r.layer_norm {
        pairs.push(("layer_norm", mode.name().into()));
    }
    if let Some(position) = r.position {
        let (kind, offset) = match position {
            PositionRequest::Absolute { offset } => ("absolute", offset),
            PositionRequest::None { offset } => ("none", offset),
            PositionRequest::Alibi { offset } => ("alibi", offset),
            PositionRequest::Rope {
                base,
                pairing,
                offset,
            } => {
                pairs.push(("base", base.to_string()));
                let pairing = match pairing {
                    PairingRequest::Half => "half",
                    PairingRequest::Interleaved => "interleaved",
                };
                pairs.push(("pairing", pairing.into()));
                ("rope", offset)
            }
        };
        pairs.push(("position", kind.into()));
        if offset > 0 {
            pairs.push(("offset", offset.to_string()));
        }
    }
    if let Some(cap) = r.softcap {
        pairs.push(("softcap", cap.to_string()));
    }
    if r.qk_norm == Some(true) {
        pairs.push(("qk_norm", "1".into()));
    }
    if let Some(logits) = &r.sink_logits {
        let list: Vec<String> = logits.iter().map(|l| l.to_string()).collect();
        pairs.push(("sink_logits", list.join(",")));
    }
    let v = &state.view;
    // Heads and steps as the page numbers them, from 1.
    if v.head > 0 {
        pairs.push(("head", (v.head + 1).to_string()));
    }
    if v.step > 0 {
        pairs.push(("step", (v.step + 1).to_string()));
    }
    if v.layer > 0 {
        pairs.push(("layer", (v.layer + 1).to_string()));
    }
    if v.scale != ScaleMode::Honest {
        pairs.push(("scale", v.scale.name().into()));
    }
    if let Some(view) = &v.view {
        pairs.push(("view", view.clone()));
    }
    if let Some(lesson) = v.lesson {
        pairs.push(("lesson", lesson.id().into()));
    }
    let generation = v.generation;
    if generation.steps > 0 {
        pairs.push(("gen", generation.steps.to_string()));
        if generation.temperature > 0.0 {
            pairs.push(("gen_t", generation.temperature.to_string()));
            pairs.push(("gen_seed", generation.seed.to_string()));
        }
    }
    if let Some(lang) = v.lang {
        pairs.push(("lang", lang.name().into()));
    }
    if v.theme != Theme::Auto {
        pairs.push(("theme", v.theme.name().into()));
    }
    if let Some(embed) = &state.embed {
        pairs.push(("embed", "1".into()));
        if !embed.panels.is_empty() {
            pairs.push(("panels", embed.panels.join(",")));
        }
        if let Some(origin) = &embed.origin {
            pairs.push(("origin", origin.clone()));
        }
    }
    if let Some(src) = &state.src {
        pairs.push(("src", src.clone()));
    }
    pairs
        .iter()
        .map(|(name, value)| format!("{name}={}", encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The state a query string describes, and what in it could not be used.
pub fn parse_query(query: &str) -> (LinkState, Vec<LinkNotice>) {
    let mut state = LinkState::default();
    let mut notices = Vec::new();
    let mut mask_kind: Option<String> = None;
    let (mut valid_len, mut radius, mut cells, mut sink_tokens) = (None, None, None, None);
    let (mut position, mut base, mut pairing, mut offset) = (None, None, None, None);
    let mut embed = false;
    let mut panels = Vec::new();
    let mut origin = None;
    let mut src = None;
    let malformed = |name: &str, value: &str| LinkNotice::Malformed {
        name: shorten(name, 40),
        value: shorten(value, 40),
    };
    for pair in query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let (Some(name), Some(value)) = (decode(raw_name), decode(raw_value)) else {
            notices.push(malformed(raw_name, raw_value));
            continue;
        };
        if value.chars().count() > MAX_TEXT {
            notices.push(LinkNotice::TooLong {
                name: shorten(&name, 40),
                length: value.chars().count(),
            });
            continue;
        }
        let number = |notices: &mut Vec<LinkNotice>| -> Option<usize> {
            let parsed = value.parse::<usize>().ok();
            if parsed.is_none() {
                notices.push(malformed(&name, &value));
            }
            parsed
        };
        let r = &mut state.request;
        match name.as_str() {
            "sentence" => r.sentence = Some(value.clone()),
            "source_sentence" => r.source_sentence = Some(value.clone()),
            "d_model" => r.d_model = number(&mut notices).or(r.d_model),
            "n_heads" => r.n_heads = number(&mut notices).or(r.n_heads),
            "n_kv_heads" => r.n_kv_heads = number(&mut notices).or(r.n_kv_heads),
            "d_k" => r.d_k = number(&mut notices).or(r.d_k),
            "d_v" => r.d_v = number(&mut notices).or(r.d_v),
            "temperature" => match value.parse::<f64>() {
                Ok(t) if t.is_finite() => r.temperature = Some(t),
                _ => notices.push(malformed(&name, &value)),
            },
            "mask" => match value.as_str() {
                "none" | "causal" | "padding" | "window" | "sliding" | "custom" => {
                    mask_kind = Some(value.clone())
                }
                _ => notices.push(malformed(&name, &value)),
            },
            "valid_len" => valid_len = number(&mut notices),
            "radius" => radius = number(&mut notices),
            "sink_tokens" => sink_tokens = number(&mut notices),
            "cells" => {
                let rows: Option<Vec<Vec<bool>>> = value
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
                match rows {
                    Some(rows) => cells = Some(rows),
                    None => notices.push(malformed(&name, &value)),
                }
            }
            "seed" => match value.parse::<u64>() {
                Ok(seed) => r.seed = Some(seed),
                Err(_) => notices.push(malformed(&name, &value)),
            },
            "block_rows" => {
                if let Some(rows) = number(&mut notices) {
                    r.block = Some(BlockRequest {
                        rows: Some(rows),
                        ..r.block.unwrap_or_default()
                    });
                }
            }
            "block_cols" => {
                if let Some(cols) = number(&mut notices) {
                    r.block = Some(BlockRequest {
                        cols: Some(cols),
                        ..r.block.unwrap_or_default()
                    });
                }
            }
            "backend" => match choice_named::<BackendChoice>(&value) {
                Some(backend) => r.backend = Some(backend),
                None => notices.push(malformed(&name, &value)),
            },
            "position" => match value.as_str() {
                "absolute" | "none" | "rope" | "alibi" => position = Some(value.clone()),
                _ => notices.push(malformed(&name, &value)),
            },
            "base" => match value.parse::<f64>() {
                Ok(b) if b.is_finite() => base = Some(b),
                _ => notices.push(malformed(&name, &value)),
            },
            "pairing" => match value.as_str() {
                "half" => pairing = Some(PairingRequest::Half),
                "interleaved" => pairing = Some(PairingRequest::Interleaved),
                _ => notices.push(malformed(&name, &value)),
            },
            "offset" => offset = number(&mut notices),
            "softcap" => match value.parse::<f64>() {
                Ok(c) if c.is_finite() => r.softcap = Some(c),
                _ => notices.push(malformed(&name, &value)),
            },
            "qk_norm" => match value.as_str() {
                "1" | "true" => r.qk_norm = Some(true),
                "0" | "false" => r.qk_norm = Some(false),
                _ => notices.push(malformed(&name, &value)),
            },
            "sink_logits" => {
                let logits: Option<Vec<f64>> = value
                    .split(',')
                    .map(|v| v.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
                    .collect();
                match logits {
                    Some(logits) if !logits.is_empty() => r.sink_logits = Some(logits),
                    _ => notices.push(malformed(&name, &value)),
                }
            }
            "layer_norm" => match choice_named::<LayerNormRequest>(&value) {
                Some(mode) => r.layer_norm = Some(mode),
                None => notices.push(malformed(&name, &value)),
            },
            // Counted from 1, as the page shows them.
            "head" | "step" | "layer" => match value.parse::<usize>() {
                Ok(n) if n >= 1 => match name.as_str() {
                    "head" => state.view.head = n - 1,
                    "step" => state.view.step = n - 1,
                    _ => state.view.layer = n - 1,
                },
                _ => notices.push(malformed(&name, &value)),
            },
            // "gpt2" names the first trained model, as in a request.
            "model" => match choice_named::<ModelChoice>(&value)
                .or((value == "gpt2").then_some(ModelChoice::Trained))
            {
                Some(model) => r.model = Some(model),
                None => notices.push(malformed(&name, &value)),
            },
            "scale" => match ScaleMode::from_name(&value) {
                Some(mode) => state.view.scale = mode,
                None => notices.push(malformed(&name, &value)),
            },
            "view" => {
                if super::sections::Section::from_id(&value).is_some() {
                    state.view.view = Some(value.clone());
                } else {
                    notices.push(LinkNotice::UnknownView(shorten(&value, 40)));
                }
            }
            "lesson" => match Chapter::from_id(&value) {
                Some(chapter) => state.view.lesson = Some(chapter),
                None => notices.push(malformed(&name, &value)),
            },
            "lang" => match Lang::from_name(&value) {
                Some(lang) => state.view.lang = Some(lang),
                None => notices.push(malformed(&name, &value)),
            },
            "gen" => match value.parse::<usize>() {
                Ok(n) if (1..=attention_core::generate::MAX_STEPS).contains(&n) => {
                    state.view.generation.steps = n
                }
                _ => notices.push(malformed(&name, &value)),
            },
            "gen_t" => match value.parse::<f64>() {
                Ok(t) if t.is_finite() && (0.0..=2.0).contains(&t) => {
                    state.view.generation.temperature = t
                }
                _ => notices.push(malformed(&name, &value)),
            },
            "gen_seed" => match value.parse::<u64>() {
                Ok(seed) => state.view.generation.seed = seed,
                Err(_) => notices.push(malformed(&name, &value)),
            },
            "theme" => match Theme::from_name(&value) {
                Some(theme) => state.view.theme = theme,
                None => notices.push(malformed(&name, &value)),
            },
            "embed" => match value.as_str() {
                "1" | "true" => embed = true,
                "0" | "false" => embed = false,
                _ => notices.push(malformed(&name, &value)),
            },
            "panels" => {
                let list: Vec<String> = value
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(String::from)
                    .collect();
                // Known panels are kept; an unknown one is named in a notice.
                for panel in list {
                    if is_panel(&panel) {
                        panels.push(panel);
                    } else {
                        notices.push(LinkNotice::UnknownPanel(shorten(&panel, 40)));
                    }
                }
            }
            "origin" => {
                if is_origin(&value) {
                    origin = Some(value.clone());
                } else {
                    notices.push(malformed(&name, &value));
                }
            }
            // A URL (absolute, or relative to the lab), fetched as the browser allows.
            "src" => {
                if !value.trim().is_empty() && value.len() <= 2048 {
                    src = Some(value.trim().to_string());
                } else {
                    notices.push(malformed(&name, &value));
                }
            }
            _ => notices.push(LinkNotice::Unknown(shorten(&name, 40))),
        }
    }
    state.request.mask = match mask_kind.as_deref() {
        None => None,
        Some("none") => Some(MaskRequest::None),
        Some("causal") => Some(MaskRequest::Causal),
        Some("padding") => Some(MaskRequest::Padding {
            valid_len: valid_len.unwrap_or(0),
        }),
        Some("window") => Some(MaskRequest::Window {
            radius: radius.unwrap_or(1),
        }),
        Some("sliding") => Some(MaskRequest::Sliding {
            radius: radius.unwrap_or(1),
            sink_tokens: sink_tokens.unwrap_or(0),
        }),
        _ => match cells {
            Some(allowed) => Some(MaskRequest::Custom { allowed }),
            None => {
                notices.push(LinkNotice::MissingCells);
                None
            }
        },
    };
    let offset = offset.unwrap_or(0);
    state.request.position = match position.as_deref() {
        None => None,
        Some("none") => Some(PositionRequest::None { offset }),
        Some("rope") => Some(PositionRequest::Rope {
            base: base.unwrap_or(10_000.0),
            pairing: pairing.unwrap_or_default(),
            offset,
        }),
        Some("alibi") => Some(PositionRequest::Alibi { offset }),
        _ => Some(PositionRequest::Absolute { offset }),
    };
    if embed {
        state.embed = Some(Embed { panels, origin });
    }
    state.src = src;
    (state, notices)
}

/// A web origin: scheme, host and optional port, nothing else (`https://course.example:8443`).
pub fn is_origin(text: &str) -> bool {
    let Some(rest) = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
    else {
        return false;
    };
    !rest.is_empty()
        && rest.len() <= 253
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
}

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

/// Why a shared link may not bring back what the page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareWarning {
    /// The request holds numbers no link carries (the request's field names): one's own X,
    /// tokens or weights given through `set()`.
    Tensors(Vec<&'static str>),
    /// The link is this many bytes long, past [`LONG_LINK`].
    Long(usize),
}

impl ShareWarning {
    pub fn describe(&self, lang: Lang) -> String {
        let texts = &lang.text().link;
        match self {
            Self::Tensors(names) => (texts.tensors)(&names.join(", ")),
            Self::Long(bytes) => (texts.long_link)(bytes.div_ceil(1024)),
        }
    }
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
