//! Honest views: colour scales that keep magnitudes comparable, a degenerate range drawn where
//! its value is, formulas that follow the settings, clean slider numbers.

use attention_core::{Input, LayerNormMode, MaskSpec, Params, compute_trace};
use attention_lab::ui::i18n::Lang;
use attention_lab::ui::logic::colormap::{Scale, ScaleMode, viridis};
use attention_lab::ui::logic::controls::{
    shared_kv_heads, slider_to_temperature, temperature_slider_max, temperature_to_slider,
};
use attention_lab::ui::logic::matrix::Legend;
use attention_lab::ui::logic::stages::Stage;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn trace(params: Params) -> attention_core::Trace {
    compute_trace(&params.validate().unwrap())
}

fn limit(scale: Scale) -> f32 {
    scale.range().1
}

#[test]
fn the_score_stages_share_one_scale_so_scaling_shows() {
    let t = trace(Params {
        d_model: Some(256),
        n_heads: 1,
        ..Params::sentence("The cat sat on the mat because it was tired.")
    });
    let dot = Stage::Dot.view(&t, 0, ScaleMode::Honest);
    let scaled = Stage::Scaled.view(&t, 0, ScaleMode::Honest);
    let masked = Stage::Masked.view(&t, 0, ScaleMode::Honest);
    assert_eq!(dot.scale, scaled.scale);
    assert_eq!(scaled.scale, masked.scale);
    assert_eq!(dot.legend, Legend::SharedScores);
    // d_k = 256: the scaled scores are 16 times smaller, and on the shared scale they reach
    // only a sixteenth of it.
    let biggest = |v: &ndarray::Array2<f32>| v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    assert!((biggest(&dot.values) - limit(dot.scale)).abs() < 1e-3);
    let ratio = biggest(&scaled.values) / limit(scaled.scale);
    assert!((ratio - 1.0 / 16.0).abs() < 1e-3, "{ratio}");
    // Contrast stretches each one over its own range: the two pictures become the same.
    let dot = Stage::Dot.view(&t, 0, ScaleMode::Contrast);
    let scaled = Stage::Scaled.view(&t, 0, ScaleMode::Contrast);
    assert_eq!(scaled.legend, Legend::Contrast);
    assert!((limit(dot.scale) / limit(scaled.scale) - 16.0).abs() < 1e-2);
}

#[test]
fn weights_use_a_fixed_scale_so_the_temperature_shows() {
    for temperature in [0.1, 1.0, 10.0] {
        let t = trace(Params {
            temperature,
            ..Params::sentence("The cat sat on the mat")
        });
        let weights = Stage::Weights.view(&t, 0, ScaleMode::Honest);
        assert_eq!(weights.scale, Scale::UNIT, "T = {temperature}");
        assert_eq!(weights.legend, Legend::Fixed);
    }
    let hot = trace(Params {
        temperature: 10.0,
        ..Params::sentence("The cat sat on the mat")
    });
    let contrast = Stage::Weights.view(&hot, 0, ScaleMode::Contrast);
    assert!(
        limit(contrast.scale) < 0.3,
        "stretched: {:?}",
        contrast.scale
    );
}

#[test]
fn a_degenerate_range_draws_each_value_where_it_is() {
    // Every key masked: all weights 0, drawn at the bottom of the scale, never mid-scale.
    let t = trace(Params {
        mask: MaskSpec::Padding { valid_len: 0 },
        ..Params::sentence("the cat sat")
    });
    for mode in [ScaleMode::Honest, ScaleMode::Contrast] {
        let weights = Stage::Weights.view(&t, 0, mode);
        assert!(weights.values.iter().all(|&w| w == 0.0));
        assert_eq!(weights.scale.color(0.0), viridis(0.0), "{mode:?}");
    }
    assert_eq!(
        Scale::Sequential { min: 0.0, max: 0.0 }.color(0.0),
        viridis(0.0)
    );
    assert_eq!(
        Scale::Sequential { min: 2.0, max: 2.0 }.color(3.0),
        viridis(1.0)
    );
    // A diverging scale of ±0 puts 0 in the middle, where 0 belongs.
    assert_eq!(
        Scale::Diverging { limit: 0.0 }.color(0.0),
        Scale::Diverging { limit: 1.0 }.color(0.0)
    );
}

