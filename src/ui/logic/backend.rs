//! Which backend computes: the rule that picks the CPU or the GPU for a request, given the GPU's
//! state, and the reason when the CPU computes although the GPU was asked for. Pure, so the rule
//! is checked as a table natively (`tests/ui_logic/backend_choice.rs`).

use crate::ui::i18n::Lang;
use attention_core::Config;
use attention_core::api::{BackendChoice, Request};
use attention_gpu::{GpuError, GpuInfo};

/// "auto" uses the GPU from this many query tokens up (and only a hardware GPU): below, one
/// submission and read-back (0.5 ms at best, 5–15 ms typical in browsers) costs more than the
/// whole CPU computation, which takes under 1 ms at 64 tokens and about 4 ms at 128 here. Not a
/// measured crossover: natively on an H200 a full trace at 512 tokens took as long as on 16 CPU
/// threads (benches/README.md), and no browser with a hardware GPU has been measured.
pub const AUTO_GPU_MIN_TOKENS: usize = 512;

/// Why the CPU computes although the GPU was asked for (or "auto" chose the CPU).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FallbackReason {
    /// The session is still looking for an adapter.
    Probing,
    NoWebGpu,
    NoAdapter,
    DeviceRequestFailed,
    DeviceLost,
    ShaderError,
    TooLarge,
    ReadbackFailed,
    /// The GPU job queue had no device to run on.
    NotReady,
    /// The GPU backend does not compute this (in the page: the lab's own small models).
    Unsupported,
    /// A folder's model computed on the page's thread (its worker is not running, or kept none
    /// of its files): only its worker computes a model's attention on the GPU.
    ModelOnPage,
    /// "auto": the only adapter is a software rasteriser, slower than the CPU.
    SoftwareAdapter,
    /// "auto": too few tokens for a round trip to the GPU to pay off.
    SmallInput,
}

impl FallbackReason {
    pub const ALL: [Self; 13] = [
        Self::Probing,
        Self::NoWebGpu,
        Self::NoAdapter,
        Self::DeviceRequestFailed,
        Self::DeviceLost,
        Self::ShaderError,
        Self::TooLarge,
        Self::ReadbackFailed,
        Self::NotReady,
        Self::Unsupported,
        Self::ModelOnPage,
        Self::SoftwareAdapter,
        Self::SmallInput,
    ];

    /// The reason a GPU failure gives.
    pub fn of(error: &GpuError) -> Self {
        match error {
            GpuError::NoWebGpu => Self::NoWebGpu,
            GpuError::NoAdapter(_) => Self::NoAdapter,
            GpuError::RequestDevice(_) => Self::DeviceRequestFailed,
            GpuError::DeviceLost(_) => Self::DeviceLost,
            GpuError::Shader(_) => Self::ShaderError,
            GpuError::TooLarge { .. } => Self::TooLarge,
            GpuError::Readback(_) => Self::ReadbackFailed,
            GpuError::Unsupported(_) => Self::Unsupported,
        }
    }

    /// A stable name, for `state().fallback_reason`.
    pub fn code(self) -> &'static str {
        match self {
            Self::Probing => "probing",
            Self::NoWebGpu => "no-webgpu",
            Self::NoAdapter => "no-adapter",
            Self::DeviceRequestFailed => "device-request-failed",
            Self::DeviceLost => "device-lost",
            Self::ShaderError => "shader-error",
            Self::TooLarge => "too-large",
            Self::ReadbackFailed => "readback-failed",
            Self::NotReady => "not-ready",
            Self::Unsupported => "unsupported",
            Self::ModelOnPage => "model-on-page",
            Self::SoftwareAdapter => "software-adapter",
            Self::SmallInput => "small-input",
        }
    }

    /// Whether trying the GPU again can help (not where the browser has no WebGPU at all).
    pub fn can_retry(self) -> bool {
        !matches!(self, Self::NoWebGpu)
    }
}

