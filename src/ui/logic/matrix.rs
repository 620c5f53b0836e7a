//! A matrix as the views show it: its values, labels and colour scale; its pixels (one per cell,
//! masked cells as a grey checker) and its CSV. Pure: the heatmap view only puts these on a canvas.

use ndarray::Array2;

use super::colormap::Scale;
use crate::ui::i18n::Lang;
use attention_core::pipeline::overview::Reduction;

/// What a heatmap shows.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixView {
    /// [rows, cols]; non-finite values (a masked score, −∞) are drawn as a grey checker.
    pub values: Array2<f32>,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    pub scale: Scale,
    /// Which scale the colours follow, said beside the colour bar.
    pub legend: Legend,
    /// Set when each value stands for a block of cells (an overview of a long input).
    pub blocks: Option<Blocks>,
}

/// An overview's blocks: how many cells each stands for, and how they were reduced to one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Blocks {
    pub reduction: Reduction,
    pub rows: usize,
    pub cols: usize,
}

impl MatrixView {
    /// What the colour bar's note says: the scale, and for an overview what each block shows.
    pub fn note(&self, lang: Lang) -> String {
        let scale = self.legend.label(lang);
        match self.blocks {
            None => scale.to_string(),
            Some(b) => {
                let reduced = (lang.text().overview.block_note)(b.reduction, b.rows, b.cols);
                format!("{scale} · {reduced}")
            }
        }
    }
}

/// What the colour bar says about the scale in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Legend {
    /// No colour bar: the colours are categories (states, allowed cells).
    Hidden,
    /// A fixed scale, the same for every matrix of its kind (weights: 0 … 1).
    Fixed,
    /// One scale for QKᵀ, the scaled and the masked scores, so scaling and temperature show.
    SharedScores,
    /// The matrix's own range (the only sensible scale for it, or contrast asked for).
    OwnRange,
    /// A piece (a tile) drawn on the range of the whole head's matrix it comes from.
    WholeHead,
    /// One scale for q and k before and after RoPE, so that their lengths compare.
    SharedTurns,
    /// Angles in radians, −π … π.
    Radians,
    /// One signed scale for a softmax's weights and linear attention's A, so that they compare.
    SharedPair,
    /// One scale for linear attention's state after every token, so that it grows and fades.
    SharedStates,
    /// Contrast asked for: a matrix that has an honest scale stretched over its own range.
    Contrast,
}

impl Legend {
    pub fn shown(self) -> bool {
        self != Self::Hidden
    }

    pub fn label(self, lang: Lang) -> &'static str {
        let scales = &lang.text().scales;
        match self {
            Self::Hidden => "",
            Self::Fixed => scales.fixed,
            Self::SharedScores => scales.shared_scores,
            Self::OwnRange => scales.own_range,
            Self::WholeHead => scales.whole_head,
            Self::SharedTurns => scales.shared_turns,
            Self::Radians => scales.radians,
            Self::SharedPair => scales.shared_pair,
            Self::SharedStates => scales.shared_states,
            Self::Contrast => scales.contrast,
        }
    }
}

/// A block of cells to outline: rows × columns, half-open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub rows: std::ops::Range<usize>,
    pub cols: std::ops::Range<usize>,
}

/// The two greys of the checker that marks masked (−∞) cells.
pub const MASKED: [[u8; 3]; 2] = [[150, 150, 150], [200, 200, 200]];

/// RGBA bytes, row-major, `side` × `side` pixels per cell: one pixel per cell, unless a value is
/// not finite (a masked score, −∞); then every cell takes 2 × 2 pixels and the non-finite ones a
/// grey checker.
pub fn pixels(values: &Array2<f32>, scale: &Scale) -> (Vec<u8>, usize) {
    let (rows, cols) = values.dim();
    let side = if values.iter().all(|v| v.is_finite()) {
        1
    } else {
        2
    };
    let width = cols * side;
    let mut rgba = vec![255u8; rows * side * width * 4];
    if side == 1 {
        // Every value finite: one pixel per cell, in the matrix's order.
        for (pixel, &value) in rgba.chunks_exact_mut(4).zip(values.iter()) {
            pixel[..3].copy_from_slice(&scale.color(value));
        }
        return (rgba, side);
    }
    for ((i, j), &value) in values.indexed_iter() {
        let color = value.is_finite().then(|| scale.color(value));
        for dy in 0..side {
            for dx in 0..side {
                let [r, g, b] = color.unwrap_or(MASKED[(dx + dy) % 2]);
                let at = ((i * side + dy) * width + j * side + dx) * 4;
                rgba[at..at + 3].copy_from_slice(&[r, g, b]);
            }
        }
    }
    (rgba, side)
}

/// A matrix as CSV: a header of column labels, then one row per row label. Fields with commas,
/// quotes or line breaks are quoted; masked scores are written `-inf`.
pub fn csv(data: &MatrixView) -> String {
    let field = |text: &str| {
        if text.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.to_string()
        }
    };
    let mut out = String::new();
    out.push_str(
        &std::iter::once(String::new())
            .chain(data.col_labels.iter().map(|c| field(c)))
            .collect::<Vec<_>>()
            .join(","),
    );
    out.push('\n');
    for (row, label) in data.values.outer_iter().zip(&data.row_labels) {
        let cells = row.iter().map(|&v| {
            if v.is_finite() {
                v.to_string()
            } else if v < 0.0 {
                "-inf".into()
            } else {
                "inf".into()
            }
        });
        out.push_str(
            &std::iter::once(field(label))
                .chain(cells)
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
    }
    out
}
