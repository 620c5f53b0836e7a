//! What is drawn tells the truth: shared and fixed colour scales, a degenerate range at its
//! value, legends that say which scale they are, readable cells on wide matrices, formulas that
//! follow the settings, and the random weights said to be random.

use attention_lab::ui::App;
use leptos::mount::mount_to;
use leptos::task::tick;
use leptos::view;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::{Element, HtmlElement};

use super::dom::*;

/// The mean distance of a canvas's opaque pixels from `centre`: how much colour it shows.
fn colourfulness(canvas: &Element, centre: [u8; 3]) -> f64 {
    let data = pixels(canvas);
    let mut total = 0.0f64;
    let mut count = 0.0f64;
    for px in data.chunks(4).filter(|px| px[3] == 255) {
        total += (0..3)
            .map(|i| (f64::from(px[i]) - f64::from(centre[i])).abs())
            .sum::<f64>();
        count += 1.0;
    }
    total / count.max(1.0)
}

/// The largest distance of a canvas's opaque pixels from `colour`: how far its brightest cell is.
fn reach(canvas: &Element, colour: [u8; 3]) -> f64 {
    pixels(canvas)
        .chunks(4)
        .filter(|px| px[3] == 255)
        .map(|px| {
            (0..3)
                .map(|i| (f64::from(px[i]) - f64::from(colour[i])).abs())
                .sum::<f64>()
        })
        .fold(0.0, f64::max)
}

/// The colour at the centre of a canvas.
fn centre_pixel(canvas: &Element) -> [u8; 3] {
    let canvas: web_sys::HtmlCanvasElement = canvas.clone().unchecked_into();
    let (w, h) = (canvas.width() as usize, canvas.height() as usize);
    let data = pixels(&canvas);
    let at = ((h / 2) * w + w / 2) * 4;
    [data[at], data[at + 1], data[at + 2]]
}

async fn lab(host: &HtmlElement, params: serde_json::Value) {
    let _ = api("set", Some(params));
    tick().await;
    frames().await;
    let _ = host;
}

/// The neutral middle of the diverging colour map (0).
const NEUTRAL: [u8; 3] = [221, 221, 221];

#[wasm_bindgen_test]
async fn scaling_and_temperature_change_the_picture() {
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    lab(&host, json!({"d_model": 256, "n_heads": 1})).await;
    let dot = reveal(&host, "[data-testid=heatmap-dot]").await;
    let scaled = reveal(&host, "[data-testid=heatmap-scaled]").await;
    frames().await;
    // One scale for both: QKᵀ is 16 times larger (√256), so it is far more colourful.
    assert_eq!(
        find(&host, "[data-testid=heatmap-dot-legend]").get_attribute("aria-label"),
        find(&host, "[data-testid=heatmap-scaled-legend]").get_attribute("aria-label")
    );
    assert!(
        text_of(&host, "[data-testid=heatmap-scaled-legend-note]").contains("one scale for QKᵀ")
    );
    let (vivid, pale) = (
        colourfulness(&dot, NEUTRAL),
        colourfulness(&scaled, NEUTRAL),
    );
    assert!(vivid > 4.0 * pale, "QKᵀ {vivid} against scaled {pale}");

    // Contrast stretches each: the two pictures look alike, and the legend says so.
    click(
        &host,
        "[data-testid=scale-mode] button[data-value='contrast']",
    );
    tick().await;
    frames().await;
    let (vivid, stretched) = (
        colourfulness(&dot, NEUTRAL),
        colourfulness(&scaled, NEUTRAL),
    );
    assert!(
        (vivid - stretched).abs() < 0.2 * vivid,
        "{vivid} against {stretched}"
    );
    assert!(text_of(&host, "[data-testid=heatmap-scaled-legend-note]").contains("contrast"));
    click(
        &host,
        "[data-testid=scale-mode] button[data-value='honest']",
    );
    tick().await;

    // The temperature flattens the weights, and on the fixed 0 … 1 scale that shows: no cell
    // gets bright any more (the largest weight falls from over 0.5 to about 1/11).
    lab(
        &host,
        json!({"d_model": 16, "n_heads": 2, "temperature": 1.0}),
    )
    .await;
    let weights = reveal(&host, "[data-testid=heatmap-weights]").await;
    frames().await;
    let dark = [68, 1, 84];
    let at_one = reach(&weights, dark);
    let before = pixels(&weights);
    lab(&host, json!({"temperature": 10.0})).await;
    until("the weights to redraw", || pixels(&weights) != before).await;
    let at_ten = reach(&weights, dark);
    assert!(at_ten < 0.5 * at_one, "T = 10: {at_ten}, T = 1: {at_one}");
    assert!(
        find(&host, "[data-testid=heatmap-weights-legend]")
            .get_attribute("aria-label")
            .unwrap()
            .starts_with("Colour scale from 0 to 1.000"),
        "weights keep the fixed scale"
    );
    drop(app);
}

