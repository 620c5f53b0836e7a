//! Splits a sentence into the tokens the lab attends over.
//!
//! Rules, chosen to be predictable for students rather than to mimic any model's vocabulary:
//! - Latin, Cyrillic, Greek, Hangul… words are one token each; an apostrophe or hyphen between
//!   letters stays inside the word ("don't", "state-of-the-art").
//! - Numbers are one token, with inner `.` or `,` between digits ("3.14", "1,000").
//! - Every Chinese character (and Japanese kana) is its own token, as Chinese has no spaces.
//! - Every other visible symbol — punctuation, emoji (with skin tones and ZWJ sequences) — is one
//!   token per user-perceived character (grapheme cluster), never split into bytes.
//! - Whitespace (and the zero-width space) separates; other invisible format characters (BOM,
//!   bidi marks, a stray zero-width joiner) are dropped.

use unicode_segmentation::UnicodeSegmentation;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Space,
    Invisible,
    Ideograph,
    WordChar,
    Digit,
    Joiner,
    NumberJoiner,
    Symbol,
}

/// True for scripts written without spaces, where each character is a token.
pub fn is_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF      // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x323AF  // CJK Extensions B–H
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana extensions
        | 0x3005..=0x3007    // 々 〆 〇
        | 0x3100..=0x312F    // Bopomofo
    )
}

fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x180E
            | 0x200C..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0xFE00..=0xFE0F | 0xFEFF)
}

fn classify(grapheme: &str) -> Class {
    let Some(first) = grapheme.chars().next() else {
        return Class::Invisible;
    };
    // U+200B is a zero-width *space*: it separates words, though it is not White_Space.
    if grapheme
        .chars()
        .all(|c| c.is_whitespace() || c == '\u{200B}')
    {
        Class::Space
    } else if grapheme.chars().all(is_invisible) {
        Class::Invisible
    } else if is_ideograph(first) {
        Class::Ideograph
    } else if first.is_numeric() {
        Class::Digit
    } else if first.is_alphanumeric() {
        Class::WordChar
    } else if matches!(first, '\'' | '’' | '-' | '‐') {
        Class::Joiner
    } else if matches!(first, '.' | ',') {
        Class::NumberJoiner
    } else {
        Class::Symbol
    }
}

/// The result of tokenizing: the tokens, or the fact that there were more than `max_tokens`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tokens {
    Fit(Vec<String>),
    /// Tokenizing stopped early; `at_least` tokens were found before giving up.
    TooMany {
        at_least: usize,
    },
}

/// Splits `text` into tokens (see the module docs), stopping once more than `max_tokens` are found
/// so an enormous paste costs no more than the limit.
pub fn tokenize(text: &str, max_tokens: usize) -> Tokens {
    let mut graphemes = text
        .graphemes(true)
        .map(|g| (g, classify(g)))
        .filter(|(_, class)| *class != Class::Invisible)
        .peekable();
    let mut tokens: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut word_has_letter = false;
    let flush = |word: &mut String, has_letter: &mut bool, tokens: &mut Vec<String>| {
        if !word.is_empty() {
            tokens.push(std::mem::take(word));
            *has_letter = false;
        }
    };
    while let Some((grapheme, class)) = graphemes.next() {
        let next_class = graphemes.peek().map(|&(_, c)| c);
        let next_is_word = matches!(next_class, Some(Class::WordChar | Class::Digit));
        match class {
            Class::WordChar | Class::Digit => {
                word_has_letter |= class == Class::WordChar;
                word.push_str(grapheme);
            }
            // "don't", "state-of-the-art": a joiner between word characters stays in the word.
            Class::Joiner if !word.is_empty() && word_has_letter && next_is_word => {
                word.push_str(grapheme);
            }
            // "3.14", "1,000": a dot or comma between digits stays in the number.
            Class::NumberJoiner
                if !word.is_empty() && !word_has_letter && next_class == Some(Class::Digit) =>
            {
                word.push_str(grapheme);
            }
            Class::Space | Class::Invisible => {
                flush(&mut word, &mut word_has_letter, &mut tokens);
            }
            Class::Ideograph | Class::Joiner | Class::NumberJoiner | Class::Symbol => {
                flush(&mut word, &mut word_has_letter, &mut tokens);
                tokens.push(grapheme.to_string());
            }
        }
        if tokens.len() > max_tokens {
            return Tokens::TooMany {
                at_least: tokens.len(),
            };
        }
    }
    flush(&mut word, &mut word_has_letter, &mut tokens);
    if tokens.len() > max_tokens {
        return Tokens::TooMany {
            at_least: tokens.len(),
        };
    }
    Tokens::Fit(tokens)
}
