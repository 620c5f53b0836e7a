//! Runs softmax.wgsl: the masked softmax of every row of scores, one workgroup per row and head.

use super::shader::{Binding, Pipeline, Shader};
use super::uniforms::SoftmaxParams;

/// Threads per row: `WORKGROUP` in softmax.wgsl.
pub const WORKGROUP: u32 = 64;

pub const SHADER: Shader = Shader {
    name: "softmax.wgsl",
    // mask.wgsl and score.wgsl, then softmax.wgsl (WGSL has no includes).
    source: concat!(
        include_str!("mask.wgsl"),
        include_str!("score.wgsl"),
        include_str!("softmax.wgsl")
    ),
    workgroup_size: [WORKGROUP, 1, 1],
    bindings: &[
        ("p", Binding::Params),
        ("scores", Binding::Write),
        ("weights", Binding::Write),
        ("custom", Binding::Read),
        ("heads", Binding::Read),
    ],
    params: SoftmaxParams::LAYOUT,
};

pub fn kernel(device: &wgpu::Device) -> Pipeline {
    Pipeline::new(device, &SHADER)
}

/// One workgroup per row of `rows`, per head.
pub fn workgroups(rows: usize, heads: usize) -> [u32; 3] {
    [rows as u32, heads as u32, 1]
}
