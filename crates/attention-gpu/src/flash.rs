//! Runs flash.wgsl: fused FlashAttention, 64 queries of one head per workgroup.

use super::kernel::{Binding, Kernel};

/// mask.wgsl, then flash.wgsl (WGSL has no includes).
pub const SOURCE: &str = concat!(include_str!("mask.wgsl"), include_str!("flash.wgsl"));
const QUERIES_PER_WORKGROUP: u32 = 64;

pub fn kernel(device: &wgpu::Device) -> Kernel {
    Kernel::new(
        device,
        "flash",
        SOURCE,
        &[
            Binding::Params,
            Binding::Read,
            Binding::Read,
            Binding::Read,
            Binding::Write,
            Binding::Read,
        ],
    )
}

pub fn workgroups(seq_len: usize, heads: usize) -> [u32; 3] {
    [
        (seq_len as u32).div_ceil(QUERIES_PER_WORKGROUP),
        heads as u32,
        1,
    ]
}
