//! What the controls offer and how their positions map to parameters: pure rules, tested
//! natively. The components in `views::controls` only draw them.

use super::colormap::ScaleMode;
use crate::ui::i18n::Lang;
use attention_core::api::{
    BackendChoice, LayerNormRequest, MaskRequest, ModelChoice, PairingRequest, PositionRequest,
};
use attention_core::pipeline::overview::Reduction;

/// Log-scale temperature slider from T = 0.05 to 10: each position is one of [`temperature_steps`].
pub const T_MIN: f64 = 0.05;
pub const T_MAX: f64 = 10.0;

/// The temperatures the slider stops at: 1000 log-spaced points from [`T_MIN`] to [`T_MAX`],
/// each rounded to three significant figures (0.0513, 0.99, 3.41: numbers people write, never
/// 3.4000000000000004), duplicates removed. Every position is a different temperature, so an
/// arrow key always moves the value (with two figures, 0.1 and its neighbours rounded to the
/// same number and the slider stuck).
pub fn temperature_steps() -> &'static [f64] {
    static STEPS: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    STEPS.get_or_init(|| {
        let mut steps: Vec<f64> = Vec::with_capacity(1001);
        for position in 0..=1000 {
            let t = T_MIN * (T_MAX / T_MIN).powf(f64::from(position) / 1000.0);
            // Through its decimal text: the double nearest to three significant figures.
            let nice: f64 = format!("{t:.2e}").parse().unwrap_or(t);
            if steps.last() != Some(&nice) {
                steps.push(nice);
            }
        }
        steps
    })
}

/// The slider's last position.
pub fn temperature_slider_max() -> f64 {
    (temperature_steps().len() - 1) as f64
}

/// The position whose temperature is nearest `t` (on the log scale).
pub fn temperature_to_slider(t: f64) -> f64 {
    let t = t.clamp(T_MIN, T_MAX);
    let steps = temperature_steps();
    let at = steps.partition_point(|&s| s < t);
    let nearest = match (at.checked_sub(1), steps.get(at)) {
        (Some(below), Some(&above)) => {
            if (t / steps[below]).ln() <= (above / t).ln() {
                below
            } else {
                at
            }
        }
        (Some(below), None) => below,
        (None, _) => 0,
    };
    nearest as f64
}

/// The temperature at a slider position (clamped to the ends).
pub fn slider_to_temperature(position: f64) -> f64 {
    let steps = temperature_steps();
    let i = if position.is_finite() {
        (position.round().max(0.0) as usize).min(steps.len() - 1)
    } else {
        0
    };
    steps[i]
}

/// The divisors of `n`: the K/V head counts that share `n` query heads evenly.
pub fn divisors(n: usize) -> Vec<usize> {
    (1..=n).filter(|&d| n.is_multiple_of(d)).collect()
}

/// The number of K/V heads to keep when the heads become `n_heads`: the old count if it still
/// divides, else the largest divisor below it.
pub fn kv_heads_for(n_heads: usize, n_kv_heads: usize) -> usize {
    divisors(n_heads)
        .into_iter()
        .filter(|&d| d <= n_kv_heads)
        .max()
        .unwrap_or(1)
}

/// The K/V heads that sharing starts from for `n_heads` heads: the largest count below the heads
/// that divides them (2 of 4, 4 of 8, 1 of 3: multi-query), or none when there is one head.
pub fn shared_kv_heads(n_heads: usize) -> Option<usize> {
    divisors(n_heads).into_iter().filter(|&d| d < n_heads).max()
}

/// A value a row of toggle buttons chooses among.
pub trait Choice: Copy + PartialEq + Send + Sync + 'static {
    /// Every value, in the order the buttons show them.
    fn all() -> Vec<Self>;
    /// The button's text.
    fn label(self, lang: Lang) -> &'static str;
    /// A stable name for `data-value` (and tests).
    fn name(self) -> &'static str;
}

/// The kinds of mask, as the mask control offers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MaskKind {
    None,
    Causal,
    Padding,
    Window,
    Sliding,
    Custom,
}

impl MaskKind {
    pub fn of(mask: Option<&MaskRequest>) -> Self {
        match mask {
            None | Some(MaskRequest::None) => Self::None,
            Some(MaskRequest::Causal) => Self::Causal,
            Some(MaskRequest::Padding { .. }) => Self::Padding,
            Some(MaskRequest::Window { .. }) => Self::Window,
            Some(MaskRequest::Sliding { .. }) => Self::Sliding,
            Some(MaskRequest::Custom { .. }) => Self::Custom,
        }
    }

