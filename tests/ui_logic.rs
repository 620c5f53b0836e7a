//! The UI's pure logic, without a browser: what each stage shows and how a tooltip explains a cell
//! (checked against the trace's own numbers), and the helpers behind the controls.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::{LayerNormMode, MaskSpec, Params, compute_trace};
use attention_lab::ui::i18n::Lang;
use attention_lab::ui::model::controls::{
    divisors, kv_heads_for, slider_to_temperature, temperature_to_slider,
};
use attention_lab::ui::model::explain::explain;
use attention_lab::ui::model::stages::Stage;

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
    assert_eq!(temperature_to_slider(0.05), 0.0);
    assert_eq!(temperature_to_slider(10.0), 1000.0);
    assert_eq!(slider_to_temperature(0.0), 0.05);
    assert_eq!(slider_to_temperature(1000.0), 10.0);
    // T = 1 sits well inside, not at the middle of a linear 0.05–10 scale (which would be ~5).
    let one = temperature_to_slider(1.0);
    assert!((500.0..600.0).contains(&one), "{one}");
    for t in [0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0] {
        let back = slider_to_temperature(temperature_to_slider(t));
        assert!((back - t).abs() / t < 0.02, "{t} -> {back}");
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
    use attention_lab::ui::model::flash_frames::{
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
        BackendChoice, BlockRequest, LayerNormRequest, MaskRequest, Request,
    };
    use attention_core::rng::SplitMix64;
    use attention_lab::ui::i18n::Lang;
    use attention_lab::ui::model::link::{
        Embed, LinkNotice, LinkState, ViewSettings, decode, encode, parse_query, to_query,
    };
    use attention_lab::ui::model::theme::Theme;
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
        request.mask = match pick(6) {
            0 => None,
            1 => Some(MaskRequest::None),
            2 => Some(MaskRequest::Causal),
            3 => Some(MaskRequest::Padding {
                valid_len: pick(20) as usize,
            }),
            4 => Some(MaskRequest::Window {
                radius: pick(5) as usize,
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
                .then(|| ["weights", "flash", "scores"][pick(3) as usize].to_string()),
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
        let huge = format!("sentence={}", "a".repeat(30_000));
        let (state, notices) = parse_query(&huge);
        assert_eq!(state.request.sentence, None);
        assert!(
            matches!(notices[..], [LinkNotice::TooLong { length: 30_000, .. }]),
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
    use attention_lab::ui::model::engine::{
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
    use attention_lab::ui::model::link::{LinkNotice, parse_query};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn has_cjk(text: &str) -> bool {
        text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
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
