//! What the README and the model cards say of the trained models' induction heads, measured: a
//! random string typed twice, drawn from the 1,000 most frequent characters (as in training,
//! nine in ten of them Chinese), from their Chinese characters only, and from their ASCII ones.
//! The Llama model's heads copy the first two and barely attend on the third; the GPT-2 model's
//! copy all three. The documents give each number on the strings it was measured on.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).
#![cfg(not(target_arch = "wasm32"))]

use attention_core::models::forward::Repetition;
use attention_core::models::{Model, ModelRun};
use attention_lab::ui::i18n::Lang;

const README: &str = include_str!("../README.md");
const LLAMA_CARD: &str = include_str!("../assets/llama/MODEL_CARD.md");

fn llama() -> Model {
    Model::from_files(
        include_bytes!("../assets/llama/model.safetensors"),
        include_str!("../assets/llama/config.json"),
        include_str!("../assets/llama/vocab.json"),
    )
    .unwrap()
}

fn gpt2() -> Model {
    Model::from_files(
        include_bytes!("../assets/gpt2/model.safetensors"),
        include_str!("../assets/gpt2/config.json"),
        include_str!("../assets/gpt2/vocab.json"),
    )
    .unwrap()
}

/// Which of the 1,000 most frequent characters a string is drawn from.
#[derive(Debug, Clone, Copy)]
enum Pool {
    Chinese,
    Ascii,
}

/// The mean over `count` strings of `period` characters, each typed twice (a seeded xorshift).
fn probe(model: &Model, pool: Pool, period: usize, count: usize) -> Repetition {
    let alphabet: Vec<u32> = (1..=1000u32)
        .filter(|&id| {
            let c = model.vocab[id as usize].chars().next().unwrap();
            match pool {
                Pool::Chinese => ('\u{4e00}'..='\u{9fff}').contains(&c),
                Pool::Ascii => c.is_ascii_graphic(),
            }
        })
        .collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut sum: Option<Repetition> = None;
    for _ in 0..count {
        let string: Vec<u32> = (0..period)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        let ids: Vec<u32> = string.iter().chain(&string).copied().collect();
        let tokens: Vec<String> = ids
            .iter()
            .map(|&id| model.vocab[id as usize].clone())
            .collect();
        let forward = model.forward(&tokens, &ids, &ModelRun::default()).unwrap();
        let r = forward
            .repetition(period, &model.all_logits(&forward))
            .unwrap();
        sum = Some(match sum {
            None => r,
            Some(mut s) => {
                for (a, b) in s
                    .induction
                    .iter_mut()
                    .flatten()
                    .zip(r.induction.iter().flatten())
                {
                    *a += b;
                }
                s.copied += r.copied;
                s
            }
        });
    }
    let mut mean = sum.unwrap();
    mean.induction
        .iter_mut()
        .flatten()
        .for_each(|w| *w /= count as f32);
    mean.copied /= count as f32;
    mean
}

/// The best layer-2 head's mean weight (the layer every text names).
fn best(r: &Repetition) -> f32 {
    r.induction[1].iter().fold(0.0, |m, &w| m.max(w))
}

/// A share as the documents write it: "99 %".
fn percent(value: f32) -> String {
    format!("{:.0} %", value * 100.0)
}

/// `value` to two decimals, as the documents write it.
fn two(value: f32) -> String {
    format!("{value:.2}")
}

#[test]
fn the_llama_models_induction_heads_copy_chinese_strings_not_ascii_ones() {
    let model = llama();
    let chinese = probe(&model, Pool::Chinese, 30, 8);
    let ascii = probe(&model, Pool::Ascii, 30, 8);
    eprintln!("Llama, Chinese: best {} {chinese:?}", best(&chinese));
    eprintln!("Llama, ASCII: best {} {ascii:?}", best(&ascii));
    assert!(best(&chinese) > 0.8 && chinese.copied > 0.8, "{chinese:?}");
    assert!(best(&ascii) < 0.35 && ascii.copied < 0.5, "{ascii:?}");
    // Each document gives both, with the strings they were measured on, and how often it copies.
    for (name, text) in [
        ("README.md", README),
        ("assets/llama/MODEL_CARD.md", LLAMA_CARD),
    ] {
        for number in [
            two(best(&chinese)),
            two(best(&ascii)),
            percent(chinese.copied),
            percent(ascii.copied),
        ] {
            assert!(
                text.contains(&number),
                "{name} does not give {number} (Chinese {:.2}, ASCII {:.2})",
                best(&chinese),
                best(&ascii)
            );
        }
        assert!(text.contains("ASCII"), "{name} does not say which strings");
    }
    // And the page, where the model is described.
    for lang in [Lang::En, Lang::Zh] {
        let about = lang.text().model.llama_about.join(" ");
        for number in [two(best(&chinese)), two(best(&ascii))] {
            assert!(
                about.contains(&number),
                "{lang:?}: the Llama model's description lacks {number}"
            );
        }
    }
}

