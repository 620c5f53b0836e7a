//! The UI's pure logic, without a browser: what each stage shows and how a tooltip explains a cell
//! (checked against the trace's own numbers), and the helpers behind the controls.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::{LayerNormMode, MaskSpec, Params, compute_trace};
use attention_lab::ui::i18n::Lang;
use attention_lab::ui::logic::controls::{
    divisors, kv_heads_for, slider_to_temperature, temperature_slider_max, temperature_to_slider,
};
use attention_lab::ui::logic::explain::explain;
use attention_lab::ui::logic::stages::Stage;

fn trace(params: Params) -> attention_core::Trace {
    compute_trace(&params.validate().unwrap())
}

#[test]
fn every_stage_has_a_matrix_with_matching_labels() {
    let t = trace(Params {
        layer_norm: LayerNormMode::Pre,
        n_heads: 4,
        n_kv_heads: Some(2),
        ..Params::sentence("the cat sat on the mat")
    });
    for stage in Stage::ALL {
        assert!(stage.is_shown(&t), "{stage:?} is shown under Pre-LN");
        for head in 0..4 {
            let m = stage.matrix(&t, head);
            assert_eq!(m.nrows(), stage.row_labels(&t).len(), "{stage:?} rows");
            assert_eq!(m.ncols(), stage.col_labels(&t).len(), "{stage:?} cols");
        }
    }
    // Head 3 reads K/V group 1: its K is that group's.
    assert_eq!(Stage::K.matrix(&t, 3), t.heads[3].k);
    assert_eq!(t.heads[3].kv_group, 1);
}

#[test]
fn optional_stages_follow_the_trace() {
    let plain = trace(Params::sentence("one two three"));
    assert!(!Stage::NormedX.is_shown(&plain));
    assert!(!Stage::Output.is_shown(&plain));
    let post = trace(Params {
        layer_norm: LayerNormMode::Post,
        ..Params::sentence("one two three")
    });
    assert!(Stage::Output.is_shown(&post) && !Stage::NormedX.is_shown(&post));
}

#[test]
fn masked_scores_are_minus_infinity_and_weights_explain_why() {
    let t = trace(Params {
        mask: MaskSpec::Causal,
        ..Params::sentence("a b c d")
    });
    let masked = Stage::Masked.matrix(&t, 0);
    assert_eq!(masked[[0, 3]], f32::NEG_INFINITY);
    assert!(masked[[3, 0]].is_finite());
    let info = explain(&t, Stage::Weights, 0, 0, 3, Lang::En);
    assert_eq!(info.value, "0");
    assert!(info.lines.iter().any(|l| l.contains("causal")), "{info:?}");
    let zh = explain(&t, Stage::Masked, 0, 0, 3, Lang::Zh);
    assert!(zh.lines.iter().any(|l| l.contains("因果")), "{zh:?}");
}

/// The tooltip's arithmetic is the trace's: the weight it shows and the sum it reports agree with
/// the weights and scores the core computed.
#[test]
fn tooltips_spell_out_the_actual_numbers() {
    let t = trace(Params {
        temperature: 0.5,
        ..Params::sentence("the cat sat on the mat")
    });
    let h = &t.heads[1];
    let (i, j) = (2, 4);

    let weight = explain(&t, Stage::Weights, 1, i, j, Lang::En);
    assert_eq!(weight.value, format!("{:.3}", h.weights[[i, j]]));
    assert!(
        weight.position.contains("“sat”") && weight.position.contains("“the”"),
        "{weight:?}"
    );
    let scores = h.scores.row(i);
    let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert!(
        weight.lines[1].contains(&format!("{:.3}", max)),
        "{weight:?}"
    );
    let sum: f32 = scores.iter().map(|s| (s - max).exp()).sum();
    assert!(weight.lines[1].contains(&format!("{sum:.3}")), "{weight:?}");

    let score = explain(&t, Stage::Scaled, 1, i, j, Lang::En);
    assert_eq!(score.value, format!("{:.3}", h.scores[[i, j]]));
    // √d_k · T with d_k = 8 and T = 0.5.
    assert!(score.lines[1].contains("√8 · 0.500 = 1.414"), "{score:?}");

    let output = explain(&t, Stage::HeadOutput, 1, i, 0, Lang::En);
    assert_eq!(output.value, format!("{:.3}", h.output[[i, 0]]));
    assert!(output.lines[0].contains("Σ_j w"), "{output:?}");
    assert!(
        output.lines[0].contains(&format!("{:.3}", h.weights[[i, 0]])),
        "{output:?}"
    );
}

#[test]
fn temperature_slider_is_logarithmic_and_round_trips() {
    let last = temperature_slider_max();
    assert_eq!(temperature_to_slider(0.05), 0.0);
    assert_eq!(temperature_to_slider(10.0), last);
    assert_eq!(slider_to_temperature(0.0), 0.05);
    assert_eq!(slider_to_temperature(last), 10.0);
    assert_eq!(slider_to_temperature(last + 50.0), 10.0, "clamped");
    // T = 1 sits well inside, not at the middle of a linear 0.05–10 scale (which would be ~5).
    let one = temperature_to_slider(1.0) / last;
    assert!((0.5..0.6).contains(&one), "{one}");
    for t in [0.05, 0.1, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0] {
        let back = slider_to_temperature(temperature_to_slider(t));
        assert!((back - t).abs() / t < 0.006, "{t} -> {back}");
    }
}

/// The review's case: from T = 1, ← moved once to 0.99 and then no more; at T = 0.1, → did
/// nothing (two significant figures made neighbouring positions the same number). Every arrow
/// press from every position now changes the temperature, the right way.
#[test]
fn every_arrow_key_moves_the_temperature() {
    let last = temperature_slider_max() as usize;
    for position in 0..last {
        let (here, right) = (
            slider_to_temperature(position as f64),
            slider_to_temperature(position as f64 + 1.0),
        );
        assert!(right > here, "{position}: {here} → {right}");
        // And the value shown maps back to its own position.
        assert_eq!(temperature_to_slider(here), position as f64, "{here}");
    }
    // From a typed value, the arrows step to the neighbours on either side.
    for typed in [1.0, 0.1, 0.37, 2.5, 0.05, 10.0] {
        let at = temperature_to_slider(typed);
        if at > 0.0 {
            assert!(slider_to_temperature(at - 1.0) < typed, "← from {typed}");
        }
        if at < last as f64 {
            assert!(slider_to_temperature(at + 1.0) > typed, "→ from {typed}");
        }
    }
}

#[test]
fn kv_heads_are_offered_only_as_divisors() {
    assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
    assert_eq!(divisors(1), vec![1]);
    assert_eq!(kv_heads_for(8, 4), 4, "still divides");
    assert_eq!(kv_heads_for(6, 4), 3, "largest divisor below");
    assert_eq!(kv_heads_for(5, 2), 1);
}

mod flash_frames {
    use attention_core::{MaskSpec, Params, compute_trace};
    use attention_lab::ui::logic::flash_frames::{
        Phase, Sizes, counters, frames, keep_position, scores_held, standard_accesses,
    };
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn sizes(n: usize, d: usize, block: usize) -> Sizes {
        Sizes {
            seq_len: n,
            key_len: n,
            d_k: d,
            d_v: d,
            block_rows: block,
            block_cols: block,
        }
    }

    #[test]
    fn frames_follow_the_algorithm() {
        let t = compute_trace(
            &Params {
                n_heads: 1,
                d_model: Some(4),
                mask: MaskSpec::Causal,
                block_rows: Some(2),
                block_cols: Some(2),
                ..Params::sentence("a b c d e")
            }
            .validate()
            .unwrap(),
        );
        let head = &t.flash.heads[0];
        let f = frames(head);
        // 3 query blocks; each: start, its tiles, normalise.
        assert_eq!(f.iter().filter(|f| f.phase == Phase::Start).count(), 3);
        assert_eq!(f.iter().filter(|f| f.phase == Phase::Normalize).count(), 3);
        // Causal, 2×2 tiles over 5 tokens: tiles strictly above the diagonal are skipped:
        // (0,1) (0,2) (1,2) = 3 of 9.
        assert_eq!(f.iter().filter(|f| f.phase == Phase::Skip).count(), 3);
        // Every computed tile has its five phases in order.
        let computed = head.steps.iter().filter(|s| !s.skipped).count();
        assert_eq!(
            f.iter().filter(|f| f.phase == Phase::Accumulate).count(),
            computed
        );
        assert_eq!(f.len(), 3 + 3 + 3 + 5 * computed);
        assert_eq!(f[0].phase.line(), 3);
        assert_eq!(f[1].phase, Phase::Scores);
        let c = counters(head, &f, f.len() - 1, &sizes(5, 2, 2));
        assert_eq!((c.tiles_done, c.tiles_skipped, c.tiles_total), (9, 3, 9));
    }

