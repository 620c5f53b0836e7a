//! "Why here?": one score of a head taken apart into what wrote it (the core's
//! [`attention_core::circuits`]), as the panel shows it: the terms as a matrix of query-side ×
//! key-side writers, the largest terms in sentences, and the whole row. And "Who wrote this
//! prediction?": a logit's parts as bars. Pure: tested natively.

use attention_core::Trace;
use attention_core::circuits::Components;
use attention_core::circuits::explain::{Explanation, Reading};
use attention_core::circuits::logit::logit_attribution;
use attention_core::models::{Forward, Model};
use attention_core::teaching::CircuitsExperiment;
use ndarray::Array2;

use super::colormap::Scale;
use super::format::format_value;
use super::matrix::{Legend, MatrixView};
use super::visible;
use crate::ui::i18n::Lang;

/// A component's name (`"L1.H2"`, `"token"`, …) as the page says it in a sentence.
pub fn writer(name: &str, lang: Lang) -> String {
    name_of(name, lang, false)
}

/// A component's name as a heatmap's label says it: short.
pub fn writer_short(name: &str, lang: Lang) -> String {
    name_of(name, lang, true)
}

fn name_of(name: &str, lang: Lang, short: bool) -> String {
    let t = lang.text().circuits;
    let layer = |rest: &str| rest.parse::<usize>().ok();
    match name {
        "token" if short => t.short[0].into(),
        "position" if short => t.short[1].into(),
        "bias" if short => t.short[2].into(),
        "token" => t.token.into(),
        "position" => t.position.into(),
        "x" => t.x.into(),
        "bias" => t.bias.into(),
        _ => {
            let Some(rest) = name.strip_prefix('L') else {
                return name.into();
            };
            let Some((l, part)) = rest.split_once('.') else {
                return name.into();
            };
            match (layer(l), part) {
                (Some(l), "mlp") if short => (t.short_mlp)(l),
                (Some(l), "attn_bias") if short => (t.short_attn_bias)(l),
                (Some(l), "mlp") => (t.mlp)(l),
                (Some(l), "attn_bias") => (t.attn_bias)(l),
                (Some(l), head) => match head.strip_prefix('H').and_then(|h| h.parse().ok()) {
                    Some(h) => (t.head)(l, h),
                    None => name.into(),
                },
                _ => name.into(),
            }
        }
    }
}

/// The query side's and the key side's writers of `reading`, named by `name`.
fn writers_of(
    reading: &Reading,
    lang: Lang,
    name: fn(&str, Lang) -> String,
) -> (Vec<String>, Vec<String>) {
    let named = |names: Vec<String>| names.iter().map(|n| name(n, lang)).collect();
    (named(reading.query_names()), named(reading.key_names()))
}

/// A term's value with its sign.
pub fn signed(value: f64) -> String {
    let text = format_value(value as f32);
    if value >= 0.0 && !text.starts_with('+') {
        format!("+{text}")
    } else {
        text
    }
}

/// What the panel shows of one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct WhyCell {
    pub heading: String,
    pub total: String,
    /// Said when the mask hides the key.
    pub masked: Option<&'static str>,
    /// ALiBi's and the soft-cap's terms, when they apply.
    pub extras: Vec<String>,
    /// The five largest terms, in sentences, largest |value| first.
    pub top: Vec<String>,
    /// The terms: query-side writers (rows) × key-side writers (columns), centred on 0.
    pub matrix: MatrixView,
}

/// The components entering the layer `trace` is (a trained model's layer, read from its forward
/// pass) or the sentence's X (random weights); `None` for a model's layer without its pass (a
/// model being switched).
pub fn components_of(trace: &Trace, model: Option<(&Model, &Forward)>) -> Option<Components> {
    match (trace.config.model_layer(), model) {
        (Some(layer), Some((model, forward))) => Some(Components::entering(model, forward, layer)),
        (Some(_), None) => None,
        (None, _) => Some(Components::of_sequence(trace.config.target())),
    }
}

fn token(trace: &Trace, key_side: bool, at: usize) -> String {
    let tokens = if key_side {
        &trace.config.key_sequence().tokens
    } else {
        &trace.config.target().tokens
    };
    visible(tokens.get(at).map_or("", String::as_str))
}

