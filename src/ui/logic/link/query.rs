//! The query string of a state, and the state of a query string (every name known, every value
//! checked; what cannot be used is named in a notice). The request's parameters read and write
//! as the core's table of fields says ([`attention_core::api::fields`]); the view settings, the
//! embedding and the file are the page's own.

use attention_core::api::fields::{LinkError, from_link, to_link};
use attention_core::api::{FIELDS, Request};
use attention_core::teaching::Chapter;

use super::codec::{decode, encode, is_origin, shorten};
use super::notice::LinkNotice;
use super::state::{Embed, LinkState, MAX_TEXT, ViewSettings};
use crate::ui::i18n::Lang;
use crate::ui::logic::colormap::ScaleMode;
use crate::ui::logic::sections::{Section, is_panel};
use crate::ui::logic::theme::Theme;

/// The link parameters of `request`, in the table's order: fields it leaves unset are left out,
/// so a link says only what was chosen.
pub fn request_pairs(request: &Request) -> Vec<(&'static str, String)> {
    FIELDS
        .iter()
        .filter(|f| !f.link_names().is_empty() && request.is_given(f.name))
        .flat_map(|f| to_link(f, &request.field_json(f.name)))
        .collect()
}

/// The query string (without `?`) of `state`.
pub fn to_query(state: &LinkState) -> String {
    let mut pairs: Vec<(&str, String)> = request_pairs(&state.request);
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
    if let Some(src) = &state.model_src {
        pairs.push(("model_src", src.clone()));
    }
    pairs
        .iter()
        .map(|(name, value)| format!("{name}={}", encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The request a link's parameters (`get(name)`: a parameter's text) give, and what in them
/// could not be used.
pub fn request_from_pairs(get: &dyn Fn(&str) -> Option<String>) -> (Request, Vec<LinkNotice>) {
    let mut request = Request::default();
    let mut notices = Vec::new();
    for field in FIELDS.iter().filter(|f| !f.link_names().is_empty()) {
        let (value, errors) = from_link(field, get);
        notices.extend(errors.into_iter().map(|error| match error {
            LinkError::Malformed { name, value } => malformed(name, &value),
            LinkError::Missing { name, kind } => LinkNotice::Missing {
                name: name.to_string(),
                field: field.name.to_string(),
                kind,
            },
        }));
        if let Some(value) = value
            && request.set_field_json(field.name, value).is_err()
        {
            let text = field
                .link_names()
                .iter()
                .find_map(|n| get(n))
                .unwrap_or_default();
            notices.push(malformed(field.name, &text));
        }
    }
    (request, notices)
}

fn malformed(name: &str, value: &str) -> LinkNotice {
    LinkNotice::Malformed {
        name: shorten(name, 40),
        value: shorten(value, 40),
    }
}

/// The state a query string describes, and what in it could not be used.
pub fn parse_query(query: &str) -> (LinkState, Vec<LinkNotice>) {
    let request_names: Vec<&str> = FIELDS.iter().flat_map(|f| f.link_names()).collect();
    let mut given: Vec<(&'static str, String)> = Vec::new();
    let mut view = ViewSettings::default();
    let mut notices = Vec::new();
    let mut embed = false;
    let mut panels = Vec::new();
    let mut origin = None;
    let mut src = None;
    let mut model_src = None;
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
        if let Some(&known) = request_names.iter().find(|&&n| n == name) {
            given.push((known, value));
            continue;
        }
        let mut bad = || notices.push(malformed(&name, &value));
        match name.as_str() {
            // Counted from 1, as the page shows them.
            "head" | "step" | "layer" => match value.parse::<usize>() {
                Ok(n) if n >= 1 => match name.as_str() {
                    "head" => view.head = n - 1,
                    "step" => view.step = n - 1,
                    _ => view.layer = n - 1,
                },
                _ => bad(),
            },
            "scale" => match ScaleMode::from_name(&value) {
                Some(mode) => view.scale = mode,
                None => bad(),
            },
            "view" => {
                if Section::from_id(&value).is_some() {
                    view.view = Some(value.clone());
                } else {
                    notices.push(LinkNotice::UnknownView(shorten(&value, 40)));
                }
            }
            "lesson" => match Chapter::from_id(&value) {
                Some(chapter) => view.lesson = Some(chapter),
                None => bad(),
            },
            "lang" => match Lang::from_name(&value) {
                Some(lang) => view.lang = Some(lang),
                None => bad(),
            },
            "gen" => match value.parse::<usize>() {
                Ok(n) if (1..=attention_core::models::generate::MAX_STEPS).contains(&n) => {
                    view.generation.steps = n
                }
                _ => bad(),
            },
            "gen_t" => match value.parse::<f64>() {
                Ok(t) if t.is_finite() && (0.0..=2.0).contains(&t) => {
                    view.generation.temperature = t
                }
                _ => bad(),
            },
            "gen_seed" => match value.parse::<u64>() {
                Ok(seed) => view.generation.seed = seed,
                Err(_) => bad(),
            },
            "theme" => match Theme::from_name(&value) {
                Some(theme) => view.theme = theme,
                None => bad(),
            },
            "embed" => match value.as_str() {
                "1" | "true" => embed = true,
                "0" | "false" => embed = false,
                _ => bad(),
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
                    bad();
                }
            }
            // A URL (absolute, or relative to the lab), fetched as the browser allows.
            "src" => {
                if !value.trim().is_empty() && value.len() <= 2048 {
                    src = Some(value.trim().to_string());
                } else {
                    bad();
                }
            }
            // A model folder's address, fetched as the browser allows.
            "model_src" => {
                if !value.trim().is_empty() && value.len() <= 2048 {
                    model_src = Some(value.trim().to_string());
                } else {
                    bad();
                }
            }
            _ => notices.push(LinkNotice::Unknown(shorten(&name, 40))),
        }
    }
    // The last of a name given twice wins.
    let get = |name: &str| {
        given
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    };
    let (request, request_notices) = request_from_pairs(&get);
    notices.extend(request_notices);
    let state = LinkState {
        request,
        view,
        embed: embed.then_some(Embed { panels, origin }),
        src,
        model_src,
    };
    (state, notices)
}
