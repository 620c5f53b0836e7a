//! The "Linear attention" section's pictures, from the core's [`LinearView`] of the selected
//! head: the softmax weights and A on one signed scale, β and α as strips, the state after a
//! token.

use ndarray::Array2;

use super::colormap::Scale;
use super::format::significant;
use super::matrix::{Legend, MatrixView};
use super::visible_all;
use attention_core::teaching::linear::LinearView;

/// The softmax weights and A, on one diverging scale ±the largest |value| of either; `shared`:
/// drawn side by side (else A stands alone, a trained layer's, on its own range).
pub fn pair(view: &LinearView, tokens: &[String], shared: bool) -> (MatrixView, MatrixView) {
    let beside = view.softmax.iter().filter(|_| shared);
    let limit = view
        .matrix
        .iter()
        .chain(beside)
        .fold(0.0f32, |m, v| m.max(v.abs()))
        .max(f32::MIN_POSITIVE);
    let labels = visible_all(tokens);
    let of = |values: &Array2<f32>| MatrixView {
        values: values.clone(),
        row_labels: labels.clone(),
        col_labels: labels.clone(),
        scale: Scale::Diverging { limit },
        legend: if shared {
            Legend::SharedPair
        } else {
            Legend::OwnRange
        },
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

/// A hybrid's memory against length (issue 42): what it holds (its linear layers' fixed states
/// plus its full layers' keys and values) beside the same model with every layer softmax
/// attention, in KiB on log–log axes, the crossover marked.
pub fn hybrid_memory(
    sizes: &attention_core::models::generate::CacheSizes,
    labels: [&str; 5],
    ink: (u8, u8, u8),
) -> super::line_chart::LineChart {
    use super::line_chart::{COLORS, LineChart, Series};
    const LENGTHS: [usize; 11] = [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
    let [title, x, y, hybrid, softmax] = labels;
    let line = |label: &str, color: usize, f: &dyn Fn(usize) -> usize| Series {
        label: label.to_string(),
        points: LENGTHS
            .iter()
            .map(|&n| (n as f64, f(n) as f64 / 1024.0))
            .collect(),
        color: COLORS[color],
        reference: false,
        points_only: false,
    };
    LineChart {
        title: title.to_string(),
        x_label: x.to_string(),
        y_label: y.to_string(),
        x_log: true,
        y_log: true,
        series: vec![
            line(hybrid, 0, &|n| sizes.hybrid_bytes(n)),
            line(softmax, 1, &|n| sizes.all_softmax_bytes(n)),
        ],
        marker: sizes.crossover_tokens().map(|t| t as f64),
        ink,
    }
}

/// The page's attention, as the control panel offers it: the softmax or a kind of linear
/// attention (the request's `linear`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionChoice {
    Softmax,
    Linear(attention_core::math::linear::LinearKind),
}

impl AttentionChoice {
    /// What `request` asks for.
    pub fn of(request: &attention_core::api::Request) -> Self {
        request
            .linear
            .map_or(Self::Softmax, |l| Self::Linear(l.spec().kind))
    }

    /// The request's `linear` for this choice, keeping the chunk of `before`.
    pub fn request(
        self,
        before: Option<attention_core::api::LinearRequest>,
    ) -> Option<attention_core::api::LinearRequest> {
        use attention_core::api::{LinearKindRequest, LinearRequest};
        use attention_core::math::linear::LinearKind;
        let Self::Linear(kind) = self else {
            return None;
        };
        Some(LinearRequest {
            kind: match kind {
                LinearKind::Elu => LinearKindRequest::Elu,
                LinearKind::Delta => LinearKindRequest::Delta,
                LinearKind::GatedDelta => LinearKindRequest::GatedDelta,
            },
            chunk: before.and_then(|b| b.chunk),
        })
    }
}

impl super::controls::Choice for AttentionChoice {
    fn all() -> Vec<Self> {
        std::iter::once(Self::Softmax)
            .chain(
                attention_core::math::linear::LinearKind::ALL
                    .into_iter()
                    .map(Self::Linear),
            )
            .collect()
    }

    fn label(self, lang: crate::ui::i18n::Lang) -> &'static str {
        match self {
            Self::Softmax => lang.text().linear.softmax_kind,
            Self::Linear(kind) => kind.label(lang),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Softmax => "softmax",
            Self::Linear(kind) => kind.name(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::logic::controls::Choice;
    use attention_core::api::{LinearKindRequest, LinearRequest, Request};
    use attention_core::math::linear::LinearKind;

    #[test]
    fn the_attention_choice_reads_and_writes_the_requests_linear_keeping_its_chunk() {
        assert_eq!(
            AttentionChoice::of(&Request::default()),
            AttentionChoice::Softmax
        );
        let before = LinearRequest {
            kind: LinearKindRequest::Elu,
            chunk: Some(16),
        };
        let request = Request {
            linear: Some(before),
            ..Request::default()
        };
        assert_eq!(
            AttentionChoice::of(&request),
            AttentionChoice::Linear(LinearKind::Elu)
        );
        let delta = AttentionChoice::Linear(LinearKind::Delta).request(Some(before));
        assert_eq!(
            delta,
            Some(LinearRequest {
                kind: LinearKindRequest::Delta,
                chunk: Some(16)
            })
        );
        assert_eq!(AttentionChoice::Softmax.request(Some(before)), None);
        let names: Vec<_> = AttentionChoice::all()
            .into_iter()
            .map(|c| c.name())
            .collect();
        assert_eq!(names, ["softmax", "elu", "delta", "gated_delta"]);
    }
}
