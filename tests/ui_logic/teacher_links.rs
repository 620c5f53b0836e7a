//! Links that keep what they can, count as the page counts, and embeds that name their panels.

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
        text.contains("0.00001") && text.contains("too small") && !text.contains("divide by zero"),
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
