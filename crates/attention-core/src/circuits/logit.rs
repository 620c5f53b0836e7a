//! Direct logit attribution: the final norm frozen at its input, each component's part of the
//! normed stream times a character's row of the (tied) unembedding is its direct contribution to
//! that character's logit; the parts and β·row (`"bias"`) sum to the logit exactly. "Direct":
//! what a component writes that later layers also read counts here only for its direct path.

use ndarray::Array1;

use crate::circuits::components::{BIAS, Components};
use crate::circuits::error::{ExplainError, position};
use crate::circuits::frozen::FrozenNorm;
use crate::models::{Forward, Model};

/// One character's logit at one position, taken apart.
#[derive(Debug, Clone, PartialEq)]
pub struct LogitParts {
    /// The character's id in the vocabulary.
    pub id: u32,
    /// Per component (`"bias"` last), its direct contribution.
    pub parts: Vec<f64>,
    /// The logit as the model computes it, before a soft-cap on the logits (Gemma 2's): what
    /// the parts sum to.
    pub total: f32,
}

/// Every component's name (`"bias"` last) and each asked character's logit after `position`
/// (from 0), taken apart. A character outside the vocabulary is refused.
pub fn logit_attribution(
    model: &Model,
    forward: &Forward,
    at: usize,
    chars: &[String],
) -> Result<(Vec<String>, Vec<LogitParts>), ExplainError> {
    let at = position("logit_attribution.position", at, forward.ids.len())?;
    // The characters first: a refusal costs no arithmetic.
    let ids = chars
        .iter()
        .map(|text| {
            let mut letters = text.chars();
            let (Some(c), None) = (letters.next(), letters.next()) else {
                return Err(ExplainError::Other {
                    field: "logit_attribution.chars",
                    message: format!("{text:?} is not one character"),
                });
            };
            model.id_of(c).ok_or_else(|| ExplainError::Other {
                field: "logit_attribution.chars",
                message: format!("{c:?} is not in the model's vocabulary"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Only the position asked about: each head's one row through W_O.
    let components = Components::entering_rows(model, forward, forward.layers.len(), at..at + 1);
    let input = forward.layers.last().map_or_else(
        || &forward.embeddings + &forward.positions,
        |l| l.residual_out.clone(),
    );
    let norm = FrozenNorm::at(&model.final_norm, input.view());
    let d = model.config.d_model;
    let normed: Vec<Array1<f64>> = components
        .parts
        .iter()
        .map(|part| norm.part(at, part.row(0)))
        .chain([norm.constant(d)])
        .collect();
    // The logit before Gemma 2's soft-cap: what the parts sum to.
    let logits = model.unembedding().dot_vector(forward.final_norm.row(at));
    let parts = ids
        .into_iter()
        .map(|id| {
            let row = model.unembedding().row(id as usize).mapv(f64::from);
            LogitParts {
                id,
                parts: normed.iter().map(|n| n.dot(&row)).collect(),
                total: logits[id as usize],
            }
        })
        .collect();
    let names = components
        .names
        .into_iter()
        .chain([BIAS.to_string()])
        .collect();
    Ok((names, parts))
}