#[test]
fn the_gpt2_models_induction_head_copies_ascii_strings_too() {
    // The README's example for the GPT-2 model is a string of ASCII characters typed twice.
    let model = gpt2();
    let ascii = probe(&model, Pool::Ascii, 30, 8);
    eprintln!("GPT-2, ASCII: best {} {ascii:?}", best(&ascii));
    assert!(best(&ascii) > 0.6 && ascii.copied > 0.6, "{ascii:?}");
    // The Llama model's card gives these beside its own.
    let said = format!(
        "ASCII strings too ({}, {})",
        two(best(&ascii)),
        percent(ascii.copied)
    );
    assert!(LLAMA_CARD.contains(&said), "the Llama card lacks {said:?}");
}

/// What the README says of the GPT-2 model's induction circuit on `xq7kb@ xq7kb`, measured: the
/// induction head's weight and score, what its key reads from L1's MLP and from the
/// previous-token head, the weight left when that head is knocked out, and the K-composition
/// against its random baseline.
#[test]
fn the_readmes_induction_circuit_is_measured() {
    use attention_core::circuits::composition::composition;
    use attention_core::circuits::{Components, explain_cell};
    use attention_core::pipeline::knockout::{HeadKnockout, Knockout};
    let model = gpt2();
    let text = "xq7kb@ xq7kb";
    let forward = model.read(text, &ModelRun::default()).unwrap();
    let (query, key) = (11, 5);
    let layer = &forward.layers[1].attention;
    let components = Components::entering(&model, &forward, 1);
    let cell = explain_cell(layer, &components, 3, query, key).unwrap();
    let key_side = |name: &str| cell.key_total(components.index(name).unwrap());
    let prev = &forward.layers[0].attention.heads[1].weights;
    let previous = (1..12).map(|i| prev[[i, i - 1]]).sum::<f32>() / 11.0;
    let knocked = model
        .read(
            text,
            &ModelRun {
                ablate: vec![HeadKnockout {
                    layer: 0,
                    head: 1,
                    how: Knockout::Zero,
                }],
                ..ModelRun::default()
            },
        )
        .unwrap();
    let p_at = |f: &attention_core::models::Forward| {
        model
            .predictions(f, query, 3000)
            .into_iter()
            .find(|p| model.vocab[p.id as usize] == "@")
            .unwrap()
    };
    let scores = composition(&model);
    let strongest = (0..4)
        .max_by(|&a, &b| scores.k[a][7].unwrap().total_cmp(&scores.k[b][7].unwrap()))
        .unwrap();
    assert_eq!(
        strongest, 1,
        "L1·H2 composes most strongly into L2·H4's keys"
    );
    assert!(
        model.predictions(&knocked, query, 1)[0].id != p_at(&forward).id,
        "@ is no longer predicted"
    );
    for claim in [
        format!("puts {:.3} of the last", cell.weight.unwrap()),
        format!(
            "score {:.2} the key's side reads {:.2} from what L1's MLP wrote and {:.2} from L1·H2",
            cell.score,
            key_side("L1.mlp"),
            key_side("L1.H2")
        ),
        format!("previous-token head ({:.2} of its weight", previous),
        format!(
            "falls to {:.3}",
            knocked.layers[1].attention.heads[3].weights[[query, key]]
        ),
        format!("({:.3} before)", p_at(&forward).p),
        format!(
            "L2·H4 from the weights alone ({:.3}, against {:.3}",
            scores.k[1][7].unwrap(),
            scores.baseline
        ),
    ] {
        let flat = README.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&claim), "the README should say: {claim}");
    }
}