    #[test]
    fn counters_grow_with_the_frames_and_flash_moves_less_than_standard() {
        let n = 64;
        let sentence = vec!["w"; n].join(" ");
        let t = compute_trace(
            &Params {
                n_heads: 1,
                d_model: Some(16),
                block_rows: Some(16),
                block_cols: Some(16),
                ..Params::sentence(sentence)
            }
            .validate()
            .unwrap(),
        );
        let head = &t.flash.heads[0];
        let f = frames(head);
        let s = sizes(n, 16, 16);
        let mut last = counters(head, &f, 0, &s);
        for i in 1..f.len() {
            let now = counters(head, &f, i, &s);
            assert!(now.reads >= last.reads && now.writes >= last.writes);
            last = now;
        }
        // 4 query blocks × 4 tiles: Q once (64·16), K and V four times (4·64·32), O, l, m once.
        assert_eq!(last.reads, 64 * 16 + 4 * 64 * 32);
        assert_eq!(last.writes, 64 * 18);
        let (reads, writes) = standard_accesses(&s);
        assert!(
            last.reads + last.writes < reads + writes,
            "flash moves fewer floats at n = 64"
        );
        assert_eq!(scores_held(&s), (256, 4096));
    }

    /// A long input's player replays one query block: its steps and frames are those of the
    /// whole run's block, its counters the whole run's at the same point, and the grid shows the
    /// blocks before it done and the blocks after it not yet.
    #[test]
    fn a_long_input_replays_one_query_block_exactly() {
        use attention_core::{Backend, FlashDetail, compute_parts_with, trace_from};
        use attention_lab::ui::logic::TraceRef;
        use attention_lab::ui::logic::colormap::ScaleMode;
        use attention_lab::ui::logic::flash_frame_views::grid;
        use attention_lab::ui::logic::flash_views::Replay;
        let sentence = (0..600).map(|i| format!("w{}", i % 13)).collect::<Vec<_>>();
        let config = Params {
            mask: MaskSpec::Causal,
            d_model: Some(8),
            n_heads: 2,
            trace: false,
            ..Params::sentence(sentence.join(" "))
        }
        .validate()
        .unwrap();
        let (block_rows, _) = config.block();
        let full = compute_trace(&config);
        let parts = compute_parts_with(&config, true, &mut |_, _| {});
        let long = TraceRef::new(trace_from(&config, parts, Backend::Cpu, FlashDetail::Steps));
        let whole = Replay::new(TraceRef::new(full.clone()), 1, ScaleMode::Honest, 0);
        assert!(!whole.partial() && whole.blocks == (0..600usize.div_ceil(block_rows)));
        for block in [0, 4, 9, 1000] {
            let replay = Replay::new(long.clone(), 1, ScaleMode::Honest, block);
            let block = block.min(whole.blocks.end - 1);
            assert!(replay.partial());
            assert_eq!(
                replay.blocks,
                block..block + 1,
                "clamped to the blocks there are"
            );
            let expected: Vec<_> = full.flash.heads[1]
                .steps
                .iter()
                .filter(|s| s.row_block == block)
                .collect();
            assert_eq!(replay.flash().steps.iter().collect::<Vec<_>>(), expected);
            // Frame by frame, the counters equal the whole replay's at the same frame.
            let offset = whole
                .frames
                .iter()
                .position(|f| f.row_block == block)
                .unwrap();
            assert_eq!(
                &whole.frames[offset..offset + replay.frames.len()]
                    .iter()
                    .map(|f| f.key())
                    .collect::<Vec<_>>(),
                &replay.frames.iter().map(|f| f.key()).collect::<Vec<_>>()
            );
            for i in 0..replay.frames.len() {
                assert_eq!(replay.counters(i), whole.counters(offset + i), "frame {i}");
            }
            // The tile grid: blocks before are done (2, 3), after not yet (0, 1), the skipped
            // tiles above the diagonal masked.
            let frame = replay.frames[1];
            let (view, span) = grid(&replay, &frame);
            let (tiles, _) = view.values.dim();
            assert_eq!(span.unwrap().rows, block..block + 1);
            if block > 0 {
                assert!(view.values[[0, 0]] >= 2.0, "an earlier block is done");
            }
            if block + 1 < tiles {
                assert!(
                    view.values[[tiles - 1, 0]] < 2.0,
                    "a later block is not yet"
                );
            }
            assert_eq!(view.values[[0, tiles - 1]], f32::NEG_INFINITY, "skipped");
            // Going to a tile of another block: its first frame is where that replay starts.
            assert_eq!(replay.tile_key(3, 1).0, 3);
            assert_eq!(
                replay
                    .frame_of_tile(block, 0)
                    .map(|i| replay.frames[i].col_block),
                Some(Some(0))
            );
        }
    }

    #[test]
    fn the_position_is_kept_when_the_trace_changes() {
        let trace = |text: &str| {
            compute_trace(
                &Params {
                    n_heads: 1,
                    block_rows: Some(2),
                    block_cols: Some(2),
                    ..Params::sentence(text)
                }
                .validate()
                .unwrap(),
            )
        };
        let small = trace("a b c d");
        let big = trace("a b c d e f");
        let (fs, fb) = (frames(&small.flash.heads[0]), frames(&big.flash.heads[0]));
        let at = 7;
        let kept = keep_position(&fb, Some(fs[at].key()), at);
        assert_eq!(fb[kept].key(), fs[at].key(), "the same block and phase");
        assert_eq!(
            keep_position(&fs, Some(fb[fb.len() - 1].key()), fb.len() - 1),
            fs.len() - 1,
            "clamped"
        );
    }
}

