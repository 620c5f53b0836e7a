//! Runs linear.wgsl: linear attention (elu + 1, the delta rule, gated) in chunks, one workgroup
//! per head, with the output gate; the projections before it and W_O after it are matmul.wgsl's.

use super::shader::{Binding, Pipeline, Shader};
use super::uniforms::LinearParams;

/// Threads per head: `WORKGROUP` in linear.wgsl.
pub const WORKGROUP: u32 = 64;

/// The kinds as linear.wgsl numbers them (`KIND_*`).
pub mod kind {
    pub const ELU: u32 = 0;
    pub const DELTA: u32 = 1;
    pub const GATED_DELTA: u32 = 2;
    /// Each with the name of its WGSL constant.
    pub const ALL: [(&str, u32); 3] = [
        ("KIND_ELU", ELU),
        ("KIND_DELTA", DELTA),
        ("KIND_GATED_DELTA", GATED_DELTA),
    ];
}

pub const SHADER: Shader = Shader {
    name: "linear.wgsl",
    source: include_str!("linear.wgsl"),
    workgroup_size: [WORKGROUP, 1, 1],
    bindings: &[
        ("p", Binding::Params),
        ("q", Binding::Read),
        ("k", Binding::Read),
        ("v", Binding::Read),
        ("strips", Binding::Read),
        ("gate", Binding::Read),
        ("work", Binding::Write),
        ("out", Binding::Write),
    ],
    params: LinearParams::LAYOUT,
};

pub fn kernel(device: &wgpu::Device) -> Pipeline {
    Pipeline::new(device, &SHADER)
}

/// Numbers of `work` per head: the state S and elu's z, the chunk's normalised q and k, its g
/// and β, T and one of its rows, U (then V') and W.
pub fn work_stride(d_k: usize, d_v: usize, chunk: usize) -> usize {
    d_k * d_v
        + d_k
        + 2 * chunk * d_k
        + 2 * chunk
        + chunk * chunk
        + chunk
        + chunk * d_v
        + chunk * d_k
}

use ndarray::Array2;

use super::buffers::Part;
use super::context::Context;
use super::error::{GpuError, unsupported};
use super::matmul::Product;
use super::transfer::{floats, read_back};
use super::uniforms::Slots;
use attention_core::Config;
use attention_core::math::linear::LinearKind;
use attention_core::pipeline::computed::attention_input;

/// What the GPU computes of a linear (or gated) computation: Q, K, V, the heads' chunked outputs
/// side by side (gated) and their projection by W_O.
pub struct LinearParts {
    pub q: Array2<f32>,
    pub k: Array2<f32>,
    pub v: Array2<f32>,
    pub concat: Array2<f32>,
    pub projected: Array2<f32>,
}

