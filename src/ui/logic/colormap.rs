//! Colour scales for heatmaps: perceptually ordered and readable with colour-blindness.

use super::colormap_data::{COOLWARM, VIRIDIS};

/// How values map to colours.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// Viridis from `min` (dark purple) to `max` (yellow): weights and other magnitudes.
    Sequential { min: f32, max: f32 },
    /// Coolwarm centred on zero: blue for negative, light grey for 0, red for positive, with
    /// ±`limit` at the ends. For signed values (Q, K, V, scores).
    Diverging { limit: f32 },
    /// Categories: value k is drawn in colour k (for states, not quantities).
    Palette(&'static [[u8; 3]]),
}

impl Scale {
    /// Viridis from 0 to 1: every attention weight on the same scale.
    pub const UNIT: Self = Self::Sequential { min: 0.0, max: 1.0 };

    /// A scale that fits `values`: diverging when any is negative, else sequential from 0.
    /// Non-finite values are ignored.
    pub fn fit(values: impl IntoIterator<Item = f32>) -> Self {
        let (min, max) = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold((0.0f32, 0.0f32), |(lo, hi), v| (lo.min(v), hi.max(v)));
        if min < 0.0 {
            Self::Diverging {
                limit: max.max(-min),
            }
        } else {
            Self::Sequential { min: 0.0, max }
        }
    }

    /// The RGB colour of `value`.
    pub fn color(&self, value: f32) -> [u8; 3] {
        match *self {
            Self::Sequential { min, max } => lookup(&VIRIDIS, normalise(value, min, max)),
            // ±0: every value is 0, which sits in the middle.
            Self::Diverging { limit } if limit <= 0.0 => lookup(&COOLWARM, 0.5),
            Self::Diverging { limit } => lookup(&COOLWARM, normalise(value, -limit, limit)),
            Self::Palette(colors) => colors[(value.max(0.0) as usize).min(colors.len() - 1)],
        }
    }

    /// The values at the two ends of the legend.
    pub fn range(&self) -> (f32, f32) {
        match *self {
            Self::Sequential { min, max } => (min, max),
            Self::Diverging { limit } => (-limit, limit),
            Self::Palette(colors) => (0.0, (colors.len() - 1) as f32),
        }
    }
}

/// Where `value` sits between `low` and `high`, from 0 to 1. A degenerate range (every value
/// the same) still draws each value where it is: at or below `low` is the low end, above it the
/// high end.
fn normalise(value: f32, low: f32, high: f32) -> f32 {
    if high > low {
        (value - low) / (high - low)
    } else if value <= low {
        0.0
    } else {
        1.0
    }
}

/// The colour at `t` ∈ [0, 1] (clamped; NaN reads as 0).
fn lookup(table: &[[u8; 3]; 256], t: f32) -> [u8; 3] {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    // t ≥ 0: adding ½ and truncating rounds as `round` does, without a call to libm's roundf
    // (which wasm has no instruction for), once per cell of every heatmap.
    table[(t * 255.0 + 0.5) as usize]
}

/// Which colour scale the views use: honest scales that keep magnitudes comparable (attention
/// weights on a fixed 0 … 1 scale, the three score stages on one shared scale), or each matrix
/// stretched over its own range for contrast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum ScaleMode {
    #[default]
    Honest,
    Contrast,
}

impl ScaleMode {
    /// The name in links (`scale=`) and in the JavaScript API.
    pub fn name(self) -> &'static str {
        match self {
            Self::Honest => "honest",
            Self::Contrast => "contrast",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [Self::Honest, Self::Contrast]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

/// Viridis at `t` ∈ [0, 1].
pub fn viridis(t: f32) -> [u8; 3] {
    lookup(&VIRIDIS, t)
}