/// Head `head`'s score of `query` and `key` in `trace`, taken apart; `None` outside the trace.
pub fn why_cell(
    trace: &Trace,
    components: &Components,
    head: usize,
    query: usize,
    key: usize,
    lang: Lang,
) -> Option<WhyCell> {
    let reading = Reading::new(trace, components, head).ok()?;
    let e = reading.cell(query, key).ok()?;
    let t = lang.text().circuits;
    let (q_names, k_names) = writers_of(&reading, lang, writer);
    let total = format_value(e.score);
    // Under a soft-cap the terms add up to the score before the cap: each term is a part of that.
    let before_cap = e.terms.sum() + e.alibi.unwrap_or(0.0);
    let whole = if e.softcap.is_some() {
        format_value(before_cap as f32)
    } else {
        total.clone()
    };
    let mut pairs: Vec<(usize, usize, f64)> = e
        .terms
        .indexed_iter()
        .map(|((a, b), &v)| (a, b, v))
        .collect();
    pairs.sort_by(|x, y| y.2.abs().total_cmp(&x.2.abs()));
    let top = pairs
        .iter()
        .take(5)
        .map(|&(a, b, v)| (t.term)(&q_names[a], query, &k_names[b], key, &signed(v), &whole))
        .collect();
    let mut extras = Vec::new();
    if let Some(a) = e.alibi {
        extras.push((t.alibi)(&signed(a)));
    }
    if let Some(c) = e.softcap {
        extras.push((t.softcap)(&signed(c), &whole, &total));
    }
    let short = writers_of(&reading, lang, writer_short);
    let values: Array2<f32> = e.terms.mapv(|v| v as f32);
    let limit = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    Some(WhyCell {
        heading: (t.cell)(
            query,
            &token(trace, false, query),
            key,
            &token(trace, true, key),
        ),
        total: (t.total)(
            &total,
            &format_value(e.sum as f32),
            &e.weight.map_or_else(|| "—".into(), format_value),
        ),
        masked: e.masked.then_some(t.masked),
        extras,
        top,
        matrix: MatrixView {
            values,
            row_labels: short.0,
            col_labels: short.1,
            scale: Scale::Diverging { limit },
            legend: Legend::OwnRange,
            blocks: None,
        },
    })
}

/// One key of the row.
#[derive(Debug, Clone, PartialEq)]
pub struct WhyRowLine {
    pub key: usize,
    pub token: String,
    pub score: String,
    pub weight: String,
    /// The largest term, said as "query-side × key-side: value".
    pub strongest: String,
    pub masked: bool,
}

/// Every key of `query`'s row, and where the keys' side of the row's scores came from, weighted
/// by attention.
pub fn why_row(
    trace: &Trace,
    components: &Components,
    head: usize,
    query: usize,
    lang: Lang,
) -> Option<(String, Vec<WhyRowLine>)> {
    let reading = Reading::new(trace, components, head).ok()?;
    let row = reading.row(query).ok()?;
    let (q_names, k_names) = writers_of(&reading, lang, writer);
    let strongest = |e: &Explanation| {
        e.terms
            .indexed_iter()
            .max_by(|x, y| x.1.abs().total_cmp(&y.1.abs()))
            .map(|((a, b), &v)| format!("{} × {}: {}", q_names[a], k_names[b], signed(v)))
            .unwrap_or_default()
    };
    let lines = row
        .iter()
        .map(|e| WhyRowLine {
            key: e.key,
            token: token(trace, true, e.key),
            score: format_value(e.score),
            weight: e.weight.map_or_else(|| "—".into(), format_value),
            strongest: strongest(e),
            masked: e.masked,
        })
        .collect();
    // Each key-side writer's |part| of the scores, weighted by the attention each key got.
    let mut shares = vec![0.0f64; k_names.len()];
    for e in &row {
        let w = f64::from(e.weight.unwrap_or(0.0));
        for (b, share) in shares.iter_mut().enumerate() {
            *share += w * e.key_total(b).abs();
        }
    }
    let sum: f64 = shares.iter().sum();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&x, &y| shares[y].total_cmp(&shares[x]));
    let listed: Vec<String> = order
        .iter()
        .take(4)
        .filter(|&&b| sum > 0.0 && shares[b] > 0.0)
        .map(|&b| format!("{} {:.0}%", k_names[b], 100.0 * shares[b] / sum))
        .collect();
    let summary = (lang.text().circuits.row_summary)(&listed.join(", "));
    Some((summary, lines))
}

