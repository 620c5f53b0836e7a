//! The GPU backend: the same attention as [`attention_core`], on wgpu compute shaders (WebGPU in the
//! browser; Vulkan, Metal or DX12 natively).
//!
//! Depends on the core's types and returns the core's [`attention_core::Trace`], so every view works
//! unchanged. Everything that costs a matrix product or seq_len² runs here; residual, LayerNorm and
//! the replay of FlashAttention's tile steps are the core's (see [`attention_core::trace_from`]).
//!
//! Layout: `context` (adapter, device, error capture), `shader` (what Rust assumes of a WGSL file, and its pipeline and bind group layout),
//! one module per shader (`matmul`, `prepare`, `softmax`, `flash`, `linear`, `gate`, each beside its `.wgsl`), `uniforms`
//! (the `#[repr(C)]` parameter blocks), `buffers` (reused while shapes stay the same) and
//! `backend` (one submission and one readback per computation).

mod backend;
mod buffers;
mod context;
mod error;
mod flash;
mod gate;
mod linear;
mod matmul;
mod model;
mod prepare;
mod shader;
mod softmax;
mod transfer;
mod uniforms;

pub use backend::{GpuBackend, supported};
pub use context::{GpuInfo, is_software};
pub use error::{GpuError, unsupported};
pub use model::ForwardError;
pub use shader::{Binding, Shader};
pub use uniforms::ParamsLayout;
pub use uniforms::{gate_mode, mask_kind};
/// What kind of device an adapter is (as wgpu tells it), for [`is_software`].
pub use wgpu::DeviceType;

/// Every shader, with what the Rust side assumes about it (checked by `tests/gpu.rs` with naga).
pub const SHADERS: [Shader; 6] = [
    matmul::SHADER,
    prepare::SHADER,
    softmax::SHADER,
    flash::SHADER,
    linear::SHADER,
    gate::SHADER,
];

/// linear.wgsl's kinds of linear attention (`KIND_*`), for the reflection test.
pub const LINEAR_KINDS: [(&str, u32); 3] = linear::kind::ALL;
