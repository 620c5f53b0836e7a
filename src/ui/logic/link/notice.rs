//! What in a link could not be used, and why a shared link may not bring back what the page
//! shows: each in words, in the reader's language.

use crate::ui::i18n::Lang;
use attention_core::api::RequestError;

/// Something in a link that was not used, and why.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkNotice {
    /// A name the lab does not know (shortened).
    Unknown(String),
    /// A known name with a value that is not what it should be (both shortened).
    Malformed { name: String, value: String },
    /// A text too long for a link.
    TooLong { name: String, length: usize },
    /// An object of a kind that needs a parameter the link does not give (a custom mask
    /// without its cells): the parameter, the field and the kind.
    Missing {
        name: String,
        field: String,
        kind: String,
    },
    /// An embed panel the lab does not have.
    UnknownPanel(String),
    /// A value that cannot work with the rest (`name` as the link names it, the value as text):
    /// left out, everything else kept.
    Dropped {
        name: String,
        value: String,
        reason: RequestError,
    },
    /// The values are each fine but impossible together: the lab's defaults were used.
    Impossible(RequestError),
    /// A head (from 1) past the lab's heads: the first head is shown.
    NoSuchHead { value: usize, heads: usize },
    /// A layer (from 1) past the trained model's layers, or any layer but the first with random
    /// weights (a single block): the first layer is shown.
    NoSuchLayer { value: usize, layers: usize },
    /// A `view` that names no part of the page (shortened).
    UnknownView(String),
}

impl LinkNotice {
    /// The notice in words.
    pub fn describe(&self, lang: Lang) -> String {
        let texts = &lang.text().link;
        match self {
            Self::Unknown(name) => (texts.unknown)(name),
            Self::Malformed { name, value } => (texts.malformed)(name, value),
            Self::TooLong { name, length } => (texts.too_long)(name, *length),
            Self::Missing { name, field, kind } => (texts.missing)(name, field, kind),
            Self::UnknownPanel(name) => (texts.unknown_panel)(name),
            Self::Dropped {
                name,
                value,
                reason,
            } => (texts.dropped)(
                name,
                value,
                lang.request_error(reason).trim_end_matches(['.', '。']),
            ),
            // The reason goes inside brackets, mid-sentence: without its own full stop.
            Self::Impossible(error) => {
                (texts.impossible)(lang.request_error(error).trim_end_matches(['.', '。']))
            }
            Self::NoSuchHead { value, heads } => (texts.no_such_head)(*value, *heads),
            Self::NoSuchLayer { value, layers } => (texts.no_such_layer)(*value, *layers),
            Self::UnknownView(name) => (texts.unknown_view)(name),
        }
    }
}

/// Why a shared link may not bring back what the page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareWarning {
    /// The request holds numbers no link carries (the request's field names): one's own X,
    /// tokens or weights given through `set()`.
    Tensors(Vec<&'static str>),
    /// The link is this many bytes long, past [`LONG_LINK`].
    Long(usize),
}

impl ShareWarning {
    pub fn describe(&self, lang: Lang) -> String {
        let texts = &lang.text().link;
        match self {
            Self::Tensors(names) => (texts.tensors)(&names.join(", ")),
            Self::Long(bytes) => (texts.long_link)(bytes.div_ceil(1024)),
        }
    }
}