    /// The name and the one-line explanation.
    fn texts(self, lang: Lang) -> (&'static str, &'static str) {
        let masks = &lang.text().masks;
        match self {
            Self::None => masks.none,
            Self::Causal => masks.causal,
            Self::Padding => masks.padding,
            Self::Window => masks.window,
            Self::Sliding => masks.sliding,
            Self::Custom => masks.custom,
        }
    }

    pub fn help(self, lang: Lang) -> &'static str {
        self.texts(lang).1
    }
}

impl Choice for MaskKind {
    fn all() -> Vec<Self> {
        vec![
            Self::None,
            Self::Causal,
            Self::Padding,
            Self::Window,
            Self::Sliding,
            Self::Custom,
        ]
    }

    fn label(self, lang: Lang) -> &'static str {
        self.texts(lang).0
    }

    fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Causal => "causal",
            Self::Padding => "padding",
            Self::Window => "window",
            Self::Sliding => "sliding",
            Self::Custom => "custom",
        }
    }
}

impl Choice for LayerNormRequest {
    fn all() -> Vec<Self> {
        vec![Self::None, Self::Pre, Self::Post]
    }

    fn label(self, lang: Lang) -> &'static str {
        let names = lang.text().layer_norm_names;
        match self {
            Self::None => names[0],
            Self::Pre => names[1],
            Self::Post => names[2],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Pre => "pre",
            Self::Post => "post",
        }
    }
}

impl Choice for BackendChoice {
    fn all() -> Vec<Self> {
        vec![Self::Auto, Self::Gpu, Self::Cpu]
    }

    fn label(self, lang: Lang) -> &'static str {
        let names = lang.text().backend_names;
        match self {
            Self::Auto => names[0],
            Self::Gpu => names[1],
            Self::Cpu => names[2],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Gpu => "gpu",
            Self::Cpu => "cpu",
        }
    }
}

/// The kind of attention a head count and a K/V head count make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvSharing {
    /// One K/V head per query head.
    MultiHead,
    /// Groups of query heads share a K/V head.
    GroupedQuery,
    /// All query heads share one K/V head.
    MultiQuery,
}

impl KvSharing {
    pub fn of(n_heads: usize, n_kv_heads: usize) -> Self {
        if n_kv_heads >= n_heads {
            Self::MultiHead
        } else if n_kv_heads == 1 {
            Self::MultiQuery
        } else {
            Self::GroupedQuery
        }
    }

    pub fn label(self, lang: Lang) -> &'static str {
        let kinds = lang.text().kv_kind;
        match self {
            Self::MultiHead => kinds[0],
            Self::GroupedQuery => kinds[1],
            Self::MultiQuery => kinds[2],
        }
    }
}

impl Choice for ScaleMode {
    fn all() -> Vec<Self> {
        vec![Self::Honest, Self::Contrast]
    }

    fn label(self, lang: Lang) -> &'static str {
        let names = lang.text().scales.names;
        match self {
            Self::Honest => names[0],
            Self::Contrast => names[1],
        }
    }

    fn name(self) -> &'static str {
        ScaleMode::name(self)
    }
}

impl Choice for Reduction {
    fn all() -> Vec<Self> {
        vec![Self::Max, Self::Mean]
    }

    fn label(self, lang: Lang) -> &'static str {
        let names = lang.text().overview.reductions;
        match self {
            Self::Max => names[0],
            Self::Mean => names[1],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Max => "max",
            Self::Mean => "mean",
        }
    }
}

/// The models the Model control offers: random weights, the three shipped models, and a folder
/// the user opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelPick {
    Random,
    Trained,
    Llama,
    LlamaGated,
    Hybrid,
    Own,
}

impl ModelPick {
    /// The pick a request's model shows as.
    pub fn of(choice: Option<&ModelChoice>) -> Self {
        match choice {
            None | Some(ModelChoice::Random) => Self::Random,
            Some(ModelChoice::Trained) => Self::Trained,
            Some(ModelChoice::Llama) => Self::Llama,
            Some(ModelChoice::LlamaGated) => Self::LlamaGated,
            Some(ModelChoice::Hybrid) => Self::Hybrid,
            Some(ModelChoice::Folder(_)) => Self::Own,
        }
    }

