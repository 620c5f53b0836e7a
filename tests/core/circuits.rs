//! Why a head attends, checked: the residual stream's components sum to it, a score's terms sum
//! to the score and a logit's parts to the logit (random weights with every score option, and
//! both trained models, on many seeded cells), a head knocked out by zero is its W_O rows
//! zeroed, and every refusal names the field and the range.

use super::*;
use attention_core::circuits::composition::{
    Composition, CompositionSteps, baseline, composition, composition_cost, composition_pairs,
    sentence_shares,
};
use attention_core::circuits::explain::Reading;
use attention_core::circuits::logit::logit_attribution;
use attention_core::circuits::{Components, explain_cell};
use attention_core::math::rng::SplitMix64;
use attention_core::models::{Model, ModelRun};
use attention_core::pipeline::knockout::{HeadKnockout, Knockout};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// |sum − score| within 1e-5 of the score (or of 1, for a score near 0).
fn assert_sums(what: &str, sum: f64, score: f32) {
    let score = f64::from(score);
    assert!(
        (sum - score).abs() <= 1e-5 * score.abs().max(1.0),
        "{what}: terms sum to {sum}, the score is {score}"
    );
}

const SENTENCE: &str = "The cat sat on the mat; the cat sat on the mat. 猫坐在垫子上。";

#[test]
fn random_weights_scores_are_the_sum_of_their_terms_under_every_score_option() {
    for seed in 0..120 {
        let config = support::random_shaped_config(seed);
        let trace = compute_trace(&config);
        let components = Components::of_sequence(config.target());
        let mut rng = SplitMix64::new(seed);
        for head in 0..config.dims().n_heads {
            let reading = Reading::new(&trace, &components, head).unwrap();
            let query = (rng.next_u64() % config.seq_len() as u64) as usize;
            for e in reading.row(query).unwrap() {
                assert_sums(
                    &format!("seed {seed} head {head} cell {query},{}", e.key),
                    e.sum,
                    e.score,
                );
                let allowed = trace.mask.allows(query, e.key);
                assert_eq!(e.masked, !allowed);
                if !allowed {
                    assert_eq!(
                        e.weight,
                        Some(0.0),
                        "a masked key is explained with weight 0"
                    );
                }
            }
        }
    }
}

#[test]
fn a_sentences_x_is_its_token_embeddings_and_positions() {
    let config = Params::sentence("the cat sat").validate().unwrap();
    let components = Components::of_sequence(config.target());
    assert_eq!(components.names, ["token", "position"]);
    let sum = components.sum().mapv(|v| v as f32);
    assert_close("E + P", sum.view(), config.x(), 1e-6, 1e-6);
}

fn check_model(model: &Model, name: &str) {
    let forward = model.read(SENTENCE, &ModelRun::default()).unwrap();
    let n = forward.ids.len();
    let mut rng = SplitMix64::new(7);
    for (layer, ran) in forward.layers.iter().enumerate() {
        // What entered the layer is the sum of its components.
        let components = Components::entering(model, &forward, layer);
        let sum = components.sum().mapv(|v| v as f32);
        assert_close(
            &format!("{name} L{} residual", layer + 1),
            sum.view(),
            ran.residual_in.view(),
            1e-4,
            1e-4,
        );
        for head in 0..model.config.n_heads {
            for _ in 0..6 {
                let query = (rng.next_u64() % n as u64) as usize;
                let key = (rng.next_u64() % n as u64) as usize;
                let e = explain_cell(&ran.attention, &components, head, query, key).unwrap();
                assert_sums(
                    &format!("{name} L{} H{} ({query},{key})", layer + 1, head + 1),
                    e.sum,
                    e.score,
                );
                assert_eq!(e.masked, key > query, "causal");
                assert_eq!(
                    e.terms.dim(),
                    (components.names.len() + 1, components.names.len() + 1)
                );
            }
        }
    }
    // What leaves the last block, through the final norm, gives the logits: parts sum to each.
    for position in [0, n / 2, n - 1] {
        let chars: Vec<String> = ["e", "t", "猫", " "].map(String::from).to_vec();
        let (names, parts) = logit_attribution(model, &forward, position, &chars).unwrap();
        assert_eq!(names.last().map(String::as_str), Some("bias"));
        for (c, p) in chars.iter().zip(&parts) {
            assert_sums(
                &format!("{name} logit of {c:?} at {position}"),
                p.parts.iter().sum(),
                p.total,
            );
            assert_eq!(p.parts.len(), names.len());
        }
    }
}

#[test]
fn the_gpt2_models_scores_and_logits_are_the_sum_of_their_parts() {
    check_model(&support::gpt2_model(), "gpt2");
}

