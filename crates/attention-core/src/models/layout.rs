//! The layouts a trained model may have, and what each means for the shared forward pass: where
//! positions enter, which norm, whether keys can be cached before their rotation.

/// The layouts a trained model may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// GPT-2 (Radford et al., 2019): learned positions added to X, LayerNorm, GELU, biases, one
    /// K/V head per head.
    Gpt2,
    /// Llama (Touvron et al., 2023): RoPE on q and k, RMSNorm, SwiGLU, grouped-query attention,
    /// no biases.
    Llama,
    /// Qwen3-Next (2025): Llama's family with three layers of linear attention (Gated
    /// DeltaNet) for each layer of gated full attention, RoPE on part of each head.
    Hybrid,
}

impl Layout {
    pub const ALL: [Layout; 3] = [Layout::Gpt2, Layout::Llama, Layout::Hybrid];

    /// The name a request gives its model: `"trained"` (GPT-2, the lab's first model),
    /// `"llama"` or `"hybrid"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Gpt2 => "trained",
            Self::Llama => "llama",
            Self::Hybrid => "hybrid",
        }
    }

    /// Its `model_type` in `config.json`, as Hugging Face names it.
    pub const fn model_type(self) -> &'static str {
        match self {
            Self::Gpt2 => "gpt2",
            Self::Llama => "llama",
            Self::Hybrid => "qwen3_next",
        }
    }

    /// The layout a `config.json`'s `model_type` names (GPT-2 when it names none, as the lab's
    /// first model's config did).
    pub fn from_model_type(model_type: Option<&str>) -> Option<Self> {
        match model_type {
            None => Some(Self::Gpt2),
            Some(name) => Self::ALL.into_iter().find(|l| l.model_type() == name),
        }
    }

    /// The folder of `assets/` (and of the built site) its shipped files are in.
    pub fn folder(self) -> &'static str {
        match self {
            Self::Hybrid => "hybrid",
            _ => self.model_type(),
        }
    }

    /// Whether positions are learned vectors added to the token embeddings (GPT-2), rather than
    /// a rotation of each head's q and k inside attention (Llama's RoPE).
    pub fn adds_positions(self) -> bool {
        self == Self::Gpt2
    }

    /// Whether its norms are RMSNorm (no centring, no β) rather than LayerNorm.
    pub fn rms_norm(self) -> bool {
        self != Self::Gpt2
    }

    /// Whether a key can be cached before its position is applied, and turned later by its slot
    /// in a rolling cache (StreamingLLM): true of RoPE, not of positions added to X, which are in
    /// every K and V. (A hybrid's linear layers keep no keys at all: [`crate::models::stream`]
    /// refuses it for that.)
    pub fn streams(self) -> bool {
        self != Self::Gpt2
    }
}

/// The models the lab trained and ships (`assets/<folder>`): a layout, and for Llama's twin an
/// output gate on every head.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shipped {
    /// The small GPT-2 (`"trained"`, or `"gpt2"`).
    Gpt2,
    /// The Llama-layout model (`"llama"`).
    Llama,
    /// Its twin with a sigmoid gate on each head's output, trained on the same text (`"llama-gated"`): the
    /// pair shows what the gate does to attention sinks.
    LlamaGated,
    /// The hybrid in Qwen3-Next's layout (`"hybrid"`).
    Hybrid,
}

impl Shipped {
    pub const ALL: [Shipped; 4] = [
        Shipped::Gpt2,
        Shipped::Llama,
        Shipped::LlamaGated,
        Shipped::Hybrid,
    ];

    /// The name a request gives it: `"trained"`, `"llama"`, `"llama-gated"` or `"hybrid"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::LlamaGated => "llama-gated",
            _ => self.layout().name(),
        }
    }

    pub fn layout(self) -> Layout {
        match self {
            Self::Gpt2 => Layout::Gpt2,
            Self::Llama | Self::LlamaGated => Layout::Llama,
            Self::Hybrid => Layout::Hybrid,
        }
    }

    /// Whether each head's output passes a sigmoid gate (the hybrid's full layers, and Llama's
    /// gated twin).
    pub fn output_gate(self) -> bool {
        matches!(self, Self::LlamaGated | Self::Hybrid)
    }

    /// The folder of `assets/` (and of the built site) its files are in.
    pub fn folder(self) -> &'static str {
        match self {
            Self::LlamaGated => "llama-gated",
            _ => self.layout().folder(),
        }
    }

    /// The shipped model a model's configuration describes (by its layout and its gate).
    pub fn of(layout: Layout, output_gate: bool) -> Self {
        match layout {
            Layout::Gpt2 => Self::Gpt2,
            Layout::Llama if output_gate => Self::LlamaGated,
            Layout::Llama => Self::Llama,
            Layout::Hybrid => Self::Hybrid,
        }
    }
}
