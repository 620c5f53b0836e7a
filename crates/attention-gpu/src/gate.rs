//! Runs gate.wgsl: the output gate σ(x·W_g) on the softmax heads' outputs, before W_O (linear
//! attention applies it in linear.wgsl), and a projection's bias on each row of its product.

use super::shader::{Binding, Pipeline, Shader};
use super::uniforms::{GateParams, gate_mode};

/// Threads per workgroup: `WORKGROUP` in gate.wgsl.
pub const WORKGROUP: u32 = 64;

/// Workgroups per row of the dispatch (WebGPU allows 65 535 a dimension).
const ROW_GROUPS: u32 = 1024;

pub const SHADER: Shader = Shader {
    name: "gate.wgsl",
    source: include_str!("gate.wgsl"),
    workgroup_size: [WORKGROUP, 1, 1],
    bindings: &[
        ("p", Binding::Params),
        ("gate", Binding::Read),
        ("y", Binding::Write),
    ],
    params: GateParams::LAYOUT,
};

pub fn kernel(device: &wgpu::Device) -> Pipeline {
    Pipeline::new(device, &SHADER)
}

/// The output gate's parameters for `len` numbers.
pub fn params(len: usize) -> GateParams {
    GateParams {
        len: len as u32,
        row: ROW_GROUPS * WORKGROUP,
        cols: 1,
        mode: gate_mode::GATE,
    }
}

/// A bias of `cols` numbers added to each of `rows` rows.
pub fn bias(rows: usize, cols: usize) -> GateParams {
    GateParams {
        len: (rows * cols) as u32,
        row: ROW_GROUPS * WORKGROUP,
        cols: cols.max(1) as u32,
        mode: gate_mode::BIAS,
    }
}

/// Rows of [`ROW_GROUPS`] workgroups, as many as `len` numbers need.
pub fn workgroups(len: usize) -> [u32; 3] {
    let groups = (len as u32).div_ceil(WORKGROUP);
    [
        groups.min(ROW_GROUPS),
        groups.div_ceil(ROW_GROUPS).max(1),
        1,
    ]
}
