//! A line chart for the lessons' experiments (variance against d_k, weights against temperature,
//! time against n, …): several series, linear or logarithmic axes, and an optional vertical
//! marker (the learner's current value). Drawn with plotters on any backend.

use plotters::coord::Shift;
use plotters::prelude::*;

/// One line.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub color: (u8, u8, u8),
    /// Drawn thin and with dots: a reference (theory) rather than a measurement.
    pub reference: bool,
    /// Dots alone, larger, without a line (values placed on another series' curve).
    pub points_only: bool,
}

/// What the chart shows and says.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_log: bool,
    pub y_log: bool,
    pub series: Vec<Series>,
    /// A vertical line at this x (the current setting).
    pub marker: Option<f64>,
    /// The text colour (the theme's ink).
    pub ink: (u8, u8, u8),
}

/// Measured series with more points than this are drawn as lines without dots.
pub const MAX_DOTTED: usize = 64;

/// The palette of the series, in order: blue, orange, green, grey (distinct for colour-blind
/// readers as well, and each also told apart by the legend).
pub const COLORS: [(u8, u8, u8); 4] =
    [(59, 76, 192), (232, 89, 12), (47, 133, 90), (120, 120, 120)];

/// The range of `values` for an axis: padded, and positive when logarithmic.
pub fn axis_range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let finite: Vec<f64> = values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .collect();
    let low = finite.iter().cloned().fold(f64::INFINITY, f64::min);
    let high = finite.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if !low.is_finite() {
        return if log { (0.1, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        (low / 1.5, high * 1.5)
    } else if high - low < 1e-12 {
        (low - 1.0, high + 1.0)
    } else {
        let pad = (high - low) * 0.05;
        (if low >= 0.0 { 0.0 } else { low - pad }, high + pad)
    }
}

fn label(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(0.01..10_000.0).contains(&a) {
        format!("{v:.0e}")
    } else if a >= 100.0 || (v.fract() == 0.0) {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// Where the parts of a chart go, for a width: the title and the y axis's name in a band on
/// top (written across, never turned on its side), the plot, and the legend in rows below the
/// plot (never over a curve). Text widths are estimated (CJK characters twice as wide).
#[derive(Debug, Clone, PartialEq)]
pub struct ChartLayout {
    pub width: u32,
    pub height: u32,
    /// The band above the plot: the title, then the y axis's name.
    pub top: u32,
    /// The title in lines that fit the width (a long one is wrapped, never cut off).
    pub title: Vec<String>,
    /// The plot's bottom edge (its x axis and labels included).
    pub plot_bottom: u32,
    /// Each legend row: the series and the x where its entry starts.
    pub legend: Vec<Vec<(usize, u32)>>,
}

/// The height of the plot itself, axes and their labels included.
pub const PLOT_HEIGHT: u32 = 240;
const TOP: u32 = 40;
/// A title line's height (14 px text).
const TITLE_ROW: u32 = 18;
const LEGEND_ROW: u32 = 18;
const LEGEND_SWATCH: u32 = 26;
const LEGEND_GAP: u32 = 16;
const MARGIN: u32 = 10;

/// `text` in lines of at most `width` pixels at `size` px (estimated as [`text_width`] does):
/// broken at spaces, or between CJK characters, or inside a word longer than a line.
pub fn wrap(text: &str, width: u32, size: u32) -> Vec<String> {
    let fits = |s: &str| text_width(s) * size <= width * 12;
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    // Pieces: a word with the spaces after it, or a single CJK character.
    let mut pieces: Vec<String> = Vec::new();
    for c in text.chars() {
        let cjk = (c as u32) >= 0x2e80;
        match pieces.last_mut() {
            Some(last)
                if !cjk && !last.ends_with(' ') && !last.chars().any(|p| (p as u32) >= 0x2e80) =>
            {
                last.push(c)
            }
            Some(last) if c == ' ' => last.push(c),
            _ => pieces.push(c.to_string()),
        }
    }
    for piece in pieces {
        let tried = format!("{line}{piece}");
        if fits(tried.trim_end()) || line.is_empty() {
            line = tried;
        } else {
            lines.push(line.trim_end().to_string());
            line = piece;
        }
        // A single piece wider than a line is cut between characters.
        while !fits(line.trim_end()) && line.chars().count() > 1 {
            let mut head = String::new();
            for c in line.chars() {
                // At least one character a line, however narrow the width.
                if !head.is_empty() && !fits(&format!("{head}{c}")) {
                    break;
                }
                head.push(c);
            }
            let rest = line[head.len()..].to_string();
            lines.push(head);
            line = rest;
        }
    }
    if !line.trim().is_empty() {
        lines.push(line.trim_end().to_string());
    }
    lines
}

/// The estimated width of `text` in a 12 px sans-serif font.
pub fn text_width(text: &str) -> u32 {
    text.chars()
        .map(|c| if (c as u32) >= 0x2e80 { 12.0 } else { 6.8 })
        .sum::<f64>()
        .ceil() as u32
}

impl ChartLayout {
    pub fn new(chart: &LineChart, width: u32) -> Self {
        let mut legend: Vec<Vec<(usize, u32)>> = Vec::new();
        let mut x = MARGIN;
        for (i, series) in chart.series.iter().enumerate() {
            let entry = LEGEND_SWATCH + text_width(&series.label);
            if legend.is_empty() || (x + entry > width.saturating_sub(MARGIN) && x > MARGIN) {
                legend.push(Vec::new());
                x = MARGIN;
            }
            if let Some(row) = legend.last_mut() {
                row.push((i, x));
            }
            x += entry + LEGEND_GAP;
        }
        let title = wrap(&chart.title, width.saturating_sub(2 * MARGIN), 14);
        let top = TOP + title.len().saturating_sub(1) as u32 * TITLE_ROW;
        let plot_bottom = top + PLOT_HEIGHT;
        Self {
            width,
            height: plot_bottom + legend.len() as u32 * LEGEND_ROW + 6,
            top,
            title,
            plot_bottom,
            legend,
        }
    }
}

/// Draws the chart on `root`, laid out as [`ChartLayout`] (`root` as large as its width and
/// height).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &LineChart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (width, _) = root.dim_in_pixel();
    let layout = ChartLayout::new(chart, width);
    let ink = RGBColor(chart.ink.0, chart.ink.1, chart.ink.2);
    let font = |size: u32| ("sans-serif", size).into_font().color(&ink);
    let (top, rest) = root.split_vertically(layout.top);
    let (plot_area, legend_area) = rest.split_vertically(layout.plot_bottom - layout.top);
    for (i, line) in layout.title.iter().enumerate() {
        top.draw(&Text::new(
            line.clone(),
            (MARGIN as i32, 2 + (i as u32 * TITLE_ROW) as i32),
            font(14),
        ))?;
    }
    if !chart.y_label.is_empty() {
        top.draw(&Text::new(
            format!("↑ {}", chart.y_label),
            (MARGIN as i32, (layout.top - TOP + 22) as i32),
            font(12),
        ))?;
    }
    let points = || chart.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = axis_range(points().map(|p| p.0).chain(chart.marker), chart.x_log);
    let (y0, y1) = axis_range(points().map(|p| p.1), chart.y_log);
    let mut builder = ChartBuilder::on(&plot_area);
    builder
        .margin(MARGIN)
        .margin_top(4)
        .x_label_area_size(36)
        .y_label_area_size(52);
    // Four coordinate types (linear or log on each axis) share one body.
    macro_rules! body {
        ($plot:expr) => {{
            let mut plot = $plot;
            plot.configure_mesh()
                .x_desc(&chart.x_label)
                .label_style(font(11))
                .axis_desc_style(font(12))
                .axis_style(ink.mix(0.6))
                .light_line_style(ink.mix(0.06))
                .bold_line_style(ink.mix(0.12))
                .x_label_formatter(&|v| label(*v))
                .y_label_formatter(&|v| label(*v))
                .draw()?;
            if let Some(x) = chart.marker {
                plot.draw_series(LineSeries::new(
                    [(x, y0), (x, y1)],
                    ink.mix(0.45).stroke_width(1),
                ))?;
            }
            for series in &chart.series {
                let color = RGBColor(series.color.0, series.color.1, series.color.2);
                let width = if series.reference { 1 } else { 2 };
                let points: Vec<(f64, f64)> = series
                    .points
                    .iter()
                    .copied()
                    .filter(|p| p.0.is_finite() && p.1.is_finite())
                    .filter(|p| (!chart.x_log || p.0 > 0.0) && (!chart.y_log || p.1 > 0.0))
                    .collect();
                if series.points_only {
                    plot.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
                    continue;
                }
                plot.draw_series(LineSeries::new(points.clone(), color.stroke_width(width)))?;
                // Dots mark measured points; a dense curve (a loss at every position) is a line.
                if !series.reference && points.len() <= MAX_DOTTED {
                    plot.draw_series(points.iter().map(|&p| Circle::new(p, 2, color.filled())))?;
                }
            }
        }};
    }
    match (chart.x_log, chart.y_log) {
        (true, true) => {
            body!(builder.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?)
        }
        (true, false) => body!(builder.build_cartesian_2d((x0..x1).log_scale(), y0..y1)?),
        (false, true) => body!(builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?),
        (false, false) => body!(builder.build_cartesian_2d(x0..x1, y0..y1)?),
    }
    for (row, entries) in layout.legend.iter().enumerate() {
        let y = row as i32 * LEGEND_ROW as i32 + 9;
        for &(i, x) in entries {
            let series = &chart.series[i];
            let color = RGBColor(series.color.0, series.color.1, series.color.2);
            let width = if series.reference { 1 } else { 2 };
            let x = x as i32;
            legend_area.draw(&PathElement::new(
                [(x, y), (x + 18, y)],
                color.stroke_width(width),
            ))?;
            legend_area.draw(&Text::new(
                series.label.clone(),
                (x + LEGEND_SWATCH as i32 - 2, y - 7),
                font(12),
            ))?;
        }
    }
    root.present()
}

/// The chart as a table (its text alternative): for each series, at most `per_series` of its
/// points, evenly spaced and the first and the last always among them: (series, x, y).
pub fn table_rows(chart: &LineChart, per_series: usize) -> Vec<(String, f64, f64)> {
    let mut rows = Vec::new();
    for series in &chart.series {
        let n = series.points.len();
        if n == 0 || per_series == 0 {
            continue;
        }
        let take = per_series.min(n);
        let mut last = None;
        for k in 0..take {
            let index = if take == 1 {
                n - 1
            } else {
                k * (n - 1) / (take - 1)
            };
            if last == Some(index) {
                continue;
            }
            last = Some(index);
            let (x, y) = series.points[index];
            rows.push((series.label.clone(), x, y));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_padded_and_positive_on_log_axes() {
        assert_eq!(
            axis_range([1.0, 100.0].into_iter(), true),
            (1.0 / 1.5, 150.0)
        );
        assert_eq!(
            axis_range([0.0, -1.0, 4.0].into_iter(), true),
            (4.0 / 1.5, 6.0)
        );
        assert_eq!(axis_range([0.2, 1.0].into_iter(), false), (0.0, 1.04));
        assert_eq!(axis_range([3.0, 3.0].into_iter(), false), (2.0, 4.0));
        assert_eq!(axis_range([f64::NAN].into_iter(), false), (0.0, 1.0));
    }

    fn sample(labels: &[&str]) -> LineChart {
        LineChart {
            title: "variance".into(),
            x_label: "d_k".into(),
            y_label: "var".into(),
            x_log: true,
            y_log: true,
            series: labels
                .iter()
                .map(|l| Series {
                    label: l.to_string(),
                    points: vec![(4.0, 4.1), (512.0, 509.0)],
                    color: COLORS[0],
                    reference: false,
                    points_only: false,
                })
                .collect(),
            marker: Some(8.0),
            ink: (0, 0, 0),
        }
    }

    /// The review found the y axis's name turned on its side (unreadable in Chinese) and the
    /// legend drawn over the curves: the name is written across above the plot, the legend in
    /// rows below it, inside the chart's width.
    #[test]
    fn a_chart_draws_to_svg_with_its_labels_across_and_its_legend_below_the_plot() {
        let chart = sample(&["q·k", "毫秒，标准注意力"]);
        let layout = ChartLayout::new(&chart, 480);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (480, layout.height)).into_drawing_area();
            draw(&root, &chart).unwrap();
        }
        for text in ["variance", "q·k", "d_k", "↑ var", "毫秒，标准注意力"] {
            assert!(svg.contains(text), "{text}");
        }
        assert!(!svg.contains("rotate("), "no text turned on its side");
        assert!(layout.plot_bottom > layout.top && layout.height > layout.plot_bottom);
    }

    #[test]
    fn the_legend_wraps_into_rows_within_the_width() {
        let labels = [
            "largest weight, unscaled",
            "largest weight, ÷ √d_k",
            "p(1 − p), unscaled",
            "p(1 − p), ÷ √d_k",
        ];
        let chart = sample(&labels);
        let layout = ChartLayout::new(&chart, 480);
        assert!(layout.legend.len() >= 2, "{:?}", layout.legend);
        let placed: Vec<usize> = layout.legend.iter().flatten().map(|&(i, _)| i).collect();
        assert_eq!(placed, vec![0, 1, 2, 3], "every series once, in order");
        for row in &layout.legend {
            for &(i, x) in row {
                assert!(
                    x + LEGEND_SWATCH + text_width(labels[i]) <= 480,
                    "{i} at {x}"
                );
            }
        }
        assert_eq!(
            layout.height,
            layout.plot_bottom + layout.legend.len() as u32 * LEGEND_ROW + 6
        );
    }
}
