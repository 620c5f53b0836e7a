//! Typing, every control, the mask editor, the head selector and the tooltip.

use attention_lab::ui::App;
use attention_lab::ui::logic::controls::{temperature_slider_max, temperature_to_slider};
use leptos::mount::mount_to;
use leptos::task::tick;
use leptos::view;
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use super::dom::*;

#[wasm_bindgen_test]
async fn typing_a_sentence_recomputes_tokens_and_weights() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;

    let before_tokens = texts(&host, "[data-testid=tokens] .chip-text");
    assert_eq!(before_tokens.first().map(String::as_str), Some("The"));
    let before = trace();

    type_into(&host, "[data-testid=sentence]", "注意力 is all you need 🙂");
    tick().await;

    let after_tokens = texts(&host, "[data-testid=tokens] .chip-text");
    assert_eq!(
        after_tokens,
        ["注", "意", "力", "is", "all", "you", "need", "🙂"]
    );
    let after = trace();
    let w = weights(&after, 0);
    assert_eq!(w.len(), after_tokens.len());
    assert_ne!(
        w,
        weights(&before, 0),
        "the weights must change with the sentence"
    );
    for (i, row) in w.iter().enumerate() {
        let sum: f64 = row.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "row {i} sums to {sum}");
    }
}

#[wasm_bindgen_test]
async fn an_empty_sentence_shows_a_message_and_keeps_the_last_result() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let tokens = texts(&host, "[data-testid=tokens] .chip-text");

    type_into(&host, "[data-testid=sentence]", "   ");
    tick().await;

    let errors = texts(&host, "[data-testid=error]");
    assert_eq!(errors.len(), 1, "one message");
    assert!(
        errors[0].contains("sentence") || errors[0].contains("句子"),
        "{}",
        errors[0]
    );
    assert_eq!(
        texts(&host, "[data-testid=tokens] .chip-text"),
        tokens,
        "the last valid tokens stay"
    );
}

