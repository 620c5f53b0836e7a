//! The circuit view in numbers and words: the drawing's arrows are the core's composition scores
//! above the random baseline (the strongest named), its table lists every pair, and a chosen
//! head's shares on the sentence add up and name its writers, in both languages.

use super::*;
use attention_core::circuits::composition::{composition, sentence_shares};
use attention_core::models::{Model, ModelRun};
use attention_lab::ui::logic::circuit::{
    CircuitLayout, Kind, chosen_head, pair_rows, strongest_lines,
};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn gpt2() -> Model {
    Model::from_files(
        include_bytes!("../../assets/gpt2/model.safetensors"),
        include_str!("../../assets/gpt2/config.json"),
        include_str!("../../assets/gpt2/vocab.json"),
    )
    .unwrap()
}

#[test]
fn the_drawing_shows_the_pairs_above_random_and_names_the_strongest() {
    let model = gpt2();
    let c = composition(&model);
    let layout = CircuitLayout::of(&c, model.config.n_heads);
    // Three layers of four heads, in columns, inside the view box.
    assert_eq!(layout.nodes.len(), 12);
    assert_eq!((layout.nodes[5].layer, layout.nodes[5].head), (1, 1));
    assert!(layout.nodes[4].x > layout.nodes[3].x);
    for node in &layout.nodes {
        assert!(node.x > 0.0 && node.x < layout.width && node.y > 0.0 && node.y < layout.height);
    }
    // Every arrow is a pair the weights compose above the baseline, from an earlier layer, its
    // strength in (0, 1] and the strongest drawn at full strength.
    let above: usize = [&c.q, &c.k, &c.v]
        .iter()
        .map(|m| {
            m.iter()
                .flatten()
                .flatten()
                .filter(|&&s| s > c.baseline)
                .count()
        })
        .sum();
    assert_eq!(layout.arrows.len(), above);
    assert!(above > 10 && above < 3 * 48, "{above} arrows");
    for a in &layout.arrows {
        assert!(layout.nodes[a.from].layer < layout.nodes[a.to].layer);
        assert!(a.score > c.baseline && a.strength > 0.0 && a.strength <= 1.0);
        assert!(a.path.starts_with('M') && a.path.contains(" Q"));
    }
    let last = layout.arrows.last().unwrap();
    assert_eq!(last.strength, 1.0);
    assert!(layout.arrows.windows(2).all(|w| w[0].score <= w[1].score));
    // The strongest K-composition is the previous-token head into the induction head.
    let k = layout.strongest.iter().find(|s| s.kind == Kind::K).unwrap();
    assert_eq!(
        (c.heads[k.from].as_str(), c.heads[k.to].as_str()),
        ("L1.H2", "L2.H4")
    );
    let en = strongest_lines(&c, &layout, Lang::En);
    assert_eq!(en.len(), 3);
    assert_eq!(
        en[1],
        "Strongest K-composition: L1·H2 → L2·H4, 0.153 (1.7× random)."
    );
    let zh = strongest_lines(&c, &layout, Lang::Zh);
    assert_eq!(
        zh[1],
        "最强的 K 组合：L1·H2 → L2·H4，0.153（随机的 1.7 倍）。"
    );
}

#[test]
fn the_table_lists_every_pair_strongest_first() {
    let model = gpt2();
    let c = composition(&model);
    let rows = pair_rows(&c, Lang::En);
    // 4 × 4 pairs from layer 1 into 2, from 1 into 3 and from 2 into 3.
    assert_eq!(rows.len(), 48);
    let largest = |r: &attention_lab::ui::logic::circuit::PairRow| {
        r.scores.iter().fold(0.0f64, |m, &s| m.max(s))
    };
    assert!(rows.windows(2).all(|w| largest(&w[0]) >= largest(&w[1])));
    assert_eq!(
        (rows[0].from.as_str(), rows[0].to.as_str()),
        ("L1·H2", "L2·H4")
    );
    assert!((rows[0].scores[1] - c.k[1][7].unwrap()).abs() < 1e-12);
}

