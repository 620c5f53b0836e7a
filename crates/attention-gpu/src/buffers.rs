//! The buffers of one computation, kept and reused while the shape stays the same: a slider
//! move writes inputs into them and reads results back, allocating nothing.

use super::error::GpuError;
use super::uniforms::SLOT;

/// The scores of at most this many cells are held at once when no trace is asked for: longer
/// inputs are computed in chunks of query rows, so no seq_len² buffer is ever needed.
const UNTRACED_SCORE_CELLS: usize = 1 << 22;

/// What decides the buffers' sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub seq_len: usize,
    pub key_len: usize,
    pub d_model: usize,
    pub n_heads: usize,
    pub n_kv_heads: usize,
    pub d_k: usize,
    pub d_v: usize,
    /// Query rows whose scores are computed at once: all of them for a trace.
    pub chunk_rows: usize,
    pub custom_mask: bool,
    pub traced: bool,
    /// Whether q and k go through QK-norm or RoPE first (into `q_scored` and `k_scored`).
    pub prepared: bool,
}

impl Shape {
    pub fn new(
        dims: &attention_core::math::weights::Dims,
        seq_len: usize,
        key_len: usize,
        custom_mask: bool,
        traced: bool,
        prepared: bool,
    ) -> Self {
        let chunk_rows = if traced {
            seq_len
        } else {
            (UNTRACED_SCORE_CELLS / (dims.n_heads * key_len).max(1)).clamp(1, seq_len)
        };
        Self {
            seq_len,
            key_len,
            d_model: dims.d_model,
            n_heads: dims.n_heads,
            n_kv_heads: dims.n_kv_heads,
            d_k: dims.d_k,
            d_v: dims.d_v,
            chunk_rows,
            custom_mask,
            traced,
            prepared,
        }
    }

    pub fn chunks(&self) -> usize {
        self.seq_len.div_ceil(self.chunk_rows)
    }

    /// Parameter blocks of one submission: Q, K, V, their biases, and preparing Q and K; three per
    /// chunk; W_O and its bias, flash, flash W_O and its bias; the output gate's x·W_g and its two
    /// products.
    pub fn slots(&self) -> usize {
        16 + 3 * self.chunks()
    }

    fn score_cells(&self) -> usize {
        self.n_heads * self.chunk_rows * self.key_len
    }
}

/// What is read back, in order, with its length in floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    Q,
    K,
    V,
    Scores,
    Weights,
    Concat,
    Projected,
    FlashConcat,
    FlashProjected,
}

pub struct Buffers {
    pub shape: Shape,
    pub x_q: wgpu::Buffer,
    pub x_kv: wgpu::Buffer,
    pub w_q: wgpu::Buffer,
    pub w_k: wgpu::Buffer,
    pub w_v: wgpu::Buffer,
    pub w_o: wgpu::Buffer,
    pub q: wgpu::Buffer,
    pub k: wgpu::Buffer,
    pub v: wgpu::Buffer,
    pub scores: wgpu::Buffer,
    pub weights: wgpu::Buffer,
    pub concat: wgpu::Buffer,
    pub projected: wgpu::Buffer,
    pub flash_concat: wgpu::Buffer,
    pub flash_projected: wgpu::Buffer,
    pub custom: wgpu::Buffer,
    /// Q and K after QK-norm and RoPE (one float when neither applies).
    pub q_scored: wgpu::Buffer,
    pub k_scored: wgpu::Buffer,
    /// RoPE's (cos, sin) per position and pair.
    pub angles: wgpu::Buffer,
    /// Per head: its ALiBi slope and its sink logit ÷ T.
    pub heads: wgpu::Buffer,
    pub uniforms: wgpu::Buffer,
    pub staging: wgpu::Buffer,
    /// (part, offset in bytes, length in floats) in `staging`.
    pub readback: Vec<(Part, u64, usize)>,
}

const FLOAT: u64 = 4;

impl Buffers {
    /// The floats each part holds.
    fn lengths(shape: &Shape) -> [(Part, usize); 9] {
        let Shape {
            seq_len: n,
            key_len: m,
            d_model,
            n_heads: h,
            n_kv_heads: h_kv,
            d_k,
            d_v,
            ..
        } = *shape;
        [
            (Part::Q, n * h * d_k),
            (Part::K, m * h_kv * d_k),
            (Part::V, m * h_kv * d_v),
            (Part::Scores, shape.score_cells()),
            (Part::Weights, shape.score_cells()),
            (Part::Concat, n * h * d_v),
            (Part::Projected, n * d_model),
            (Part::FlashConcat, n * h * d_v),
            (Part::FlashProjected, n * d_model),
        ]
    }

