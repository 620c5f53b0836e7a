//! What the page shows of a user's own attention (`attention_core::io::imported::ImportedRun`): each
//! matrix of a head as a view, and a cell in words. Pure, tested natively.

use std::ops::Range;

use ndarray::Array2;

use super::colormap::{Scale, ScaleMode};
use super::matrix::{Blocks, Legend, MatrixView};
use super::stages::own_range;
use super::visible_all;
use attention_core::io::imported::{ImportedRun, ShownHead};
use attention_core::pipeline::overview::{FULL_HEAD_CELLS, Overview, Reduction};

/// The matrices a head of an imported file can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    Q,
    K,
    V,
    /// q·kᵀ / (√d · T), before the mask.
    Scores,
    Weights,
    Output,
}

impl Part {
    /// In the order of the computation.
    pub const ALL: [Part; 6] = [
        Part::Q,
        Part::K,
        Part::V,
        Part::Scores,
        Part::Weights,
        Part::Output,
    ];

    /// Its name in the trace's JSON and in test ids.
    pub fn id(self) -> &'static str {
        match self {
            Part::Q => "q",
            Part::K => "k",
            Part::V => "v",
            Part::Scores => "scores",
            Part::Weights => "weights",
            Part::Output => "output",
        }
    }

    /// The head's matrix, when the file brought (or the lab computed) it.
    pub fn matrix(self, head: &ShownHead) -> Option<&Array2<f32>> {
        match self {
            Part::Q => head.q.as_ref(),
            Part::K => head.k.as_ref(),
            Part::V => head.v.as_ref(),
            Part::Scores => head.scores.as_ref(),
            Part::Weights => Some(&head.weights),
            Part::Output => head.output.as_ref(),
        }
    }

    /// Whether its rows are the keys (K and V) rather than the queries.
    fn rows_are_keys(self) -> bool {
        matches!(self, Part::K | Part::V)
    }

    /// Whether its columns are the keys (scores, weights) rather than numbered dimensions.
    pub fn cols_are_keys(self) -> bool {
        matches!(self, Part::Scores | Part::Weights)
    }
}

/// `part` of head (`layer`, `head`) as a heatmap shows it: labelled by the file's tokens, weights
/// on the fixed 0 … 1 scale (each head's own range when contrast is asked for), signed values
/// around zero. `None` when the file has no such matrix.
pub fn view(
    run: &ImportedRun,
    layer: usize,
    head: usize,
    part: Part,
    mode: ScaleMode,
) -> Option<MatrixView> {
    let values = part.matrix(run.head(layer, head))?.clone();
    let numbered = |n: usize| (0..n).map(|i| i.to_string()).collect();
    let row_labels = if part.rows_are_keys() {
        visible_all(run.keys())
    } else {
        visible_all(&run.tokens)
    };
    let col_labels = if part.cols_are_keys() {
        visible_all(run.keys())
    } else {
        numbered(values.ncols())
    };
    let (scale, legend) = match (part, mode) {
        (Part::Weights, ScaleMode::Honest) => (Scale::UNIT, Legend::Fixed),
        (Part::Weights, ScaleMode::Contrast) => {
            (Scale::fit(values.iter().copied()), Legend::Contrast)
        }
        _ => (own_range(&values), Legend::OwnRange),
    };
    Some(MatrixView {
        values,
        row_labels,
        col_labels,
        scale,
        legend,
        blocks: None,
    })
}

/// The most cells a side of a small multiple (every layer × head at a glance) shows.
pub const GLANCE_SIDE: usize = 256;

/// Head (`layer`, `head`)'s weights as a small multiple: no labels and no legend, and past
/// [`GLANCE_SIDE`] cells a side each block of cells shown as its largest weight. A map a few
/// hundred pixels wide cannot show a 1024² head cell by cell, and the largest weight keeps a sharp
/// pattern (a diagonal, a column on the first token) as sharp as it is.
pub fn glance(run: &ImportedRun, layer: usize, head: usize, mode: ScaleMode) -> Option<MatrixView> {
    let mut v = view(run, layer, head, Part::Weights, mode)?;
    v.row_labels.clear();
    v.col_labels.clear();
    v.legend = Legend::Hidden;
    let (rows, cols) = v.values.dim();
    let (down, across) = (rows.div_ceil(GLANCE_SIDE), cols.div_ceil(GLANCE_SIDE));
    if down > 1 || across > 1 {
        let weights = &v.values;
        v.values = Array2::from_shape_fn((rows.div_ceil(down), cols.div_ceil(across)), |(r, c)| {
            weights
                .slice(ndarray::s![
                    r * down..((r + 1) * down).min(rows),
                    c * across..((c + 1) * across).min(cols)
                ])
                .fold(f32::NEG_INFINITY, |m, &w| m.max(w))
        });
    }
    Some(v)
}

