//! How a model turns text into ids: one token per character for the lab's own models, or a
//! Hugging Face model's own `tokenizer.json`, read by Hugging Face's `tokenizers` crate itself (so
//! the ids are exactly the ones Python gives), with its pieces shown readably: byte-level pieces
//! (GPT-2, Llama 3, Qwen: `Ġ` for a space, `Ċ` for a line break, a Chinese character split over
//! bytes) as the text they stand for, SentencePiece's `▁` as a space.
//!
//! The `tokenizers` crate is behind the `hf` feature ([`HfTokenizer`]); a build without it (the
//! page's own module) reaches one through [`TextTokenizer`] (the page's tokenizer module).

use std::collections::HashMap;
use std::sync::Arc;

use crate::models::text::{char_index, normalise};

/// A model's own tokenizer, wherever it runs: natively `tokenizers` itself, in the page the
/// tokenizer module.
pub trait TextTokenizer: Send + Sync + std::fmt::Debug {
    /// `text`'s tokens with the special tokens the tokenizer adds, as (readable piece, id).
    fn encode(&self, text: &str) -> Vec<(String, u32)>;
    /// The text of `ids`, bytes split over tokens joined again; `None` when it cannot decode.
    fn decode(&self, ids: &[u32]) -> Option<String>;
    /// Its vocabulary as readable pieces, index = id.
    fn vocab(&self) -> Vec<String>;
}

/// A tokenizer that knows its vocabulary's pieces and nothing more: the page's model worker's,
/// which is given ids (the page's tokenizer module reads the text) and answers with ids. It reads
/// no text (`encode` gives nothing) and decodes none.
#[derive(Debug, Clone)]
pub struct PiecesOnly(pub Vec<String>);

impl TextTokenizer for PiecesOnly {
    fn encode(&self, _text: &str) -> Vec<(String, u32)> {
        Vec::new()
    }

    fn decode(&self, _ids: &[u32]) -> Option<String> {
        None
    }

    fn vocab(&self) -> Vec<String> {
        self.0.clone()
    }
}

/// A model's tokenizer.
#[derive(Debug, Clone)]
pub enum Tokenizer {
    /// One token per character (the lab's own models): each character's id; id 0 is `<unk>`.
    Chars(HashMap<char, u32>),
    /// A Hugging Face `tokenizer.json`.
    Hf(Arc<dyn TextTokenizer>),
}

impl PartialEq for Tokenizer {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Chars(a), Self::Chars(b)) => a == b,
            (Self::Hf(a), Self::Hf(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Tokenizer {
    /// One token per character of `vocab`.
    pub fn chars(vocab: &[String]) -> Self {
        Self::Chars(char_index(vocab))
    }

    /// `text`'s tokens as (readable piece, id).
    pub fn encode(&self, text: &str) -> Vec<(String, u32)> {
        match self {
            Self::Chars(index) => normalise(text)
                .chars()
                .map(|c| (c.to_string(), index.get(&c).copied().unwrap_or(0)))
                .collect(),
            Self::Hf(hf) => hf.encode(text),
        }
    }

    /// The id of character `c` when it is one token (alone, without special tokens).
    pub fn id_of(&self, c: char) -> Option<u32> {
        match self {
            Self::Chars(index) => index.get(&c).copied(),
            Self::Hf(hf) => {
                let with = hf.encode(&c.to_string());
                let without = hf.encode("");
                // What the tokenizer adds around any text (a BOS) is not the character.
                let own: Vec<u32> = with
                    .iter()
                    .map(|p| p.1)
                    .filter(|id| !without.iter().any(|w| w.1 == *id))
                    .collect();
                (own.len() == 1).then(|| own[0])
            }
        }
    }

    /// The first id generation may choose: 1 for the lab's models (id 0 is `<unk>`, which would
    /// add nothing readable), 0 for a Hugging Face model (as its own `generate` chooses).
    pub fn first_choosable(&self) -> usize {
        match self {
            Self::Chars(_) => 1,
            Self::Hf(_) => 0,
        }
    }

    /// Whether an id stands for a character the model does not know (only the lab's `<unk>`; a
    /// Hugging Face tokenizer reads every text).
    pub fn is_unknown(&self, id: u32) -> bool {
        matches!(self, Self::Chars(_)) && id == 0
    }

    /// The text of `ids`: their pieces joined for the lab's models, the tokenizer's own decoding
    /// for a Hugging Face model (bytes split over tokens joined again).
    pub fn decode(&self, ids: &[u32], vocab: &[String]) -> String {
        match self {
            Self::Hf(hf) => hf.decode(ids).unwrap_or_else(|| pieces(ids, vocab)),
            Self::Chars(_) => pieces(ids, vocab),
        }
    }
}

fn pieces(ids: &[u32], vocab: &[String]) -> String {
    ids.iter()
        .filter_map(|&id| vocab.get(id as usize))
        .map(String::as_str)
        .collect()
}

/// A Hugging Face `tokenizer.json` and how its pieces read.
#[cfg(feature = "hf")]
#[derive(Clone)]
pub struct HfTokenizer {
    inner: tokenizers::Tokenizer,
    /// Whether its pieces are byte-level (GPT-2's alphabet of 256 printable characters).
    byte_level: bool,
}

#[cfg(feature = "hf")]
impl std::fmt::Debug for HfTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HfTokenizer")
            .field("byte_level", &self.byte_level)
            .field("vocab", &self.inner.get_vocab_size(true))
            .finish()
    }
}

