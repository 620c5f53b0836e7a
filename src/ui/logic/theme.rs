//! The colour theme the page uses.

use crate::ui::i18n::Lang;

/// Light, dark, or whatever the system prefers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Theme {
    #[default]
    Auto,
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::Auto, Theme::Light, Theme::Dark];

    /// The name in links, in `data-theme` and in the JavaScript API.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Light => "light",
            Self::Dark => "dark",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn label(self, lang: Lang) -> &'static str {
        let names = lang.text().theme_names;
        match self {
            Self::Auto => names[0],
            Self::Light => names[1],
            Self::Dark => names[2],
        }
    }

    /// Light or dark: "auto" follows the system (`system_dark`).
    pub fn resolved(self, system_dark: bool) -> Self {
        match self {
            Self::Auto if system_dark => Self::Dark,
            Self::Auto => Self::Light,
            other => other,
        }
    }

    pub fn next(self) -> Self {
        match self {
            Self::Auto => Self::Light,
            Self::Light => Self::Dark,
            Self::Dark => Self::Auto,
        }
    }
}
