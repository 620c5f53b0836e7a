//! Runs softmax.wgsl: the masked softmax of every row of scores, one workgroup per row and head.

use super::kernel::{Binding, Kernel};

/// mask.wgsl, then softmax.wgsl (WGSL has no includes).
pub const SOURCE: &str = concat!(include_str!("mask.wgsl"), include_str!("softmax.wgsl"));

pub fn kernel(device: &wgpu::Device) -> Kernel {
    Kernel::new(
        device,
        "softmax",
        SOURCE,
        &[
            Binding::Params,
            Binding::Read,
            Binding::Write,
            Binding::Read,
        ],
    )
}

/// One workgroup per row of `rows`, per head.
pub fn workgroups(rows: usize, heads: usize) -> [u32; 3] {
    [rows as u32, heads as u32, 1]
}
