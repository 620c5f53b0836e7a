//! FlashAttention's point in one chart: score-matrix elements held at once against sequence
//! length, standard (seq_len², growing) versus flash (one tile, constant). Drawn with plotters on
//! any backend: the page's canvas, or SVG for export.

use plotters::coord::Shift;
use plotters::prelude::*;

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

const STANDARD: RGBColor = RGBColor(59, 76, 192);
const FLASH: RGBColor = RGBColor(232, 89, 12);
const LENGTHS: [u64; 9] = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// Draws the chart on `root`.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &MemoryChart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let ink = RGBColor(chart.ink.0, chart.ink.1, chart.ink.2);
    let font = |size: u32| ("sans-serif", size).into_font().color(&ink);
    let top = (LENGTHS[LENGTHS.len() - 1] * LENGTHS[LENGTHS.len() - 1]) as f64 * 2.0;
    // Room on the left for the current length, however short.
    let left = chart.seq_len.max(1) as f64 / 1.5;
    let mut plot = ChartBuilder::on(root)
        .caption(&chart.title, font(14))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(62)
        .build_cartesian_2d(
            (left.min(12.0)..5000.0f64).log_scale(),
            (1.0f64..top).log_scale(),
        )?;
    plot.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .label_style(font(11))
        .axis_desc_style(font(12))
        .axis_style(ink.mix(0.6))
        .light_line_style(ink.mix(0.06))
        .bold_line_style(ink.mix(0.12))
        .x_labels(9)
        .x_label_formatter(&|v| format!("{}", v.round() as u64))
        .y_label_formatter(&|v| {
            let exponent = v.log10().round() as i32;
            format!("10^{exponent}")
        })
        .draw()?;
    let standard: Vec<(f64, f64)> = LENGTHS
        .iter()
        .map(|&n| (n as f64, (n * n) as f64))
        .collect();
    let flash: Vec<(f64, f64)> = LENGTHS
        .iter()
        .map(|&n| (n as f64, chart.tile.min(n * n) as f64))
        .collect();
    plot.draw_series(LineSeries::new(standard, STANDARD.stroke_width(2)))?
        .label(&chart.standard)
        .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], STANDARD.stroke_width(2)));
    plot.draw_series(LineSeries::new(flash, FLASH.stroke_width(2)))?
        .label(&chart.flash)
        .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], FLASH.stroke_width(2)));
    let n = chart.seq_len.max(1);
    plot.draw_series([
        Circle::new((n as f64, (n * n) as f64), 4, STANDARD.filled()),
        Circle::new((n as f64, chart.tile.min(n * n) as f64), 4, FLASH.filled()),
    ])?;
    plot.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(font(12))
        .border_style(ink.mix(0.3))
        .background_style(WHITE.mix(0.0))
        .draw()?;
    root.present()
}