#[test]
fn a_chosen_head_says_where_its_scores_on_the_sentence_came_from() {
    let model = gpt2();
    let c = composition(&model);
    let forward = model.read("xq7kb@ xq7kb", &ModelRun::default()).unwrap();
    // The induction head, L2·H4.
    let shares = sentence_shares(&model, &forward, 1, 3).unwrap();
    let chosen = chosen_head(&c, 7, &shares, Lang::En);
    assert_eq!(
        chosen.summary,
        "On this sentence, what L2·H4's keys read came most from L1's MLP (80.9%); of the earlier \
         heads, from L1·H2 (5.1%). Of the heads, L1·H2 wrote the most of what its queries read \
         (2.8%). From the weights alone, L1·H2 → L2·H4 K-composition is 0.153 (random: 0.088)."
    );
    assert_eq!(
        chosen.key[0],
        (
            "L1's MLP".to_string(),
            shares.key[shares.names.iter().position(|n| n == "L1.mlp").unwrap()]
        )
    );
    let total = |bars: &[(String, f64)]| bars.iter().map(|b| b.1).sum::<f64>();
    assert!((total(&chosen.query) - 1.0).abs() < 1e-9);
    assert!((total(&chosen.key) - 1.0).abs() < 1e-9);
    assert_eq!(chosen.title, "L2·H4 on this sentence");
    // A first-layer head reads only the embeddings.
    let shares = sentence_shares(&model, &forward, 0, 1).unwrap();
    let first = chosen_head(&c, 1, &shares, Lang::Zh);
    assert_eq!(first.title, "L1·H2 在这句话上");
    assert!(
        first.summary.starts_with("L1·H2 在第一层"),
        "{}",
        first.summary
    );
}

#[test]
fn a_random_weight_trace_keeps_its_heads_knocked_out_when_exported() {
    use attention_core::api::{AblateRequest, KnockoutRequest, Request};
    use attention_lab::ui::logic::TraceRef;
    let request = Request {
        sentence: Some("the cat sat".into()),
        ablate: Some(vec![AblateRequest {
            layer: 1,
            head: 2,
            how: KnockoutRequest::Mean,
        }]),
        ..Request::default()
    };
    let mut params = request.to_params().unwrap();
    // As the page computes it: FlashAttention's output only, its steps recomputed for an export.
    params.trace = false;
    let mut knocked = trace(params);
    request.knock_out(&mut knocked).unwrap();
    let exported = TraceRef::new(knocked.clone()).with_flash_steps();
    assert_eq!(exported.output, knocked.output);
    assert_eq!(exported.concat, knocked.concat);
    let json: serde_json::Value =
        serde_json::from_str(&TraceRef::new(knocked.clone()).to_json().unwrap()).unwrap();
    assert_eq!(
        json["output"][0][0].as_f64().unwrap() as f32,
        knocked.output[[0, 0]]
    );
}

/// The strongest pairs' labels never cover each other (on Qwen2's two layers at phone size, "Q
/// 0.218" and "K 0.208" were drawn over one another): one that would is moved down past the
/// others; labels apart stay where their arrows put them.
#[test]
fn the_strongest_labels_are_moved_apart_when_they_would_cover_each_other() {
    use attention_lab::ui::logic::circuit::{LABEL_BOX, spread_labels};
    let (width, height) = LABEL_BOX;
    let at = [
        (200.0, 150.0),
        (205.0, 156.0),
        (198.0, 152.0),
        (400.0, 150.0),
    ];
    let placed = spread_labels(&at);
    assert_eq!(placed.len(), 4);
    assert_eq!(placed[0], at[0], "the first stays");
    assert_eq!(placed[3], at[3], "one far away stays");
    for (i, a) in placed.iter().enumerate() {
        assert_eq!(a.0, at[i].0, "moved down only");
        for b in &placed[..i] {
            assert!(
                (a.0 - b.0).abs() >= width || (a.1 - b.1).abs() >= height,
                "{a:?} covers {b:?}"
            );
        }
    }
    assert!(spread_labels(&[]).is_empty());
}