mod links {
    use attention_core::api::{
        BackendChoice, BlockRequest, LayerNormRequest, MaskRequest, ModelChoice, PairingRequest,
        PositionRequest, Request,
    };
    use attention_core::math::rng::SplitMix64;
    use attention_lab::ui::i18n::Lang;
    use attention_lab::ui::logic::colormap::ScaleMode;
    use attention_lab::ui::logic::link::{
        Embed, GenerationView, LONG_LINK, LinkNotice, LinkState, MAX_TEXT, ShareWarning,
        ViewSettings, check_view, decode, encode, parse_query, share_warnings, to_query,
        usable_request,
    };
    use attention_lab::ui::logic::theme::Theme;
    use attention_lab::ui::state::Lab;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A random state: any subset of the parameters, odd text included.
    fn random_state(seed: u64) -> LinkState {
        let mut rng = SplitMix64::new(seed);
        let mut pick = |n: u64| rng.next_u64() % n;
        let texts = [
            "The cat sat.",
            "猫坐在垫子上，因为它累了。",
            "a+b=c & d?e#f",
            "  spaced  out ",
            "👨‍👩‍👧 emoji",
            "<script>alert(1)</script>",
            "100% 50/50",
        ];
        let some = |p: &mut dyn FnMut(u64) -> u64| p(3) != 0;
        let mut request = Request::default();
        if some(&mut pick) {
            request.sentence = Some(texts[pick(texts.len() as u64) as usize].into());
        }
        if pick(3) == 0 {
            request.model = Some([ModelChoice::Random, ModelChoice::Trained][pick(2) as usize]);
        }
        if pick(4) == 0 {
            request.source_sentence = Some(texts[pick(texts.len() as u64) as usize].into());
        }
        if some(&mut pick) {
            request.d_model = Some(1 + pick(256) as usize);
        }
        if some(&mut pick) {
            request.n_heads = Some(1 + pick(16) as usize);
        }
        if some(&mut pick) {
            request.n_kv_heads = Some(1 + pick(16) as usize);
        }
        if some(&mut pick) {
            request.d_k = Some(1 + pick(64) as usize);
        }
        if some(&mut pick) {
            request.d_v = Some(1 + pick(64) as usize);
        }
        if some(&mut pick) {
            request.temperature = Some([0.05, 0.1, 1.0, 2.5, 9.99, 1e-4, 1234.5][pick(7) as usize]);
        }
        if some(&mut pick) {
            request.seed = Some(pick(u64::MAX));
        }
        request.position = match pick(6) {
            0 => Some(PositionRequest::Rope {
                base: [10_000.0, 500.0][pick(2) as usize],
                pairing: [PairingRequest::Half, PairingRequest::Interleaved][pick(2) as usize],
                offset: pick(4) as usize,
            }),
            1 => Some(PositionRequest::Alibi {
                offset: pick(3) as usize,
            }),
            2 => Some(PositionRequest::None { offset: 0 }),
            3 => Some(PositionRequest::Absolute { offset: 5 }),
            _ => None,
        };
        if some(&mut pick) {
            request.softcap = Some([0.5, 30.0][pick(2) as usize]);
        }
        if some(&mut pick) {
            request.qk_norm = Some(true);
        }
        if some(&mut pick) {
            request.sink_logits = Some(vec![1.5, -2.0, 0.25][..1 + pick(3) as usize].to_vec());
        }
        request.mask = match pick(7) {
            0 => None,
            1 => Some(MaskRequest::None),
            2 => Some(MaskRequest::Causal),
            3 => Some(MaskRequest::Padding {
                valid_len: pick(20) as usize,
            }),
            4 => Some(MaskRequest::Window {
                radius: pick(5) as usize,
            }),
            5 => Some(MaskRequest::Sliding {
                radius: pick(5) as usize,
                sink_tokens: pick(3) as usize,
            }),
            _ => {
                let (rows, cols) = (1 + pick(6) as usize, 1 + pick(6) as usize);
                Some(MaskRequest::Custom {
                    allowed: (0..rows)
                        .map(|_| (0..cols).map(|_| pick(2) == 0).collect())
                        .collect(),
                })
            }
        };
        if some(&mut pick) {
            request.block = Some(BlockRequest {
                rows: Some(1 + pick(64) as usize),
                cols: (pick(2) == 0).then(|| 1 + pick(64) as usize),
            });
        }
        if some(&mut pick) {
            request.backend = Some(
                [BackendChoice::Auto, BackendChoice::Gpu, BackendChoice::Cpu][pick(3) as usize],
            );
        }
        if some(&mut pick) {
            request.layer_norm = Some(
                [
                    LayerNormRequest::None,
                    LayerNormRequest::Pre,
                    LayerNormRequest::Post,
                ][pick(3) as usize],
            );
        }
        let view = ViewSettings {
            head: pick(8) as usize,
            lang: [None, Some(Lang::En), Some(Lang::Zh)][pick(3) as usize],
            theme: [Theme::Auto, Theme::Light, Theme::Dark][pick(3) as usize],
            step: pick(300) as usize,
            view: (pick(2) == 0)
                .then(|| ["softmax", "flash", "scores"][pick(3) as usize].to_string()),
            scale: [ScaleMode::Honest, ScaleMode::Contrast][pick(2) as usize],
            layer: pick(3) as usize,
            lesson: (pick(2) == 0).then(|| {
                attention_core::teaching::Chapter::ALL
                    [pick(attention_core::teaching::Chapter::ALL.len() as u64) as usize]
            }),
            generation: match pick(3) {
                0 => GenerationView::default(),
                1 => GenerationView {
                    steps: 1 + pick(200) as usize,
                    ..GenerationView::default()
                },
                _ => GenerationView {
                    steps: 1 + pick(200) as usize,
                    temperature: [0.1, 0.7, 1.3, 2.0][pick(4) as usize],
                    seed: pick(u64::MAX),
                },
            },
        };
        let embed = (pick(3) == 0).then(|| Embed {
            panels: ["weights", "head-view", "flash"][..pick(4) as usize]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            origin: (pick(2) == 0).then(|| "https://course.example:8443".to_string()),
        });
        LinkState {
            request,
            view,
            embed,
            // Outside an embed too: the full lab opened from one keeps its file.
            src: (pick(2) == 0).then(|| "heads/layer 2.json?v=1&x=ü".to_string()),
        }
    }

    #[test]
    fn random_states_round_trip_through_a_link() {
        for seed in 0..300 {
            let state = random_state(seed);
            let query = to_query(&state);
            let (back, notices) = parse_query(&query);
            assert!(notices.is_empty(), "seed {seed}: {notices:?} from {query}");
            assert_eq!(back, state, "seed {seed}: {query}");
            assert!(
                !query.contains(' ') && !query.contains('<'),
                "seed {seed}: encoded: {query}"
            );
        }
    }

    #[test]
    fn percent_encoding_round_trips_any_text() {
        for text in ["", "a b", "猫 + 狗 = 🙂", "%25%", "&=?#", "line\nbreak"] {
            assert_eq!(decode(&encode(text)).as_deref(), Some(text));
        }
        assert_eq!(decode("a+b%20c").as_deref(), Some("a b c"));
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("%ff%fe"), None, "not UTF-8");
    }

    /// The review's cases: `head=99`, `layer=7` and `view=nope` were used without a word (and
    /// `state().layer` stayed 7 with random weights).
    #[test]
    fn heads_layers_and_views_the_lab_lacks_are_named() {
        let (state, notices) = parse_query("head=99&layer=7&view=nope");
        assert_eq!(notices, vec![LinkNotice::UnknownView("nope".into())]);
        assert_eq!(state.view.view, None);
        let (notices, head, layer) = check_view(&state.view, 2, 1);
        assert_eq!(
            notices,
            vec![
                LinkNotice::NoSuchHead {
                    value: 99,
                    heads: 2
                },
                LinkNotice::NoSuchLayer {
                    value: 7,
                    layers: 1
                },
            ]
        );
        assert_eq!((head, layer), (0, 0));
        for notice in &notices {
            for lang in [Lang::En, Lang::Zh] {
                let text = notice.describe(lang);
                assert!(text.contains("99") || text.contains('7'), "{text}");
            }
        }
        assert!(notices[1].describe(Lang::En).contains("trained model"));
        // What exists is kept, silently.
        let (state, _) = parse_query("head=2&layer=3&view=softmax");
        assert_eq!(state.view.view.as_deref(), Some("softmax"));
        let (notices, head, layer) = check_view(&state.view, 4, 3);
        assert!(notices.is_empty());
        assert_eq!((head, layer), (1, 2));
    }

    /// A long input survives typing, so it must survive its own link: 3000 words at 2 heads
    /// were refused on reload by the CLI's limit on traced cells, which the page never applies.
    #[test]
    fn a_link_restores_any_input_the_page_accepts() {
        let sentence = vec!["word"; 3000].join(" ");
        let link = LinkState {
            request: attention_core::api::Request {
                sentence: Some(sentence.clone()),
                n_heads: Some(2),
                ..Default::default()
            },
            ..LinkState::default()
        };
        let query = to_query(&link);
        assert!(query.len() > LONG_LINK && query.len() < MAX_TEXT);
        let (state, notices) = parse_query(&query);
        assert!(notices.is_empty(), "{notices:?}");
        let (request, notices) = usable_request(&Lab::default_request(), &state.request);
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(request.sentence.as_deref(), Some(sentence.as_str()));
        // The longest input the page takes, 4096 tokens, fits a link too.
        let longest = vec!["antidisestablishment"; 4096].join(" ");
        let (state, notices) = parse_query(&format!("sentence={}", encode(&longest)));
        assert!(notices.is_empty());
        assert_eq!(state.request.sentence.as_deref(), Some(longest.as_str()));
    }

    #[test]
    fn a_link_says_what_it_cannot_carry_and_when_it_is_long() {
        let own = attention_core::api::Request {
            x: Some(vec![vec![1.0, 0.0], vec![0.0, 1.0]]),
            tokens: Some(vec!["a".into(), "b".into()]),
            ..Default::default()
        };
        assert_eq!(
            share_warnings(&own, "http://x/?d_model=2"),
            vec![ShareWarning::Tensors(vec!["x", "tokens"])]
        );
        let long = "x".repeat(LONG_LINK + 1);
        assert_eq!(
            share_warnings(&attention_core::api::Request::default(), &long),
            vec![ShareWarning::Long(LONG_LINK + 1)]
        );
        assert!(share_warnings(&attention_core::api::Request::default(), "short").is_empty());
        for lang in [Lang::En, Lang::Zh] {
            assert!(ShareWarning::Long(20_000).describe(lang).contains("20"));
            assert!(
                ShareWarning::Tensors(vec!["weights"])
                    .describe(lang)
                    .contains("weights")
            );
        }
    }

    #[test]
    fn bad_links_give_notices_and_keep_the_rest() {
        let (state, notices) = parse_query(
            "sentence=hi&d_model=wide&colour=red&temperature=NaN&mask=diagonal&n_heads=4&origin=javascript%3Aalert(1)",
        );
        assert_eq!(state.request.sentence.as_deref(), Some("hi"));
        assert_eq!(state.request.n_heads, Some(4), "valid values are kept");
        assert_eq!(state.request.d_model, None);
        assert!(notices.contains(&LinkNotice::Unknown("colour".into())));
        for name in ["d_model", "temperature", "mask", "origin"] {
            assert!(
                notices.iter().any(
                    |n| matches!(n, LinkNotice::Malformed { name: found, .. } if found == name)
                ),
                "{name}: {notices:?}"
            );
        }
        // Hostile text: markup is kept as text (the page shows it as text); a huge value is refused.
        let (state, notices) = parse_query("sentence=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E");
        assert!(notices.is_empty());
        assert_eq!(
            state.request.sentence.as_deref(),
            Some("<img src=x onerror=alert(1)>")
        );
        let huge = format!("sentence={}", "a".repeat(MAX_TEXT + 1));
        let (state, notices) = parse_query(&huge);
        assert_eq!(state.request.sentence, None);
        assert!(
            matches!(notices[..], [LinkNotice::TooLong { length, .. }] if length == MAX_TEXT + 1),
            "{notices:?}"
        );
        let (_, notices) = parse_query(&format!("{}=1", "x".repeat(500)));
        assert!(
            matches!(&notices[..], [LinkNotice::Unknown(name)] if name.chars().count() <= 41),
            "names are shortened"
        );
    }
}

