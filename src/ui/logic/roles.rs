//! What a trained head does on the current input, in words: the role its attention measures
//! highest, when that role takes a clear share of it.

use crate::ui::i18n::Lang;
use attention_core::pipeline::roles::HeadRoles;

/// A head's job, as measured on one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Previous,
    Induction,
    First,
    Same,
}

/// Below this share of its weight, no role is said to dominate.
pub const DOMINANT: f32 = 0.4;

impl Role {
    /// In the order the shares are measured (and the table shows them).
    pub const ALL: [Role; 4] = [Role::Previous, Role::Induction, Role::Same, Role::First];

    pub fn score(self, roles: &HeadRoles) -> f32 {
        match self {
            Self::Previous => roles.previous,
            Self::Induction => roles.induction,
            Self::First => roles.first,
            Self::Same => roles.same,
        }
    }

    /// The role's short name (a column of the roles table).
    pub fn name(self, lang: Lang) -> &'static str {
        let names = lang.text().model.role_names;
        match self {
            Self::Previous => names[0],
            Self::Induction => names[1],
            Self::First => names[2],
            Self::Same => names[3],
        }
    }

    /// "previous-token head: 0.83 of its weight on the character before".
    pub fn describe(self, share: f32, lang: Lang) -> String {
        let model = &lang.text().model;
        match self {
            Self::Previous => (model.role_previous)(share),
            Self::Induction => (model.role_induction)(share),
            Self::First => (model.role_first)(share),
            Self::Same => (model.role_same)(share),
        }
    }
}

/// The role that takes the largest share of a head's weight, if it takes at least [`DOMINANT`].
/// Induction wins a tie with "same" (copying what followed a character also looks at it).
pub fn dominant(roles: &HeadRoles) -> Option<(Role, f32)> {
    Role::ALL
        .into_iter()
        .map(|role| (role, role.score(roles)))
        .filter(|(_, score)| *score >= DOMINANT)
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The head's label: its dominant role in words, or that it has none here.
pub fn label(roles: &HeadRoles, lang: Lang) -> String {
    match dominant(roles) {
        Some((role, share)) => role.describe(share, lang),
        None => lang.text().model.role_mixed.into(),
    }
}
