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
const PAIRS: [(&str, &str); 16] = [
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
    // The circuit view's arrows are labelled in their kind's colour.
    ("--comp-q", "--panel"),
    ("--comp-k", "--panel"),
    ("--comp-v", "--panel"),
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

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// The colour maps, for graphics (WCAG 1.4.11, 3 : 1): viridis's ends and middle are told apart
/// by lightness; coolwarm's ends each stand apart from its middle (0), though not from each other
/// (blue against red, the same lightness: the sign is in the tooltip, the live region and the
/// table too; ACCESSIBILITY.md). Against the panel one viridis end fades in each theme, so every
/// colour map sits in a frame (`--muted`) of at least 3 : 1 against the panel, in both themes.
#[test]
fn the_colour_maps_ends_stand_apart_and_their_frame_from_the_panel() {
    use attention_lab::ui::logic::colormap::Scale;
    let viridis = Scale::UNIT;
    let [low, middle, high] = [0.0, 0.5, 1.0].map(|t| hex(viridis.color(t)));
    for (a, b) in [(&low, &high), (&low, &middle), (&high, &middle)] {
        let ratio = contrast(a, b);
        assert!(ratio >= 3.0, "viridis {a} against {b}: {ratio:.2} : 1");
    }
    let coolwarm = Scale::Diverging { limit: 1.0 };
    let [negative, zero, positive] = [-1.0, 0.0, 1.0].map(|v| hex(coolwarm.color(v)));
    for end in [&negative, &positive] {
        let ratio = contrast(end, &zero);
        assert!(
            ratio >= 3.0,
            "coolwarm {end} against 0 ({zero}): {ratio:.2} : 1"
        );
    }
    assert!(
        CSS.contains(".heatmap-cells, .strip-canvas { box-shadow: 0 0 0 1px var(--muted); }"),
        "the colour maps' frame"
    );
    for selector in [
        ":root,\n:root[data-theme=\"light\"]",
        ":root[data-theme=\"dark\"]",
    ] {
        let colours = theme(selector);
        let ratio = contrast(&colours["--muted"], &colours["--panel"]);
        assert!(
            ratio >= 3.0,
            "{selector}: the frame on the panel {ratio:.2} : 1"
        );
        // And the fading end, to keep this test honest about why the frame is there.
        let faded = [low.as_str(), high.as_str()]
            .into_iter()
            .map(|end| contrast(end, &colours["--panel"]))
            .fold(f64::MAX, f64::min);
        assert!(
            faded < 3.0,
            "{selector}: no viridis end fades any more ({faded:.2}); the frame could go"
        );
    }
}