/// The engine choice as a table: what the user chose × the GPU's state × the size → the engine
/// (and, for the CPU, the reason it gives).
mod engine_choice {
    use attention_core::api::BackendChoice::{self, Auto, Cpu, Gpu};
    use attention_gpu::GpuInfo;
    use attention_lab::ui::logic::engine::{
        AUTO_GPU_MIN_TOKENS, Engine, Fallback, FallbackReason, GpuStatus, choose,
    };
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn ready(software: bool) -> GpuStatus {
        GpuStatus::Ready(GpuInfo {
            name: if software { "SwiftShader" } else { "RTX" }.into(),
            api: "BrowserWebGpu".into(),
            software,
        })
    }

    /// `None`: the GPU computes; `Some(None)`: the CPU, as asked; `Some(Some(reason))`: the CPU
    /// instead of the GPU, for that reason.
    fn check(
        choice: BackendChoice,
        status: GpuStatus,
        tokens: usize,
        expected: Option<Option<FallbackReason>>,
    ) {
        let engine = choose(choice, &status, tokens);
        let got = match &engine {
            Engine::Gpu => None,
            Engine::Cpu(fallback) => Some(fallback.as_ref().map(|f| f.reason)),
        };
        assert_eq!(
            got, expected,
            "{choice:?} × {status:?} × {tokens} tokens → {engine:?}"
        );
    }

    #[test]
    fn every_choice_status_and_size() {
        use FallbackReason::*;
        let big = AUTO_GPU_MIN_TOKENS;
        let small = AUTO_GPU_MIN_TOKENS - 1;
        let unavailable = GpuStatus::Unavailable(Fallback::new(NoWebGpu, ""));
        let lost = GpuStatus::Lost("reset".into());
        let table = [
            // The CPU, when asked, always.
            (Cpu, ready(false), big, Some(None)),
            (Cpu, GpuStatus::Probing, small, Some(None)),
            // The GPU, when asked, whenever it is ready, at any size (even a software one).
            (Gpu, ready(false), 1, None),
            (Gpu, ready(true), small, None),
            (Gpu, GpuStatus::Probing, big, Some(Some(Probing))),
            (Gpu, unavailable.clone(), big, Some(Some(NoWebGpu))),
            (Gpu, lost.clone(), big, Some(Some(DeviceLost))),
            // Auto: a hardware GPU from the threshold up; never a software one.
            (Auto, ready(false), big, None),
            (Auto, ready(false), small, Some(Some(SmallInput))),
            (Auto, ready(true), big, Some(Some(SoftwareAdapter))),
            (Auto, ready(true), small, Some(Some(SoftwareAdapter))),
            (Auto, GpuStatus::Probing, big, Some(Some(Probing))),
            (Auto, unavailable, small, Some(Some(NoWebGpu))),
            (Auto, lost, big, Some(Some(DeviceLost))),
        ];
        for (choice, status, tokens, expected) in table {
            check(choice, status, tokens, expected);
        }
    }

    #[test]
    fn every_gpu_failure_has_a_reason_a_message_and_a_retry_rule() {
        use attention_gpu::GpuError;
        use attention_lab::ui::i18n::Lang;
        let failures = [
            GpuError::NoWebGpu,
            GpuError::NoAdapter("none".into()),
            GpuError::RequestDevice("refused".into()),
            GpuError::DeviceLost("reset".into()),
            GpuError::Shader("bad".into()),
            GpuError::TooLarge {
                needed: 10,
                limit: 5,
            },
            GpuError::Readback("lost".into()),
            GpuError::Unsupported("projection biases"),
        ];
        for error in failures {
            let status = GpuStatus::failed(&error);
            let fallback = status.unusable().expect("a failed GPU is unusable");
            assert_eq!(fallback.reason.code(), error.code(), "{error:?}");
            assert_eq!(
                status.can_retry(),
                !matches!(error, GpuError::NoWebGpu),
                "{error:?}"
            );
            for lang in Lang::ALL {
                assert!(!fallback.message(lang).is_empty(), "{error:?} in {lang:?}");
            }
        }
    }
}

/// Every message in both languages: no string is missing (the compiler sees to that), each error
/// names what to fix, and Chinese text is Chinese.
mod messages {
    use attention_core::ConfigError;
    use attention_core::api::{RequestError, parse_request};
    use attention_lab::ui::i18n::Lang;
    use attention_lab::ui::logic::link::{LinkNotice, parse_query};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn has_cjk(text: &str) -> bool {
        text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    }

    /// Chinese sentences end with a Chinese full stop: no “共 2 个 K/V 头.”. Every Chinese text
    /// of the page is read, and no Chinese character may be followed by an ASCII full stop or
    /// comma.
    #[test]
    fn chinese_text_ends_its_sentences_in_chinese() {
        for (file, source) in [
            ("zh.rs", include_str!("../src/ui/i18n/zh.rs")),
            ("learn_zh.rs", include_str!("../src/ui/i18n/learn_zh.rs")),
        ] {
            let chars: Vec<char> = source.chars().collect();
            for (i, pair) in chars.windows(2).enumerate() {
                if has_cjk(&pair[0].to_string()) && matches!(pair[1], '.' | ',') {
                    let context: String = chars[i.saturating_sub(20)..(i + 3).min(chars.len())]
                        .iter()
                        .collect();
                    panic!("{file}: an ASCII “{}” after Chinese: {context}", pair[1]);
                }
            }
        }
    }

    /// One error of every kind the engine can raise.
    fn every_config_error() -> Vec<ConfigError> {
        vec![
            ConfigError::EmptyInput { field: "sentence" },
            ConfigError::EmptyToken {
                field: "tokens",
                index: 2,
            },
            ConfigError::TooManyTokens {
                field: "sentence",
                count: 4097,
                max: 4096,
            },
            ConfigError::TooSmall {
                field: "d_model",
                value: 0,
                min: 1,
            },
            ConfigError::TooLarge {
                field: "n_heads",
                value: 65,
                max: 64,
            },
            ConfigError::KvHeadsDoNotDivide {
                n_heads: 4,
                n_kv_heads: 3,
            },
            ConfigError::BadTemperature { value: 0.0 },
            ConfigError::ShapeMismatch {
                field: "x",
                expected_rows: 2,
                expected_cols: 3,
                rows: 2,
                cols: 4,
            },
            ConfigError::RaggedMatrix {
                field: "x",
                first: 3,
                row: 1,
                len: 2,
            },
            ConfigError::ValueOutOfRange {
                field: "x",
                row: 0,
                col: 1,
                value: 1e9,
                limit: 1e4,
            },
            ConfigError::CausalNeedsSquare {
                queries: 3,
                keys: 5,
            },
            ConfigError::ValidLenTooLong {
                valid_len: 9,
                keys: 5,
            },
            ConfigError::TraceTooLarge {
                cells: 1 << 25,
                max: 1 << 24,
            },
        ]
    }

