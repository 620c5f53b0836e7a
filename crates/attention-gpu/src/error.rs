//! Every way the GPU path can fail. Each one makes the caller fall back to the CPU, saying why.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GpuError {
    #[error("this browser offers no WebGPU (navigator.gpu is missing or has no adapter)")]
    NoWebGpu,
    #[error("no GPU adapter was found: {0}")]
    NoAdapter(String),
    #[error("the GPU would not open a device: {0}")]
    RequestDevice(String),
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),
    #[error("a GPU shader or pipeline failed: {0}")]
    Shader(String),
    #[error("this computation needs {needed} bytes in one GPU buffer; this device allows {limit}")]
    TooLarge { needed: u64, limit: u64 },
    #[error("reading the results back from the GPU failed: {0}")]
    Readback(String),
    #[error("the GPU backend does not compute {0} yet; the CPU does")]
    Unsupported(&'static str),
}

/// What the shaders do not compute, as `GpuError::Unsupported` names it (the page translates
/// each).
pub mod unsupported {
    pub const LINEAR_BIASES: &str = "projection biases before linear attention";
    pub const LINEAR_CONV: &str = "a short convolution before linear attention";
    pub const NORMED_GATE: &str = "a normed SiLU output gate";
    pub const GATE_WITHOUT_LINEAR: &str = "the output gate without linear attention";
    pub const ALL: [&str; 4] = [LINEAR_BIASES, LINEAR_CONV, NORMED_GATE, GATE_WITHOUT_LINEAR];
}

impl GpuError {
    /// A stable short name, for the page's `fallback_reason` and for translations.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NoWebGpu => "no-webgpu",
            Self::NoAdapter(_) => "no-adapter",
            Self::RequestDevice(_) => "device-request-failed",
            Self::DeviceLost(_) => "device-lost",
            Self::Shader(_) => "shader-error",
            Self::TooLarge { .. } => "too-large",
            Self::Readback(_) => "readback-failed",
            Self::Unsupported(_) => "unsupported",
        }
    }

    /// What the page says beside the reason ([`GpuError::code`]), which it translates: the
    /// driver's message, the sizes, or what the shaders do not compute (by its technical names).
    pub fn detail(&self) -> String {
        match self {
            Self::NoWebGpu => String::new(),
            Self::NoAdapter(detail)
            | Self::RequestDevice(detail)
            | Self::DeviceLost(detail)
            | Self::Shader(detail)
            | Self::Readback(detail) => detail.clone(),
            Self::TooLarge { .. } => self.to_string(),
            Self::Unsupported(what) => what.to_string(),
        }
    }
}
