//! The shipped models' text: one token per character, after the normalisation they were trained
//! with.

use std::collections::HashMap;

/// The token for characters outside the vocabulary.
pub const UNK: &str = "<unk>";

/// The text normalisation the model was trained with.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut newlines = 0;
    let mut space = false;
    for c in text.chars() {
        // Full-width letters and digits (Ａ, ０) as ASCII.
        let c = if ('\u{ff10}'..='\u{ff5a}').contains(&c) && c.is_alphanumeric() {
            char::from_u32(c as u32 - 0xfee0).unwrap_or(c)
        } else {
            c
        };
        match c {
            ' ' | '\t' | '\u{3000}' => space = true,
            _ => {
                if space {
                    out.push(' ');
                    space = false;
                }
                if c == '\n' {
                    newlines += 1;
                    if newlines > 2 {
                        continue;
                    }
                } else {
                    newlines = 0;
                }
                out.push(c);
            }
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// Each one-character token's id (longer tokens, such as [`UNK`], are never read from text).
pub(crate) fn char_index(vocab: &[String]) -> HashMap<char, u32> {
    vocab
        .iter()
        .enumerate()
        .filter_map(|(id, token)| {
            let mut chars = token.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Some((c, id as u32)),
                _ => None,
            }
        })
        .collect()
}
