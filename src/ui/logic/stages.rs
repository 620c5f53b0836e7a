//! The matrices of the pipeline, as the views show them: where each comes from in a trace, its
//! axis labels, its colour scale, and how one of its cells was computed, with the actual numbers.
//! Pure functions of a trace: testable without a browser, and views never recompute attention.

use ndarray::Array2;

use super::colormap::{Scale, ScaleMode};
use super::matrix::{Blocks, Legend, MatrixView};
use attention_core::pipeline::overview::{self, OverviewOf, Reduction};
use attention_core::{LayerNormMode, Trace};
use std::ops::Range;

/// One matrix of the pipeline, in the order the computation produces them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// E [seq_len, d_model]: one vector per token.
    Embeddings,
    /// P [seq_len, d_model]: sinusoidal positions.
    Positions,
    /// X = E + P [seq_len, d_model].
    X,
    /// LN(X) under Pre-LN: what the queries are projected from.
    NormedX,
    /// Q of the selected head [seq_len, d_k].
    Q,
    /// K of the selected head's K/V group [key_len, d_k].
    K,
    /// V of the selected head's K/V group [key_len, d_v].
    V,
    /// QKᵀ [seq_len, key_len], before scaling.
    Dot,
    /// QKᵀ / (√d_k · T).
    Scaled,
    /// Scaled scores + M: −∞ where masked.
    Masked,
    /// softmax over each row.
    Weights,
    /// weights · V [seq_len, d_v].
    HeadOutput,
    /// All head outputs side by side [seq_len, n_heads·d_v].
    Concat,
    /// concat · W_O [seq_len, d_model].
    Projected,
    /// After the residual and LayerNorm [seq_len, d_model] (when LayerNorm is on).
    Output,
}

impl Stage {
    pub const ALL: [Stage; 15] = [
        Stage::Embeddings,
        Stage::Positions,
        Stage::X,
        Stage::NormedX,
        Stage::Q,
        Stage::K,
        Stage::V,
        Stage::Dot,
        Stage::Scaled,
        Stage::Masked,
        Stage::Weights,
        Stage::HeadOutput,
        Stage::Concat,
        Stage::Projected,
        Stage::Output,
    ];

