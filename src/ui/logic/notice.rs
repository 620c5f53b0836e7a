//! Messages the page shows until the next change, stored as values and put into words when
//! shown: switching the language translates the notices already on screen.

use attention_core::api::RequestError;

use crate::ui::i18n::Lang;

/// A refusal or a note about something the page did for the user.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// The K/V heads were changed to this count so that they divide the heads.
    KvHeadsAdjusted(usize),
    /// `attentionLab.set` or a host's message was refused; nothing changed.
    Refused(ApiError),
}

impl Notice {
    pub fn message(&self, lang: Lang) -> String {
        match self {
            Self::KvHeadsAdjusted(n) => (lang.text().kv_adjusted)(*n),
            Self::Refused(error) => error.message(lang),
        }
    }
}

/// Why a message from a script (`attentionLab.set`, `postMessage`) was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The parameters, each named as in the CLI's request, are refused by the engine.
    Request(RequestError),
    /// A view setting (`head`, `lang`, `theme`, …) with a value it cannot take.
    BadView(&'static str),
    /// The message's `params` is not an object.
    NotAnObject,
}

impl ApiError {
    pub fn message(&self, lang: Lang) -> String {
        let errors = &lang.text().errors;
        match self {
            Self::Request(error) => lang.request_error(error),
            // A chapter that does not exist: every chapter's id, as the CLI lists them.
            Self::BadView("lesson") => {
                let ids: Vec<&str> = attention_core::teaching::Chapter::ALL
                    .iter()
                    .map(|c| c.id())
                    .collect();
                (errors.bad_lesson)(&ids.join(", "))
            }
            Self::BadView(name) => (errors.bad_view_value)(name),
            Self::NotAnObject => errors.not_an_object.into(),
        }
    }
}
