//! What the FlashAttention player shows at each frame: the tiled score grid, the current query
//! block's running max and sum, the tile's values, the output accumulator and the phase in words.
//! Pure functions of a replay and a frame: they index its steps and never recompute one.

use ndarray::{Array2, s};

use super::colormap::Scale;
use super::flash_frames::{Frame, Phase};
use super::flash_views::{Replay, value};
use super::format::span;
use super::matrix::{Legend, MatrixView, Span};
use super::stages::{Stage, own_range};
use crate::ui::i18n::Lang;

/// Colours of the grid: pending tiles (two tones, alternating by tile), done tiles (two tones),
/// the current tile.
const GRID: [[u8; 3]; 5] = [
    [232, 235, 241],
    [214, 219, 229],
    [163, 194, 236],
    [137, 174, 226],
    [245, 159, 0],
];

/// The score grid at a frame: per cell (or per tile, when summarised) its state's colour index;
/// masked cells are −∞ (drawn as checks).
pub fn grid(replay: &Replay, frame: &Frame) -> (MatrixView, Option<Span>) {
    let (rows, cols) = (replay.sizes.seq_len, replay.sizes.key_len);
    let (block_rows, block_cols) = (replay.sizes.block_rows, replay.sizes.block_cols);
    let steps = &replay.flash().steps;
    let colour = |tile_row: usize, tile_col: usize| {
        let state = replay.tile_state(tile_row, tile_col, frame);
        let parity = ((tile_row + tile_col) % 2) as u8;
        match state {
            2 => 4.0,
            1 => f32::from(2 + parity),
            _ => f32::from(parity),
        }
    };
    let current = steps.get(frame.step).filter(|_| frame.col_block.is_some());
    if replay.summarised() {
        let (tiles_down, tiles_across) = replay.sizes.tiles();
        let values = Array2::from_shape_fn((tiles_down, tiles_across), |(r, c)| {
            if replay.hidden[[r, c]] {
                f32::NEG_INFINITY
            } else {
                colour(r, c)
            }
        });
        let span = current.map(|step| Span {
            rows: step.row_block..step.row_block + 1,
            cols: step.col_block..step.col_block + 1,
        });
        let labels = |n: usize, size: usize| (0..n).map(|t| format!("{}", t * size)).collect();
        return (
            MatrixView {
                values,
                row_labels: labels(tiles_down, block_rows),
                col_labels: labels(tiles_across, block_cols),
                scale: Scale::Palette(&GRID),
                legend: Legend::Hidden,
                blocks: None,
            },
            span,
        );
    }
    let values = Array2::from_shape_fn((rows, cols), |(i, j)| {
        if replay.mask.allows(i, j) {
            colour(i / block_rows, j / block_cols)
        } else {
            f32::NEG_INFINITY
        }
    });
    let span = current.map(|step| Span {
        rows: step.rows.clone(),
        cols: step.cols.clone(),
    });
    (
        MatrixView {
            values,
            row_labels: super::visible_all(replay.tokens()),
            col_labels: super::visible_all(replay.key_tokens()),
            scale: Scale::Palette(&GRID),
            legend: Legend::Hidden,
            blocks: None,
        },
        span,
    )
}

/// One row of the block table: the query and its m, rescale and l as this frame shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockRow {
    pub index: usize,
    pub token: String,
    pub m: String,
    pub rescale: String,
    pub l: String,
}

pub fn block_rows(replay: &Replay, frame: &Frame) -> Vec<BlockRow> {
    let step = &replay.flash().steps[frame.step];
    let tokens = replay.tokens();
    let arrow = |before: f32, after: f32| format!("{} → {}", value(before), value(after));
    step.rows
        .clone()
        .enumerate()
        .map(|(r, i)| {
            let (m, rescale, l) = match frame.phase {
                Phase::Start => (value(f32::NEG_INFINITY), String::new(), value(0.0)),
                Phase::Skip | Phase::Scores => {
                    (value(step.m_prev[r]), String::new(), value(step.l_prev[r]))
                }
                Phase::Max | Phase::Exp => (
                    arrow(step.m_prev[r], step.m[r]),
                    String::new(),
                    value(step.l_prev[r]),
                ),
                Phase::Sum | Phase::Accumulate => (
                    arrow(step.m_prev[r], step.m[r]),
                    value(step.rescale[r]),
                    arrow(step.l_prev[r], step.l[r]),
                ),
                Phase::Normalize => (value(step.m[r]), String::new(), value(step.l[r])),
            };
            BlockRow {
                index: i,
                token: tokens[i].clone(),
                m,
                rescale,
                l,
            }
        })
        .collect()
}