/// One submission: the projections (and x·w_β, x·w_α, x·W_g), the chunked heads, W_O; one
/// readback. Self-attention with linear attention (the config checked that).
pub async fn run(
    context: &Context,
    matmul: &Pipeline,
    linear: &Pipeline,
    config: &Config,
) -> Result<LinearParts, GpuError> {
    context.check()?;
    let Some((spec, weights)) = config.linear() else {
        return Err(GpuError::Unsupported(unsupported::GATE_WITHOUT_LINEAR));
    };
    let dims = *config.dims();
    let (n, h, h_kv, d_k, d_v, d_model) = (
        config.seq_len(),
        dims.n_heads,
        dims.n_kv_heads,
        dims.d_k,
        dims.d_v,
        dims.d_model,
    );
    // Every buffer within what one binding may hold, the staging buffer within a buffer's limit.
    let stride = work_stride(d_k, d_v, spec.chunk);
    let floats_needed = [
        h * stride,
        n * d_model,
        d_model * h * d_v.max(d_k),
        n * h * d_k.max(d_v),
    ];
    let largest = floats_needed.iter().max().copied().unwrap_or(0) as u64 * 4;
    let binding_limit = context.limits.max_storage_buffer_binding_size;
    if largest > binding_limit {
        return Err(GpuError::TooLarge {
            needed: largest,
            limit: binding_limit,
        });
    }
    let staging_bytes =
        ((n * h * d_k + n * h_kv * (d_k + d_v) + n * h * d_v + n * d_model) * 4) as u64;
    if staging_bytes > context.limits.max_buffer_size {
        return Err(GpuError::TooLarge {
            needed: staging_bytes,
            limit: context.limits.max_buffer_size,
        });
    }
    let (device, queue) = (&context.device, &context.queue);
    let storage = |len: usize, label: &str| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: (len.max(1) * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let filled = |values: &[f32], label: &str| {
        let buffer = storage(values.len(), label);
        queue.write_buffer(&buffer, 0, bytemuck::cast_slice(values));
        buffer
    };
    let x = attention_input(config);
    let w = config.weights();
    let x_buf = filled(&floats(x.view()), "x");
    let (w_q, w_k, w_v, w_o) = (
        filled(&floats(w.w_q.view()), "w_q"),
        filled(&floats(w.w_k.view()), "w_k"),
        filled(&floats(w.w_v.view()), "w_v"),
        filled(&floats(w.w_o.view()), "w_o"),
    );
    // x·[w_β | w_α], then a and dt_bias per head.
    let mut w_ba = Array2::<f32>::zeros((d_model, 2 * h));
    w_ba.slice_mut(ndarray::s![.., ..h]).assign(&weights.w_beta);
    w_ba.slice_mut(ndarray::s![.., h..])
        .assign(&weights.w_alpha);
    let w_ba = filled(&floats(w_ba.view()), "w_ba");
    let strips = storage(n * 2 * h + 2 * h, "strips");
    let head_numbers: Vec<f32> = weights
        .a_log
        .iter()
        .map(|a| a.exp())
        .chain(weights.dt_bias.iter().copied())
        .collect();
    queue.write_buffer(
        &strips,
        (n * 2 * h * 4) as u64,
        bytemuck::cast_slice(&head_numbers),
    );
    let gate_weights = config.gate();
    let w_g = gate_weights.map(|g| filled(&floats(g.view()), "w_g"));
    let gate = storage(if w_g.is_some() { n * h * d_v } else { 1 }, "gate");
    let (q, k, v) = (
        storage(n * h * d_k, "q"),
        storage(n * h_kv * d_k, "k"),
        storage(n * h_kv * d_v, "v"),
    );
    let work = storage(h * stride, "work");
    let concat = storage(n * h * d_v, "concat");
    let projected = storage(n * d_model, "projected");

    let mut products = vec![
        (Product::plain(n, h * d_k, d_model), [&x_buf, &w_q, &q]),
        (Product::plain(n, h_kv * d_k, d_model), [&x_buf, &w_k, &k]),
        (Product::plain(n, h_kv * d_v, d_model), [&x_buf, &w_v, &v]),
        (Product::plain(n, 2 * h, d_model), [&x_buf, &w_ba, &strips]),
    ];
    if let Some(w_g) = &w_g {
        products.push((Product::plain(n, h * d_v, d_model), [&x_buf, w_g, &gate]));
    }
    let mut slots = Slots::default();
    let offsets: Vec<u32> = products
        .iter()
        .map(|(p, _)| slots.push(&p.params()))
        .collect();
    let params = LinearParams {
        seq_len: n as u32,
        heads: h as u32,
        group: dims.group_size() as u32,
        d_k: d_k as u32,
        d_v: d_v as u32,
        chunk: spec.chunk as u32,
        kind: match spec.kind {
            LinearKind::Elu => kind::ELU,
            LinearKind::Delta => kind::DELTA,
            LinearKind::GatedDelta => kind::GATED_DELTA,
        },
        gated: u32::from(w_g.is_some()),
        q_stride: (h * d_k) as u32,
        k_stride: (h_kv * d_k) as u32,
        v_stride: (h_kv * d_v) as u32,
        o_stride: (h * d_v) as u32,
        work_stride: stride as u32,
        _pad: [0; 3],
    };
    let linear_offset = slots.push(&params);
    let out_product = Product::plain(n, d_model, h * d_v);
    let out_offset = slots.push(&out_product.params());
    let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("linear uniforms"),
        size: slots.bytes().len() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&uniforms, 0, slots.bytes());
    let readback = [
        (Part::Q, 0u64, n * h * d_k),
        (Part::K, (n * h * d_k * 4) as u64, n * h_kv * d_k),
        (
            Part::V,
            ((n * h * d_k + n * h_kv * d_k) * 4) as u64,
            n * h_kv * d_v,
        ),
        (
            Part::Concat,
            ((n * h * d_k + n * h_kv * (d_k + d_v)) * 4) as u64,
            n * h * d_v,
        ),
        (
            Part::Projected,
            ((n * h * d_k + n * h_kv * (d_k + d_v) + n * h * d_v) * 4) as u64,
            n * d_model,
        ),
    ];
    let total: usize = readback.iter().map(|r| r.2).sum();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("linear staging"),
        size: (total * 4) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });

    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("linear attention"),
    });
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("linear attention"),
            timestamp_writes: None,
        });
        for ((p, [a, b, c]), offset) in products.iter().zip(&offsets) {
            let group = matmul.bind(device, &uniforms, &[a, b, c]);
            matmul.dispatch(&mut pass, &group, *offset, p.workgroups());
        }
        let group = linear.bind(
            device,
            &uniforms,
            &[&q, &k, &v, &strips, &gate, &work, &concat],
        );
        linear.dispatch(&mut pass, &group, linear_offset, [h as u32, 1, 1]);
        let group = matmul.bind(device, &uniforms, &[&concat, &w_o, &projected]);
        matmul.dispatch(&mut pass, &group, out_offset, out_product.workgroups());
    }
    for (part, offset, len) in readback {
        let source = match part {
            Part::Q => &q,
            Part::K => &k,
            Part::V => &v,
            Part::Concat => &concat,
            _ => &projected,
        };
        encoder.copy_buffer_to_buffer(source, 0, &staging, offset, len as u64 * 4);
    }
    queue.submit([encoder.finish()]);
    let mut read = read_back(device, &staging, &readback).await;
    let scope_error = scope.pop().await;
    context.check()?;
    if let Some(error) = scope_error {
        return Err(GpuError::Shader(error.to_string()));
    }
    let mut take = |part: Part, rows: usize, cols: usize| {
        let values = read
            .as_mut()
            .map_err(|e| GpuError::Readback(e.to_string()))?
            .remove(&part)
            .unwrap_or_default();
        Array2::from_shape_vec((rows, cols), values)
            .map_err(|error| GpuError::Readback(error.to_string()))
    };
    Ok(LinearParts {
        q: take(Part::Q, n, h * d_k)?,
        k: take(Part::K, n, h_kv * d_k)?,
        v: take(Part::V, n, h_kv * d_v)?,
        concat: take(Part::Concat, n, h * d_v)?,
        projected: take(Part::Projected, n, d_model)?,
    })
}
