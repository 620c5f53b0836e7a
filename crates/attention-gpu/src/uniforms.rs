//! The parameter blocks of the shaders, laid out as their WGSL structs: 4-byte scalars in
//! declaration order, padded to a multiple of 16 bytes (the uniform address space's rule). Each
//! block's `LAYOUT` (field names and offsets, by `offset_of!`) is compared with the WGSL struct by
//! a naga reflection test, and so are the mask kinds below with mask.wgsl's constants.

use bytemuck::{Pod, Zeroable};

/// A `#[repr(C)]` parameter block as Rust lays it out.
#[derive(Debug, Clone, Copy)]
pub struct ParamsLayout {
    pub wgsl_name: &'static str,
    pub size: usize,
    pub fields: &'static [(&'static str, usize)],
}

/// The layout of a `#[repr(C)]` struct, its padding fields left out.
macro_rules! layout {
    ($ty:ident as $wgsl:literal: $($field:ident),* $(,)?) => {
        impl $ty {
            pub const LAYOUT: ParamsLayout = ParamsLayout {
                wgsl_name: $wgsl,
                size: std::mem::size_of::<$ty>(),
                fields: &[$((stringify!($field), std::mem::offset_of!($ty, $field))),*],
            };
        }
    };
}

/// The mask kinds as the shaders number them (`MASK_*` in mask.wgsl).
pub mod mask_kind {
    pub const NONE: u32 = 0;
    pub const CAUSAL: u32 = 1;
    pub const PADDING: u32 = 2;
    pub const WINDOW: u32 = 3;
    pub const CUSTOM: u32 = 4;
    pub const SLIDING: u32 = 5;
    /// Each with the name of its WGSL constant.
    pub const ALL: [(&str, u32); 6] = [
        ("MASK_NONE", NONE),
        ("MASK_CAUSAL", CAUSAL),
        ("MASK_PADDING", PADDING),
        ("MASK_WINDOW", WINDOW),
        ("MASK_CUSTOM", CUSTOM),
        ("MASK_SLIDING", SLIDING),
    ];
}

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

layout!(MatmulParams as "MatmulParams": m, n, k, b_transposed, a_offset, a_stride, a_batch,
    a_group, b_offset, b_stride, b_batch, b_group, c_offset, c_stride, c_batch, c_group, alpha);

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
    /// 1 when each score gets its bias, cap and ÷T in the shader (score.wgsl).
    pub shaped: u32,
    /// The soft-cap c, 0 for none.
    pub cap: f32,
    pub inv_t: f32,
    pub _pad: [u32; 3],
}

layout!(SoftmaxParams as "SoftmaxParams": rows, cols, row_offset, mask_kind, valid_len, radius,
    shaped, cap, inv_t);

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
    /// What q·k is multiplied by: 1/(√d_k·T), or 1/√d_k when `shaped`.
    pub scale: f32,
    pub shaped: u32,
    pub cap: f32,
    pub inv_t: f32,
    pub _pad: u32,
}

layout!(FlashParams as "FlashParams": seq_len, key_len, d_k, d_v, q_stride, k_stride, v_stride,
    o_stride, group, block_rows, block_cols, mask_kind, valid_len, radius, scale, shaped, cap,
    inv_t);

/// `PrepareParams` of prepare.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct PrepareParams {
    pub rows: u32,
    pub heads: u32,
    pub d_k: u32,
    pub qk_norm: u32,
    pub rope: u32,
    pub interleaved: u32,
    /// How many of a head's first dimensions RoPE turns (d_k, or fewer for a partial rotation).
    pub rotated: u32,
    /// QK-norm's ε (10⁻⁶, or a trained model's).
    pub epsilon: f32,
}

layout!(PrepareParams as "PrepareParams": rows, heads, d_k, qk_norm, rope, interleaved, rotated, epsilon);

/// `GateParams` of gate.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GateParams {
    pub len: u32,
    pub row: u32,
    /// The row length of the bias added (`mode` [`gate_mode::BIAS`]).
    pub cols: u32,
    /// What is applied: [`gate_mode::GATE`] or [`gate_mode::BIAS`].
    pub mode: u32,
}

layout!(GateParams as "GateParams": len, row, cols, mode);

/// What gate.wgsl applies to y, element by element (`MODE_*` there).
pub mod gate_mode {
    /// y · σ(g): the output gate.
    pub const GATE: u32 = 0;
    /// y + g[i mod cols]: a projection's bias on every row.
    pub const BIAS: u32 = 1;
    /// Each with the name of its WGSL constant.
    pub const ALL: [(&str, u32); 2] = [("MODE_GATE", GATE), ("MODE_BIAS", BIAS)];
}

/// `LinearParams` of linear.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct LinearParams {
    pub seq_len: u32,
    pub heads: u32,
    pub group: u32,
    pub d_k: u32,
    pub d_v: u32,
    pub chunk: u32,
    pub kind: u32,
    pub gated: u32,
    pub q_stride: u32,
    pub k_stride: u32,
    pub v_stride: u32,
    pub o_stride: u32,
    pub work_stride: u32,
    pub _pad: [u32; 3],
}

layout!(LinearParams as "LinearParams": seq_len, heads, group, d_k, d_v, chunk, kind, gated, q_stride, k_stride, v_stride, o_stride, work_stride);

/// The mask as the shaders encode it: (kind, valid_len, radius); `CUSTOM` reads the custom cells;
/// `SLIDING` carries its sink tokens in `valid_len`.
pub fn mask_code(spec: &attention_core::MaskSpec) -> (u32, u32, u32) {
    use attention_core::MaskSpec;
    match spec {
        MaskSpec::None => (mask_kind::NONE, 0, 0),
        MaskSpec::Causal => (mask_kind::CAUSAL, 0, 0),
        MaskSpec::Padding { valid_len } => (mask_kind::PADDING, *valid_len as u32, 0),
        MaskSpec::Window { radius } => (
            mask_kind::WINDOW,
            0,
            (*radius).min(u32::MAX as usize) as u32,
        ),
        MaskSpec::Sliding {
            radius,
            sink_tokens,
        } => (
            mask_kind::SLIDING,
            (*sink_tokens).min(u32::MAX as usize) as u32,
            (*radius).min(u32::MAX as usize) as u32,
        ),
        MaskSpec::Custom { .. } => (mask_kind::CUSTOM, 0, 0),
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
