//! The FlashAttention player: its numbers are the trace's, in step, by button and keyboard.

use attention_lab::ui::App;
use leptos::mount::mount_to;
use leptos::task::tick;
use leptos::view;
use serde_json::{Value, json};
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::HtmlElement;

use super::dom::*;

/// A number as the page prints it (`heatmap::format_value`); null in the trace's JSON is −∞.
fn printed(value: &Value) -> String {
    match value.as_f64() {
        None => "−∞".into(),
        Some(0.0) => "0".into(),
        Some(v) if v.abs() >= 1000.0 || v.abs() < 0.001 => format!("{:.2e}", v as f32),
        Some(v) => format!("{:.3}", v as f32),
    }
}

fn flash_cells(host: &HtmlElement, row: usize, column: &str) -> String {
    texts(
        host,
        &format!("[data-testid=flash-row-{row}] [data-testid=flash-{column}]"),
    )
    .join("")
}

/// Mounts the lab on a small case and brings the FlashAttention view into sight.
async fn flash_lab(host: &HtmlElement, params: Value) -> Value {
    assert_eq!(api("set", Some(params)), json!({"ok": true}));
    tick().await;
    reveal(host, "[data-testid=flash-grid]").await;
    trace()
}

#[wasm_bindgen_test]
async fn flash_steps_show_the_traces_numbers() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let t = flash_lab(&host, json!({"sentence": "a b c d e", "n_heads": 1, "d_model": 4, "block": {"rows": 2, "cols": 2}})).await;
    let steps = t["flash"]["heads"][0]["steps"].as_array().unwrap().clone();
    assert_eq!(steps.len(), 9, "3 query blocks × 3 key blocks");
    click(&host, "[data-testid=flash-acc-table-toggle]");
    let acc_table = || texts(&host, "[data-testid=flash-acc-table] tbody td");
    let frame = |host: &HtmlElement| texts(host, "[data-testid=flash-frame]").join("");
    assert_eq!(frame(&host), "step 1 of 51");

    // Walk the first query block: start, three tiles of five phases, normalise.
    for index in 0..17 {
        if index > 0 {
            click(&host, "[data-testid=flash-forward]");
        }
        until("the frame to change", || {
            frame(&host) == format!("step {} of 51", index + 1)
        })
        .await;
        let (tile, phase) = if index == 0 {
            (0, "start")
        } else if index == 16 {
            (2, "normalize")
        } else {
            (
                (index - 1) / 5,
                ["scores", "max", "exp", "sum", "acc"][(index - 1) % 5],
            )
        };
        let step = &steps[tile];
        let line = match phase {
            "start" => 3,
            "scores" => 6,
            "max" => 7,
            "exp" => 8,
            "sum" => 9,
            "acc" => 10,
            _ => 11,
        };
        let active = host
            .query_selector("[data-testid=pseudocode] li.active")
            .unwrap()
            .unwrap();
        assert_eq!(
            active.get_attribute("data-testid").unwrap(),
            format!("pseudocode-line-{line}"),
            "frame {index}"
        );
        for r in 0..2 {
            let (m, rescale, l) = match phase {
                "start" => ("−∞".to_string(), String::new(), "0".to_string()),
                "scores" => (
                    printed(&step["m_prev"][r]),
                    String::new(),
                    printed(&step["l_prev"][r]),
                ),
                "max" | "exp" => (
                    format!(
                        "{} → {}",
                        printed(&step["m_prev"][r]),
                        printed(&step["m"][r])
                    ),
                    String::new(),
                    printed(&step["l_prev"][r]),
                ),
                "sum" | "acc" => (
                    format!(
                        "{} → {}",
                        printed(&step["m_prev"][r]),
                        printed(&step["m"][r])
                    ),
                    printed(&step["rescale"][r]),
                    format!(
                        "{} → {}",
                        printed(&step["l_prev"][r]),
                        printed(&step["l"][r])
                    ),
                ),
                _ => (
                    printed(&step["m"][r]),
                    String::new(),
                    printed(&step["l"][r]),
                ),
            };
            assert_eq!(flash_cells(&host, r, "m"), m, "frame {index}, row {r}: m");
            assert_eq!(
                flash_cells(&host, r, "rescale"),
                rescale,
                "frame {index}, row {r}: rescale"
            );
            assert_eq!(flash_cells(&host, r, "l"), l, "frame {index}, row {r}: l");
        }
        // The accumulator: after a tile its new rows; at the end the rows divided by l.
        let expected: Option<Vec<String>> = match phase {
            "acc" => Some(
                step["acc"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|row| row.as_array().unwrap().iter().map(printed))
                    .collect(),
            ),
            "normalize" => Some(
                t["flash"]["heads"][0]["output"].as_array().unwrap()[0..2]
                    .iter()
                    .flat_map(|row| row.as_array().unwrap().iter().map(printed))
                    .collect(),
            ),
            _ => None,
        };
        if let Some(expected) = expected {
            until("the accumulator table", || acc_table() == expected).await;
        }
    }
}