    #[test]
    fn every_engine_error_reads_in_both_languages() {
        for error in every_config_error() {
            let en = Lang::En.config_error(&error);
            let zh = Lang::Zh.config_error(&error);
            assert!(!has_cjk(&en) && has_cjk(&zh), "{error:?}: {en} / {zh}");
            assert_ne!(en, zh);
            // The numbers that say what to fix are in both.
            for number in ["4096", "64", "3", "5", "9", "0"] {
                if error.to_string().contains(number) {
                    assert!(
                        en.contains(number) && zh.contains(number),
                        "{error:?} {number}: {en} / {zh}"
                    );
                }
            }
        }
        let en = Lang::En.config_error(&ConfigError::KvHeadsDoNotDivide {
            n_heads: 4,
            n_kv_heads: 3,
        });
        assert!(
            en.contains("4 query heads") && en.contains("3 K/V heads"),
            "{en}"
        );
        let zh = Lang::Zh.config_error(&ConfigError::CausalNeedsSquare {
            queries: 3,
            keys: 5,
        });
        assert!(zh.contains("因果掩码") && zh.contains("3 个查询"), "{zh}");
    }

    #[test]
    fn request_errors_name_the_field_in_both_languages() {
        let json = parse_request(r#"{"n_heads": "two"}"#).unwrap_err();
        let twice = RequestError::Input {
            field: "sentence",
            message: "",
        };
        for error in [json, twice] {
            for lang in Lang::ALL {
                let message = lang.request_error(&error);
                assert!(message.contains(&error.field()), "{lang:?}: {message}");
            }
        }
    }

    #[test]
    fn link_notices_read_as_sentences_in_both_languages() {
        let (_, notices) = parse_query("colour=red&d_model=wide&mask=custom");
        assert_eq!(notices.len(), 3, "{notices:?}");
        assert!(notices.contains(&LinkNotice::MissingCells), "{notices:?}");
        let impossible =
            LinkNotice::Impossible(RequestError::Config(ConfigError::KvHeadsDoNotDivide {
                n_heads: 4,
                n_kv_heads: 3,
            }));
        for notice in notices.iter().chain([&impossible]) {
            let (en, zh) = (notice.describe(Lang::En), notice.describe(Lang::Zh));
            assert!(en.ends_with('.') && zh.ends_with('。'), "{en} / {zh}");
            assert!(!has_cjk(&en) && has_cjk(&zh), "{en} / {zh}");
            // No doubled punctuation where a reason sits inside brackets.
            for doubled in ["。）", ".)", "。，", "。。", ".."] {
                assert!(
                    !en.contains(doubled) && !zh.contains(doubled),
                    "{en} / {zh}"
                );
            }
        }
        assert!(
            !Lang::En
                .request_error(&RequestError::Input {
                    field: "x",
                    message: ""
                })
                .contains("\"\"")
        );
    }

    #[test]
    fn sentences_join_as_each_language_writes() {
        let parts = ["It failed".to_string(), "Try again.".to_string()];
        assert_eq!(Lang::En.join_sentences(&parts), "It failed. Try again.");
        let parts = ["出错了".to_string(), "请重试。".to_string()];
        assert_eq!(Lang::Zh.join_sentences(&parts), "出错了。请重试。");
    }
}

/// Honest views: colour scales that keep magnitudes comparable, a degenerate range drawn where
/// its value is, formulas that follow the settings, clean slider numbers.
mod honest_views {
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
}

/// Links that keep what they can, count as the page counts, and embeds that name their panels.
mod teacher_links {
    use attention_core::ConfigError;
    use attention_core::api::{MaskRequest, Request, RequestError};
    use attention_lab::ui::i18n::Lang;
    use attention_lab::ui::logic::colormap::ScaleMode;
    use attention_lab::ui::logic::link::{LinkNotice, parse_query, to_query, usable_request};
    use attention_lab::ui::logic::sections::Section;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn defaults() -> Request {
        Request {
            sentence: Some("The cat sat on the mat because it was tired.".into()),
            ..Request::default()
        }
    }

    #[test]
    fn links_count_heads_and_steps_from_one() {
        let (state, notices) = parse_query("head=2&step=12&scale=contrast");
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!((state.view.head, state.view.step), (1, 11));
        assert_eq!(state.view.scale, ScaleMode::Contrast);
        let query = to_query(&state);
        assert!(
            query.contains("head=2") && query.contains("step=12"),
            "{query}"
        );
        let (_, notices) = parse_query("head=0");
        assert!(matches!(&notices[..], [LinkNotice::Malformed { name, .. }] if name == "head"));
    }

    #[test]
    fn one_bad_value_leaves_the_rest_of_the_link_alone() {
        let (link, _) = parse_query("sentence=hello%20world%20again&temperature=0.00001&n_heads=4");
        let (request, notices) = usable_request(&defaults(), &link.request);
        assert_eq!(request.sentence.as_deref(), Some("hello world again"));
        assert_eq!(request.n_heads, Some(4));
        assert_eq!(request.temperature, None);
        assert!(
            matches!(&notices[..], [LinkNotice::Dropped { name, value, .. }] if name == "temperature" && value == "0.00001"),
            "{notices:?}"
        );
        let text = notices[0].describe(Lang::En);
        assert!(
            text.contains("0.00001")
                && text.contains("too small")
                && !text.contains("divide by zero"),
            "{text}"
        );

        // A causal mask over a source of another length: the sentences stay, the mask goes.
        let (link, _) = parse_query("sentence=a%20b%20c&source_sentence=x%20y&mask=causal");
        let (request, notices) = usable_request(&defaults(), &link.request);
        assert_eq!(request.sentence.as_deref(), Some("a b c"));
        assert_eq!(request.source_sentence.as_deref(), Some("x y"));
        assert_eq!(request.mask, None);
        assert!(matches!(&notices[..], [LinkNotice::Dropped { name, .. }] if name == "mask"));

        // 3 K/V heads cannot serve 4 heads: multi-head attention instead, the rest kept.
        let (link, _) = parse_query("n_heads=4&n_kv_heads=3&mask=causal");
        let (request, notices) = usable_request(&defaults(), &link.request);
        assert_eq!((request.n_heads, request.n_kv_heads), (Some(4), None));
        assert_eq!(request.mask, Some(MaskRequest::Causal));
        assert_eq!(notices.len(), 1, "{notices:?}");
    }

    #[test]
    fn a_temperature_of_zero_divides_by_zero_and_a_tiny_one_is_too_small() {
        let zero = Lang::En.config_error(&ConfigError::BadTemperature { value: 0.0 });
        let tiny = Lang::En.config_error(&ConfigError::BadTemperature { value: 0.00001 });
        assert!(zero.contains("divide by zero"), "{zero}");
        assert!(
            tiny.contains("too small") && !tiny.contains("divide by zero"),
            "{tiny}"
        );
        let huge = Lang::Zh.config_error(&ConfigError::BadTemperature { value: 1e6 });
        assert!(huge.contains("太大"), "{huge}");
        let _ = RequestError::Config(ConfigError::BadTemperature { value: 0.0 });
    }

    #[test]
    fn embeds_name_unknown_panels_and_sections_embed_their_own() {
        let (state, notices) = parse_query("embed=1&panels=nonsense,weights,head-view");
        assert_eq!(state.embed.unwrap().panels, ["weights", "head-view"]);
        assert_eq!(notices, [LinkNotice::UnknownPanel("nonsense".into())]);
        assert!(notices[0].describe(Lang::Zh).contains("nonsense"));
        assert_eq!(Section::Softmax.panels(), ["weights", "head-view"]);
        assert_eq!(Section::Scores.panels(), ["dot", "scaled", "masked"]);
        assert_eq!(Section::Flash.panels(), ["flash"]);
        for section in Section::ALL {
            assert_eq!(Section::from_id(section.id()), Some(section));
            for panel in section.panels() {
                let (_, notices) = parse_query(&format!("embed=1&panels={panel}"));
                assert!(notices.is_empty(), "{panel}: {notices:?}");
            }
        }
    }
}

/// The trained model's pure rules: a head's label, continuing a sentence, its link settings.
mod trained_model {
    use attention_core::api::{ModelChoice, Request};
    use attention_core::pipeline::roles::HeadRoles;
    use attention_lab::ui::i18n::Lang;
    use attention_lab::ui::logic::link::{parse_query, to_query};
    use attention_lab::ui::logic::roles::{Role, dominant, label};
    use attention_lab::ui::state::model::trained_request;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_head_is_labelled_by_the_role_that_dominates_it() {
        let previous = HeadRoles {
            previous: 0.83,
            induction: 0.05,
            first: 0.02,
            same: 0.1,
            ..HeadRoles::default()
        };
        assert_eq!(dominant(&previous), Some((Role::Previous, 0.83)));
        assert_eq!(
            label(&previous, Lang::En),
            "previous-token head: 0.83 of its weight on the character before"
        );
        assert!(label(&previous, Lang::Zh).starts_with("前一词元头：0.83"));
        let induction = HeadRoles {
            previous: 0.1,
            induction: 0.72,
            first: 0.0,
            same: 0.3,
            ..HeadRoles::default()
        };
        assert_eq!(dominant(&induction).map(|(r, _)| r), Some(Role::Induction));
        let mixed = HeadRoles {
            previous: 0.3,
            induction: 0.2,
            first: 0.35,
            same: 0.1,
            ..HeadRoles::default()
        };
        assert_eq!(dominant(&mixed), None);
        assert_eq!(label(&mixed, Lang::En), "no single job on this sentence");
    }