/// A heatmap's pixels: one per cell in row-major order while every value is finite; 2 × 2
/// per cell with a grey checker for the masked ones otherwise. Colours round to the nearest
/// of the map's 256 entries.
#[test]
fn pixels_follow_the_cells() {
    use attention_lab::ui::logic::matrix::{MASKED, pixels};
    let scale = Scale::Sequential { min: 0.0, max: 1.0 };
    let values = ndarray::array![[0.0f32, 0.25], [0.5, 1.0], [0.75, 0.1]];
    let (rgba, side) = pixels(&values, &scale);
    assert_eq!((side, rgba.len()), (1, 6 * 4));
    for ((i, j), &v) in values.indexed_iter() {
        let at = (i * 2 + j) * 4;
        assert_eq!(rgba[at..at + 3], viridis(v), "cell {i},{j}");
        assert_eq!(rgba[at + 3], 255);
    }
    // A column-major matrix reads in the same order.
    let (transposed, _) = pixels(&values.t().to_owned().reversed_axes(), &scale);
    assert_eq!(transposed, rgba);
    // 1/255 · 127.5 sits halfway between two entries: it rounds up, as `round` does.
    assert_eq!(viridis(127.5 / 255.0), viridis(128.0 / 255.0));
    assert_ne!(viridis(127.4 / 255.0), viridis(128.0 / 255.0));

    let masked = ndarray::array![[0.5f32, f32::NEG_INFINITY]];
    let (rgba, side) = pixels(&masked, &scale);
    assert_eq!((side, rgba.len()), (2, 2 * 4 * 4));
    let at = |x: usize, y: usize| (y * 4 + x) * 4;
    for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        assert_eq!(rgba[at(x, y)..at(x, y) + 3], viridis(0.5));
    }
    assert_eq!(rgba[at(2, 0)..at(2, 0) + 3], MASKED[0]);
    assert_eq!(rgba[at(3, 0)..at(3, 0) + 3], MASKED[1]);
    assert_eq!(rgba[at(2, 1)..at(2, 1) + 3], MASKED[1]);
    assert_eq!(rgba[at(3, 1)..at(3, 1) + 3], MASKED[0]);
}

/// With the score options the Dot stage is q·k of the scored q and k (not the score over a
/// scale it no longer is), the formulas follow the order of the scoring, and the captions
/// say where positions went and what a sink logit does to a row.
#[test]
fn score_options_reach_formulas_captions_and_cells_truthfully() {
    use attention_core::math::scoring::{Pairing, Position, Shaping};
    let shaped = trace(Params {
        shaping: Shaping {
            position: Position::Alibi,
            softcap: Some(2.0),
            sink_logits: Some(vec![0.5, 1.0]),
            ..Shaping::default()
        },
        temperature: 0.5,
        ..Params::sentence("the cat sat on the mat")
    });
    let h = &shaped.heads[0];
    let dot = h.q.row(3).dot(&h.k.row(1));
    assert!((Stage::Dot.value(&shaped, 0, 3, 1) - dot).abs() < 1e-5);
    assert!((Stage::Dot.matrix(&shaped, 0)[[3, 1]] - dot).abs() < 1e-5);
    let scaled = Stage::Scaled.formula(&shaped, Lang::En);
    assert!(
        scaled.contains("tanh") && scaled.contains("m·|i − j|"),
        "{scaled}"
    );
    for lang in [Lang::En, Lang::Zh] {
        assert!(Stage::Positions.caption(&shaped, lang).contains("ALiBi"));
        assert!(Stage::Weights.caption(&shaped, lang).contains('1'));
    }
    assert_eq!(Stage::Positions.formula(&shaped, Lang::En), "P = 0");
    assert_eq!(Stage::X.formula(&shaped, Lang::En), "X = E");
    let roped = trace(Params {
        shaping: Shaping {
            position: Position::Rope {
                base: 10_000.0,
                pairing: Pairing::Interleaved,
            },
            qk_norm: true,
            ..Shaping::default()
        },
        ..Params::sentence("the cat sat on the mat")
    });
    assert!(Stage::Positions.caption(&roped, Lang::En).contains("RoPE"));
    assert_eq!(
        Stage::Dot.formula(&roped, Lang::En),
        "QKᵀ, Q and K after QK-norm, RoPE"
    );
    // RoPE alone keeps score = q·k · scale: the Dot stage is the rotated q·k.
    let h = &roped.heads[1];
    let dot = h.scored_q().row(4).dot(&h.scored_k().row(2));
    assert!((Stage::Dot.value(&roped, 1, 4, 2) - dot).abs() < 1e-4);
}