#[test]
fn the_llama_models_scores_and_logits_are_the_sum_of_their_parts() {
    check_model(&support::llama_model(), "llama");
}

#[test]
fn a_head_knocked_out_by_zero_is_its_rows_of_w_o_zeroed() {
    for model in [support::gpt2_model(), support::llama_model()] {
        let (layer, head) = (0, 1);
        let run = ModelRun {
            ablate: vec![HeadKnockout {
                layer,
                head,
                how: Knockout::Zero,
            }],
            ..ModelRun::default()
        };
        let ablated = model.read(SENTENCE, &run).unwrap();
        let mut zeroed = model.clone();
        let d_head = model.config.d_head();
        std::sync::Arc::make_mut(&mut zeroed.blocks[layer].attention)
            .w_o
            .slice_mut(ndarray::s![head * d_head..(head + 1) * d_head, ..])
            .fill(0.0);
        let by_weights = zeroed.read(SENTENCE, &ModelRun::default()).unwrap();
        let whole = model.read(SENTENCE, &ModelRun::default()).unwrap();
        assert_close(
            "ablated logits",
            model.all_logits(&ablated).view(),
            model.all_logits(&by_weights).view(),
            1e-5,
            1e-5,
        );
        assert_ne!(
            model.all_logits(&ablated),
            model.all_logits(&whole),
            "the head mattered"
        );
        // Mean: the head's output is one vector at every position.
        let mean = ModelRun {
            ablate: vec![HeadKnockout {
                layer,
                head,
                how: Knockout::Mean,
            }],
            ..ModelRun::default()
        };
        let out = &model.read(SENTENCE, &mean).unwrap().layers[layer]
            .attention
            .heads[head]
            .output;
        for row in out.rows() {
            assert_eq!(row, out.row(0));
        }
    }
}

#[test]
fn knocking_out_refuses_heads_the_model_lacks_and_all_of_them() {
    let model = support::gpt2_model();
    let run = |ablate: Vec<(usize, usize)>| ModelRun {
        ablate: ablate
            .into_iter()
            .map(|(layer, head)| HeadKnockout {
                layer,
                head,
                how: Knockout::Zero,
            })
            .collect(),
        ..ModelRun::default()
    };
    let message = |ablate| model.read("abc", &run(ablate)).unwrap_err().to_string();
    assert_eq!(
        message(vec![(3, 0)]),
        "ablate: layer 4 is outside the model's layers (1 to 3)"
    );
    assert_eq!(
        message(vec![(0, 4)]),
        "ablate: head 5 is outside the layer's heads (1 to 4)"
    );
    let all: Vec<_> = (0..3).flat_map(|l| (0..4).map(move |h| (l, h))).collect();
    assert!(message(all).contains("all 12 heads knocked out"));
}

#[test]
fn a_request_knocks_heads_out_of_a_random_weight_trace_as_the_cli_and_the_page_do() {
    use attention_core::api::{AblateRequest, KnockoutRequest, Request};
    let request = |ablate: Option<Vec<(usize, usize)>>| Request {
        sentence: Some("the cat sat on the mat".into()),
        ablate: ablate.map(|list| {
            list.into_iter()
                .map(|(layer, head)| AblateRequest {
                    layer,
                    head,
                    how: KnockoutRequest::Zero,
                })
                .collect()
        }),
        ..Request::default()
    };
    let traced = |r: &Request| compute_trace(&r.to_params().unwrap().validate().unwrap());
    let whole = traced(&request(None));
    let asked = request(Some(vec![(1, 2)]));
    let mut knocked = traced(&asked);
    asked.knock_out(&mut knocked).unwrap();
    // Head 2's output is zero in the concatenation, the other heads' are untouched, and the
    // output is W_O of that concatenation (plus the residual, through the norm).
    let d_v = whole.config.dims().d_v;
    assert!(knocked.heads[1].output.iter().all(|&v| v == 0.0));
    assert!(
        knocked
            .concat
            .slice(ndarray::s![.., d_v..2 * d_v])
            .iter()
            .all(|&v| v == 0.0)
    );
    assert_eq!(knocked.heads[0].output, whole.heads[0].output);
    assert_ne!(knocked.output, whole.output);
    let mut by_hand = whole.clone();
    by_hand.knock_out(&[(1, Knockout::Zero)]);
    assert_eq!(knocked.output, by_hand.output);
    // Nothing asked, nothing changed; a layer or head the trace lacks, or all of its heads,
    // refused with the field named.
    let mut same = whole.clone();
    request(None).knock_out(&mut same).unwrap();
    assert_eq!(same.output, whole.output);
    let refused = |list| {
        let mut trace = whole.clone();
        request(Some(list))
            .knock_out(&mut trace)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        refused(vec![(2, 1)]),
        "ablate: layer 2 is outside the model's layers (1 to 1)"
    );
    let heads = whole.heads.len();
    assert_eq!(
        refused(vec![(1, heads + 1)]),
        format!(
            "ablate: head {} is outside the layer's heads (1 to {heads})",
            heads + 1
        )
    );
    assert!(refused((1..=heads).map(|h| (1, h)).collect()).contains("knocked out"));
}