#[cfg(feature = "hf")]
impl TextTokenizer for HfTokenizer {
    fn encode(&self, text: &str) -> Vec<(String, u32)> {
        HfTokenizer::encode(self, text)
    }

    fn decode(&self, ids: &[u32]) -> Option<String> {
        self.inner.decode(ids, false).ok()
    }

    fn vocab(&self) -> Vec<String> {
        HfTokenizer::vocab(self)
    }
}

#[cfg(feature = "hf")]
impl HfTokenizer {
    /// The tokenizer in `tokenizer.json`'s text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let byte_level = crate::io::hf_folder::tokenizer_is_byte_level(text)?;
        let inner =
            tokenizers::Tokenizer::from_bytes(text.as_bytes()).map_err(|e| e.to_string())?;
        Ok(Self { inner, byte_level })
    }

    /// Its vocabulary, added tokens included, as readable pieces, index = id (ids it does not
    /// name read `<id N>`).
    pub fn vocab(&self) -> Vec<String> {
        let map = self.inner.get_vocab(true);
        let len = map.values().map(|&id| id as usize + 1).max().unwrap_or(0);
        let mut vocab: Vec<String> = (0..len).map(|id| format!("<id {id}>")).collect();
        for (token, id) in map {
            vocab[id as usize] = self.readable(&token);
        }
        vocab
    }

    /// `text`'s tokens with the special tokens the tokenizer adds (as `tokenizers`' `encode` and
    /// transformers' tokenizer call give them), as (readable piece, id).
    pub fn encode(&self, text: &str) -> Vec<(String, u32)> {
        match self.inner.encode(text, true) {
            Ok(encoding) => encoding
                .get_tokens()
                .iter()
                .zip(encoding.get_ids())
                .map(|(token, &id)| (self.readable(token), id))
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// A piece as the text it stands for ([`readable`]).
    pub fn readable(&self, token: &str) -> String {
        readable(token, self.byte_level)
    }
}

/// A piece as the text it stands for: a byte-level piece's bytes (a byte that is not a whole
/// character alone as `<0xNN>`), SentencePiece's `▁` as a space.
pub fn readable(token: &str, byte_level: bool) -> String {
    if byte_level {
        match token.chars().map(byte_of).collect::<Option<Vec<u8>>>() {
            Some(bytes) => readable_bytes(&bytes),
            None => token.to_string(),
        }
    } else {
        token.replace('\u{2581}', " ")
    }
}

/// The byte a character of GPT-2's byte-level alphabet stands for (`bytes_to_unicode`): the
/// printable bytes as themselves, the other 68 as U+0100 onwards, in order.
fn byte_of(c: char) -> Option<u8> {
    let printable =
        |b: u32| (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b);
    let code = c as u32;
    if code < 256 {
        return printable(code).then_some(code as u8);
    }
    let n = code.checked_sub(256)? as usize;
    (0u32..256)
        .filter(|&b| !printable(b))
        .nth(n)
        .map(|b| b as u8)
}

/// Bytes as text: whole characters as themselves, a byte that starts or ends a character split
/// over tokens (or a control character) as `<0xNN>`.
fn readable_bytes(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        // Control characters (but a line break or a tab) are shown as their byte too.
        for c in chunk.valid().chars() {
            if c.is_control() && c != '\n' && c != '\t' {
                out.push_str(&format!("<0x{:02X}>", c as u32));
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("<0x{b:02X}>"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_level_alphabet_round_trips_every_byte() {
        let printable = |b: u32| {
            (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b)
        };
        let mut extra = 0;
        for b in 0u32..256 {
            let c = if printable(b) {
                char::from_u32(b).unwrap()
            } else {
                extra += 1;
                char::from_u32(255 + extra).unwrap()
            };
            assert_eq!(byte_of(c), Some(b as u8), "{b}");
        }
        assert_eq!(byte_of('Ġ'), Some(b' '));
        assert_eq!(byte_of('Ċ'), Some(b'\n'));
    }

    #[test]
    fn split_characters_read_as_bytes() {
        assert_eq!(readable_bytes("注".as_bytes()), "注");
        assert_eq!(readable_bytes(&[0xA8, 0xE6]), "<0xA8><0xE6>");
        assert_eq!(readable_bytes(&[b'a', 0xE6]), "a<0xE6>");
        assert_eq!(readable_bytes(&[0, b'\n']), "<0x00>\n");
    }
}
