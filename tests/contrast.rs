//! WCAG AA contrast (at least 4.5 : 1 for text) for every text/background pair the stylesheet
//! uses, in the light and the dark theme, read from style/main.css itself.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;

const CSS: &str = include_str!("../style/main.css");

/// The custom properties set in the first block whose selector starts with `selector`.
fn theme(selector: &str) -> HashMap<String, String> {
    let start = CSS
        .find(selector)
        .unwrap_or_else(|| panic!("no {selector} in the stylesheet"));
    let body = &CSS[start..];
    let open = body.find('{').unwrap();
    let close = body.find('}').unwrap();
    body[open + 1..close]
        .split(';')
        .filter_map(|declaration| {
            let (name, value) = declaration.split_once(':')?;
            let name = name.trim();
            name.starts_with("--")
                .then(|| (name.to_string(), value.trim().to_string()))
        })
        .collect()
}

fn rgb(hex: &str) -> [f64; 3] {
    let hex = hex.trim_start_matches('#');
    assert_eq!(hex.len(), 6, "colour {hex}");
    std::array::from_fn(|i| f64::from(u8::from_str_radix(&hex[i * 2..i * 2 + 2], 16).unwrap()))
}

/// Relative luminance, as WCAG 2 defines it.
fn luminance(hex: &str) -> f64 {
    let [r, g, b] = rgb(hex).map(|c| {
        let c = c / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    });
    0.2126 * r + 0.7152 * g + 0.0722 * b
}

fn contrast(a: &str, b: &str) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Text colour on background colour, as the stylesheet pairs them.
const PAIRS: [(&str, &str); 13] = [
    ("--ink", "--bg"),
    ("--ink", "--panel"),
    ("--ink", "--chip"),
    ("--ink", "--accent-soft"),
    ("--muted", "--bg"),
    ("--muted", "--panel"),
    ("--muted", "--chip"),
    ("--accent", "--panel"),
    ("--accent", "--bg"),
    ("--accent", "--accent-soft"),
    ("--panel", "--accent"),
    ("--error-ink", "--error-bg"),
    ("--note-ink", "--note-bg"),
];

#[test]
fn every_text_colour_passes_wcag_aa_in_both_themes() {
    for (name, selector) in [
        ("light", ":root,\n:root[data-theme=\"light\"]"),
        ("dark", ":root[data-theme=\"dark\"]"),
    ] {
        let colours = theme(selector);
        for (text, background) in PAIRS {
            let ratio = contrast(&colours[text], &colours[background]);
            assert!(
                ratio >= 4.5,
                "{name} theme: {text} on {background} is {ratio:.2} : 1"
            );
        }
    }
    // The highlighted line of the pseudocode has its own colours.
    for (text, background) in [("#3b2500", "#fde7c8"), ("#ffe8c4", "#5a3d10")] {
        let ratio = contrast(text, background);
        assert!(
            ratio >= 4.5,
            "pseudocode highlight {text} on {background}: {ratio:.2}"
        );
    }
}

#[test]
fn the_dark_theme_for_auto_matches_the_explicit_one() {
    let auto = theme("  :root[data-theme=\"auto\"]");
    let dark = theme(":root[data-theme=\"dark\"]");
    assert_eq!(
        auto, dark,
        "prefers-color-scheme: dark must give the same colours as theme=dark"
    );
}
