//! Every sentence the app shows, in English ([`en`]) and Chinese ([`zh`]): one [`Text`] struct,
//! filled once per language, so a string missing in either language is a compile error. Strings
//! with parameters are functions (`fn(usize) -> String`), never templates to `.replace`. Errors
//! of the engine are translated here too, from their typed values, in both languages.
//!
//! Pure: this module depends on nothing of the UI (the UI's enums pick their strings from here,
//! in `ui::logic`), so it is tested natively. The wording is our own; the facts and formulas
//! follow the course's source articles.

pub mod circuits;
mod en;
pub mod import;
pub mod import_roles;
pub mod learn;
mod learn_en;
mod learn_zh;
pub mod linear;
pub mod model_errors;
pub mod own_model;
pub mod shaping;
mod texts;
pub mod twins;
mod zh;

pub use texts::*;

use attention_core::ConfigError;
use attention_core::api::RequestError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Zh];

    pub fn text(self) -> &'static Text {
        match self {
            Self::En => &en::TEXT,
            Self::Zh => &zh::TEXT,
        }
    }

    pub fn other(self) -> Self {
        match self {
            Self::En => Self::Zh,
            Self::Zh => Self::En,
        }
    }

    /// The `lang` attribute value.
    pub fn code(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::Zh => "zh-CN",
        }
    }

    /// The name in links and in the JavaScript API.
    pub fn name(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::Zh => "zh",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|lang| lang.name() == name)
    }

    /// Chinese when a browser's preferred language (`navigator.language`) is Chinese.
    pub fn from_browser_language(language: &str) -> Self {
        if language.to_ascii_lowercase().starts_with("zh") {
            Self::Zh
        } else {
            Self::En
        }
    }

    /// The message for an engine error, naming what to fix.
    pub fn config_error(self, error: &ConfigError) -> String {
        (self.text().errors.config)(error)
    }

    /// The message for a refused request (bad JSON, an input given twice, or an engine error).
    pub fn request_error(self, error: &RequestError) -> String {
        let errors = &self.text().errors;
        match error {
            RequestError::Config(config) => (errors.config)(config),
            RequestError::Json { path, message } => (errors.json)(path, message),
            RequestError::Input { field, .. } => (errors.input_twice)(field),
            RequestError::FixedByModel { field } => (errors.fixed_by_model)(field),
        }
    }

    /// Ends `sentence` the way this language ends a sentence, unless it already is ended, so
    /// that another may follow.
    pub fn end_sentence(self, sentence: &str) -> String {
        let trimmed = sentence.trim_end();
        if trimmed.ends_with(['.', '!', '?', '。', '！', '？']) {
            trimmed.to_string()
        } else {
            let stop = match self {
                Self::En => ".",
                Self::Zh => "。",
            };
            // A closing bracket after a full sentence stays; the stop goes after it.
            format!("{trimmed}{stop}")
        }
    }

    /// Joins sentences as the language does: a space between English ones, none between Chinese.
    pub fn join_sentences(self, sentences: &[String]) -> String {
        let ended: Vec<String> = sentences
            .iter()
            .filter(|s| !s.trim().is_empty())
            .map(|s| self.end_sentence(s))
            .collect();
        match self {
            Self::En => ended.join(" "),
            Self::Zh => ended.concat(),
        }
    }
}

/// Example sentences offered under the sentence box (the same in both languages: they are data).
pub const EXAMPLES: [&str; 5] = [
    "The cat sat on the mat because it was tired.",
    "猫坐在垫子上，因为它累了。",
    "注意力机制让每个词都能看到整句话。",
    "I ❤️ attention: 注意力 is all you need!",
    "The animal didn't cross the street because it was too wide.",
];