#[wasm_bindgen_test]
async fn stepping_back_then_forward_returns_the_same_view() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    flash_lab(&host, json!({"sentence": "the cat sat on the warm mat", "n_heads": 1, "mask": {"kind": "causal"}, "block": {"rows": 3, "cols": 2}})).await;
    for _ in 0..13 {
        click(&host, "[data-testid=flash-forward]");
    }
    tick().await;
    let grid = find(&host, "[data-testid=flash-grid]");
    let view = || {
        (
            texts(&host, "[data-testid=flash-frame]"),
            texts(&host, "[data-testid=flash-phase]"),
            texts(&host, "[data-testid=flash-table]"),
            texts(&host, "[data-testid=pseudocode] li.active"),
            texts(&host, "[data-testid=flash-traffic]"),
        )
    };
    until("the grid to draw", || pixels(&grid).iter().any(|&b| b != 0)).await;
    frames().await;
    let (before, before_pixels) = (view(), pixels(&grid));
    click(&host, "[data-testid=flash-back]");
    until("a step back", || view() != before).await;
    assert_ne!(view().0, before.0);
    click(&host, "[data-testid=flash-forward]");
    until("the step forward", || view() == before).await;
    until("the same picture", || pixels(&grid) == before_pixels).await;
}

#[wasm_bindgen_test]
async fn causal_masking_skips_exactly_the_tiles_above_the_diagonal() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    for (n, rows, cols) in [(7usize, 2usize, 2usize), (7, 3, 2), (10, 4, 3)] {
        let sentence = vec!["w"; n].join(" ");
        flash_lab(&host, json!({"sentence": sentence, "n_heads": 1, "mask": {"kind": "causal"}, "block": {"rows": rows, "cols": cols}})).await;
        // A tile is strictly above the diagonal when its first key comes after its last query.
        let mut above = 0;
        let mut total = 0;
        for r0 in (0..n).step_by(rows) {
            let last_query = (r0 + rows).min(n) - 1;
            for c0 in (0..n).step_by(cols) {
                total += 1;
                above += usize::from(c0 > last_query);
            }
        }
        click(&host, "[data-testid=flash-end]");
        let expected = above.to_string();
        until("the count at the end", || {
            texts(&host, "[data-testid=flash-skipped]") == [expected.clone()]
        })
        .await;
        let tiles = texts(&host, "[data-testid=flash-tiles]").join("");
        assert!(tiles.starts_with(&format!("{total} / {total}")), "{tiles}");
        click(&host, "[data-testid=flash-start]");
        tick().await;
    }
}

#[wasm_bindgen_test]
async fn the_flash_player_answers_the_keyboard() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    flash_lab(
        &host,
        json!({"sentence": "a b c d", "n_heads": 1, "block": {"rows": 2, "cols": 2}}),
    )
    .await;
    let view = find(&host, "[data-testid=flash-view]");
    let frame = || texts(&host, "[data-testid=flash-frame]").join("");
    key(&view, "ArrowRight");
    key(&view, "ArrowRight");
    until("two steps", || frame().starts_with("step 3 of")).await;
    key(&view, "ArrowLeft");
    until("one back", || frame().starts_with("step 2 of")).await;
    key(&view, "End");
    until("the end", || {
        let f = frame();
        let parts: Vec<&str> = f.split(' ').collect();
        parts.len() == 4 && parts[1] == parts[3]
    })
    .await;
    key(&view, "Home");
    until("the start", || frame().starts_with("step 1 of")).await;
    key(&view, " ");
    until("playing on its own", || !frame().starts_with("step 1 of")).await;
    key(&view, " ");
    let paused = frame();
    frames().await;
    frames().await;
    assert_eq!(frame(), paused, "paused");
    // A parameter change keeps the position (same block and phase).
    assert_eq!(
        api("set", Some(json!({"temperature": 0.5}))),
        json!({"ok": true})
    );
    tick().await;
    assert_eq!(frame(), paused);
}
