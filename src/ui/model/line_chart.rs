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

/// Draws the chart on `root`.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &LineChart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let ink = RGBColor(chart.ink.0, chart.ink.1, chart.ink.2);
    let font = |size: u32| ("sans-serif", size).into_font().color(&ink);
    let points = || chart.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = axis_range(points().map(|p| p.0).chain(chart.marker), chart.x_log);
    let (y0, y1) = axis_range(points().map(|p| p.1), chart.y_log);
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(&chart.title, font(14))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(56);
    // Four coordinate types (linear or log on each axis) share one body.
    macro_rules! body {
        ($plot:expr) => {{
            let mut plot = $plot;
            plot.configure_mesh()
                .x_desc(&chart.x_label)
                .y_desc(&chart.y_label)
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
                plot.draw_series(LineSeries::new(points.clone(), color.stroke_width(width)))?
                    .label(&series.label)
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 18, y)], color.stroke_width(width))
                    });
                if !series.reference {
                    plot.draw_series(points.iter().map(|&p| Circle::new(p, 2, color.filled())))?;
                }
            }
            plot.configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .label_font(font(12))
                .border_style(ink.mix(0.3))
                .background_style(WHITE.mix(0.0))
                .draw()?;
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
    root.present()
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

    #[test]
    fn a_chart_draws_to_svg_with_its_labels() {
        let chart = LineChart {
            title: "variance".into(),
            x_label: "d_k".into(),
            y_label: "var".into(),
            x_log: true,
            y_log: true,
            series: vec![Series {
                label: "q·k".into(),
                points: vec![(4.0, 4.1), (512.0, 509.0)],
                color: COLORS[0],
                reference: false,
            }],
            marker: Some(8.0),
            ink: (0, 0, 0),
        };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (480, 260)).into_drawing_area();
            draw(&root, &chart).unwrap();
        }
        assert!(svg.contains("variance") && svg.contains("q·k") && svg.contains("d_k"));
    }
}