#[wasm_bindgen_test]
async fn every_control_changes_the_computation() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;

    enter(&host, "[data-testid=d-model]", "24");
    tick().await;
    assert_eq!(trace()["d_model"], 24);
    assert_eq!(trace()["x"][0].as_array().unwrap().len(), 24);

    // Multi-head attention stays multi-head as the heads change: K/V heads follow.
    for heads in [3, 4, 5, 8, 4] {
        enter(&host, "[data-testid=n-heads]", &heads.to_string());
        tick().await;
        assert_eq!(
            (trace()["n_heads"].clone(), trace()["n_kv_heads"].clone()),
            (json!(heads), json!(heads)),
            "{heads} heads stay multi-head"
        );
        assert!(texts(&host, "[data-testid=kv-kind]")[0].contains("MHA"));
    }
    assert_eq!(trace()["d_k"], 6, "auto d_k = d_model / heads");
    assert!(
        host.query_selector("[data-testid=n-kv-heads]")
            .unwrap()
            .is_none(),
        "no K/V choice until sharing is chosen"
    );

    // Sharing K/V is a deliberate act, explained where it is chosen.
    let share: HtmlInputElement = find(&host, "[data-testid=share-kv]").unchecked_into();
    share.set_checked(true);
    fire(&share, "change");
    tick().await;
    assert_eq!(trace()["n_kv_heads"], 2, "4 heads share 2 K/V heads");
    assert!(texts(&host, "[data-testid=kv-kind]")[0].contains("GQA"));
    assert!(
        texts(&host, "[data-testid=kv-groups]")[0]
            .contains("2 query heads share each of 2 K/V heads")
    );
    let kv: HtmlSelectElement = find(&host, "[data-testid=n-kv-heads]").unchecked_into();
    let options: Vec<String> = (0..kv.length())
        .map(|i| kv.item(i).unwrap().text_content().unwrap())
        .collect();
    assert_eq!(
        options,
        ["1", "2"],
        "only divisors below the heads are offered"
    );
    kv.set_value("1");
    fire(&kv, "change");
    tick().await;
    assert_eq!(trace()["n_kv_heads"], 1);
    assert!(texts(&host, "[data-testid=kv-kind]")[0].contains("MQA"));
    // Shared K/V stays shared as the heads change (1 divides every count).
    enter(&host, "[data-testid=n-heads]", "6");
    tick().await;
    assert_eq!(
        (trace()["n_heads"].clone(), trace()["n_kv_heads"].clone()),
        (json!(6), json!(1))
    );
    kv_choose(&host, "3").await;
    enter(&host, "[data-testid=n-heads]", "4");
    tick().await;
    // 4 heads cannot share 3 K/V heads: the largest count that divides, said in a notice.
    assert_eq!(
        (trace()["n_heads"].clone(), trace()["n_kv_heads"].clone()),
        (json!(4), json!(2))
    );
    assert!(texts(&host, "[data-testid=error]")[0].contains("K/V heads were set to 2"));
    let share: HtmlInputElement = find(&host, "[data-testid=share-kv]").unchecked_into();
    share.set_checked(false);
    fire(&share, "change");
    tick().await;
    assert_eq!(trace()["n_kv_heads"], 4, "back to multi-head");
    enter(&host, "[data-testid=n-heads]", "3");
    tick().await;

    enter(&host, "[data-testid=d-k]", "5");
    tick().await;
    assert_eq!(trace()["d_k"], 5);
    assert_eq!(trace()["heads"][0]["q"][0].as_array().unwrap().len(), 5);
    click(&host, "[data-testid=d-k-auto]");
    tick().await;
    assert_eq!(trace()["d_k"], 8, "auto again: 24 / 3");
    enter(&host, "[data-testid=d-v]", "3");
    tick().await;
    assert_eq!(trace()["heads"][0]["v"][0].as_array().unwrap().len(), 3);

    enter(&host, "[data-testid=temperature]", "0.25");
    tick().await;
    assert_eq!(trace()["temperature"], 0.25);
    let slider: HtmlInputElement = find(&host, "[data-testid=temperature-slider]").unchecked_into();
    // Dragging writes numbers as people write them, never 3.4100000000000001.
    slider.set_value(&temperature_to_slider(3.41).to_string());
    fire(&slider, "input");
    tick().await;
    let field: HtmlInputElement = find(&host, "[data-testid=temperature]").unchecked_into();
    assert_eq!(trace()["temperature"], 3.41);
    until("the field to show the slider's value", || {
        field.value() == "3.41"
    })
    .await;
    slider.set_value(&temperature_slider_max().to_string());
    fire(&slider, "input");
    tick().await;
    assert_eq!(
        trace()["temperature"],
        10.0,
        "the slider's right end is T = 10"
    );

    click(&host, "[data-testid=mask-kind] button[data-value='causal']");
    tick().await;
    assert_eq!(trace()["mask"], "causal");
    assert_eq!(
        weights(&trace(), 0)[0][1],
        0.0,
        "the first token cannot see the second"
    );

    click(
        &host,
        "[data-testid=mask-kind] button[data-value='padding']",
    );
    tick().await;
    enter(&host, "[data-testid=valid-len]", "2");
    tick().await;
    assert_eq!(state()["mask"], json!({"kind": "padding", "valid_len": 2}));
    assert!(
        weights(&trace(), 0)
            .iter()
            .all(|row| row[2..].iter().all(|&w| w == 0.0))
    );

    click(&host, "[data-testid=mask-kind] button[data-value='window']");
    tick().await;
    enter(&host, "[data-testid=window-radius]", "1");
    tick().await;
    assert_eq!(state()["mask"], json!({"kind": "window", "radius": 1}));
    assert_eq!(weights(&trace(), 0)[0][2], 0.0, "|0 − 2| > 1");

    click(&host, "[data-testid=mask-kind] button[data-value='none']");
    let before = weights(&trace(), 0);
    enter(&host, "[data-testid=seed]", "7");
    tick().await;
    assert_eq!(state()["seed"], 7);
    assert_ne!(weights(&trace(), 0), before, "new seed, new weights");
    click(&host, "[data-testid=reroll]");
    tick().await;
    assert_ne!(state()["seed"], 7, "re-roll draws another seed");

    click(&host, "[data-testid=layer-norm] button[data-value='pre']");
    tick().await;
    assert_eq!(trace()["layer_norm"], "pre");

    // By default the tiles follow the sentence: 11 tokens in tiles of 3, four per side.
    assert_eq!(trace()["flash"]["block"], json!([3, 3]));
    enter(&host, "[data-testid=block-rows]", "4");
    enter(&host, "[data-testid=block-cols]", "5");
    tick().await;
    assert_eq!(trace()["flash"]["block"], json!([4, 5]));
    click(&host, "[data-testid=block-rows-auto]");
    tick().await;
    assert_eq!(
        trace()["flash"]["block"],
        json!([3, 5]),
        "rows back to auto, columns kept"
    );
    assert!(trace()["flash"]["max_abs_diff"].as_f64().unwrap() < 1e-5);

    let cross: HtmlInputElement = find(&host, "[data-testid=cross-toggle]").unchecked_into();
    cross.set_checked(true);
    fire(&cross, "change");
    tick().await;
    type_into(&host, "[data-testid=source-sentence]", "源 句子 很 短");
    tick().await;
    // 源 · 句 · 子 · 很 · 短: one token per Chinese character.
    assert_eq!(trace()["source_tokens"].as_array().unwrap().len(), 5);
    assert_eq!(
        weights(&trace(), 0)[0].len(),
        5,
        "keys come from the source"
    );
    assert_eq!(
        texts(&host, "[data-testid=source-tokens] .chip-text").len(),
        5
    );
}

