//! The query string of a state, and the state of a query string (every name known, every value
//! checked; what cannot be used is named in a notice).

use super::codec::{choice_named, decode, encode, is_origin, shorten};
use super::notice::LinkNotice;
use super::state::{Embed, LinkState, MAX_TEXT};
use crate::ui::i18n::Lang;
use crate::ui::logic::colormap::ScaleMode;
use crate::ui::logic::controls::Choice;
use crate::ui::logic::sections::{Section, is_panel};
use crate::ui::logic::theme::Theme;
use attention_core::api::{
    BackendChoice, BlockRequest, LayerNormRequest, MaskRequest, ModelChoice, PairingRequest,
    PositionRequest,
};
use attention_core::teaching::Chapter;

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
                if Section::from_id(&value).is_some() {
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
                Ok(n) if (1..=attention_core::models::generate::MAX_STEPS).contains(&n) => {
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