#[test]
fn explaining_refuses_what_is_not_there() {
    let model = support::gpt2_model();
    let forward = model.read("abc", &ModelRun::default()).unwrap();
    let trace = &forward.layers[1].attention;
    let components = Components::entering(&model, &forward, 1);
    let error = |head, query, key| {
        explain_cell(trace, &components, head, query, key)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error(4, 0, 0),
        "explain.head: 5 is outside the model's heads (1 to 4)"
    );
    assert_eq!(
        error(0, 3, 0),
        "explain.query: position 3 is outside the sentence (0 to 2)"
    );
    assert_eq!(
        error(0, 0, 9),
        "explain.key: position 9 is outside the sentence (0 to 2)"
    );
    let chars = |c: &str| {
        logit_attribution(&model, &forward, 0, &[c.to_string()])
            .unwrap_err()
            .to_string()
    };
    assert!(chars("ab").contains("not one character"));
    assert!(chars("\u{1F600}").contains("not in the model's vocabulary"));
}

#[test]
fn composition_scores_are_between_0_and_1_only_from_earlier_heads_and_beat_a_fair_baseline() {
    let model = support::llama_model();
    let scores = composition(&model);
    let per_layer = model.config.n_heads;
    assert_eq!(scores.heads[per_layer], "L2.H1");
    let base = scores.baseline;
    assert!((0.03..0.2).contains(&base), "baseline {base}");
    // The baseline is a property of the shapes, not of this model: another draw agrees.
    assert!((baseline(128, 32, 64) - base).abs() < 0.01);
    for (a, row) in scores.q.iter().enumerate() {
        for (b, cell) in row.iter().enumerate() {
            let earlier = a / per_layer < b / per_layer;
            assert_eq!(cell.is_some(), earlier, "{a} → {b}");
            for m in [&scores.q, &scores.k, &scores.v] {
                if let Some(x) = m[a][b] {
                    assert!((0.0..=1.0).contains(&x), "{a} → {b}: {x}");
                }
            }
        }
    }
    let forward = model.read(SENTENCE, &ModelRun::default()).unwrap();
    let shares = sentence_shares(&model, &forward, 2, 0).unwrap();
    for side in [&shares.query, &shares.key] {
        assert!((side.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
    assert_eq!(shares.names.len(), shares.query.len());
    // What it costs is what the page weighs before computing it unasked: the pairs scored,
    // three products of [d_k, d] by [d, d_k] each.
    let scored = scores.q.iter().flatten().filter(|c| c.is_some()).count() as u64;
    assert_eq!(composition_pairs(&model.config), scored);
    let (d, d_k) = (model.config.d_model as u64, model.config.d_head() as u64);
    assert_eq!(composition_cost(&model.config), scored * 3 * d_k * d_k * d);
    assert!(composition_cost(&model.config) < 2_000_000_000);
    // GPT-2 small's shape: 144 heads, 9 504 pairs, about 90 billion multiply-adds.
    let mut small = model.config;
    (
        small.n_layers,
        small.n_heads,
        small.n_kv_heads,
        small.d_model,
        small.head_dim,
    ) = (12, 12, 12, 768, 64);
    assert_eq!(composition_pairs(&small), 9_504);
    assert_eq!(composition_cost(&small), 9_504 * 3 * 64 * 64 * 768);
    // A step at a time (as a model's worker computes it, saying how far it is), the same
    // scores; and they travel to the page in one buffer unchanged.
    let mut steps = CompositionSteps::new(&model);
    let heads = model.config.n_layers * per_layer;
    let all = heads + scored as usize;
    let mut done = 0;
    while !steps.advance(&model) {
        let (now, of) = steps.progress();
        assert!(
            now > done && now <= all && of == all,
            "{now} of {of} after {done}"
        );
        done = now;
    }
    assert_eq!(steps.progress(), (all, all));
    assert!(steps.advance(&model), "nothing past the end");
    let stepped = steps.finish(&model);
    assert_eq!(stepped, scores);
    let back = Composition::from_flat(&model.config, &scores.to_flat()).unwrap();
    assert_eq!(back, scores);
    assert!(Composition::from_flat(&model.config, &[0.5; 7]).is_none());
}
