//! What several chapters' experiments draw with: their texts in the reader's language, line
//! charts and their series, and numbers written as a table shows them.

use leptos::prelude::*;

use crate::ui::i18n::learn::ExperimentTexts;
use crate::ui::logic::line_chart::{COLORS, LineChart, Series};
use crate::ui::state::Lab;

pub(super) fn texts(lab: Lab) -> &'static ExperimentTexts {
    &lab.lang.get().text().learn.x
}

pub(super) fn series(
    label: &str,
    points: Vec<(f64, f64)>,
    color: usize,
    reference: bool,
) -> Series {
    Series {
        label: label.to_string(),
        points,
        color: COLORS[color],
        reference,
        points_only: false,
    }
}

pub(super) fn chart(
    title: &str,
    x: &str,
    y: &str,
    logs: (bool, bool),
    series: Vec<Series>,
) -> LineChart {
    LineChart {
        title: title.to_string(),
        x_label: x.to_string(),
        y_label: y.to_string(),
        x_log: logs.0,
        y_log: logs.1,
        series,
        marker: None,
        ink: (0, 0, 0),
    }
}

pub(super) fn weights_list(weights: &[f64]) -> String {
    weights
        .iter()
        .take(12)
        .map(|w| format!("{w:.3}"))
        .collect::<Vec<_>>()
        .join(" ")
        + if weights.len() > 12 { " …" } else { "" }
}

pub(super) fn f32_cell(w: f32) -> String {
    if w.is_nan() {
        "NaN".into()
    } else if w.is_infinite() {
        "∞".into()
    } else {
        format!("{w:.4}")
    }
}