    /// The request's model for this pick (`None` for a folder, which is named when opened).
    pub fn choice(self) -> Option<ModelChoice> {
        match self {
            Self::Random => Some(ModelChoice::Random),
            Self::Trained => Some(ModelChoice::Trained),
            Self::Llama => Some(ModelChoice::Llama),
            Self::LlamaGated => Some(ModelChoice::LlamaGated),
            Self::Hybrid => Some(ModelChoice::Hybrid),
            Self::Own => None,
        }
    }
}

impl Choice for ModelPick {
    fn all() -> Vec<Self> {
        vec![
            Self::Random,
            Self::Trained,
            Self::Llama,
            Self::LlamaGated,
            Self::Hybrid,
            Self::Own,
        ]
    }

    fn label(self, lang: Lang) -> &'static str {
        let names = lang.text().model.names;
        match self {
            Self::Random => names[0],
            Self::Trained => names[1],
            Self::Llama => names[2],
            Self::LlamaGated => names[3],
            Self::Hybrid => names[4],
            Self::Own => names[5],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Random => "random",
            Self::Trained => "trained",
            Self::Llama => "llama",
            Self::LlamaGated => "llama-gated",
            Self::Hybrid => "hybrid",
            Self::Own => "own",
        }
    }
}

/// The kinds of position, as the Positions control offers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PositionKind {
    Absolute,
    None,
    Rope,
    Alibi,
}

impl PositionKind {
    pub fn of(position: Option<&PositionRequest>) -> Self {
        match position {
            None | Some(PositionRequest::Absolute { .. }) => Self::Absolute,
            Some(PositionRequest::None { .. }) => Self::None,
            Some(PositionRequest::Rope { .. }) => Self::Rope,
            Some(PositionRequest::Alibi { .. }) => Self::Alibi,
        }
    }

    fn index(self) -> usize {
        match self {
            Self::Absolute => 0,
            Self::None => 1,
            Self::Rope => 2,
            Self::Alibi => 3,
        }
    }

    pub fn help(self, lang: Lang) -> &'static str {
        lang.text().shaping.kinds[self.index()].1
    }

    /// The request for this kind, keeping `offset` and, for RoPE, the base and pairing of
    /// `previous` when it was RoPE already.
    pub fn request(self, offset: usize, previous: Option<&PositionRequest>) -> PositionRequest {
        match self {
            Self::Absolute => PositionRequest::Absolute { offset },
            Self::None => PositionRequest::None { offset },
            Self::Alibi => PositionRequest::Alibi { offset },
            Self::Rope => match previous {
                Some(&PositionRequest::Rope { base, pairing, .. }) => PositionRequest::Rope {
                    base,
                    pairing,
                    offset,
                },
                _ => PositionRequest::Rope {
                    base: 10_000.0,
                    pairing: PairingRequest::Half,
                    offset,
                },
            },
        }
    }
}

/// The offset of a position request (0 without one).
pub fn position_offset(position: Option<&PositionRequest>) -> usize {
    match position {
        None => 0,
        Some(
            PositionRequest::Absolute { offset }
            | PositionRequest::None { offset }
            | PositionRequest::Rope { offset, .. }
            | PositionRequest::Alibi { offset },
        ) => *offset,
    }
}

/// `position` with its offset set to `offset` (absolute positions when there was none).
pub fn with_offset(position: Option<&PositionRequest>, offset: usize) -> PositionRequest {
    PositionKind::of(position).request(offset, position)
}

impl Choice for PositionKind {
    fn all() -> Vec<Self> {
        vec![Self::Absolute, Self::None, Self::Rope, Self::Alibi]
    }

    fn label(self, lang: Lang) -> &'static str {
        lang.text().shaping.kinds[self.index()].0
    }

    fn name(self) -> &'static str {
        match self {
            Self::Absolute => "absolute",
            Self::None => "none",
            Self::Rope => "rope",
            Self::Alibi => "alibi",
        }
    }
}

impl Choice for PairingRequest {
    fn all() -> Vec<Self> {
        vec![Self::Half, Self::Interleaved]
    }

    fn label(self, lang: Lang) -> &'static str {
        let pairings = &lang.text().shaping.pairings;
        match self {
            Self::Half => pairings[0].0,
            Self::Interleaved => pairings[1].0,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Half => "half",
            Self::Interleaved => "interleaved",
        }
    }
}
