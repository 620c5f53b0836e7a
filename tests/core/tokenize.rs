//! The tokenizer, and a word's vector wherever it stands.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn tokenizer_splits_words_numbers_punctuation_cjk_and_emoji() {
    let cases: &[(&str, &[&str])] = &[
        ("The cat sat.", &["The", "cat", "sat", "."]),
        (
            "don't stop state-of-the-art",
            &["don't", "stop", "state-of-the-art"],
        ),
        (
            "pi is 3.14, or 1,000/318",
            &["pi", "is", "3.14", ",", "or", "1,000", "/", "318"],
        ),
        (
            "猫坐在垫子上。",
            &["猫", "坐", "在", "垫", "子", "上", "。"],
        ),
        ("I ❤️ 注意力!", &["I", "❤️", "注", "意", "力", "!"]),
        ("👨‍👩‍👧 family 👍🏽", &["👨‍👩‍👧", "family", "👍🏽"]),
        ("café naïve", &["café", "naïve"]),
        ("a\u{200B}b \u{FEFF}c", &["a", "b", "c"]),
        ("  \t\n ", &[]),
        ("GPT-4 的 attention", &["GPT-4", "的", "attention"]),
        (
            "end. -dash 'quote'",
            &["end", ".", "-", "dash", "'", "quote", "'"],
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(tokens(text), *expected, "tokenize({text:?})");
    }
}

#[test]
fn tokenizer_stops_early_on_enormous_input() {
    let text = "word ".repeat(100_000);
    assert_eq!(tokenize(&text, 4096), Tokens::TooMany { at_least: 4097 });
    let error = Params::sentence(text).validate().unwrap_err();
    assert!(
        matches!(error, ConfigError::TooManyTokens { max: 4096, .. }),
        "{error}"
    );
}

#[test]
fn same_word_same_vector() {
    let config = Params::sentence("The cat saw the cat").validate().unwrap();
    let (embeddings, _) = config.target().parts.as_ref().unwrap();
    assert_eq!(embeddings.row(0), embeddings.row(3), "'The' and 'the'");
    assert_eq!(embeddings.row(1), embeddings.row(4), "'cat' twice");
    assert_ne!(embeddings.row(0), embeddings.row(1));
    // Positions differ, so X rows of the same word differ.
    assert_ne!(config.x().row(1), config.x().row(4));
}