#[wasm_bindgen_test]
async fn the_mask_editor_switches_cells_by_keyboard_click_and_drag() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    type_into(&host, "[data-testid=sentence]", "a b c d e");
    open_controls(&host).await;
    click(&host, "[data-testid=mask-kind] button[data-value='custom']");
    tick().await;
    let allowed = || -> Vec<Vec<bool>> {
        serde_json::from_value(state()["mask"]["allowed"].clone()).unwrap()
    };
    assert!(
        allowed().iter().flatten().all(|&a| a),
        "custom starts from the current (empty) mask"
    );

    let editor = reveal(&host, "[data-testid=mask-editor]").await;
    take_keyboard(&editor).await;
    let start = outline_left(&editor);
    key(&editor, "ArrowRight");
    until("the cursor to move", || outline_left(&editor) > start).await;
    key(&editor, " ");
    until("Space to switch the cell", || !allowed()[0][1]).await;
    assert_eq!(weights(&trace(), 0)[0][1], 0.0);

    let (left, top, cell) = cell_geometry(&editor, (0, 1));
    let at = |row: usize, col: usize| {
        (
            left + (col as f64 + 0.5) * cell,
            top + (row as f64 + 0.5) * cell,
        )
    };
    let (x, y) = at(2, 0);
    pointer(&editor, "pointerdown", x, y, 1);
    until("a click to switch a cell off", || !allowed()[2][0]).await;
    for col in 1..4 {
        let (x, y) = at(2, col);
        pointer(&editor, "pointermove", x, y, 1);
    }
    tick().await;
    assert_eq!(
        allowed()[2],
        [false, false, false, false, true],
        "a drag paints the same value"
    );
    let (x, y) = at(2, 0);
    pointer(&editor, "pointerdown", x, y, 1);
    tick().await;
    assert!(allowed()[2][0], "clicking again switches it back on");

    // The editor follows the sentence: a longer one keeps the cells and allows the new ones.
    type_into(&host, "[data-testid=sentence]", "a b c d e f");
    tick().await;
    let grown = allowed();
    assert_eq!((grown.len(), grown[0].len()), (6, 6));
    assert!(!grown[0][1] && grown[5][5]);
}

#[wasm_bindgen_test]
async fn the_head_selector_switches_the_per_head_views() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let canvas = reveal(&host, "[data-testid=heatmap-weights]").await;
    let head_0 = pixels(&canvas);

    click(&host, "[data-testid=head-tab-1]");
    until("head 2's weights to be drawn", || pixels(&canvas) != head_0).await;
    assert_eq!(
        find(&host, "[data-testid=head-tab-1]")
            .get_attribute("aria-selected")
            .as_deref(),
        Some("true")
    );

    let small = reveal(&host, "[data-testid=all-heads-0]").await;
    small.unchecked_ref::<HtmlElement>().click();
    tick().await;
    assert_eq!(
        find(&host, "[data-testid=head-tab-0]")
            .get_attribute("aria-selected")
            .as_deref(),
        Some("true")
    );
    reveal(&host, "[data-testid=heatmap-weights]").await;
    until("head 1's weights again", || pixels(&canvas) == head_0).await;
}

