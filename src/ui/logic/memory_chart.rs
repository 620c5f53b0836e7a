//! FlashAttention's point in one chart: score-matrix elements held at once against sequence
//! length, standard (seq_len², growing) versus flash (one tile, constant), on log–log axes with
//! the current length marked. A [`LineChart`], drawn by `line_chart::draw` on any backend: the
//! page's canvas, or SVG for export.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::line_chart::{COLORS, LineChart, Series};

/// What the chart shows and says.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryChart {
    /// Score elements in one tile: block_rows · block_cols.
    pub tile: u64,
    /// The current sequence length, marked on both lines.
    pub seq_len: u64,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub standard: String,
    pub flash: String,
    /// The text colour (the theme's ink).
    pub ink: (u8, u8, u8),
}

const LENGTHS: [u64; 9] = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

impl MemoryChart {
    /// The chart as lines: n² for standard attention, min(tile, n²) for flash.
    pub fn line_chart(&self) -> LineChart {
        let line = |label: &str, color: usize, f: &dyn Fn(u64) -> u64| Series {
            label: label.to_string(),
            points: LENGTHS.iter().map(|&n| (n as f64, f(n) as f64)).collect(),
            color: COLORS[color],
            reference: false,
            points_only: false,
        };
        LineChart {
            title: self.title.clone(),
            x_label: self.x_label.clone(),
            y_label: self.y_label.clone(),
            x_log: true,
            y_log: true,
            series: vec![
                line(&self.standard, 0, &|n| n * n),
                line(&self.flash, 1, &|n| self.tile.min(n * n)),
            ],
            marker: Some(self.seq_len.max(1) as f64),
            ink: self.ink,
        }
    }
}

/// Draws the chart on `root`.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &MemoryChart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    super::line_chart::draw(root, &chart.line_chart())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_grows_as_n_squared_and_flash_holds_one_tile() {
        let chart = MemoryChart {
            tile: 256,
            seq_len: 11,
            title: "memory".into(),
            x_label: "n".into(),
            y_label: "elements".into(),
            standard: "standard".into(),
            flash: "flash".into(),
            ink: (0, 0, 0),
        }
        .line_chart();
        assert_eq!(chart.series[0].points[8], (4096.0, 4096.0 * 4096.0));
        assert_eq!(chart.series[1].points[0], (16.0, 256.0));
        assert_eq!(chart.series[1].points[8], (4096.0, 256.0));
        assert_eq!(chart.marker, Some(11.0));
    }
}
