//! The state in a link, and back.

use attention_core::api::{
    BackendChoice, BlockRequest, LayerNormRequest, LinearKindRequest, LinearRequest, MaskRequest,
    ModelChoice, PairingRequest, PositionRequest, Request,
};
use attention_core::math::rng::SplitMix64;
use attention_lab::ui::i18n::Lang;
use attention_lab::ui::logic::colormap::ScaleMode;
use attention_lab::ui::logic::link::{
    Embed, GenerationView, LONG_LINK, LinkNotice, LinkState, MAX_TEXT, ShareWarning, ViewSettings,
    check_view, decode, encode, parse_query, share_warnings, to_query, usable_request,
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
        request.model = Some([ModelChoice::Random, ModelChoice::Trained][pick(2) as usize].clone());
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
    if some(&mut pick) {
        request.linear = Some(LinearRequest {
            kind: [
                LinearKindRequest::Elu,
                LinearKindRequest::Delta,
                LinearKindRequest::GatedDelta,
            ][pick(3) as usize],
            // A link leaves out the default 64 and reads it back as 64.
            chunk: Some([1, 16, 64, 256][pick(4) as usize]),
        });
    }
    if some(&mut pick) {
        request.output_gate = Some(true);
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
        request.backend =
            Some([BackendChoice::Auto, BackendChoice::Gpu, BackendChoice::Cpu][pick(3) as usize]);
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
        view: (pick(2) == 0).then(|| ["softmax", "flash", "scores"][pick(3) as usize].to_string()),
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
        // A model folder's address, as the Hub serves one.
        model_src: (pick(3) == 0)
            .then(|| "https://huggingface.co/Qwen/Qwen3-0.6B/resolve/main?x=é&y=1".to_string()),
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
        vec![ShareWarning::Tensors(vec!["tokens", "x"])]
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
            notices
                .iter()
                .any(|n| matches!(n, LinkNotice::Malformed { name: found, .. } if found == name)),
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

/// A course element's removed attribute puts back what it set, and nothing its group still sets.
#[test]
fn removed_element_attributes_go_back_to_their_defaults() {
    use attention_lab::ui::logic::element::cleared_params;
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let cleared = |given: &[&str], removed: &[&str]| {
        let mut out: Vec<String> = cleared_params(&names(given), &names(removed))
            .into_iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        out.sort();
        out
    };
    // `linear` removed (its `chunk` never set): linear attention goes, back to the softmax.
    assert_eq!(cleared(&[], &["linear", "chunk"]), ["linear=null"]);
    // Only a sliding window's radius removed: the mask itself is still given, so it stays.
    assert_eq!(
        cleared(&["mask"], &["valid_len", "radius", "sink_tokens", "cells"]),
        Vec::<String>::new()
    );
    // The mask's kind removed, one of its numbers left: no mask without its kind, the default.
    assert_eq!(
        cleared(&["radius"], &["mask", "valid_len", "sink_tokens", "cells"]),
        ["mask=null"]
    );
    assert_eq!(cleared(&["chunk"], &["linear"]), ["linear=null"]);
    // The mask removed with its numbers: the default mask.
    assert_eq!(
        cleared(
            &[],
            &["mask", "valid_len", "radius", "sink_tokens", "cells"]
        ),
        ["mask=null"]
    );
    assert_eq!(cleared(&[], &["qk_norm"]), ["qk_norm=null"]);
    assert_eq!(cleared(&[], &["model"]), ["model=null"]);
    // View settings: the first head and layer, no lesson; the language stays the reader's.
    assert_eq!(cleared(&[], &["head"]), ["head=1"]);
    assert_eq!(cleared(&[], &["lesson"]), ["lesson=null"]);
    assert_eq!(cleared(&[], &["lang"]), Vec::<String>::new());
    // A name that is no attribute clears nothing.
    assert_eq!(cleared(&[], &["nonsense"]), Vec::<String>::new());
}