/// A reason with its details for people (a driver's message, an adapter's name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    pub reason: FallbackReason,
    pub detail: String,
}

impl Fallback {
    pub fn new(reason: FallbackReason, detail: impl Into<String>) -> Self {
        Self {
            reason,
            detail: detail.into(),
        }
    }

    pub fn of(error: &GpuError) -> Self {
        Self::new(FallbackReason::of(error), error.detail())
    }

    /// The fallback a GPU failure's code and detail name (as the model worker sends them:
    /// `GpuError::code`, `GpuError::detail`); an unknown code reads as a failed shader.
    pub fn named(code: &str, detail: impl Into<String>) -> Self {
        let reason = FallbackReason::ALL
            .into_iter()
            .find(|reason| reason.code() == code)
            .unwrap_or(FallbackReason::ShaderError);
        Self::new(reason, detail)
    }

    /// Why the CPU computes, in words.
    pub fn message(&self, lang: Lang) -> String {
        let texts = &lang.text().fallback;
        let with_detail = |text: &str| {
            if self.detail.is_empty() {
                text.to_string()
            } else {
                format!("{text} ({})", self.detail)
            }
        };
        match self.reason {
            FallbackReason::Probing => texts.probing.into(),
            FallbackReason::NoWebGpu => texts.no_webgpu.into(),
            FallbackReason::NoAdapter => with_detail(texts.no_adapter),
            FallbackReason::DeviceRequestFailed => with_detail(texts.device_request_failed),
            FallbackReason::DeviceLost => with_detail(texts.device_lost),
            FallbackReason::ShaderError => with_detail(texts.shader_error),
            FallbackReason::TooLarge => with_detail(texts.too_large),
            FallbackReason::ReadbackFailed => with_detail(texts.readback_failed),
            FallbackReason::NotReady => with_detail(texts.not_ready),
            FallbackReason::Unsupported if self.detail.is_empty() => texts.unsupported.into(),
            FallbackReason::Unsupported => (texts.unsupported_what)(&self.detail),
            FallbackReason::ModelOnPage => texts.model_on_page.into(),
            FallbackReason::SoftwareAdapter => (texts.software_adapter)(&self.detail),
            FallbackReason::SmallInput => (texts.small_input)(AUTO_GPU_MIN_TOKENS),
        }
    }
}

/// The state of the GPU in this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuStatus {
    /// Looking for an adapter and opening a device.
    Probing,
    Ready(GpuInfo),
    /// No usable GPU, and why.
    Unavailable(Fallback),
    /// The device was lost during the session; the user may retry.
    Lost(String),
}

impl GpuStatus {
    /// The status after a GPU failure.
    pub fn failed(error: &GpuError) -> Self {
        match error {
            GpuError::DeviceLost(message) => Self::Lost(message.clone()),
            other => Self::Unavailable(Fallback::of(other)),
        }
    }

    /// Why this GPU cannot compute now, if it cannot.
    pub fn unusable(&self) -> Option<Fallback> {
        match self {
            Self::Probing => Some(Fallback::new(FallbackReason::Probing, "")),
            Self::Unavailable(fallback) => Some(fallback.clone()),
            Self::Lost(message) => Some(Fallback::new(FallbackReason::DeviceLost, message.clone())),
            Self::Ready(_) => None,
        }
    }

    /// Whether "Retry the GPU" can help.
    pub fn can_retry(&self) -> bool {
        match self {
            Self::Lost(_) => true,
            Self::Unavailable(fallback) => fallback.reason.can_retry(),
            Self::Probing | Self::Ready(_) => false,
        }
    }

    /// A stable name, for `state().gpu`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Probing => "probing",
            Self::Ready(_) => "ready",
            Self::Unavailable(_) => "unavailable",
            Self::Lost(_) => "lost",
        }
    }
}

/// The backend that computes the current request (the CPU with the reason, when the GPU was asked for or "auto" chose the CPU).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChosenBackend {
    Cpu(Option<Fallback>),
    Gpu,
}