    #[test]
    fn the_model_and_its_layer_are_kept_in_links() {
        let (state, notices) = parse_query("model=trained&layer=2&head=3");
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(state.request.model, Some(ModelChoice::Trained));
        assert_eq!((state.view.layer, state.view.head), (1, 2));
        let query = to_query(&state);
        assert!(
            query.contains("model=trained") && query.contains("layer=2"),
            "{query}"
        );
        let (_, notices) = parse_query("model=huge");
        assert_eq!(notices.len(), 1);
    }

    #[test]
    fn the_trained_model_reads_only_what_it_does_not_fix() {
        let request = Request {
            model: Some(ModelChoice::Trained),
            sentence: Some("hello".into()),
            d_model: Some(64),
            seed: Some(3),
            temperature: Some(0.5),
            ..Request::default()
        };
        // The page keeps the random shape for later and runs the model without it.
        let (sentence, run) = trained_request(&request).trained_run().unwrap();
        assert_eq!((sentence.as_str(), run.temperature), ("hello", 0.5));
        // The CLI and the API name the first fixed setting they were given.
        let error = request.trained_run().unwrap_err();
        assert_eq!(error.field(), "d_model");
        assert!(
            Lang::En
                .request_error(&error)
                .contains("fixed by the trained model")
        );
        assert_eq!(
            request.lengths(),
            (Some(5), Some(5)),
            "one token per character"
        );
    }
}

#[test]
fn large_traces_are_computed_after_a_paint() {
    use attention_lab::ui::logic::engine::{LATER_CELLS, computes_later};
    assert!(
        !computes_later(8, 128, 128),
        "the 128-token goal stays synchronous"
    );
    assert!(computes_later(4, 256, 256));
    assert!(computes_later(1, 4096, 4096));
    assert!(!computes_later(2, 11, 11));
    assert_eq!(LATER_CELLS, 4 * 256 * 256);
    assert!(computes_later(usize::MAX, 2, 2), "no overflow");
}

/// A long input's keyed stages are overviews: each block the largest (or mean) of its cells,
/// labelled by the tokens it spans, with the reduction said in the legend; the zoomed region and
/// every tooltip give the full trace's numbers, recomputed; the download holds the outputs only.
#[test]
fn long_inputs_show_overviews_with_exact_zooms() {
    use attention_core::pipeline::overview::Reduction;
    use attention_core::{Backend, FlashDetail, compute_parts_with, trace_from};
    use attention_lab::ui::logic::TraceRef;
    use attention_lab::ui::logic::colormap::ScaleMode;
    use attention_lab::ui::logic::explain::explain_block;
    use ndarray::s;
    let words = ["the", "cat", "sat", "on", "a", "warm", "mat", "猫"];
    let sentence: Vec<&str> = (0..600).map(|i| words[i % words.len()]).collect();
    let config = Params {
        mask: MaskSpec::Causal,
        d_model: Some(16),
        trace: false,
        ..Params::sentence(sentence.join(" "))
    }
    .validate()
    .unwrap();
    let full = compute_trace(&config);
    let parts = compute_parts_with(&config, true, &mut |_, _| {});
    let long = trace_from(&config, parts, Backend::Cpu, FlashDetail::Steps);
    assert!(long.is_summarised() && !full.is_summarised());
    assert!(
        long.flash.heads.iter().all(|h| h.steps.is_empty()),
        "no tiles kept"
    );
    for stage in [Stage::Dot, Stage::Scaled, Stage::Masked, Stage::Weights] {
        assert!(stage.is_overview(&long) && !stage.is_overview(&full));
    }
    assert!(!Stage::Q.is_overview(&long));

    let max = Stage::Weights.view_reduced(&long, 1, ScaleMode::Honest, Reduction::Max);
    assert_eq!(max.values.dim(), (200, 200));
    assert_eq!(max.row_labels[1], "3–5");
    assert_eq!(max.col_labels[199], "597–599");
    let block = full.heads[1].weights.slice(s![30..33, 12..15]);
    let largest = block.iter().copied().fold(0.0f32, f32::max);
    assert!((max.values[[10, 4]] - largest).abs() < 1e-6);
    assert!(
        max.note(Lang::En).contains("the largest of 3 × 3 cells"),
        "{}",
        max.note(Lang::En)
    );
    let mean = Stage::Weights.view_reduced(&long, 1, ScaleMode::Honest, Reduction::Mean);
    assert!((mean.values[[10, 4]] - block.sum() / 9.0).abs() < 1e-6);
    assert!(mean.note(Lang::Zh).contains("平均值"));
    // Above the diagonal every cell is masked: −∞ in the masked overview, 0 in the weights.
    let masked = Stage::Masked.view_reduced(&long, 0, ScaleMode::Honest, Reduction::Max);
    assert_eq!(masked.values[[0, 5]], f32::NEG_INFINITY);
    // The scores keep the full trace's shared scale.
    for stage in [Stage::Dot, Stage::Weights] {
        assert_eq!(
            stage.view(&long, 0, ScaleMode::Honest).scale,
            stage.view(&full, 0, ScaleMode::Honest).scale,
            "{stage:?}"
        );
    }

    let zoom = Stage::Weights.region(&long, 1, ScaleMode::Honest, 100..132, 80..112);
    assert_eq!(zoom.row_labels[0], full.config.tokens()[100]);
    for ((r, c), &w) in zoom.values.indexed_iter() {
        assert!((w - full.heads[1].weights[[100 + r, 80 + c]]).abs() < 1e-6);
    }
    let zoom = Stage::Masked.region(&long, 1, ScaleMode::Honest, 100..132, 80..112);
    assert_eq!(
        zoom.values[[0, 31]],
        f32::NEG_INFINITY,
        "query 100 cannot see key 111"
    );

    for (stage, col) in [
        (Stage::Scaled, 250),
        (Stage::Masked, 250),
        (Stage::Masked, 301),
        (Stage::Weights, 250),
        (Stage::HeadOutput, 3),
    ] {
        let a = explain(&long, stage, 1, 300, col, Lang::En);
        let b = explain(&full, stage, 1, 300, col, Lang::En);
        assert_eq!((a.value, a.position), (b.value, b.position), "{stage:?}");
    }
    let tip = explain_block(&long, Stage::Weights, 1, 10, 4, Lang::En);
    assert_eq!(tip.position, "queries 30–32 × keys 12–14");
    assert!(tip.lines[0].contains("of 9 cells"), "{tip:?}");

    let json = TraceRef::new(long).to_json().unwrap();
    assert!(
        json.contains("\"output\"") && !json.contains("\"heads\""),
        "outputs only"
    );
}

mod shaping_views {
    use super::*;
    use attention_core::math::scoring::{Pairing, Position, Shaping};
    use attention_lab::ui::logic::shaping::{
        alibi_view, has_views, near_cap, offset_change, qk_norm_bound, rope_views, sink_view,
        slope_rows, softcap_points, wrap,
    };
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn shaped(shaping: Shaping) -> attention_core::Trace {
        trace(Params {
            n_heads: 4,
            n_kv_heads: Some(2),
            mask: MaskSpec::Causal,
            shaping,
            ..Params::sentence("the cat sat on the mat because it was tired")
        })
    }

    #[test]
    fn the_views_show_only_with_an_option() {
        assert!(!has_views(&shaped(Shaping::default())));
        assert!(has_views(&shaped(Shaping {
            softcap: Some(3.0),
            ..Shaping::default()
        })));
        // An absolute offset changes X: the section says so.
        assert!(has_views(&shaped(Shaping {
            offset: 5,
            ..Shaping::default()
        })));
    }

