//! Runs prepare.wgsl: QK-norm (with a trained model's gains γ and ε) and RoPE on each head's rows
//! of Q or K, one thread per row and head.

use super::shader::{Binding, Pipeline, Shader};
use super::uniforms::PrepareParams;

/// Rows per workgroup: `WORKGROUP` in prepare.wgsl.
pub const WORKGROUP: u32 = 64;

pub const SHADER: Shader = Shader {
    name: "prepare.wgsl",
    source: include_str!("prepare.wgsl"),
    workgroup_size: [WORKGROUP, 1, 1],
    bindings: &[
        ("p", Binding::Params),
        ("x", Binding::Read),
        ("angles", Binding::Read),
        ("gain", Binding::Read),
        ("y", Binding::Write),
    ],
    params: PrepareParams::LAYOUT,
};

pub fn kernel(device: &wgpu::Device) -> Pipeline {
    Pipeline::new(device, &SHADER)
}

pub fn workgroups(rows: usize, heads: usize) -> [u32; 3] {
    [(rows as u32).div_ceil(WORKGROUP), heads as u32, 1]
}