#[wasm_bindgen_test]
async fn all_zero_weights_are_drawn_as_zero() {
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    lab(
        &host,
        json!({"sentence": "the cat sat on the mat", "mask": {"kind": "custom", "allowed": vec![vec![false; 6]; 6]}}),
    )
    .await;
    let weights = reveal(&host, "[data-testid=heatmap-weights]").await;
    frames().await;
    // Viridis at 0 (dark purple), not its middle (teal).
    assert_eq!(centre_pixel(&weights), [68, 1, 84]);
    drop(app);
}

#[wasm_bindgen_test]
async fn legends_show_both_ends_and_cells_stay_readable() {
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    // Two tokens: a narrow heatmap, whose colour bar still fits both numbers.
    lab(&host, json!({"sentence": "hi there"})).await;
    reveal(&host, "[data-testid=heatmap-scaled]").await;
    frames().await;
    let legend = find(&host, "[data-testid=heatmap-scaled-legend]");
    let width: f64 = legend
        .get_attribute("style")
        .and_then(|s| {
            s.split(';')
                .find_map(|p| {
                    p.trim()
                        .strip_prefix("width:")
                        .map(|w| w.trim().trim_end_matches("px").parse().ok())
                })
                .flatten()
        })
        .unwrap();
    assert!(
        width >= 180.0,
        "the colour bar and its numbers fit: {width}px"
    );

    // d_model 64: every row of X keeps a readable cell and its label; the matrix scrolls.
    lab(
        &host,
        json!({"sentence": "The cat sat on the mat because it was tired.", "d_model": 64}),
    )
    .await;
    let x = reveal(&host, "[data-testid=heatmap-x]").await;
    frames().await;
    let canvas: web_sys::HtmlCanvasElement = x.clone().unchecked_into();
    let height: f64 = canvas.get_bounding_client_rect().height();
    assert!(height / 11.0 >= 14.0, "cells of {} px", height / 11.0);
    let scroller = x.closest(".heatmap-scroll").unwrap().unwrap();
    assert!(
        scroller.scroll_width() > scroller.client_width(),
        "wide matrices scroll"
    );
    // The row labels are drawn on a canvas and, left alone, become a picture in its place (an
    // image, not a canvas: heatmap/row_picture.rs), as tall as the cells.
    let sheet = x.closest(".heatmap-sheet").unwrap().unwrap();
    let canvas: web_sys::HtmlCanvasElement = sheet
        .query_selector("canvas.heatmap-rows")
        .unwrap()
        .unwrap()
        .unchecked_into();
    let picture: web_sys::HtmlImageElement = sheet
        .query_selector("img.heatmap-rows")
        .unwrap()
        .unwrap()
        .unchecked_into();
    until("the row labels become a picture", || {
        picture.current_src().starts_with("blob:")
            && picture.complete()
            && canvas.get_bounding_client_rect().height() == 0.0
    })
    .await;
    assert_eq!(canvas.width(), 0, "the canvas gives back its pixels");
    assert!(
        (picture.get_bounding_client_rect().height() - height).abs() < 1.0,
        "a label for every row: {} px for {height} px of cells",
        picture.get_bounding_client_rect().height()
    );
    assert!(
        (picture.natural_width() as f64 - picture.get_bounding_client_rect().width()).abs() < 1.0,
        "the picture at its own size, not stretched"
    );
    drop(app);
}

#[wasm_bindgen_test]
async fn formulas_follow_the_settings_and_random_weights_say_so() {
    let host = host();
    let app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    assert_eq!(text_of(&host, "[data-testid=formula-q]"), "Q = X W_Q");
    lab(&host, json!({"layer_norm": "pre"})).await;
    assert_eq!(text_of(&host, "[data-testid=formula-q]"), "Q = LN(X) W_Q");
    assert_eq!(
        text_of(&host, "[data-testid=formula-output]"),
        "x + MHA(LN(x))"
    );
    lab(
        &host,
        json!({"layer_norm": "post", "source_sentence": "a b c"}),
    )
    .await;
    assert_eq!(text_of(&host, "[data-testid=formula-k]"), "K = S W_K");
    assert_eq!(
        text_of(&host, "[data-testid=formula-output]"),
        "LN(x + MHA(x))"
    );
    assert!(text_of(&host, "[data-testid=weights-untrained]").contains("random"));
    assert!(text_of(&host, "[data-testid=weights-note]").contains("not learned"));
    drop(app);
}
