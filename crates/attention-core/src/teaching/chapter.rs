//! The chapters, in the order a learner reads them, and their ids in links, `set({lesson})` and
//! the CLI.

/// The chapters, in the order a learner reads them. The id is the chapter's name in links
/// (`?lesson=<id>`), in `set({lesson})` and in the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chapter {
    Tokens,
    Qkv,
    Scaling,
    Softmax,
    Masks,
    Positions,
    Windows,
    Multihead,
    Gqa,
    Cross,
    Layernorm,
    Stability,
    Taming,
    Complexity,
    Flash,
    KvCache,
    Streaming,
    Circuits,
    Variants,
    DeltaRule,
    Hybrids,
    Exercises,
}

impl Chapter {
    pub const ALL: [Chapter; 22] = [
        Self::Tokens,
        Self::Qkv,
        Self::Scaling,
        Self::Softmax,
        Self::Masks,
        Self::Positions,
        Self::Windows,
        Self::Multihead,
        Self::Gqa,
        Self::Cross,
        Self::Layernorm,
        Self::Stability,
        Self::Taming,
        Self::Complexity,
        Self::Flash,
        Self::KvCache,
        Self::Streaming,
        Self::Circuits,
        Self::Variants,
        Self::DeltaRule,
        Self::Hybrids,
        Self::Exercises,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Self::Tokens => "tokens",
            Self::Qkv => "qkv",
            Self::Scaling => "scaling",
            Self::Softmax => "softmax",
            Self::Masks => "masks",
            Self::Positions => "positions",
            Self::Windows => "windows",
            Self::Taming => "taming",
            Self::Multihead => "multihead",
            Self::Gqa => "gqa",
            Self::Cross => "cross",
            Self::Layernorm => "layernorm",
            Self::Stability => "stability",
            Self::Complexity => "complexity",
            Self::Flash => "flash",
            Self::KvCache => "kv-cache",
            Self::Streaming => "streaming",
            Self::Circuits => "circuits",
            Self::Variants => "variants",
            Self::DeltaRule => "delta-rule",
            Self::Hybrids => "hybrids",
            Self::Exercises => "exercises",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.id() == id)
    }

    /// Its place in the sequence, from 0.
    pub fn index(self) -> usize {
        Self::ALL.iter().position(|&c| c == self).unwrap_or(0)
    }

    pub fn next(self) -> Option<Self> {
        Self::ALL.get(self.index() + 1).copied()
    }

    pub fn previous(self) -> Option<Self> {
        self.index().checked_sub(1).map(|i| Self::ALL[i])
    }
}
