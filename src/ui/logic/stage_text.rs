//! What a stage says about itself: its title, its formula with the trace's dimensions, and the
//! caption under its heatmap, in the reader's language (a trained model's layer and one's own X
//! have captions of their own).

use super::stages::Stage;
use crate::ui::i18n::{Lang, StageText};
use attention_core::{LayerNormMode, Trace};

impl Stage {
    /// Its title, formula and caption.
    pub fn text(self, lang: Lang) -> &'static StageText {
        let stages = &lang.text().stages;
        match self {
            Self::Embeddings => &stages.embeddings,
            Self::Positions => &stages.positions,
            Self::X => &stages.x,
            Self::NormedX => &stages.normed_x,
            Self::Q => &stages.q,
            Self::K => &stages.k,
            Self::V => &stages.v,
            Self::Dot => &stages.dot,
            Self::Scaled => &stages.scaled,
            Self::Masked => &stages.masked,
            Self::Weights => &stages.weights,
            Self::HeadOutput => &stages.head_output,
            Self::Concat => &stages.concat,
            Self::Projected => &stages.projected,
            Self::Output => &stages.output,
        }
    }

    /// Its title for this trace: a layer normed by RMSNorm says so.
    pub fn title(self, trace: Option<&Trace>, lang: Lang) -> &'static str {
        if self == Self::NormedX && trace.is_some_and(|t| t.config.norm().rms) {
            return "RMSNorm(X)";
        }
        if self == Self::Weights && trace.is_some_and(|t| t.config.linear().is_some()) {
            return lang.text().linear.weights_stage[0];
        }
        self.text(lang).title
    }

    /// Its caption for this trace: a trained model's layer explains its learned embeddings,
    /// its residual stream and its learned LayerNorm.
    pub fn caption(self, trace: &Trace, lang: Lang) -> String {
        // Linear heads (a seeded request's, or a hybrid's linear layer): A is not a softmax.
        if trace.config.linear().is_some() {
            let linear = &lang.text().linear;
            match self {
                Self::Weights => return linear.weights_stage[2].into(),
                Self::HeadOutput => return linear.output_caption.into(),
                _ => {}
            }
        }
        let Some(layer) = trace.config.model_layer() else {
            let config = &trace.config;
            if self == Self::X && config.target().parts.is_none() {
                return lang.text().own_x_caption.into();
            }
            if self == Self::X && config.target().first_position.is_none() {
                return lang.text().x_without_positions.into();
            }
            if self == Self::Positions && config.target().first_position.is_none() {
                use attention_core::math::scoring::Position;
                let texts = lang.text().no_positions;
                return match config.shaping().position {
                    Position::Rope { .. } => texts[1],
                    Position::Alibi => texts[2],
                    Position::None | Position::Absolute => texts[0],
                }
                .into();
            }
            if self == Self::Weights && config.shaping().sink_logits.is_some() {
                return lang.text().weights_with_sink.into();
            }
            // Heads side by side narrower or wider than d_model (d_model not a multiple of the
            // heads, or d_k chosen apart from it): said where it shows.
            let d = config.dims();
            let width = d.n_heads * d.d_v;
            if matches!(self, Self::Concat | Self::Projected) && width != d.d_model {
                let uneven =
                    (!d.d_model.is_multiple_of(d.n_heads)).then_some(d.d_model / d.n_heads);
                return format!(
                    "{} {}",
                    self.text(lang).caption,
                    (lang.text().uneven_heads)(width, d.d_model, d.n_heads, uneven)
                );
            }
            return self.text(lang).caption.into();
        };
        let model = &lang.text().model;
        // The Llama model: RMSNorm, and RoPE instead of a position vector.
        let llama = trace.config.norm().rms;
        match self {
            Self::Embeddings => model.embeddings.into(),
            Self::Positions if llama => model.llama_positions.into(),
            Self::Positions => model.positions.into(),
            Self::X if layer == 0 && llama => model.llama_x_first.into(),
            Self::X if layer == 0 => model.x_first.into(),
            Self::X => (model.x_later)(layer + 1),
            Self::NormedX if llama => model.llama_normed_x.into(),
            Self::NormedX => model.normed_x.into(),
            Self::Output => model.output.into(),
            _ => self.text(lang).caption.into(),
        }
    }

    /// Its formula as the current settings compute it: Q comes from LN(X) under Pre-LN, K and V
    /// from the source S in cross-attention, the block output follows the LayerNorm chosen, and
    /// the scaled scores say what they are divided by now.
    pub fn formula(self, trace: &Trace, lang: Lang) -> String {
        let config = &trace.config;
        let pre_ln = config.layer_norm() == LayerNormMode::Pre;
        let cross = config.source().is_some();
        let trained = config.model_layer().is_some();
        let rms = config.norm().rms;
        let input = match (pre_ln, trained) {
            (true, true) if rms => "RMSNorm(X)",
            (true, true) => "LN₁(X)",
            (true, false) => "LN(X)",
            (false, _) => "X",
        };
        let keys_from = if cross { "S" } else { input };
        // A trained model's projections have biases.
        let bias = |name: &str| {
            if config.weights().biases.is_some() {
                format!(" + b_{name}")
            } else {
                String::new()
            }
        };
        let dims = config.dims();
        match self {
            Self::Q => format!("Q = {input} W_Q{}", bias("Q")),
            Self::K => format!("K = {keys_from} W_K{}", bias("K")),
            Self::V => format!("V = {keys_from} W_V{}", bias("V")),
            Self::Projected => format!("concat · W_O{}", bias("O")),
            Self::Embeddings if trained => "E = wte[token]".into(),
            Self::Positions if trained && rms => "P = 0".into(),
            Self::Positions if trained => "P = wpe[position]".into(),
            Self::X if trained && config.model_layer() != Some(0) => {
                lang.text().model.residual_formula.into()
            }
            // A layout without position vectors (the caption says RoPE turns q and k instead).
            Self::X if trained && rms => "X = E".into(),
            Self::X if !trained && config.target().parts.is_none() => {
                lang.text().own_x_formula.into()
            }
            Self::Positions if !trained && config.target().first_position.is_none() => {
                "P = 0".into()
            }
            Self::X if !trained && config.target().first_position.is_none() => "X = E".into(),
            Self::Positions if !trained && config.shaping().offset > 0 => format!(
                "P[pos, 2i] = sin((pos + {}) / 10000^(2i/d)), …",
                config.shaping().offset
            ),
            Self::NormedX if trained && rms => "γ ⊙ x / √(mean(x²) + ε)".into(),
            Self::NormedX if trained => "γ ⊙ (x − μ) / √(σ² + ε) + β".into(),
            Self::Output if trained && rms => "x + Attn(RMSNorm(x))".into(),
            Self::Output if trained => "x + Attn(LN₁(x))".into(),
            // The score options, in the order they apply (see `attention_core::math::scoring`).
            Self::Dot if config.shaping().prepares() => {
                let what = match (config.shaping().qk_norm, config.shaping().position) {
                    (true, attention_core::math::scoring::Position::Rope { .. }) => "QK-norm, RoPE",
                    (true, _) => "QK-norm",
                    (false, _) => "RoPE",
                };
                format!("QKᵀ, Q and K after {what}")
            }
            Self::Scaled if !config.shaping().is_plain() => {
                let shaping = config.shaping();
                let mut z = format!("QKᵀ / √{}", dims.d_k);
                if shaping.position == attention_core::math::scoring::Position::Alibi {
                    z = format!("({z} − m·|i − j|)");
                }
                if let Some(c) = shaping.softcap {
                    let c = super::format::plain(c);
                    z = format!("{c}·tanh({z} / {c})");
                }
                format!(
                    "{z} / T, T = {}",
                    super::format::plain(config.temperature())
                )
            }
            Self::Scaled => format!(
                "QKᵀ / (√d_k · T), {} √{} · {} = {}",
                lang.text().divided_by,
                dims.d_k,
                super::format::plain(config.temperature()),
                super::format::plain(1.0 / config.scale())
            ),
            Self::Weights if config.linear().is_some() => {
                lang.text().linear.weights_stage[1].into()
            }
            // A · V for linear heads, then the output gate where there is one.
            Self::HeadOutput => {
                let mix = if config.linear().is_some() {
                    "A · V"
                } else {
                    self.text(lang).formula
                };
                match config.output_gate() {
                    None => mix.into(),
                    Some(attention_core::math::linear::OutputGate::Sigmoid(_)) => {
                        format!("({mix}) ⊙ σ(x · W_g)")
                    }
                    Some(attention_core::math::linear::OutputGate::NormSilu { .. }) => {
                        format!("γ ⊙ ({mix}) / rms ⊙ SiLU(x · W_z)")
                    }
                }
            }
            Self::Output => match config.layer_norm() {
                LayerNormMode::Pre if config.post_norm().is_some() => "x + Norm(MHA(LN(x)))".into(),
                LayerNormMode::Pre => "x + MHA(LN(x))".into(),
                LayerNormMode::Post | LayerNormMode::None => "LN(x + MHA(x))".into(),
            },
            _ => self.text(lang).formula.into(),
        }
    }
}