#[test]
fn formulas_follow_the_settings() {
    let plain = trace(Params::sentence("a b c"));
    assert_eq!(Stage::Q.formula(&plain, Lang::En), "Q = X W_Q");
    assert_eq!(Stage::K.formula(&plain, Lang::En), "K = X W_K");
    let pre = trace(Params {
        layer_norm: LayerNormMode::Pre,
        ..Params::sentence("a b c")
    });
    assert_eq!(Stage::Q.formula(&pre, Lang::En), "Q = LN(X) W_Q");
    assert_eq!(Stage::V.formula(&pre, Lang::En), "V = LN(X) W_V");
    assert_eq!(Stage::Output.formula(&pre, Lang::En), "x + MHA(LN(x))");
    let post = trace(Params {
        layer_norm: LayerNormMode::Post,
        ..Params::sentence("a b c")
    });
    assert_eq!(Stage::Output.formula(&post, Lang::En), "LN(x + MHA(x))");
    let cross = trace(Params {
        source: Some(Input::Sentence("x y z w".into())),
        layer_norm: LayerNormMode::Pre,
        ..Params::sentence("a b c")
    });
    assert_eq!(Stage::Q.formula(&cross, Lang::En), "Q = LN(X) W_Q");
    assert_eq!(Stage::K.formula(&cross, Lang::En), "K = S W_K");
    assert_eq!(Stage::V.formula(&cross, Lang::En), "V = S W_V");
    // The scaled scores say what they are divided by, in numbers people write.
    let scaled = Stage::Scaled.formula(&plain, Lang::En);
    assert!(scaled.ends_with("√8 · 1 = 2.828"), "{scaled}");
    assert!(Stage::Scaled.formula(&plain, Lang::Zh).contains("除以"));
}

#[test]
fn the_temperature_slider_gives_numbers_people_write() {
    let last = temperature_slider_max() as u32;
    for position in 0..=last {
        let t = slider_to_temperature(f64::from(position));
        let text = t.to_string();
        let digits = text.trim_start_matches("0.").replace('.', "");
        assert!(
            digits.trim_start_matches('0').len() <= 3,
            "{position}: {text}"
        );
    }
    assert_eq!(slider_to_temperature(temperature_to_slider(3.41)), 3.41);
}

#[test]
fn sharing_kv_starts_from_the_largest_group_count_below_the_heads() {
    assert_eq!(shared_kv_heads(1), None);
    assert_eq!(shared_kv_heads(2), Some(1));
    assert_eq!(shared_kv_heads(3), Some(1));
    assert_eq!(shared_kv_heads(4), Some(2));
    assert_eq!(shared_kv_heads(8), Some(4));
}

/// A linear head's weights are its hidden matrix A: the cards, the tooltip and the page's
/// sections say so, in both languages, and no score card shows A as if it were q·k.
#[test]
fn a_linear_heads_cards_say_a_not_softmax() {
    use attention_core::math::linear::{LinearKind, LinearSpec};
    use attention_lab::ui::logic::explain::explain;
    for kind in [LinearKind::Elu, LinearKind::Delta, LinearKind::GatedDelta] {
        for gate in [false, true] {
            let t = trace(Params {
                n_heads: 2,
                mask: MaskSpec::Causal,
                linear: Some(LinearSpec { kind, chunk: 4 }),
                output_gate: gate,
                ..Params::sentence("the cat sat on the mat")
            });
            for lang in [Lang::En, Lang::Zh] {
                let title = Stage::Weights.title(Some(&t), lang);
                let formula = Stage::Weights.formula(&t, lang);
                let caption = Stage::Weights.caption(&t, lang);
                assert!(
                    title.contains('A') && formula.contains("A·V"),
                    "{title} / {formula}"
                );
                for words in [title, &formula] {
                    assert!(!words.contains("softmax"), "{kind:?} {lang:?}: {words}");
                }
                assert!(
                    caption.contains("softmax") && caption.contains("1"),
                    "{caption}"
                );
                let output = Stage::HeadOutput.formula(&t, lang);
                assert!(
                    output.starts_with(if gate { "(A · V) ⊙ σ" } else { "A · V" }),
                    "{output}"
                );
                assert!(!Stage::HeadOutput.caption(&t, lang).is_empty());
                let cell = explain(&t, Stage::Weights, 1, 3, 1, lang);
                let said = cell.lines.join(" ");
                assert!(said.contains("A[3, 1]") && !said.contains("exp("), "{said}");
            }
            for stage in [Stage::Dot, Stage::Scaled, Stage::Masked] {
                assert!(!stage.is_shown(&t), "{stage:?} shown for {kind:?}");
            }
        }
    }
    // Softmax heads keep theirs.
    let t = trace(Params::sentence("the cat sat"));
    assert!(Stage::Weights.formula(&t, Lang::En).contains("softmax"));
    assert_eq!(Stage::HeadOutput.formula(&t, Lang::En), "weights · V");
    assert!(Stage::Dot.is_shown(&t));
}