    /// Refuses shapes that would not fit the device, before allocating anything.
    pub fn check(shape: &Shape, limits: &wgpu::Limits) -> Result<(), GpuError> {
        let largest = Self::lengths(shape)
            .iter()
            .map(|(_, len)| *len as u64 * FLOAT)
            .chain([
                (shape.seq_len * shape.key_len) as u64 * FLOAT,
                (shape.d_model * shape.n_heads * shape.d_k.max(shape.d_v)) as u64 * FLOAT,
            ])
            .max()
            .unwrap_or(0);
        let binding_limit = limits.max_storage_buffer_binding_size;
        if largest > binding_limit {
            return Err(GpuError::TooLarge {
                needed: largest,
                limit: binding_limit,
            });
        }
        let staging: u64 = Self::read_parts(shape)
            .iter()
            .map(|(_, len)| *len as u64 * FLOAT)
            .sum();
        if staging > limits.max_buffer_size {
            return Err(GpuError::TooLarge {
                needed: staging,
                limit: limits.max_buffer_size,
            });
        }
        Ok(())
    }

    /// What a computation of this shape reads back: every intermediate for a trace, the two
    /// outputs otherwise.
    fn read_parts(shape: &Shape) -> Vec<(Part, usize)> {
        Self::lengths(shape)
            .into_iter()
            .filter(|(part, _)| {
                shape.traced || matches!(part, Part::Projected | Part::FlashProjected)
            })
            .collect()
    }

    pub fn new(device: &wgpu::Device, shape: Shape) -> Self {
        let storage = |label: &str, floats: usize| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: floats.max(1) as u64 * FLOAT,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let Shape {
            seq_len: n,
            key_len: m,
            d_model,
            n_heads: h,
            n_kv_heads: h_kv,
            d_k,
            d_v,
            ..
        } = shape;
        let lengths = Self::lengths(&shape);
        let length = |part: Part| {
            lengths
                .iter()
                .find(|(p, _)| *p == part)
                .map_or(0, |(_, len)| *len)
        };
        let mut readback = Vec::new();
        let mut offset = 0u64;
        for (part, len) in Self::read_parts(&shape) {
            readback.push((part, offset, len));
            offset += len as u64 * FLOAT;
        }
        Self {
            shape,
            x_q: storage("x_q", n * d_model),
            x_kv: storage("x_kv", m * d_model),
            w_q: storage("w_q", d_model * h * d_k),
            w_k: storage("w_k", d_model * h_kv * d_k),
            w_v: storage("w_v", d_model * h_kv * d_v),
            w_o: storage("w_o", h * d_v * d_model),
            q: storage("q", length(Part::Q)),
            k: storage("k", length(Part::K)),
            v: storage("v", length(Part::V)),
            scores: storage("scores", length(Part::Scores)),
            weights: storage("weights", length(Part::Weights)),
            concat: storage("concat", length(Part::Concat)),
            projected: storage("projected", length(Part::Projected)),
            flash_concat: storage("flash_concat", length(Part::FlashConcat)),
            flash_projected: storage("flash_projected", length(Part::FlashProjected)),
            custom: storage("custom_mask", if shape.custom_mask { n * m } else { 1 }),
            q_scored: storage("q_scored", if shape.prepared { n * h * d_k } else { 1 }),
            k_scored: storage("k_scored", if shape.prepared { m * h_kv * d_k } else { 1 }),
            angles: storage("angles", if shape.prepared { n.max(m) * d_k } else { 1 }),
            heads: storage("heads", 2 * h),
            uniforms: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("params"),
                size: shape.slots() as u64 * SLOT,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            staging: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: offset.max(FLOAT),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            readback,
        }
    }

    pub fn buffer(&self, part: Part) -> &wgpu::Buffer {
        match part {
            Part::Q => &self.q,
            Part::K => &self.k,
            Part::V => &self.v,
            Part::Scores => &self.scores,
            Part::Weights => &self.weights,
            Part::Concat => &self.concat,
            Part::Projected => &self.projected,
            Part::FlashConcat => &self.flash_concat,
            Part::FlashProjected => &self.flash_projected,
        }
    }
}
