//! The circuits chapter: why a head attends. On the learner's own text with a trained model:
//! the last character that appeared before (the query), the character after its earlier
//! occurrence (the target key an induction head looks at), the layer-1 head that looks most at
//! the previous character, the later head that looks most at the target; the induction head's
//! score taken apart (which writers its key read), the K-composition from the previous-token
//! head into it against a random baseline, and what knocking the previous-token head out does
//! to the pattern and to the prediction.

use crate::circuits::composition::composition;
use crate::circuits::{Components, explain_cell};
use crate::models::{Forward, Model, ModelRun};
use crate::pipeline::knockout::{HeadKnockout, Knockout};

/// What the chapter measures.
#[derive(Debug, Clone, PartialEq)]
pub struct CircuitsExperiment {
    pub tokens: Vec<String>,
    /// The last position whose character appeared earlier, and that earlier position.
    pub query: usize,
    pub earlier: usize,
    /// earlier + 1: where an induction head looks.
    pub target: usize,
    /// (layer, head) from 0 of the layer-1 head with the largest mean weight on the previous
    /// character, and that weight.
    pub previous_head: (usize, usize),
    pub previous_share: f32,
    /// (layer, head) from 0 of the later head with the largest weight on the target at the
    /// query, and that weight.
    pub induction_head: (usize, usize),
    pub induction_weight: f32,
    /// The induction head's score of the target, and its key side's writers (component name,
    /// its part of the score), largest |part| first.
    pub score: f32,
    pub key_writers: Vec<(String, f64)>,
    /// K-composition of the previous-token head into the induction head, the strongest earlier
    /// head's, and the random baseline.
    pub composition: f64,
    pub strongest: (String, f64),
    pub baseline: f64,
    /// The induction head's weight on the target with the previous-token head knocked out.
    pub knocked_weight: f32,
    /// The likeliest next character after the query and its probability, whole and knocked
    /// out; and the target's character's probability, whole and knocked out.
    pub predicted: (String, f32),
    pub predicted_knocked: (String, f32),
    pub copy_p: (f32, f32),
}

/// Why the chapter cannot run on this text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CircuitsRefusal {
    #[error("the model has one layer: no head can read another's output")]
    OneLayer,
    #[error(
        "no character of the text appears twice with a character after its first occurrence: type a string twice"
    )]
    NoRepeat,
    #[error("the text does not fit the model")]
    Text,
    #[error(
        "a hybrid's linear layers have no attention weights to find a previous-token or induction head in: choose a softmax model"
    )]
    Hybrid,
}

/// The chapter's measurements on `text` read by `model` under `run` (the page's mask,
/// temperature, score options and heads already knocked out: the numbers "Why here?" shows).
pub fn run(
    model: &Model,
    text: &str,
    run: &ModelRun,
) -> Result<CircuitsExperiment, CircuitsRefusal> {
    if model.blocks.len() < 2 {
        return Err(CircuitsRefusal::OneLayer);
    }
    if model.config.hybrid_every.is_some() {
        return Err(CircuitsRefusal::Hybrid);
    }
    let forward = model.read(text, run).map_err(|_| CircuitsRefusal::Text)?;
    let ids = &forward.ids;
    let n = ids.len();
    // The last query whose character occurred before, not right before it.
    let (query, earlier) = (1..n)
        .rev()
        .find_map(|i| {
            (0..i.saturating_sub(1))
                .rev()
                .find(|&j| ids[j] == ids[i])
                .map(|j| (i, j))
        })
        .ok_or(CircuitsRefusal::NoRepeat)?;
    let target = earlier + 1;
    let heads = model.config.n_heads;
    let first = &forward.layers[0].attention;
    let previous_of = |h: usize| {
        let w = &first.heads[h].weights;
        (1..n).map(|i| w[[i, i - 1]]).sum::<f32>() / (n - 1).max(1) as f32
    };
    let previous = (0..heads)
        .max_by(|&a, &b| previous_of(a).total_cmp(&previous_of(b)))
        .unwrap_or(0);
    let later: Vec<(usize, usize)> = (1..forward.layers.len())
        .flat_map(|l| (0..heads).map(move |h| (l, h)))
        .collect();
    let weight = |f: &Forward, (l, h): (usize, usize)| {
        f.layers[l].attention.heads[h].weights[[query, target]]
    };
    let induction = later
        .iter()
        .copied()
        .max_by(|&a, &b| weight(&forward, a).total_cmp(&weight(&forward, b)))
        .unwrap_or((1, 0));
    let trace = &forward.layers[induction.0].attention;
    let components = Components::entering(model, &forward, induction.0);
    let cell = explain_cell(trace, &components, induction.1, query, target)
        .map_err(|_| CircuitsRefusal::Text)?;
    let mut key_writers: Vec<(String, f64)> = components
        .names
        .iter()
        .cloned()
        .chain(["bias".to_string()])
        .enumerate()
        .map(|(b, name)| (name, cell.key_total(b)))
        .collect();
    key_writers.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let scores = composition(model);
    let at = |(l, h): (usize, usize)| l * heads + h;
    let into = at(induction);
    let composition_of = |a: usize| scores.k[a][into].unwrap_or(0.0);
    let strongest = (0..into)
        .filter(|&a| scores.k[a][into].is_some())
        .max_by(|&a, &b| composition_of(a).total_cmp(&composition_of(b)))
        .map_or((String::new(), 0.0), |a| {
            (scores.heads[a].clone(), composition_of(a))
        });
    let knocked = model
        .read(
            text,
            &ModelRun {
                ablate: run
                    .ablate
                    .iter()
                    .copied()
                    .chain([HeadKnockout {
                        layer: 0,
                        head: previous,
                        how: Knockout::Zero,
                    }])
                    .collect(),
                ..run.clone()
            },
        )
        .map_err(|_| CircuitsRefusal::Text)?;
    let top = |f: &Forward| {
        model
            .predictions(f, query, 1)
            .first()
            .map(|p| (model.vocab[p.id as usize].clone(), p.p))
            .unwrap_or_default()
    };
    let copy_p = |f: &Forward| {
        let logits = model.logits(f, query);
        let max = logits.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
        let sum: f32 = logits.iter().map(|&v| (v - max).exp()).sum();
        (logits[ids[target] as usize] - max).exp() / sum
    };
    Ok(CircuitsExperiment {
        tokens: forward.tokens.clone(),
        query,
        earlier,
        target,
        previous_head: (0, previous),
        previous_share: previous_of(previous),
        induction_head: induction,
        induction_weight: weight(&forward, induction),
        score: cell.score,
        key_writers,
        composition: composition_of(at((0, previous))),
        strongest,
        baseline: scores.baseline,
        knocked_weight: weight(&knocked, induction),
        predicted: top(&forward),
        predicted_knocked: top(&knocked),
        copy_p: (copy_p(&forward), copy_p(&knocked)),
    })
}
