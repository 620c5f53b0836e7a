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