/// "Who wrote this prediction?": every writer's direct part of the logit of `id` after
/// `position`, largest |part| first, with the logit.
pub fn who_wrote(
    model: &Model,
    forward: &Forward,
    position: usize,
    character: &str,
    lang: Lang,
) -> Option<(String, Vec<(String, f64)>)> {
    let (names, parts) =
        logit_attribution(model, forward, position, &[character.to_string()]).ok()?;
    let parts = parts.into_iter().next()?;
    let mut bars: Vec<(String, f64)> = names
        .iter()
        .zip(&parts.parts)
        .map(|(n, &v)| (writer(n, lang), v))
        .collect();
    bars.sort_by(|x, y| y.1.abs().total_cmp(&x.1.abs()));
    Some((format_value(parts.total), bars))
}

/// The knocked-out heads as the page says them ("L1·H2, L2·H1 (mean)").
pub fn knocked_out(ablate: &[attention_core::api::AblateRequest], lang: Lang) -> String {
    let t = lang.text().circuits;
    ablate
        .iter()
        .map(|a| {
            let name = (t.head)(a.layer, a.head);
            if a.how == attention_core::api::KnockoutRequest::Mean {
                format!("{name} (μ)")
            } else {
                name
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn head_name((l, h): (usize, usize)) -> String {
    format!("L{}·H{}", l + 1, h + 1)
}

fn percent(p: f32) -> String {
    format!("{:.1}%", p * 100.0)
}

/// The circuits chapter's findings, one sentence each with its numbers, in `lang`.
pub fn circuit_findings(e: &CircuitsExperiment, lang: Lang) -> Vec<String> {
    let t = &lang.text().learn.circuits;
    let token = |i: usize| visible(e.tokens.get(i).map_or("", String::as_str));
    let (prev, ind) = (head_name(e.previous_head), head_name(e.induction_head));
    let writers: Vec<String> = e
        .key_writers
        .iter()
        .take(4)
        .map(|(n, v)| format!("{} {}", writer(n, lang), signed(*v)))
        .collect();
    let prev_name = format!("L1.H{}", e.previous_head.1 + 1);
    let own = e
        .key_writers
        .iter()
        .find(|(n, _)| *n == prev_name)
        .map_or(0.0, |(_, v)| *v);
    let (top, top_part) = e.key_writers.first().cloned().unwrap_or_default();
    let textbook = if top == prev_name {
        (t.textbook)(&signed(own))
    } else {
        (t.not_textbook)(&writer(&top, lang), &signed(top_part), &prev, &signed(own))
    };
    let three = |v: f32| format!("{v:.3}");
    let knocked = if (e.induction_weight - e.knocked_weight).abs() < 0.1 * e.induction_weight {
        (t.knocked_little)(&three(e.induction_weight), &three(e.knocked_weight))
    } else {
        (t.knocked)(&crate::ui::i18n::learn::Knocked {
            previous: &prev,
            induction: &ind,
            before: &three(e.induction_weight),
            after: &three(e.knocked_weight),
            top: &format!("“{}” {}", visible(&e.predicted.0), percent(e.predicted.1)),
            top_after: &format!(
                "“{}” {}",
                visible(&e.predicted_knocked.0),
                percent(e.predicted_knocked.1)
            ),
            copied: &token(e.target),
            p: &percent(e.copy_p.0),
            p_after: &percent(e.copy_p.1),
        })
    };
    vec![
        (t.found)(
            e.query,
            &token(e.query),
            e.earlier,
            e.target,
            &token(e.target),
        ),
        (t.heads)(
            &prev,
            &format!("{:.2}", e.previous_share),
            &ind,
            &three(e.induction_weight),
        ),
        (t.writers)(
            &format!("{:.2}", e.score),
            &writers.join(if lang == Lang::Zh { "，" } else { ", " }),
        ),
        textbook,
        (t.composition)(
            &prev,
            &ind,
            &three(e.composition as f32),
            &three(e.baseline as f32),
            &e.strongest.0.replace('.', "·"),
            &three(e.strongest.1 as f32),
        ),
        knocked,
    ]
}
