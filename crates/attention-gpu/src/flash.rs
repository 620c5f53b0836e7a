//! Runs flash.wgsl: fused FlashAttention, 64 queries of one head per workgroup.

use super::shader::{Binding, Pipeline, Shader};
use super::uniforms::FlashParams;

/// Queries per workgroup, one per thread: `QUERIES_PER_WORKGROUP` in flash.wgsl.
pub const QUERIES_PER_WORKGROUP: u32 = 64;

pub const SHADER: Shader = Shader {
    name: "flash.wgsl",
    // mask.wgsl and score.wgsl, then flash.wgsl (WGSL has no includes).
    source: concat!(
        include_str!("mask.wgsl"),
        include_str!("score.wgsl"),
        include_str!("flash.wgsl")
    ),
    workgroup_size: [QUERIES_PER_WORKGROUP, 1, 1],
    bindings: &[
        ("p", Binding::Params),
        ("q", Binding::Read),
        ("k", Binding::Read),
        ("v", Binding::Read),
        ("o", Binding::Write),
        ("custom", Binding::Read),
        ("heads", Binding::Read),
    ],
    params: FlashParams::LAYOUT,
};

pub fn kernel(device: &wgpu::Device) -> Pipeline {
    Pipeline::new(device, &SHADER)
}

pub fn workgroups(seq_len: usize, heads: usize) -> [u32; 3] {
    [
        (seq_len as u32).div_ceil(QUERIES_PER_WORKGROUP),
        heads as u32,
        1,
    ]
}
