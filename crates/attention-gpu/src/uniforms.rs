//! The parameter blocks of the shaders, laid out exactly as their WGSL structs: 4-byte scalars
//! in declaration order, padded to a multiple of 16 bytes (the uniform address space's rule).

use bytemuck::{Pod, Zeroable};

/// Every dispatch's parameters live in one uniform buffer, each block at a multiple of this
/// (WebGPU's `minUniformBufferOffsetAlignment` is at most 256).
pub const SLOT: u64 = 256;

/// `MatmulParams` of matmul.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct MatmulParams {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub b_transposed: u32,
    pub a_offset: u32,
    pub a_stride: u32,
    pub a_batch: u32,
    pub a_group: u32,
    pub b_offset: u32,
    pub b_stride: u32,
    pub b_batch: u32,
    pub b_group: u32,
    pub c_offset: u32,
    pub c_stride: u32,
    pub c_batch: u32,
    pub c_group: u32,
    pub alpha: f32,
    pub _pad: [u32; 3],
}

/// `SoftmaxParams` of softmax.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct SoftmaxParams {
    pub rows: u32,
    pub cols: u32,
    pub row_offset: u32,
    pub mask_kind: u32,
    pub valid_len: u32,
    pub radius: u32,
    pub _pad: [u32; 2],
}

/// `FlashParams` of flash.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct FlashParams {
    pub seq_len: u32,
    pub key_len: u32,
    pub d_k: u32,
    pub d_v: u32,
    pub q_stride: u32,
    pub k_stride: u32,
    pub v_stride: u32,
    pub o_stride: u32,
    pub group: u32,
    pub block_rows: u32,
    pub block_cols: u32,
    pub mask_kind: u32,
    pub valid_len: u32,
    pub radius: u32,
    pub scale: f32,
    pub _pad: u32,
}

/// The mask as the shaders encode it: (kind, valid_len, radius); kind 4 reads the custom cells.
pub fn mask_code(spec: &attention_core::MaskSpec) -> (u32, u32, u32) {
    use attention_core::MaskSpec;
    match spec {
        MaskSpec::None => (0, 0, 0),
        MaskSpec::Causal => (1, 0, 0),
        MaskSpec::Padding { valid_len } => (2, *valid_len as u32, 0),
        MaskSpec::Window { radius } => (3, 0, (*radius).min(u32::MAX as usize) as u32),
        MaskSpec::Custom { .. } => (4, 0, 0),
    }
}

/// Parameter blocks collected for one submission, each in its own aligned slot.
#[derive(Default)]
pub struct Slots {
    bytes: Vec<u8>,
}

impl Slots {
    /// Adds a block; returns its dynamic offset.
    pub fn push<T: Pod>(&mut self, block: &T) -> u32 {
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(bytemuck::bytes_of(block));
        self.bytes.resize(offset + SLOT as usize, 0);
        offset as u32
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}