    /// The stage named `id` (as in links and embeds).
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.id() == id)
    }

    /// Whether its columns are keys (a score or weight matrix).
    pub fn is_keyed(self) -> bool {
        matches!(
            self,
            Self::Dot | Self::Scaled | Self::Masked | Self::Weights
        )
    }

    /// A stable name, used in `data-testid="heatmap-{id}"`.
    pub fn id(self) -> &'static str {
        match self {
            Self::Embeddings => "embeddings",
            Self::Positions => "positions",
            Self::X => "x",
            Self::NormedX => "normed-x",
            Self::Q => "q",
            Self::K => "k",
            Self::V => "v",
            Self::Dot => "dot",
            Self::Scaled => "scaled",
            Self::Masked => "masked",
            Self::Weights => "weights",
            Self::HeadOutput => "head-output",
            Self::Concat => "concat",
            Self::Projected => "projected",
            Self::Output => "output",
        }
    }

    /// Whether this trace has the matrix (E and P need tokens; LN(X) needs Pre-LN; the final
    /// output differs from concat·W_O only with LayerNorm).
    pub fn is_shown(self, trace: &Trace) -> bool {
        match self {
            Self::Embeddings | Self::Positions => trace.config.target().parts.is_some(),
            Self::NormedX => trace.config.layer_norm() == LayerNormMode::Pre,
            Self::Output => trace.config.layer_norm() != LayerNormMode::None,
            // Linear attention has no scores: the trace's scores hold A, not q·k.
            Self::Dot | Self::Scaled | Self::Masked if trace.config.linear().is_some() => false,
            // A summarised trace keeps overviews of the scores only: with a bias or a cap they
            // are not q·k times a scale, so the overview of q·k cannot be derived from them.
            Self::Dot => {
                !(trace.is_summarised()
                    && (0..trace.heads.len()).any(|h| trace.config.scoring(h).shapes()))
            }
            _ => true,
        }
    }

    /// Whether the matrix belongs to one head (and changes with the head selector).
    pub fn is_per_head(self) -> bool {
        matches!(
            self,
            Self::Q
                | Self::K
                | Self::V
                | Self::Dot
                | Self::Scaled
                | Self::Masked
                | Self::Weights
                | Self::HeadOutput
        )
    }

    /// Whether this stage's matrix is an overview of blocks in `trace` (a summarised trace keeps
    /// no n² matrix: see `attention_core::pipeline::overview`).
    pub fn is_overview(self, trace: &Trace) -> bool {
        self.is_keyed() && trace.is_summarised()
    }

    /// The matrix of `head` (clamped to the trace's heads). Masked cells of [`Stage::Masked`]
    /// are −∞. For a summarised trace's keyed stages, the overview's blocks, reduced by
    /// `reduction`.
    pub fn matrix(self, trace: &Trace, head: usize) -> Array2<f32> {
        self.matrix_reduced(trace, head, Reduction::Max)
    }

    /// [`Stage::matrix`], with blocks of an overview reduced by `reduction`.
    pub fn matrix_reduced(self, trace: &Trace, head: usize, reduction: Reduction) -> Array2<f32> {
        let head = head.min(trace.heads.len() - 1);
        let h = &trace.heads[head];
        let config = &trace.config;
        if self.is_overview(trace) {
            let overview = &trace.overviews[head];
            return match self {
                Self::Dot => {
                    let scale = config.scale();
                    overview
                        .blocks(OverviewOf::Scores, reduction)
                        .mapv(|s| s / scale)
                }
                Self::Scaled => overview.blocks(OverviewOf::Scores, reduction).clone(),
                Self::Masked => overview.blocks(OverviewOf::Masked, reduction).clone(),
                _ => overview.blocks(OverviewOf::Weights, reduction).clone(),
            };
        }
        match self {
            Self::Embeddings => config
                .target()
                .parts
                .as_ref()
                .map_or_else(|| config.target().x.clone(), |(e, _)| e.clone()),
            Self::Positions => config.target().parts.as_ref().map_or_else(
                || Array2::zeros(config.target().x.dim()),
                |(_, p)| p.clone(),
            ),
            Self::X => config.target().x.clone(),
            Self::NormedX => trace.attention_input.clone(),
            Self::Q => h.q.clone(),
            Self::K => h.k.clone(),
            Self::V => h.v.clone(),
            Self::Dot => h.dots.clone().unwrap_or_else(|| {
                let scale = config.scale();
                h.scores.mapv(|s| s / scale)
            }),
            Self::Scaled => h.scores.clone(),
            Self::Masked => {
                let mut masked = h.scores.clone();
                masked.zip_mut_with(&trace.mask, |s, &allowed| {
                    if !allowed {
                        *s = f32::NEG_INFINITY;
                    }
                });
                masked
            }
            Self::Weights => h.weights.clone(),
            Self::HeadOutput => h.output.clone(),
            Self::Concat => trace.concat.clone(),
            Self::Projected => trace.projected.clone(),
            Self::Output => trace.output.clone(),
        }
    }

    pub fn row_labels(self, trace: &Trace) -> Vec<String> {
        match self {
            Self::K | Self::V => super::visible_all(&trace.config.key_sequence().tokens),
            _ => super::visible_all(trace.config.tokens()),
        }
    }

    pub fn col_labels(self, trace: &Trace) -> Vec<String> {
        let dims = trace.config.dims();
        let numbered = |n: usize| (0..n).map(|i| i.to_string()).collect();
        match self {
            Self::Dot | Self::Scaled | Self::Masked | Self::Weights => {
                super::visible_all(&trace.config.key_sequence().tokens)
            }
            Self::Q | Self::K => numbered(dims.d_k),
            Self::V | Self::HeadOutput => numbered(dims.d_v),
            Self::Concat => (0..dims.n_heads * dims.d_v)
                .map(|c| format!("h{}·{}", c / dims.d_v, c % dims.d_v))
                .collect(),
            _ => numbered(dims.d_model),
        }
    }

    /// The matrix of `head` as the views show it: values, labels, and the colour scale `mode`
    /// asks for, with what the legend says about it.
    pub fn view(self, trace: &Trace, head: usize, mode: ScaleMode) -> MatrixView {
        self.view_reduced(trace, head, mode, Reduction::Max)
    }

    /// [`Stage::view`], an overview's blocks reduced by `reduction` and labelled by the tokens
    /// they span.
    pub fn view_reduced(
        self,
        trace: &Trace,
        head: usize,
        mode: ScaleMode,
        reduction: Reduction,
    ) -> MatrixView {
        let values = self.matrix_reduced(trace, head, reduction);
        let (scale, legend) = self.scale(trace, head, &values, mode);
        if self.is_overview(trace) {
            let overview = &trace.overviews[head.min(trace.overviews.len() - 1)];
            let ranges = |len: usize, step: usize| {
                (0..len.div_ceil(step))
                    .map(|b| format!("{}–{}", b * step, ((b + 1) * step).min(len) - 1))
                    .collect()
            };
            return MatrixView {
                row_labels: ranges(trace.config.seq_len(), overview.row_step),
                col_labels: ranges(trace.config.key_len(), overview.col_step),
                values,
                scale,
                legend,
                blocks: Some(Blocks {
                    reduction,
                    rows: overview.row_step,
                    cols: overview.col_step,
                }),
            };
        }
        MatrixView {
            row_labels: self.row_labels(trace),
            col_labels: self.col_labels(trace),
            values,
            scale,
            legend,
            blocks: None,
        }
    }

    /// Cells `rows` × `cols` of a keyed stage of `head`, at full resolution, with their tokens:
    /// the zoomed region under an overview (recomputed from Q, K and the rows' softmax numbers),
    /// or a part of the full matrix. Coloured on the same scale as the whole.
    pub fn region(
        self,
        trace: &Trace,
        head: usize,
        mode: ScaleMode,
        rows: Range<usize>,
        cols: Range<usize>,
    ) -> MatrixView {
        let head = head.min(trace.heads.len() - 1);
        let values = Array2::from_shape_fn((rows.len(), cols.len()), |(r, c)| {
            self.value(trace, head, rows.start + r, cols.start + c)
        });
        // Honest scales are the whole head's, so the region reads as a part of it.
        let (scale, legend) = self.scale(trace, head, &values, mode);
        let row_labels = self.row_labels(trace);
        let col_labels = self.col_labels(trace);
        MatrixView {
            row_labels: row_labels[rows].to_vec(),
            col_labels: col_labels[cols].to_vec(),
            values,
            scale,
            legend,
            blocks: None,
        }
    }

    /// One cell of `head`'s matrix, at full resolution even where the trace keeps an overview.
    pub fn value(self, trace: &Trace, head: usize, row: usize, col: usize) -> f32 {
        let head = head.min(trace.heads.len() - 1);
        // Keyed stages read (or recompute) the one cell; only the others build their matrix.
        if !self.is_keyed() {
            return self.matrix(trace, head)[[row, col]];
        }
        let (score, weight) = score_weight(trace, head, row, col);
        match self {
            // With a bias or a cap the score is not q·k times a scale: the dot product itself.
            Self::Dot if trace.config.scoring(head).shapes() => {
                let h = &trace.heads[head];
                h.scored_q().row(row).dot(&h.scored_k().row(col))
            }
            Self::Dot => score / trace.config.scale(),
            Self::Scaled => score,
            Self::Masked if trace.mask[[row, col]] => score,
            Self::Masked => f32::NEG_INFINITY,
            _ => weight,
        }
    }

    /// The colour scale of this stage's `values` (of `head`): honest scales keep magnitudes
    /// comparable — weights on the fixed 0 … 1, the three score stages on one scale — so that
    /// √d_k and the temperature visibly change the picture; contrast stretches each matrix.
    pub fn scale(
        self,
        trace: &Trace,
        head: usize,
        values: &Array2<f32>,
        mode: ScaleMode,
    ) -> (Scale, Legend) {
        match (self, mode) {
            // A linear layer's "weights" are its hidden matrix A: signed, rows not summing to 1.
            (Self::Weights, _) if trace.config.linear().is_some() => {
                (own_range(values), Legend::OwnRange)
            }
            (Self::Weights, ScaleMode::Honest) => (Scale::UNIT, Legend::Fixed),
            (Self::Dot | Self::Scaled | Self::Masked, ScaleMode::Honest) => (
                Scale::Diverging {
                    limit: score_limit(trace, head),
                },
                Legend::SharedScores,
            ),
            (Self::Weights, ScaleMode::Contrast) => {
                (Scale::fit(values.iter().copied()), Legend::Contrast)
            }
            (Self::Dot | Self::Scaled | Self::Masked, ScaleMode::Contrast) => {
                (own_range(values), Legend::Contrast)
            }
            _ => (own_range(values), Legend::OwnRange),
        }
    }
}

