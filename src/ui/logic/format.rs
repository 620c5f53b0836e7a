//! Numbers for people: values in cells, legends and tooltips, durations, counts.

/// A compact, readable number for labels, legends and tooltips.
pub fn format_value(value: f32) -> String {
    if value == 0.0 {
        "0".into()
    } else if !value.is_finite() {
        if value > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        }
    } else if value.abs() >= 1000.0 || value.abs() < 0.001 {
        format!("{value:.2e}")
    } else {
        format!("{value:.3}")
    }
}

/// How every number of one table is written, so a column reads in one notation (never 1.00e-3
/// above 0.001): fixed decimals, as many as the smallest non-zero value needs to show (at least 3,
/// at most 6), or, when values span more than that, scientific notation for all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notation {
    Fixed(usize),
    Scientific,
}

impl Notation {
    /// The notation for a table of `values` (±∞ and 0 do not count).
    pub fn for_values<'a>(values: impl IntoIterator<Item = &'a f32>) -> Self {
        let (mut smallest, mut largest) = (f32::INFINITY, 0.0f32);
        for &v in values {
            if v.is_finite() && v != 0.0 {
                smallest = smallest.min(v.abs());
                largest = largest.max(v.abs());
            }
        }
        if largest == 0.0 {
            return Self::Fixed(3);
        }
        if largest >= 1e5 {
            return Self::Scientific;
        }
        // Enough decimals for the smallest value's first significant figure.
        let needed = (-smallest.log10().floor()) as i32;
        match needed {
            ..=3 => Self::Fixed(3),
            4..=6 => Self::Fixed(needed as usize),
            _ => Self::Scientific,
        }
    }

    pub fn show(self, value: f32) -> String {
        if !value.is_finite() {
            return format_value(value);
        }
        match self {
            Self::Fixed(decimals) => format!("{value:.decimals$}"),
            Self::Scientific => format!("{value:.2e}"),
        }
    }
}

/// A setting or a factor as people write it: up to three decimals, no trailing zeros (1, 0.25,
/// 2.828, 16).
pub fn plain(value: f32) -> String {
    let text = format_value(value);
    if text.contains('e') || !text.contains('.') {
        text
    } else {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// `value` to `digits` significant figures, without trailing zeros (25.4987 → 25.5 at 4,
/// 0.012345 → 0.01235); ±∞ and NaN as words. Never the binary noise of an f32 widened to f64.
pub fn significant(value: f32, digits: usize) -> String {
    if !value.is_finite() || value == 0.0 {
        return format_value(value);
    }
    let digits = digits.max(1) as i32;
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A value inside a formula: negative numbers in parentheses, −∞ for a masked score.
pub fn operand(value: f32) -> String {
    if value == f32::NEG_INFINITY {
        "−∞".into()
    } else if value < 0.0 {
        format!("({})", format_value(value))
    } else {
        format_value(value)
    }
}

/// A duration: "0.8 ms", "12 ms" (browsers time to 0.1 ms without cross-origin isolation).
pub fn format_ms(ms: f64) -> String {
    if ms < 0.1 {
        "< 0.1 ms".into()
    } else if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

/// A count with thousands separated: 16,777,216.
pub fn group_digits(n: u64) -> String {
    let text = n.to_string();
    let mut grouped = String::with_capacity(text.len() + text.len() / 3);
    for (i, c) in text.chars().enumerate() {
        if i > 0 && (text.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    grouped
}

/// At most `max` characters of `label`, the last one an ellipsis when cut.
pub fn shorten_label(label: &str, max: usize) -> String {
    if label.chars().count() > max {
        let mut cut: String = label.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    } else {
        label.to_string()
    }
}

/// Rows `a–b` of a range (inclusive end), as the FlashAttention view names blocks.
pub fn span(range: &std::ops::Range<usize>) -> String {
    format!("{}–{}", range.start, range.end.saturating_sub(1))
}

/// A small positive number as a power of ten when it is one (10⁻⁵, 10⁻⁶), else as it reads.
pub fn power_of_ten(value: f32) -> String {
    const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let exponent = f64::from(value).log10().round();
    if value > 0.0 && (f64::from(value) / 10f64.powf(exponent) - 1.0).abs() < 1e-4 {
        let digits: String = (exponent.abs() as u32)
            .to_string()
            .chars()
            .filter_map(|d| d.to_digit(10).map(|d| SUPERSCRIPT[d as usize]))
            .collect();
        let sign = if exponent < 0.0 { "⁻" } else { "" };
        format!("10{sign}{digits}")
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_written_in_one_notation() {
        let weights = [0.3f32, 0.0009, 0.0012, 0.6979, f32::NEG_INFINITY, 0.0];
        let n = Notation::for_values(&weights);
        assert_eq!(n, Notation::Fixed(4));
        let shown: Vec<String> = weights.iter().map(|&v| n.show(v)).collect();
        assert_eq!(
            shown,
            ["0.3000", "0.0009", "0.0012", "0.6979", "−∞", "0.0000"]
        );
        assert_eq!(Notation::for_values(&[1.5f32, -22.25]), Notation::Fixed(3));
        assert_eq!(Notation::for_values(&[1.0f32, 1e-9]), Notation::Scientific);
        assert_eq!(Notation::for_values(&[2e6f32, 1.0]), Notation::Scientific);
        assert_eq!(Notation::Scientific.show(0.000_123), "1.23e-4");
        assert_eq!(Notation::for_values(&[0.0f32]), Notation::Fixed(3));
    }

    #[test]
    fn significant_figures_without_float_noise() {
        assert_eq!(significant(25.498_7, 4), "25.5");
        assert_eq!(significant(0.3, 4), "0.3");
        assert_eq!(significant(152.83, 4), "152.8");
        assert_eq!(significant(-17.333, 4), "-17.33");
        assert_eq!(significant(1000.0, 3), "1000");
        assert_eq!(significant(f32::INFINITY, 3), "∞");
    }

    #[test]
    fn powers_of_ten_read_as_such() {
        assert_eq!(super::power_of_ten(1e-5), "10⁻⁵");
        assert_eq!(super::power_of_ten(1e-6), "10⁻⁶");
        assert_eq!(super::power_of_ten(3e-6), "0.000003");
    }
}