#[wasm_bindgen_test]
async fn the_tooltip_explains_a_cell_with_its_numbers() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let w = weights(&trace(), 0);

    let canvas = reveal(&host, "[data-testid=heatmap-weights]").await;
    take_keyboard(&canvas).await;
    until("the tooltip", || {
        !texts(&host, "[data-testid=tooltip-value]").is_empty()
    })
    .await;
    assert_eq!(
        texts(&host, "[data-testid=tooltip-value]"),
        [format!("{:.3}", w[0][0])]
    );
    key(&canvas, "ArrowRight");
    let second = format!("{:.3}", w[0][1]);
    until("the tooltip to move", || {
        texts(&host, "[data-testid=tooltip-value]") == [second.clone()]
    })
    .await;
    let tooltip = texts(&host, "[data-testid=tooltip]").join(" ");
    assert!(tooltip.starts_with(&format!("{:.3}", w[0][1])), "{tooltip}");
    assert!(tooltip.contains("“The” → key 1 “cat”"), "{tooltip}");
    assert!(
        tooltip.contains("exp(") && tooltip.contains("max_0"),
        "{tooltip}"
    );

    // Pointing works too: hover row 2, column 3 of the scaled scores.
    let scores = reveal(&host, "[data-testid=heatmap-scaled]").await;
    take_keyboard(&scores).await;
    let (left, top, cell) = cell_geometry(&scores, (0, 0));
    pointer(
        &scores,
        "pointermove",
        left + 3.5 * cell,
        top + 2.5 * cell,
        0,
    );
    let t = trace();
    let score = t["heads"][0]["scores"][2][3].as_f64().unwrap();
    until("the score's tooltip", || {
        texts(&host, "[data-testid=tooltip-value]") == [format!("{score:.3}")]
    })
    .await;
    let tooltip = texts(&host, "[data-testid=tooltip]").join(" ");
    assert!(tooltip.starts_with(&format!("{score:.3}")), "{tooltip}");
    assert!(
        tooltip.contains("(√d_k · T)") && tooltip.contains("√8 · 1.000"),
        "{tooltip}"
    );

    key(&scores, "Escape");
    until("Escape to close the tooltip", || {
        texts(&host, "[data-testid=tooltip]").is_empty()
    })
    .await;
}

#[wasm_bindgen_test]
async fn the_js_api_refuses_bad_values_and_keeps_the_state() {
    let host = host();
    let _app = mount_to(host.clone(), || view! { <App /> });
    tick().await;
    let ok = api(
        "set",
        Some(json!({"n_heads": 4, "temperature": 0.5, "mask": {"kind": "causal"}})),
    );
    assert_eq!(ok, json!({"ok": true}));
    tick().await;
    let before = state();
    assert_eq!(
        (before["n_heads"].clone(), before["temperature"].clone()),
        (json!(4), json!(0.5))
    );
    for field in [
        "tokens",
        "backend",
        "fallback_reason",
        "compute_ms",
        "max_flash_diff",
    ] {
        assert!(before.get(field).is_some(), "state() has {field}");
    }

    for bad in [
        json!({"n_heads": 3, "n_kv_heads": 2}),
        json!({"temperature": 0}),
        json!({"d_model": "wide"}),
        json!({"mask": {"kind": "padding", "valid_len": 999}}),
        json!({"colour": "red"}),
    ] {
        let refused = api("set", Some(bad.clone()));
        assert_eq!(refused["ok"], false, "{bad}");
        tick().await;
        let shown = texts(&host, "[data-testid=error]").join(" ");
        assert!(!shown.is_empty(), "a visible message for {bad}");
        let mut after = state();
        let mut expected = before.clone();
        for v in [&mut after, &mut expected] {
            v["compute_ms"] = json!(null);
            v["update_ms"] = json!(null);
        }
        assert_eq!(after, expected, "{bad} left the state as it was");
    }
}

async fn kv_choose(host: &HtmlElement, value: &str) {
    let kv: HtmlSelectElement = find(host, "[data-testid=n-kv-heads]").unchecked_into();
    kv.set_value(value);
    fire(&kv, "change");
    tick().await;
}