/// Traced attention cells (heads × queries × keys) from which the CPU computes after the page
/// has painted, as a job that newer changes replace (see `state::cpu_jobs`): 256 tokens with 4
/// heads, where computing and redrawing in the same task as the keystroke took 25 ms or more
/// (`tests/e2e/typing_bench.mjs`), so a typed character no longer waits for it.
pub const LATER_CELLS: usize = 1 << 18;

/// Whether the CPU computes a trace of `heads` × `tokens` × `keys` cells later, after a paint,
/// rather than at once.
pub fn computes_later(heads: usize, tokens: usize, keys: usize) -> bool {
    heads.saturating_mul(tokens).saturating_mul(keys) >= LATER_CELLS
}

/// Chooses the backend for `choice`, given the GPU's state and the number of query tokens.
pub fn choose(choice: BackendChoice, status: &GpuStatus, tokens: usize) -> ChosenBackend {
    match (choice, status) {
        (BackendChoice::Cpu, _) => ChosenBackend::Cpu(None),
        (BackendChoice::Gpu, status) => match status.unusable() {
            Some(fallback) => ChosenBackend::Cpu(Some(fallback)),
            None => ChosenBackend::Gpu,
        },
        (BackendChoice::Auto, GpuStatus::Ready(info)) if info.software => ChosenBackend::Cpu(Some(
            Fallback::new(FallbackReason::SoftwareAdapter, info.name.clone()),
        )),
        (BackendChoice::Auto, GpuStatus::Ready(_)) if tokens < AUTO_GPU_MIN_TOKENS => {
            ChosenBackend::Cpu(Some(Fallback::new(FallbackReason::SmallInput, "")))
        }
        (BackendChoice::Auto, GpuStatus::Ready(_)) => ChosenBackend::Gpu,
        (BackendChoice::Auto, status) => ChosenBackend::Cpu(status.unusable()),
    }
}

/// The request's choice of backend.
pub fn choice(request: &Request) -> BackendChoice {
    request.backend.unwrap_or_default()
}

/// Where a trained model's forward pass on view was computed, as far as the GPU goes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ModelPass {
    /// On the page: the lab's own (small) models.
    #[default]
    Page,
    /// A folder's model on the page: its worker could not start, or kept none of its files.
    PageFolder,
    /// In a folder's model's worker, the GPU not asked for.
    Worker,
    /// In a folder's model's worker, each layer's attention asked of the worker's GPU; why it
    /// computed a layer on the CPU instead, when it failed.
    WorkerGpu(Option<Fallback>),
}

/// Why the layer on view of a trained model's pass (its attention's `config`, computed on the
/// GPU when `on_gpu`) was not computed on the GPU the request chose; `None` when it was, or
/// when the GPU was not chosen.
pub fn model_fallback(
    choice: BackendChoice,
    pass: &ModelPass,
    layer: &Config,
    on_gpu: bool,
) -> Option<Fallback> {
    if choice != BackendChoice::Gpu || on_gpu {
        return None;
    }
    Some(match pass {
        ModelPass::Page => Fallback::new(FallbackReason::Unsupported, ""),
        ModelPass::PageFolder => Fallback::new(FallbackReason::ModelOnPage, ""),
        // The pass on view was computed before the GPU was chosen: the worker opens its GPU.
        ModelPass::Worker => Fallback::new(FallbackReason::Probing, ""),
        // What the shaders do not compute (a linear layer) first; else why the GPU failed, or
        // (a layer computed here although it asked for none) that it was not ready.
        ModelPass::WorkerGpu(failed) => match (attention_gpu::supported(layer), failed) {
            (Err(error), _) => Fallback::of(&error),
            (Ok(()), Some(failed)) => failed.clone(),
            (Ok(()), None) => Fallback::new(FallbackReason::NotReady, ""),
        },
    })
}
