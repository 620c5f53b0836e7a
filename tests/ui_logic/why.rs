//! "Why here?", "Who wrote this prediction?" and the knocked-out heads in words: the panel's
//! numbers are the core's (its total is the trace's score), its labels name every writer in both
//! languages, and a link keeps the heads knocked out.

use super::*;
use attention_core::api::{AblateRequest, KnockoutRequest, Request};
use attention_core::models::ModelRun;
use attention_lab::ui::logic::format::format_value;
use attention_lab::ui::logic::link::{LinkState, parse_query, to_query};
use attention_lab::ui::logic::why::{
    components_of, knocked_out, who_wrote, why_cell, why_row, writer, writer_short,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn llama() -> attention_core::models::Model {
    attention_core::models::Model::from_files(
        include_bytes!("../../assets/llama/model.safetensors"),
        include_str!("../../assets/llama/config.json"),
        include_str!("../../assets/llama/vocab.json"),
    )
    .unwrap()
}

#[test]
fn every_writer_has_a_name_in_both_languages() {
    for (name, en, zh) in [
        ("token", "the token embedding", "词嵌入"),
        ("position", "the position embedding", "位置嵌入"),
        ("bias", "the constants (β and biases)", "常数项（β 与偏置）"),
        ("L2.H3", "L2·H3", "L2·H3"),
        ("L1.mlp", "L1's MLP", "第 1 层的 MLP"),
        ("L3.attn_bias", "L3's output bias", "第 3 层的输出偏置"),
    ] {
        assert_eq!(writer(name, Lang::En), en);
        assert_eq!(writer(name, Lang::Zh), zh);
    }
    assert_eq!(writer_short("L1.mlp", Lang::En), "L1 MLP");
    assert_eq!(writer_short("bias", Lang::Zh), "常数");
}

#[test]
fn the_panel_takes_the_traces_own_score_apart_on_a_trained_layer_and_on_random_weights() {
    let model = llama();
    let forward = model
        .read(
            "The cat sat on the mat. The cat sat on the",
            &ModelRun::default(),
        )
        .unwrap();
    let trace = &forward.layers[2].attention;
    let components = components_of(trace, Some((&model, &forward))).unwrap();
    assert!(components.names.contains(&"L2.H1".to_string()));
    let (query, key) = (30, 12);
    let cell = why_cell(trace, &components, 1, query, key, Lang::En).unwrap();
    let score = format_value(trace.heads[1].scores[[query, key]]);
    assert!(
        cell.total.starts_with(&format!("Score {score},")),
        "{}",
        cell.total
    );
    assert_eq!(cell.top.len(), 5);
    assert!(
        cell.top[0].ends_with(&format!("of {score}.")),
        "{}",
        cell.top[0]
    );
    assert_eq!(
        cell.matrix.values.dim(),
        (components.names.len() + 1, components.names.len() + 1)
    );
    let sum: f32 = cell.matrix.values.sum();
    assert!((sum - trace.heads[1].scores[[query, key]]).abs() < 1e-4);
    assert!(cell.masked.is_none());
    // A key after the query: explained, and said to be masked.
    let hidden = why_cell(trace, &components, 1, 3, 9, Lang::Zh).unwrap();
    assert_eq!(hidden.masked, Some(Lang::Zh.text().circuits.masked));
    // The row: one line per key, a summary naming writers with their shares.
    let (summary, lines) = why_row(trace, &components, 1, query, Lang::En).unwrap();
    assert_eq!(lines.len(), forward.ids.len());
    assert!(lines[query + 1].masked && !lines[query].masked);
    assert!(summary.contains('%'), "{summary}");
    // Outside the trace: nothing.
    assert!(why_cell(trace, &components, 1, 99, 0, Lang::En).is_none());

    // Random weights: the sentence's token embeddings and positions.
    let random = super::trace(Params::sentence("the cat sat on the mat"));
    let components = components_of(&random, None).unwrap();
    assert_eq!(components.names, ["token", "position"]);
    let cell = why_cell(&random, &components, 0, 2, 1, Lang::En).unwrap();
    assert_eq!(cell.matrix.row_labels, ["token", "position", "const."]);
}

#[test]
fn who_wrote_a_prediction_sums_to_its_logit() {
    let model = llama();
    let forward = model
        .read("猫坐在垫子上。猫坐在", &ModelRun::default())
        .unwrap();
    let (logit, bars) = who_wrote(&model, &forward, 9, "垫", Lang::En).unwrap();
    let id = model.id_of('垫').unwrap() as usize;
    assert_eq!(logit, format_value(model.logits(&forward, 9)[id]));
    let sum: f64 = bars.iter().map(|(_, v)| v).sum();
    assert!((sum - f64::from(model.logits(&forward, 9)[id])).abs() < 1e-4);
    assert!(
        bars.windows(2).all(|w| w[0].1.abs() >= w[1].1.abs()),
        "largest first"
    );
}

#[test]
fn a_link_keeps_the_heads_knocked_out() {
    let ablate = vec![
        AblateRequest {
            layer: 1,
            head: 2,
            how: KnockoutRequest::Zero,
        },
        AblateRequest {
            layer: 2,
            head: 1,
            how: KnockoutRequest::Mean,
        },
    ];
    let state = LinkState {
        request: Request {
            sentence: Some("abc".into()),
            ablate: Some(ablate.clone()),
            ..Request::default()
        },
        ..LinkState::default()
    };
    let query = to_query(&state);
    assert!(
        query.contains("ablate=L1H2%2CL2H1m") || query.contains("ablate=L1H2,L2H1m"),
        "{query}"
    );
    let (back, notices) = parse_query(&query);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(back.request.ablate, Some(ablate.clone()));
    assert_eq!(knocked_out(&ablate, Lang::En), "L1·H2, L2·H1 (μ)");
    // A malformed list is named, not silently dropped.
    let (_, notices) = parse_query("ablate=L0H1");
    assert!(!notices.is_empty());
}

#[test]
fn the_panel_works_with_heads_knocked_out() {
    use attention_core::pipeline::knockout::{HeadKnockout, Knockout};
    let model = llama();
    let run = ModelRun {
        ablate: vec![HeadKnockout {
            layer: 0,
            head: 2,
            how: Knockout::Zero,
        }],
        ..ModelRun::default()
    };
    let forward = model
        .read("The cat sat on the mat. The cat sat on the", &run)
        .unwrap();
    let trace = forward.layer_trace(2);
    let components = components_of(&trace, Some((&model, &forward))).unwrap();
    for (q, k) in [(1, 41), (0, 41), (41, 41)] {
        assert!(
            why_cell(&trace, &components, 0, q, k, Lang::Zh).is_some(),
            "{q} {k}"
        );
    }
    let cell = why_cell(&trace, &components, 0, 1, 0, Lang::Zh).expect("explained");
    // The layer shown is the knocked-out one too: its head 3's output is zero.
    let shown = forward.layer_trace(0);
    assert!(shown.heads[2].output.iter().all(|&v| v == 0.0));
    assert_eq!(shown.output, forward.layers[0].attention.output);
    // A model's layer without its forward pass is not taken apart from the wrong parts.
    assert!(components_of(&trace, None).is_none());
    let sum: f32 = cell.matrix.values.sum();
    assert!((sum - trace.heads[0].scores[[1, 0]]).abs() < 1e-4);
}

#[test]
fn the_circuits_chapter_says_what_it_measured_and_where_the_circuit_is_not_the_textbooks() {
    use attention_core::teaching::{CircuitsRefusal, circuits_experiment};
    use attention_lab::ui::logic::why::circuit_findings;
    let gpt2 = attention_core::models::Model::from_files(
        include_bytes!("../../assets/gpt2/model.safetensors"),
        include_str!("../../assets/gpt2/config.json"),
        include_str!("../../assets/gpt2/vocab.json"),
    )
    .unwrap();
    let e = circuits_experiment(&gpt2, "xq7kb@ xq7kb", &ModelRun::default()).unwrap();
    assert_eq!((e.query, e.earlier, e.target), (11, 4, 5));
    assert_eq!((e.previous_head, e.induction_head), ((0, 1), (1, 3)));
    assert!(e.knocked_weight < 0.05 && e.induction_weight > 0.5);
    let en = circuit_findings(&e, Lang::En);
    assert_eq!(en.len(), 6);
    assert!(
        en[0].contains("“b” at position 11 appeared before, at position 4"),
        "{}",
        en[0]
    );
    assert!(
        en[1].contains("L1·H2 looks most at the previous character (0.94"),
        "{}",
        en[1]
    );
    assert!(
        en[3].starts_with(
            "Not quite the textbook circuit: the key reads most from L1's MLP (+8.458)"
        ),
        "{}",
        en[3]
    );
    assert!(en[5].contains("0.654 → 0.004"), "{}", en[5]);
    let zh = circuit_findings(&e, Lang::Zh);
    assert!(zh[3].starts_with("和教科书上的回路不完全一样"), "{}", zh[3]);
    // The Llama model on a short Chinese text: knocking the previous-token head out changes
    // little, and the chapter says so rather than telling the textbook story.
    let e = circuits_experiment(&llama(), "猫坐在垫子上。猫坐在", &ModelRun::default()).unwrap();
    let en = circuit_findings(&e, Lang::En);
    assert!(
        en[5].starts_with("Knocking it out barely moves the induction head"),
        "{}",
        en[5]
    );
    assert_eq!(
        circuits_experiment(&gpt2, "abc", &ModelRun::default()).unwrap_err(),
        CircuitsRefusal::NoRepeat
    );
}

#[test]
fn under_a_soft_cap_the_terms_are_parts_of_the_score_before_the_cap() {
    use attention_core::math::scoring::Shaping;
    let trace = super::trace(Params {
        shaping: Shaping {
            softcap: Some(0.5),
            ..Shaping::default()
        },
        ..Params::sentence("the cat sat on the mat")
    });
    let components = components_of(&trace, None).unwrap();
    let cell = why_cell(&trace, &components, 0, 3, 1, Lang::En).unwrap();
    let before: f32 = cell.matrix.values.sum();
    let after = trace.heads[0].scores[[3, 1]];
    assert!(
        before.abs() > after.abs(),
        "the cap shrinks the score: {before} → {after}"
    );
    let (before, after) = (format_value(before), format_value(after));
    assert!(
        cell.top[0].ends_with(&format!("of {before}.")),
        "{}",
        cell.top[0]
    );
    assert!(
        cell.extras[0].ends_with(&format!(
            "the terms add up to {before}, the cap makes it {after}."
        )),
        "{}",
        cell.extras[0]
    );
}
