//! The lab's state as a link holds it: the request, what the user is looking at, how the lab is
//! embedded, and the file it shows.

use crate::ui::i18n::Lang;
use crate::ui::logic::colormap::ScaleMode;
use crate::ui::logic::theme::Theme;
use attention_core::api::Request;
use attention_core::teaching::Chapter;

/// Texts longer than this are refused in a link: what a browser's address can hold (Chromium
/// takes 2 MB), far more than any sentence the engine accepts (4096 tokens), so a link brings
/// back whatever the page took. The engine's own limit on tokens still applies.
pub const MAX_TEXT: usize = 1_000_000;

/// Links longer than this may be refused by some servers, proxies and chat apps (browsers take
/// far more): the share bar says so.
pub const LONG_LINK: usize = 8 * 1024;

/// What the user is looking at, beside the parameters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ViewSettings {
    /// The selected head, from 0 (links count from 1, as the page does).
    pub head: usize,
    /// `None`: the browser's language decides.
    pub lang: Option<Lang>,
    pub theme: Theme,
    /// The FlashAttention player's position, from 0 (links count from 1, as the page does).
    pub step: usize,
    /// Honest colour scales, or each matrix's own range for contrast.
    pub scale: ScaleMode,
    /// The trained model's layer, from 0 (links count from 1).
    pub layer: usize,
    /// The part of the page in view (a step's id, see `views/pipeline.rs`).
    pub view: Option<String>,
    /// The Learn mode's chapter (`lesson=<id>`); `None`: the full lab.
    pub lesson: Option<Chapter>,
    /// The Generate view's run (`gen`, `gen_t`, `gen_seed`).
    pub generation: GenerationView,
}

/// What the Generate view generated, kept in links: regenerating it gives the same characters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GenerationView {
    /// Characters generated and shown (0: none).
    pub steps: usize,
    /// The sampling temperature (0: the likeliest character each time) and its seed.
    pub temperature: f64,
    pub seed: u64,
}

/// How the lab is embedded in another page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Embed {
    /// The panels to show; empty means the default ones.
    pub panels: Vec<String>,
    /// The only host origin whose messages are obeyed (and that receives the state).
    pub origin: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LinkState {
    pub request: Request,
    pub view: ViewSettings,
    pub embed: Option<Embed>,
    /// A file of one's own attention to show, fetched from where the page allows (a URL,
    /// absolute or relative to the lab).
    pub src: Option<String>,
    /// A Hugging Face model folder to open, fetched from where the page allows (its address,
    /// absolute or relative to the lab): `model_src=`.
    pub model_src: Option<String>,
}