/// The scaled score (before the mask) and the weight of cell (`row`, `col`) of `head`: read from
/// the trace, or recomputed from Q, K and the row's softmax numbers where it keeps an overview.
pub fn score_weight(trace: &Trace, head: usize, row: usize, col: usize) -> (f32, f32) {
    let h = &trace.heads[head];
    // A long input's linear head: its hidden matrix's row, recomputed (no softmax to undo).
    if trace.is_summarised()
        && let Some(a) = attention_core::teaching::linear::hidden_row_of(trace, head, row)
    {
        let value = a.get(col).copied().unwrap_or(0.0);
        return (value, value);
    }
    match trace.overviews.get(head) {
        Some(overview) => overview::cell(
            h.scored_q(),
            h.scored_k(),
            &trace.config.scoring(head),
            trace.config.mask(),
            overview,
            (row, col),
        ),
        None => (h.scores[[row, col]], h.weights[[row, col]]),
    }
}

/// Row `row` of `head`'s weights, read or recomputed.
pub fn weights_row(trace: &Trace, head: usize, row: usize) -> ndarray::Array1<f32> {
    if trace.is_summarised()
        && let Some(a) = attention_core::teaching::linear::hidden_row_of(trace, head, row)
    {
        return a;
    }
    let keys = trace.config.key_len();
    (0..keys)
        .map(|col| score_weight(trace, head, row, col).1)
        .collect()
}

/// A diverging scale around 0 that reaches the largest finite |value|.
pub fn own_range(values: &Array2<f32>) -> Scale {
    let limit = values
        .iter()
        .filter(|v| v.is_finite())
        .fold(0.0f32, |m, v| m.max(v.abs()));
    Scale::Diverging { limit }
}

/// The one limit the score stages of `head` share: the largest |value| of QKᵀ and of the scaled
/// scores (QKᵀ = scaled · √d_k · T, so whichever factor is larger decides).
pub fn score_limit(trace: &Trace, head: usize) -> f32 {
    let head = head.min(trace.heads.len() - 1);
    let h = &trace.heads[head];
    let scaled = match trace.overviews.get(head) {
        Some(overview) => overview.abs_max,
        None => h
            .scores
            .iter()
            .filter(|v| v.is_finite())
            .fold(0.0f32, |m, v| m.max(v.abs())),
    };
    scaled * (1.0 / trace.config.scale()).max(1.0)
}