/// Whether a head of `run` is too large to draw cell by cell (past 512 × 512, as the lab's own
/// heads): the chosen head is then shown as an overview of blocks with a zoomed region.
pub fn summarised(run: &ImportedRun) -> bool {
    run.tokens.len() * run.keys().len() > FULL_HEAD_CELLS
}

/// `part` (the weights or the scores) of head (`layer`, `head`) as an overview: each block of
/// at most [`Overview::step`] cells a side reduced to its largest or mean value, labelled by
/// the positions it spans, on the whole head's scale.
pub fn overview(
    run: &ImportedRun,
    layer: usize,
    head: usize,
    part: Part,
    mode: ScaleMode,
    reduction: Reduction,
) -> Option<MatrixView> {
    let full = view(run, layer, head, part, mode)?;
    let (n, m) = full.values.dim();
    let (rs, cs) = (Overview::step(n), Overview::step(m));
    let values = Array2::from_shape_fn((n.div_ceil(rs), m.div_ceil(cs)), |(r, c)| {
        let block = full.values.slice(ndarray::s![
            r * rs..((r + 1) * rs).min(n),
            c * cs..((c + 1) * cs).min(m)
        ]);
        match reduction {
            Reduction::Max => block.fold(f32::NEG_INFINITY, |a, &v| a.max(v)),
            Reduction::Mean => block.sum() / block.len() as f32,
        }
    });
    let ranges = |len: usize, step: usize| {
        (0..len.div_ceil(step))
            .map(|b| format!("{}–{}", b * step, ((b + 1) * step).min(len) - 1))
            .collect()
    };
    Some(MatrixView {
        values,
        row_labels: ranges(n, rs),
        col_labels: ranges(m, cs),
        scale: full.scale,
        legend: full.legend,
        blocks: Some(Blocks {
            reduction,
            rows: rs,
            cols: cs,
        }),
    })
}

/// Cells `rows` × `cols` of `part` of head (`layer`, `head`) at full resolution with their tokens,
/// on the whole head's scale: the zoomed region under an overview.
pub fn region(
    run: &ImportedRun,
    layer: usize,
    head: usize,
    part: Part,
    mode: ScaleMode,
    rows: Range<usize>,
    cols: Range<usize>,
) -> Option<MatrixView> {
    let full = view(run, layer, head, part, mode)?;
    let (n, m) = full.values.dim();
    let rows = rows.start.min(n)..rows.end.min(n);
    let cols = cols.start.min(m)..cols.end.min(m);
    Some(MatrixView {
        values: full
            .values
            .slice(ndarray::s![rows.clone(), cols.clone()])
            .to_owned(),
        row_labels: full.row_labels[rows].to_vec(),
        col_labels: full.col_labels[cols].to_vec(),
        scale: full.scale,
        legend: full.legend,
        blocks: None,
    })
}

/// The query and key tokens of a cell of the weights or scores, and its value.
pub fn cell(
    run: &ImportedRun,
    layer: usize,
    head: usize,
    part: Part,
    row: usize,
    col: usize,
) -> Option<(String, String, f32)> {
    let values = part.matrix(run.head(layer, head))?;
    let value = *values.get((row, col))?;
    let rows = if part.rows_are_keys() {
        run.keys()
    } else {
        &run.tokens
    };
    let row_token = super::visible(rows.get(row)?);
    let col_token = if part.cols_are_keys() {
        super::visible(run.keys().get(col)?)
    } else {
        col.to_string()
    };
    Some((row_token, col_token, value))
}

/// Why a file was not opened.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    Import(attention_core::io::import::ImportError),
    /// Neither its name nor its first bytes say which format it is.
    UnknownFormat,
    /// The browser could not read it (its words).
    Unreadable(String),
}

impl Refusal {
    /// Why, in `lang` (the file's own names and numbers kept).
    pub fn message(&self, lang: crate::ui::i18n::Lang) -> String {
        match self {
            Refusal::Import(error) => lang.import_error(error),
            Refusal::UnknownFormat => lang.import().unknown_format.to_string(),
            Refusal::Unreadable(why) => (lang.import().unreadable)(why),
        }
    }
}
