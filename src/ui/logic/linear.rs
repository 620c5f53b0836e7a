//! The "Linear attention" section's pictures, from the core's [`LinearView`] of the selected
//! head: the softmax weights and A on one signed scale, β and α as strips, the state after a
//! token.

use ndarray::Array2;

use super::colormap::Scale;
use super::format::significant;
use super::matrix::{Legend, MatrixView};
use super::visible_all;
use attention_core::teaching::linear::LinearView;

/// The softmax weights and A, on one diverging scale ±the largest |value| of either.
pub fn pair(view: &LinearView, tokens: &[String]) -> (MatrixView, MatrixView) {
    let limit = view
        .matrix
        .iter()
        .chain(view.softmax.iter())
        .fold(0.0f32, |m, v| m.max(v.abs()))
        .max(f32::MIN_POSITIVE);
    let labels = visible_all(tokens);
    let of = |values: &Array2<f32>| MatrixView {
        values: values.clone(),
        row_labels: labels.clone(),
        col_labels: labels.clone(),
        scale: Scale::Diverging { limit },
        legend: Legend::SharedPair,
        blocks: None,
    };
    (of(&view.softmax), of(&view.matrix))
}

/// β (and α, when gated) as rows over the tokens, on 0 … 1.
pub fn strips(view: &LinearView, tokens: &[String], rows: [&str; 2]) -> MatrixView {
    let n = view.beta.len();
    let with_alpha = view.alpha.is_some();
    let values = Array2::from_shape_fn((if with_alpha { 2 } else { 1 }, n), |(r, t)| match r {
        0 => view.beta[t],
        _ => view.alpha.as_ref().map_or(1.0, |a| a[t]),
    });
    MatrixView {
        values,
        row_labels: rows
            .iter()
            .take(if with_alpha { 2 } else { 1 })
            .map(|r| r.to_string())
            .collect(),
        col_labels: visible_all(tokens),
        scale: Scale::UNIT,
        legend: Legend::Fixed,
        blocks: None,
    }
}

/// The state after token `t` (the last kept one when `t` is past them), on one diverging scale
/// for every token's state, so that the slider shows it grow and fade.
pub fn state(view: &LinearView, t: usize) -> Option<MatrixView> {
    let s = view.states.get(t.min(view.states.len().checked_sub(1)?))?;
    let limit = view
        .states
        .iter()
        .flat_map(|s| s.iter())
        .fold(0.0f32, |m, v| m.max(v.abs()))
        .max(f32::MIN_POSITIVE);
    Some(MatrixView {
        values: s.clone(),
        row_labels: (0..s.nrows()).map(|r| format!("k{r}")).collect(),
        col_labels: (0..s.ncols()).map(|c| format!("v{c}")).collect(),
        scale: Scale::Diverging { limit },
        legend: Legend::SharedStates,
        blocks: None,
    })
}

/// The smallest and largest row sum of A, to 3 significant figures.
pub fn row_sum_range(view: &LinearView) -> (String, String) {
    let (lo, hi) = view
        .row_sums
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &s| {
            (lo.min(s), hi.max(s))
        });
    (significant(lo, 3), significant(hi, 3))
}

impl super::controls::Choice for attention_core::math::linear::LinearKind {
    fn all() -> Vec<Self> {
        Self::ALL.to_vec()
    }

    fn label(self, lang: crate::ui::i18n::Lang) -> &'static str {
        lang.text().linear.kinds[Self::ALL.iter().position(|&k| k == self).unwrap_or(0)].0
    }

    fn name(self) -> &'static str {
        attention_core::math::linear::LinearKind::name(self)
    }
}