    #[test]
    fn rope_turns_keep_lengths_and_angles_follow_the_positions() {
        let t = shaped(Shaping {
            position: Position::Rope {
                base: 10_000.0,
                pairing: Pairing::Interleaved,
            },
            offset: 7,
            ..Shaping::default()
        });
        let views = rope_views(&t, 3).unwrap();
        let [q, q_turned, k, k_turned] = &views.matrices;
        for (raw, turned) in [(q, q_turned), (k, k_turned)] {
            for (a, b) in raw.values.outer_iter().zip(turned.values.outer_iter()) {
                let (na, nb) = (a.dot(&a).sqrt(), b.dot(&b).sqrt());
                assert!((na - nb).abs() <= 1e-5 * na.max(1.0), "{na} vs {nb}");
            }
        }
        // Row r is position r + 7; pair 1 turns by base^(−2/d_k) per position.
        let d_k = t.config.dims().d_k as f64;
        let theta = 10_000f64.powf(-2.0 / d_k);
        assert_eq!(views.pairs[1], (1, 2, 3, theta));
        let angle = views.angles.values[[2, 1]];
        assert!((f64::from(angle) - wrap(9.0 * theta)).abs() < 1e-6);
        assert!(
            views
                .angles
                .values
                .iter()
                .all(|a| a.abs() <= std::f32::consts::PI)
        );
        // The offset does not move the scores.
        let change = offset_change(&t, 0).unwrap();
        assert!(change < 1e-4, "{change}");
        assert!(rope_views(&shaped(Shaping::default()), 0).is_none());
    }

    #[test]
    fn the_offset_note_would_catch_scores_that_moved() {
        // With absolute positions the offset moves X, and the views give no Δ (they cannot
        // compute it from the trace): the note says that every score changes instead.
        let t = shaped(Shaping {
            offset: 9,
            ..Shaping::default()
        });
        assert_eq!(offset_change(&t, 0), None);
        // ALiBi's bias is the same at any offset: Δ = 0 exactly.
        let t = shaped(Shaping {
            position: Position::Alibi,
            offset: 1000,
            ..Shaping::default()
        });
        assert_eq!(offset_change(&t, 1), Some(0.0));
    }

    #[test]
    fn alibi_shows_each_heads_bias_and_the_papers_slopes() {
        let t = shaped(Shaping {
            position: Position::Alibi,
            ..Shaping::default()
        });
        let (view, slope) = alibi_view(&t, 1).unwrap();
        assert_eq!(slope, 2f32.powi(-4));
        assert_eq!(view.values[[5, 2]], -3.0 * slope);
        assert_eq!(view.values[[2, 5]], -3.0 * slope);
        let rows = slope_rows(&t);
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0], (1, 0.25, -2.0, 4.0));
        assert_eq!(rows[3].1, 2f32.powi(-8));
        assert!(alibi_view(&shaped(Shaping::default()), 0).is_none());
    }

    #[test]
    fn the_softcap_curve_holds_the_rows_scores_below_the_cap() {
        let t = shaped(Shaping {
            softcap: Some(0.5),
            ..Shaping::default()
        });
        let row = 6;
        let (cap, points) = softcap_points(&t, 2, row).unwrap();
        assert_eq!(cap, 0.5);
        // Causal: the visible keys of query 6 are 0..=6.
        assert_eq!(points.len(), 7);
        let scale = 1.0 / t.config.temperature();
        for (j, &(_, after)) in points.iter().enumerate() {
            assert!(after.abs() < cap);
            assert!((after * scale - t.heads[2].scores[[row, j]]).abs() < 1e-6);
        }
        assert!(near_cap(cap, &points) <= points.len());
    }

    #[test]
    fn qk_norm_bounds_every_score_by_the_root_of_d_k() {
        let t = shaped(Shaping {
            qk_norm: true,
            ..Shaping::default()
        });
        for head in 0..4 {
            let (bound, largest) = qk_norm_bound(&t, head).unwrap();
            assert_eq!(bound, (t.config.dims().d_k as f32).sqrt());
            assert!(largest <= bound * (1.0 + 1e-5), "{largest} > {bound}");
            assert!(largest > 0.0);
        }
        assert!(qk_norm_bound(&shaped(Shaping::default()), 0).is_none());
    }

    #[test]
    fn the_sink_column_is_what_each_row_gave_away() {
        let t = shaped(Shaping {
            sink_logits: Some(vec![0.0, 3.0, -2.0, 8.0]),
            ..Shaping::default()
        });
        for head in 0..4 {
            let view = sink_view(&t, head, "sink").unwrap();
            let (n, cols) = view.values.dim();
            assert_eq!(cols, t.config.key_len() + 1);
            assert_eq!(view.col_labels.last().map(String::as_str), Some("sink"));
            for i in 0..n {
                let row_sum: f32 = view.values.row(i).sum();
                assert!(
                    (row_sum - 1.0).abs() < 1e-5,
                    "head {head} row {i}: {row_sum}"
                );
                assert!(view.values[[i, cols - 1]] > 0.0);
            }
        }
        // A logit of 8 takes most of every row.
        let view = sink_view(&t, 3, "sink").unwrap();
        assert!(view.values[[0, t.config.key_len()]] > 0.99);
        assert!(sink_view(&shaped(Shaping::default()), 0, "sink").is_none());
    }

    #[test]
    fn a_weights_tooltip_counts_the_sink_in_its_sum() {
        let t = shaped(Shaping {
            sink_logits: Some(vec![2.0, 2.0, 2.0, 2.0]),
            ..Shaping::default()
        });
        let info = explain(&t, Stage::Weights, 0, 4, 2, Lang::En);
        assert!(info.lines[0].contains("sink"), "{:?}", info.lines);
        // The shown sum makes the shown weight: w = exp(s − max) / sum.
        let numbers: Vec<f32> = info.lines[1]
            .split(['=', '/', '(', ')', '−', ' '])
            .filter_map(|p| p.trim().parse().ok())
            .collect();
        let (s, max, sum) = (numbers[0], numbers[1], numbers[2]);
        let w = t.heads[0].weights[[4, 2]];
        assert!(
            ((s - max).exp() / sum - w).abs() < 2e-3,
            "{numbers:?} vs {w}"
        );
    }
}

