//! Every message in both languages: no string is missing (the compiler sees to that), each error
//! names what to fix, and Chinese text is Chinese.

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
        ("zh.rs", include_str!("../../src/ui/i18n/zh.rs")),
        ("learn_zh.rs", include_str!("../../src/ui/i18n/learn_zh.rs")),
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
    assert!(
        notices.contains(&LinkNotice::Missing {
            name: "cells".into(),
            field: "mask".into(),
            kind: "custom".into()
        }),
        "{notices:?}"
    );
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

/// `attentionLab.set({lesson: "x"})` names every chapter the page has (the review found "lesson:
/// not a valid value" and nothing to choose from), in both languages.
#[test]
fn a_lesson_that_does_not_exist_lists_every_chapter() {
    use attention_core::teaching::Chapter;
    use attention_lab::ui::logic::notice::ApiError;
    for lang in [Lang::En, Lang::Zh] {
        let message = ApiError::BadView("lesson").message(lang);
        for chapter in Chapter::ALL {
            assert!(message.contains(chapter.id()), "{lang:?}: {message}");
        }
    }
    assert_eq!(
        ApiError::BadView("head").message(Lang::En),
        "head: not a valid value"
    );
}
