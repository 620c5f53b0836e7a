//! The sections of the page (the steps of the pipeline and the FlashAttention player), the
//! panels an embed can show, and which panels embed each section.

use super::stages::Stage;
use crate::ui::i18n::Lang;

/// A section of the page: a step heading with its views. Its id is its name in links
/// (`view=`) and its `data-view` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    /// The trained model: every layer and head at a glance, with their roles.
    Model,
    /// The trained model: what it predicts next.
    Next,
    /// The trained model generating step by step with its KV cache.
    Generate,
    /// The Llama model reading past its context through a rolling cache, with attention sinks.
    Stream,
    Tokens,
    Qkv,
    Scores,
    Softmax,
    Values,
    AllHeads,
    Combine,
    Flash,
}

impl Section {
    pub const ALL: [Section; 12] = [
        Self::Model,
        Self::Next,
        Self::Generate,
        Self::Stream,
        Self::Tokens,
        Self::Qkv,
        Self::Scores,
        Self::Softmax,
        Self::Values,
        Self::AllHeads,
        Self::Combine,
        Self::Flash,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Next => "next",
            Self::Generate => "generate",
            Self::Stream => "stream",
            Self::Tokens => "tokens",
            Self::Qkv => "qkv",
            Self::Scores => "scores",
            Self::Softmax => "softmax",
            Self::Values => "values",
            Self::AllHeads => "all-heads",
            Self::Combine => "combine",
            Self::Flash => "flash",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.id() == id)
    }

    /// The sections on the page, top to bottom: the trained model's own first when it is in
    /// use (what a presentation steps through with ← and →). Linear heads have no scores, no
    /// softmax and no tiles to replay: those sections are not on the page then.
    pub fn on_page(trained: bool, linear: bool) -> Vec<Self> {
        let own = [Self::Next, Self::Generate, Self::Stream, Self::Model];
        let softmax_only = [Self::Scores, Self::Softmax, Self::Flash];
        let pipeline = Self::ALL
            .into_iter()
            .filter(|s| !(own.contains(s) || linear && softmax_only.contains(s)));
        if trained {
            own.into_iter().chain(pipeline).collect()
        } else {
            pipeline.collect()
        }
    }

    /// The section `step` places after (`step` = 1) or before (−1) this one on the page, if any.
    pub fn beside(self, trained: bool, linear: bool, step: isize) -> Option<Self> {
        let sections = Self::on_page(trained, linear);
        let at = sections.iter().position(|&s| s == self)?;
        sections.get(at.checked_add_signed(step)?).copied()
    }

    /// The stages whose heatmaps the section shows, in order.
    pub fn stages(self) -> &'static [Stage] {
        match self {
            Self::Tokens => &[
                Stage::Embeddings,
                Stage::Positions,
                Stage::X,
                Stage::NormedX,
            ],
            Self::Qkv => &[Stage::Q, Stage::K, Stage::V],
            Self::Scores => &[Stage::Dot, Stage::Scaled, Stage::Masked],
            Self::Softmax => &[Stage::Weights],
            Self::Values => &[Stage::HeadOutput],
            Self::Model
            | Self::Next
            | Self::Generate
            | Self::Stream
            | Self::AllHeads
            | Self::Flash => &[],
            Self::Combine => &[Stage::Concat, Stage::Projected, Stage::Output],
        }
    }

    /// The embed panels that show this section.
    pub fn panels(self) -> Vec<&'static str> {
        match self {
            Self::Softmax => vec!["weights", "head-view"],
            Self::AllHeads => vec!["all-heads"],
            Self::Flash => vec!["flash"],
            Self::Model => vec!["model-view", "head-roles", "circuit"],
            Self::Next => vec!["next-token"],
            Self::Generate => vec!["generate"],
            Self::Stream => vec!["stream"],
            _ => self.stages().iter().map(|s| s.id()).collect(),
        }
    }

    /// The step's number on the page, counted down the pipeline from 1 (the trained model's own
    /// sections have none), among the sections the page shows (`linear`: its heads are linear).
    pub fn number(self, linear: bool) -> Option<usize> {
        Self::on_page(false, linear)
            .iter()
            .position(|&s| s == self)
            .map(|at| at + 1)
    }

    pub fn title(self, lang: Lang) -> &'static str {
        let t = lang.text();
        match self {
            Self::Model => t.model.overview_title,
            Self::Next => t.model.next_title,
            Self::Generate => t.model.generate.title,
            Self::Stream => t.model.stream.title,
            Self::Tokens => t.steps.tokens,
            Self::Qkv => t.steps.qkv,
            Self::Scores => t.steps.scores,
            Self::Softmax => t.steps.softmax,
            Self::Values => t.steps.values,
            Self::AllHeads => t.all_heads,
            Self::Combine => t.steps.combine,
            Self::Flash => t.flash.title,
        }
    }
}

/// The panels an embed can show besides the stages: the head view, the small multiples of all
/// heads, the FlashAttention player, the sentence box and the controls, and the trained model's
/// own views.
pub const EXTRA_PANELS: [&str; 11] = [
    "head-view",
    "all-heads",
    "flash",
    "sentence",
    "controls",
    "model-view",
    "head-roles",
    "circuit",
    "next-token",
    "generate",
    "stream",
];

/// What an embed shows when its link names no panels.
pub const DEFAULT_PANELS: [&str; 2] = ["weights", "head-view"];

/// The panels an embedded chapter shows beside itself (its views it has of its own): what a
/// chapter's Embed button names, so that its reader can change what the chapter asks them to.
pub const CHAPTER_PANELS: [&str; 2] = ["sentence", "controls"];

/// Whether `name` is a panel an embed can show.
pub fn is_panel(name: &str) -> bool {
    Stage::from_id(name).is_some() || EXTRA_PANELS.contains(&name)
}