#[test]
fn an_imported_head_is_shown_with_its_tokens_and_the_right_scales() {
    use attention_core::io::import::read_value;
    use attention_core::io::imported::{ImportSettings, run_imported};
    use attention_lab::ui::logic::colormap::{Scale, ScaleMode};
    use attention_lab::ui::logic::imported::{Part, cell, view};
    use attention_lab::ui::state::imported::parse_tokens;

    let file = read_value(
        &serde_json::json!({
            "q": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
            "k": [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]],
            "v": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]],
            "tokens": ["a", " ", "c"]
        }),
        None,
    )
    .unwrap();
    let run = run_imported(&file, &ImportSettings::default()).unwrap();
    let weights = view(&run, 0, 0, Part::Weights, ScaleMode::Honest).unwrap();
    assert_eq!(weights.scale, Scale::UNIT);
    assert_eq!(weights.row_labels, ["a", "␣", "c"]);
    assert_eq!(weights.col_labels, ["a", "␣", "c"]);
    let q = view(&run, 0, 0, Part::Q, ScaleMode::Honest).unwrap();
    assert_eq!(q.col_labels, ["0", "1"]);
    let v = view(&run, 0, 0, Part::V, ScaleMode::Honest).unwrap();
    assert_eq!(v.values.dim(), (3, 3));
    assert!(matches!(v.scale, Scale::Diverging { limit } if limit == 9.0));
    let contrast = view(&run, 0, 0, Part::Weights, ScaleMode::Contrast).unwrap();
    assert_ne!(contrast.scale, Scale::UNIT);
    let (query, key, w) = cell(&run, 0, 0, Part::Weights, 2, 1).unwrap();
    assert_eq!((query.as_str(), key.as_str()), ("c", "␣"));
    assert_eq!(w, run.layers[0][0].weights[[2, 1]]);
    assert!(cell(&run, 0, 0, Part::Weights, 3, 0).is_none());

    // Weights alone have no Q, scores or output to show.
    let weights_only = read_value(
        &serde_json::json!({"attention": [[1.0, 0.0], [0.5, 0.5]], "tokens": ["x", "y"]}),
        None,
    )
    .unwrap();
    let run = run_imported(&weights_only, &ImportSettings::default()).unwrap();
    for part in [Part::Q, Part::K, Part::V, Part::Scores, Part::Output] {
        assert!(
            view(&run, 0, 0, part, ScaleMode::Honest).is_none(),
            "{part:?}"
        );
    }

    assert_eq!(parse_tokens("  "), None);
    assert_eq!(parse_tokens("the cat  sat").unwrap(), ["the", "cat", "sat"]);
    assert_eq!(parse_tokens(r#"["a b", "猫"]"#).unwrap(), ["a b", "猫"]);
    assert_eq!(parse_tokens("[not json").unwrap(), ["[not", "json"]);
}

/// FlashAttention's tile player replays a file's Q, K and V: its tiles under the lab's mask, the
/// file's tokens on every view, and the same output as the standard computation; a long file
/// replays one query block, as the lab's own long inputs do.
#[test]
fn an_imported_head_replays_flash_attentions_tiles() {
    use attention_core::MaskSpec;
    use attention_core::io::import::read_value;
    use attention_core::io::imported::{ImportSettings, run_imported};
    use attention_lab::ui::logic::colormap::{Scale, ScaleMode};
    use attention_lab::ui::logic::flash_frame_views::{accumulator, block_rows, grid, tile};
    use attention_lab::ui::logic::flash_frames::Phase;
    use attention_lab::ui::logic::flash_views::Replay;
    use attention_lab::ui::logic::stages::Stage;
    use std::sync::Arc;

    let q: Vec<Vec<f32>> = (0..5)
        .map(|i| vec![i as f32 * 0.3, 1.0 - i as f32 * 0.2])
        .collect();
    let k: Vec<Vec<f32>> = (0..5).map(|i| vec![(i as f32).sin(), 0.5]).collect();
    let v: Vec<Vec<f32>> = (0..5).map(|i| vec![i as f32, -(i as f32), 1.0]).collect();
    let tokens = ["a", "b", "c", "d", "e"];
    let file = read_value(
        &serde_json::json!({"q": [[q.clone()]], "k": [[k.clone()]], "v": [[v.clone()]], "tokens": tokens}),
        None,
    )
    .unwrap();
    let settings = ImportSettings {
        mask: MaskSpec::Causal,
        temperature: 1.0,
        block: (Some(2), Some(2)),
    };
    let run = Arc::new(run_imported(&file, &settings).unwrap());
    let replay = Replay::imported(Arc::clone(&run), 0, 0, ScaleMode::Honest, 0).unwrap();
    assert!(!replay.partial() && replay.blocks == (0..3));
    assert_eq!(replay.tokens(), tokens);
    // Every query block ends with its rows divided by l: the head's own output.
    let output = run.layers[0][0].output.as_ref().unwrap();
    let (last, frame) = replay
        .frames
        .iter()
        .enumerate()
        .rfind(|(_, f)| f.phase == Phase::Normalize)
        .unwrap();
    assert_eq!(last, replay.frames.len() - 1);
    let (acc, final_rows) = accumulator(&replay, frame);
    assert!(final_rows);
    let rows = &replay.flash().steps[frame.step].rows;
    for (r, i) in rows.clone().enumerate() {
        for c in 0..3 {
            assert!((acc.values[[r, c]] - output[[i, c]]).abs() < 1e-5);
        }
    }
    // The grid hides the keys after each query (causal), and labels rows by the file's tokens.
    let (view, _) = grid(&replay, &replay.frames[0]);
    assert_eq!(view.row_labels, tokens);
    assert!(view.values[[0, 1]] == f32::NEG_INFINITY && view.values[[1, 0]].is_finite());
    // A tile's scores are masked past the diagonal, on the head's scores' scale.
    let scores = replay
        .frames
        .iter()
        .find(|f| f.phase == Phase::Scores)
        .unwrap();
    let (tile_view, probs) = tile(&replay, scores).unwrap();
    assert!(!probs && tile_view.values[[0, 1]] == f32::NEG_INFINITY);
    let head_scores = run.layers[0][0].scores.as_ref().unwrap();
    let limit = head_scores.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    assert!(matches!(tile_view.scale, Scale::Diverging { limit: l } if l == limit));
    assert_eq!(
        tile_view.legend,
        attention_lab::ui::logic::matrix::Legend::WholeHead
    );
    assert_eq!(block_rows(&replay, scores)[1].token, "b");
    // Q, K and V are the file's.
    let q_view = replay.input_view(Stage::Q).unwrap();
    assert_eq!(q_view.values[[4, 0]], q[4][0]);
    assert!(replay.input_view(Stage::Weights).is_none());
    // Weights read as they are have no Q, K or V to replay.
    let weights = read_value(
        &serde_json::json!({"attention": [[1.0, 0.0], [0.5, 0.5]], "tokens": ["x", "y"]}),
        None,
    )
    .unwrap();
    let read = Arc::new(run_imported(&weights, &ImportSettings::default()).unwrap());
    assert!(Replay::imported(read, 0, 0, ScaleMode::Honest, 0).is_none());

    // Past 512 × 512 cells, one query block (the chosen one, clamped) is replayed.
    let n: usize = 600;
    let long = read_value(
        &serde_json::json!({
            "q": (0..n).map(|i| vec![(i as f32 * 0.1).cos(), 0.2]).collect::<Vec<_>>(),
            "k": (0..n).map(|i| vec![(i as f32 * 0.1).sin(), 0.1]).collect::<Vec<_>>(),
            "v": (0..n).map(|i| vec![i as f32 / n as f32]).collect::<Vec<_>>(),
        }),
        None,
    )
    .unwrap();
    let run = Arc::new(
        run_imported(
            &long,
            &ImportSettings {
                mask: MaskSpec::Causal,
                ..ImportSettings::default()
            },
        )
        .unwrap(),
    );
    let rows_per_block = run.computed_under.as_ref().unwrap().block.0;
    let replay = Replay::imported(Arc::clone(&run), 0, 0, ScaleMode::Honest, 1_000).unwrap();
    assert!(replay.partial());
    let last = n.div_ceil(rows_per_block) - 1;
    assert_eq!(replay.blocks, last..last + 1);
    assert!(replay.flash().steps.iter().all(|s| s.row_block == last));
}

/// Every layer × head at a glance: a small head cell by cell; past 256 cells a side, each block
/// as its largest weight, so a sharp pattern stays sharp.
#[test]
fn a_long_imported_head_is_glanced_at_by_its_block_maxima() {
    use attention_core::io::import::read_value;
    use attention_core::io::imported::{ImportSettings, run_imported};
    use attention_lab::ui::logic::colormap::ScaleMode;
    use attention_lab::ui::logic::imported::{GLANCE_SIDE, glance};
    use attention_lab::ui::logic::matrix::Legend;
    // A head that looks one token back, over 600 tokens.
    let n = 600;
    let rows: Vec<Vec<f32>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    if j + 1 == i || (i == 0 && j == 0) {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let file = read_value(&serde_json::json!({"attention": rows}), None).unwrap();
    let run = run_imported(&file, &ImportSettings::default()).unwrap();
    let v = glance(&run, 0, 0, ScaleMode::Honest).unwrap();
    // 600 in blocks of 3: 200 × 200, every block on or just below the diagonal at its maximum 1.
    assert_eq!(v.values.dim(), (200, 200));
    assert!(v.values.dim().0 <= GLANCE_SIDE);
    assert!((1..200).all(|b| v.values[[b, b]] == 1.0 || v.values[[b, b - 1]] == 1.0));
    assert_eq!(v.values[[150, 10]], 0.0);
    assert!(v.row_labels.is_empty() && v.legend == Legend::Hidden);
    // A short head is shown cell by cell.
    let short = read_value(
        &serde_json::json!({"attention": [[1.0, 0.0], [0.5, 0.5]]}),
        None,
    )
    .unwrap();
    let run = run_imported(&short, &ImportSettings::default()).unwrap();
    assert_eq!(
        glance(&run, 0, 0, ScaleMode::Honest).unwrap().values,
        ndarray::array![[1.0, 0.0], [0.5, 0.5]]
    );
}

#[test]
fn every_import_refusal_reads_in_both_languages() {
    use attention_core::io::import::{Format, read};
    use attention_lab::ui::state::imported::{Refusal, open_bytes};
    let refusals = [
        open_bytes(
            "x.json",
            None,
            br#"{"attention": [[1, 0]], "tokens": ["a", "b", "c"]}"#,
            None,
        )
        .unwrap_err(),
        open_bytes("x.bin", None, b"\x01\x02", None).unwrap_err(),
        Refusal::Import(read(Format::Npz, b"PK\x03\x04", None, None, None).unwrap_err()),
        Refusal::Unreadable("NotReadableError".into()),
    ];
    for refusal in &refusals {
        let en = refusal.message(Lang::En);
        let zh = refusal.message(Lang::Zh);
        assert!(!en.is_empty() && !zh.is_empty() && en != zh, "{en} / {zh}");
        assert!(
            zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            "{zh}"
        );
    }
}