/// The tile's S (with masked cells) or P, as the frame shows it.
pub fn tile(replay: &Replay, frame: &Frame) -> Option<(MatrixView, bool)> {
    let step = &replay.flash().steps[frame.step];
    let show_probs = match frame.phase {
        Phase::Scores | Phase::Max => false,
        Phase::Exp | Phase::Sum | Phase::Accumulate => true,
        _ => return None,
    };
    let values = if show_probs {
        step.probs.clone()
    } else {
        let mut scores = step.scores.clone();
        for ((r, c), s) in scores.indexed_iter_mut() {
            if !replay.mask.allows(step.rows.start + r, step.cols.start + c) {
                *s = f32::NEG_INFINITY;
            }
        }
        scores
    };
    // The tile is a piece of the weights or of the scaled scores: it takes their scale.
    let stage = if show_probs {
        Stage::Weights
    } else {
        Stage::Scaled
    };
    let (scale, legend) = replay.tile_scale(stage, &values);
    Some((
        MatrixView {
            scale,
            legend,
            row_labels: super::visible_all(&replay.tokens()[step.rows.clone()]),
            col_labels: super::visible_all(&replay.key_tokens()[step.cols.clone()]),
            values,
            blocks: None,
        },
        show_probs,
    ))
}

/// The accumulator before this tile, after it, or the final rows after the division by l.
pub fn accumulator(replay: &Replay, frame: &Frame) -> (MatrixView, bool) {
    let flash = replay.flash();
    let step = &flash.steps[frame.step];
    let d_v = flash.output.ncols();
    let (values, final_rows) = match frame.phase {
        Phase::Normalize => (
            flash.output.slice(s![step.rows.clone(), ..]).to_owned(),
            true,
        ),
        Phase::Accumulate | Phase::Skip => (step.acc.clone(), false),
        Phase::Start => (Array2::zeros((step.rows.len(), d_v)), false),
        // Before this tile: the previous step's accumulator in the same block, or zeros.
        _ => (
            frame
                .step
                .checked_sub(1)
                .map(|previous| &flash.steps[previous])
                .filter(|previous| previous.row_block == step.row_block)
                .map_or_else(
                    || Array2::zeros((step.rows.len(), d_v)),
                    |previous| previous.acc.clone(),
                ),
            false,
        ),
    };
    (
        MatrixView {
            scale: own_range(&values),
            legend: Legend::OwnRange,
            row_labels: super::visible_all(&replay.tokens()[step.rows.clone()]),
            col_labels: (0..d_v).map(|d| d.to_string()).collect(),
            values,
            blocks: None,
        },
        final_rows,
    )
}

/// What happens at `frame`, in words.
pub fn phase_text(replay: &Replay, frame: &Frame, lang: Lang) -> String {
    let step = &replay.flash().steps[frame.step];
    let texts = &lang.text().flash;
    let (i, j) = (frame.row_block, frame.col_block.unwrap_or(0));
    match frame.phase {
        Phase::Start => (texts.phase_start)(i, &span(&step.rows)),
        Phase::Skip => (texts.phase_skip)(i, j),
        Phase::Scores => (texts.phase_scores)(i, j, &span(&step.rows), &span(&step.cols)),
        Phase::Max => texts.phase_max.into(),
        Phase::Exp => texts.phase_exp.into(),
        Phase::Sum => texts.phase_sum.into(),
        Phase::Accumulate => texts.phase_accumulate.into(),
        Phase::Normalize => (texts.phase_normalize)(&span(&step.rows)),
    }
}
