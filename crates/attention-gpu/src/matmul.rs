//! Runs matmul.wgsl: C = alpha · A · B (or A · Bᵀ) on strided, batched views.

use super::shader::{Binding, Pipeline, Shader};
use super::uniforms::MatmulParams;

/// The side of the square tiles staged in workgroup memory: `TILE` in matmul.wgsl.
pub const TILE: u32 = 16;

pub const SHADER: Shader = Shader {
    name: "matmul.wgsl",
    source: include_str!("matmul.wgsl"),
    workgroup_size: [TILE, TILE, 1],
    bindings: &[
        ("p", Binding::Params),
        ("a", Binding::Read),
        ("b", Binding::Read),
        ("c", Binding::Write),
    ],
    params: MatmulParams::LAYOUT,
};

pub fn kernel(device: &wgpu::Device) -> Pipeline {
    Pipeline::new(device, &SHADER)
}

/// A matrix inside a buffer: batch z starts at `offset + (z / group) · batch`; rows `stride` apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct View {
    pub offset: u32,
    pub stride: u32,
    pub batch: u32,
    pub group: u32,
}

impl View {
    /// A whole row-major matrix with `cols` columns.
    pub fn plain(cols: usize) -> Self {
        Self {
            offset: 0,
            stride: cols as u32,
            batch: 0,
            group: 1,
        }
    }
}

/// One product: C [m, n] = alpha · A [m, k] · B [k, n] (B stored as [n, k] when `b_transposed`),
/// for `batches` batches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Product {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: View,
    pub b: View,
    pub b_transposed: bool,
    pub c: View,
    pub alpha: f32,
    pub batches: usize,
}

impl Product {
    /// C [rows, cols] = A [rows, inner] · B [inner, cols], all whole row-major matrices.
    pub fn plain(rows: usize, cols: usize, inner: usize) -> Self {
        Self {
            m: rows,
            n: cols,
            k: inner,
            a: View::plain(inner),
            b: View::plain(cols),
            b_transposed: false,
            c: View::plain(cols),
            alpha: 1.0,
            batches: 1,
        }
    }

    pub fn params(&self) -> MatmulParams {
        MatmulParams {
            m: self.m as u32,
            n: self.n as u32,
            k: self.k as u32,
            b_transposed: u32::from(self.b_transposed),
            a_offset: self.a.offset,
            a_stride: self.a.stride,
            a_batch: self.a.batch,
            a_group: self.a.group,
            b_offset: self.b.offset,
            b_stride: self.b.stride,
            b_batch: self.b.batch,
            b_group: self.b.group,
            c_offset: self.c.offset,
            c_stride: self.c.stride,
            c_batch: self.c.batch,
            c_group: self.c.group,
            alpha: self.alpha,
            _pad: [0; 3],
        }
    }

    pub fn workgroups(&self) -> [u32; 3] {
        [
            (self.n as u32).div_ceil(TILE),
            (self.m as u32).div_ceil(TILE),
            self.batches as u32,
        ]
    }
}
