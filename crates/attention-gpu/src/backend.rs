//! One computation on the GPU: write the inputs, record every dispatch in one compute pass, copy
//! the results into one staging buffer, submit once, read back once.

use std::collections::HashMap;

use ndarray::Array2;

use super::buffers::{Buffers, Part, Shape};
use super::context::{Context, GpuInfo};
use super::error::{GpuError, unsupported};
use super::matmul::{self, Product, View};
use super::shader::Pipeline;
use super::transfer::{floats, read_back};
use super::uniforms::{FlashParams, GateParams, PrepareParams, Slots, SoftmaxParams, mask_code};
use super::{flash, gate, linear, prepare, softmax};
use attention_core::math::scoring::{Pairing, Position, QK_NORM_EPSILON, Side, rope_table};
use attention_core::pipeline::computed::{attention_input, key_value_input};
use attention_core::{
    Backend, Computed, Config, FlashDetail, MaskSpec, Outputs, Trace, outputs_from, trace_from,
};

/// The GPU, its four pipelines, and the buffers of the last shape computed.
pub struct GpuBackend {
    context: Context,
    matmul: Pipeline,
    prepare: Pipeline,
    softmax: Pipeline,
    flash: Pipeline,
    linear: Pipeline,
    gate: Pipeline,
    buffers: Option<Buffers>,
}

impl GpuBackend {
    /// Finds a GPU, opens a device and compiles the shaders.
    pub async fn new() -> Result<Self, GpuError> {
        let context = Context::new().await?;
        let scope = context
            .device
            .push_error_scope(wgpu::ErrorFilter::Validation);
        let matmul = matmul::kernel(&context.device);
        let prepare = prepare::kernel(&context.device);
        let softmax = softmax::kernel(&context.device);
        let flash = flash::kernel(&context.device);
        let linear = linear::kernel(&context.device);
        let gate = gate::kernel(&context.device);
        if let Some(error) = scope.pop().await {
            return Err(GpuError::Shader(error.to_string()));
        }
        context.check()?;
        Ok(Self {
            context,
            matmul,
            prepare,
            softmax,
            flash,
            linear,
            gate,
            buffers: None,
        })
    }

    pub fn info(&self) -> &GpuInfo {
        &self.context.info
    }

    /// Destroys the device, as a driver reset would: the next computation reports it lost.
    pub fn simulate_loss(&self) {
        self.context.simulate_loss();
    }

    fn backend(&self) -> Backend {
        Backend::Gpu {
            adapter: self.context.info.name.clone(),
        }
    }

    /// Every intermediate, as [`attention_core::compute_trace`] gives them.
    pub async fn trace(&mut self, config: &Config) -> Result<Trace, GpuError> {
        let computed = self.computed(config).await?;
        Ok(trace_from(
            config,
            computed,
            self.backend(),
            FlashDetail::Steps,
        ))
    }

    /// What cost a matrix product in `config`'s attention (Q, K, V, every head's scores and
    /// weights, both outputs), as the core's `compute_parts` gives it, with the backend that
    /// computed it: a trained model's layer computed here and put together by the core
    /// (`Model::work_layer_with`).
    pub async fn computed_by(&mut self, config: &Config) -> Result<(Computed, Backend), GpuError> {
        Ok((self.computed(config).await?, self.backend()))
    }

    async fn computed(&mut self, config: &Config) -> Result<Computed, GpuError> {
        supported(config)?;
        if config.linear().is_some() {
            return self.linear_computed(config).await;
        }
        let mut parts = self.run(config, true).await?;
        let dims = *config.dims();
        let (n, m) = (config.seq_len(), config.key_len());
        let mut take = |part: Part, rows: usize, cols: usize| {
            let values = parts.remove(&part).unwrap_or_default();
            Array2::from_shape_vec((rows, cols), values)
                .map_err(|error| GpuError::Readback(error.to_string()))
        };
        let q = take(Part::Q, n, dims.n_heads * dims.d_k)?;
        let k = take(Part::K, m, dims.n_kv_heads * dims.d_k)?;
        let v = take(Part::V, m, dims.n_kv_heads * dims.d_v)?;
        let scores = take(Part::Scores, dims.n_heads * n, m)?;
        let weights = take(Part::Weights, dims.n_heads * n, m)?;
        let per_head = |all: &Array2<f32>| -> Vec<Array2<f32>> {
            (0..dims.n_heads)
                .map(|h| all.slice(ndarray::s![h * n..(h + 1) * n, ..]).to_owned())
                .collect()
        };
        let computed = Computed {
            q,
            k,
            v,
            scores: per_head(&scores),
            weights: per_head(&weights),
            overviews: Vec::new(),
            concat: take(Part::Concat, n, dims.n_heads * dims.d_v)?,
            projected: take(Part::Projected, n, dims.d_model)?,
            flash_concat: take(Part::FlashConcat, n, dims.n_heads * dims.d_v)?,
            flash_projected: take(Part::FlashProjected, n, dims.d_model)?,
        };
        Ok(computed)
    }

    /// The outputs only, in chunks of query rows: no seq_len² buffer.
    pub async fn outputs(&mut self, config: &Config) -> Result<Outputs, GpuError> {
        supported(config)?;
        if config.linear().is_some() {
            let parts = linear::run(&self.context, &self.matmul, &self.linear, config).await?;
            return Ok(outputs_from(
                config,
                parts.projected.clone(),
                parts.projected,
                self.backend(),
            ));
        }
        let mut parts = self.run(config, false).await?;
        let (n, d_model) = (config.seq_len(), config.dims().d_model);
        let mut take = |part: Part| {
            Array2::from_shape_vec((n, d_model), parts.remove(&part).unwrap_or_default())
                .map_err(|error| GpuError::Readback(error.to_string()))
        };
        let projected = take(Part::Projected)?;
        let flash_projected = take(Part::FlashProjected)?;
        Ok(outputs_from(
            config,
            projected,
            flash_projected,
            self.backend(),
        ))
    }

    /// Linear attention's numbers: Q, K, V, the chunked heads (gated) and W_O from the GPU; each
    /// head's hidden matrix A (its scores and weights in the trace) from the core, on the GPU's Q,
    /// K and V, as FlashAttention's steps are replayed there: a view of the algorithm, the
    /// outputs staying the GPU's.
    async fn linear_computed(&mut self, config: &Config) -> Result<Computed, GpuError> {
        let parts = linear::run(&self.context, &self.matmul, &self.linear, config).await?;
        let projections = attention_core::math::attention::Projections {
            q: parts.q,
            k: parts.k,
            v: parts.v,
        };
        let x = attention_input(config);
        let matrices: Vec<Array2<f32>> = (0..config.dims().n_heads)
            .map(|head| {
                attention_core::pipeline::linear_heads::linear_outputs(
                    config,
                    x.view(),
                    &projections,
                    head,
                    true,
                )
                .and_then(|l| l.matrix)
                .unwrap_or_else(|| Array2::zeros((0, 0)))
            })
            .collect();
        Ok(Computed {
            q: projections.q,
            k: projections.k,
            v: projections.v,
            scores: matrices.clone(),
            weights: matrices,
            overviews: Vec::new(),
            flash_concat: parts.concat.clone(),
            concat: parts.concat,
            flash_projected: parts.projected.clone(),
            projected: parts.projected,
        })
    }

    async fn run(
        &mut self,
        config: &Config,
        traced: bool,
    ) -> Result<HashMap<Part, Vec<f32>>, GpuError> {
        self.context.check()?;
        let dims = *config.dims();
        let (n, m) = (config.seq_len(), config.key_len());
        let custom = matches!(config.mask().spec(), MaskSpec::Custom { .. });
        let shaping = config.shaping();
        let prepared = shaping.prepares();
        let shape = Shape::new(&dims, n, m, custom, traced, prepared);
        Buffers::check(&shape, &self.context.limits)?;
        if self.buffers.as_ref().is_none_or(|b| b.shape != shape) {
            self.buffers = Some(Buffers::new(&self.context.device, shape));
        }
        let Some(buffers) = self.buffers.as_ref() else {
            return Err(GpuError::Readback("no buffers".into()));
        };
        let (device, queue) = (&self.context.device, &self.context.queue);

        // Inputs.
        let x_q = attention_input(config);
        let x_kv = key_value_input(config, x_q.view());
        let weights = config.weights();
        queue.write_buffer(&buffers.x_q, 0, bytemuck::cast_slice(&floats(x_q.view())));
        queue.write_buffer(&buffers.x_kv, 0, bytemuck::cast_slice(&floats(x_kv)));
        queue.write_buffer(
            &buffers.w_q,
            0,
            bytemuck::cast_slice(&floats(weights.w_q.view())),
        );
        queue.write_buffer(
            &buffers.w_k,
            0,
            bytemuck::cast_slice(&floats(weights.w_k.view())),
        );
        queue.write_buffer(
            &buffers.w_v,
            0,
            bytemuck::cast_slice(&floats(weights.w_v.view())),
        );
        queue.write_buffer(
            &buffers.w_o,
            0,
            bytemuck::cast_slice(&floats(weights.w_o.view())),
        );
        if custom {
            let cells: Vec<u32> = config
                .mask()
                .to_matrix()
                .iter()
                .map(|&a| u32::from(a))
                .collect();
            queue.write_buffer(&buffers.custom, 0, bytemuck::cast_slice(&cells));
        }
        // Per head: ALiBi's slope and the sink logit ÷ T; RoPE's angles per position.
        let scoring = config.scoring(0);
        let heads: Vec<f32> = (0..dims.n_heads)
            .flat_map(|head| {
                let scoring = config.scoring(head);
                [
                    scoring.slope().unwrap_or(0.0),
                    scoring.sink.unwrap_or(NO_SINK),
                ]
            })
            .collect();
        queue.write_buffer(&buffers.heads, 0, bytemuck::cast_slice(&heads));
        let rope = match shaping.position {
            Position::Rope { base, pairing } => {
                // A partial rotation's angles are those of a head as wide as what turns.
                let rotated = pairing.rotated(dims.d_k);
                let table = rope_table(base, rotated, shaping.offset, n.max(m));
                queue.write_buffer(&buffers.angles, 0, bytemuck::cast_slice(&table));
                Some(pairing)
            }
            _ => None,
        };

        // The output gate's weights and x·W_g, made for this computation (rarely asked for).
        let gate_buffer = |len: usize, label: &str| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: (len * 4) as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let w_g = config.gate().map(|w| {
            let buffer = gate_buffer(w.len(), "w_g");
            queue.write_buffer(&buffer, 0, bytemuck::cast_slice(&floats(w.view())));
            buffer
        });
        let gate_rows = config
            .gate()
            .map(|_| gate_buffer(n * dims.n_heads * dims.d_v, "gate"));
        // QK-norm's gains γ for q and for k (ones unless a trained model's), and its ε.
        let ones = vec![1.0f32; dims.d_k.max(1)];
        let gains = [Side::Query, Side::Key].map(|side| {
            let gamma = shaping.qk_gain.as_ref().map_or(&ones, |g| match side {
                Side::Query => &g.q,
                Side::Key => &g.k,
            });
            let buffer = gate_buffer(gamma.len().max(1), "qk gain");
            queue.write_buffer(&buffer, 0, bytemuck::cast_slice(gamma));
            buffer
        });
        let epsilon = shaping
            .qk_gain
            .as_ref()
            .map_or(QK_NORM_EPSILON, |g| g.epsilon);
        // A trained model's projection biases, b_q, b_k, b_v and b_o, added to each row.
        let biases = weights.biases.as_ref().map(|b| {
            [&b.q, &b.k, &b.v, &b.o].map(|bias| {
                let buffer = gate_buffer(bias.len().max(1), "bias");
                queue.write_buffer(&buffer, 0, bytemuck::cast_slice(&bias.to_vec()));
                buffer
            })
        });

        // Every dispatch, with its parameter block.
        let (h, h_kv, d_k, d_v, d_model) = (
            dims.n_heads,
            dims.n_kv_heads,
            dims.d_k,
            dims.d_v,
            dims.d_model,
        );
        let group = dims.group_size() as u32;
        let (mask_kind, valid_len, radius) = mask_code(config.mask().spec());
        let mut slots = Slots::default();
        let mut steps = vec![
            plain_product(
                n,
                h * d_k,
                d_model,
                [&buffers.x_q, &buffers.w_q, &buffers.q],
            ),
            plain_product(
                m,
                h_kv * d_k,
                d_model,
                [&buffers.x_kv, &buffers.w_k, &buffers.k],
            ),
            plain_product(
                m,
                h_kv * d_v,
                d_model,
                [&buffers.x_kv, &buffers.w_v, &buffers.v],
            ),
        ];
        if let Some([b_q, b_k, b_v, _]) = &biases {
            steps.push(Step::Gate(gate::bias(n, h * d_k), [b_q, &buffers.q]));
            steps.push(Step::Gate(gate::bias(m, h_kv * d_k), [b_k, &buffers.k]));
            steps.push(Step::Gate(gate::bias(m, h_kv * d_v), [b_v, &buffers.v]));
        }
        // The output gate's x·W_g [n, h·d_v], applied to both passes' head outputs before W_O.
        if let (Some(w_g), Some(gate_rows)) = (&w_g, &gate_rows) {
            steps.push(plain_product(
                n,
                h * d_v,
                d_model,
                [&buffers.x_q, w_g, gate_rows],
            ));
        }
        // QK-norm and RoPE: the scores read q_scored and k_scored; the trace keeps Q and K.
        let (q_read, k_read) = if prepared {
            let params = |rows: usize, heads: usize| PrepareParams {
                rows: rows as u32,
                heads: heads as u32,
                d_k: d_k as u32,
                qk_norm: u32::from(shaping.qk_norm),
                rope: u32::from(rope.is_some()),
                interleaved: u32::from(rope == Some(Pairing::Interleaved)),
                rotated: rope.map_or(d_k, |pairing| pairing.rotated(d_k)) as u32,
                epsilon,
            };
            let [q_gain, k_gain] = &gains;
            steps.push(Step::Prepare(
                params(n, h),
                [&buffers.q, q_gain, &buffers.q_scored],
            ));
            steps.push(Step::Prepare(
                params(m, h_kv),
                [&buffers.k, k_gain, &buffers.k_scored],
            ));
            (&buffers.q_scored, &buffers.k_scored)
        } else {
            (&buffers.q, &buffers.k)
        };
        let (shaped, cap, inv_t) = (
            u32::from(scoring.shapes()),
            scoring.cap().unwrap_or(0.0),
            scoring.inv_t(),
        );
        let chunk = shape.chunk_rows;
        for r0 in (0..n).step_by(chunk) {
            let rows = chunk.min(n - r0);
            // scores[h] = Q_h K_gᵀ · scale for query rows r0.., every head at once.
            steps.push(Step::Matmul(
                Product {
                    m: rows,
                    n: m,
                    k: d_k,
                    a: View {
                        offset: (r0 * h * d_k) as u32,
                        stride: (h * d_k) as u32,
                        batch: d_k as u32,
                        group: 1,
                    },
                    b: View {
                        offset: 0,
                        stride: (h_kv * d_k) as u32,
                        batch: d_k as u32,
                        group,
                    },
                    b_transposed: true,
                    c: View {
                        offset: 0,
                        stride: m as u32,
                        batch: (rows * m) as u32,
                        group: 1,
                    },
                    alpha: scoring.dot_scale(),
                    batches: h,
                },
                [q_read, k_read, &buffers.scores],
            ));
            steps.push(Step::Softmax(
                SoftmaxParams {
                    rows: rows as u32,
                    cols: m as u32,
                    row_offset: r0 as u32,
                    mask_kind,
                    valid_len,
                    radius,
                    shaped,
                    cap,
                    inv_t,
                    _pad: [0; 3],
                },
                rows,
            ));
            // Head outputs = weights · V_g, written into the concat layout [seq_len, h·d_v].
            steps.push(Step::Matmul(
                Product {
                    m: rows,
                    n: d_v,
                    k: m,
                    a: View {
                        offset: 0,
                        stride: m as u32,
                        batch: (rows * m) as u32,
                        group: 1,
                    },
                    b: View {
                        offset: 0,
                        stride: (h_kv * d_v) as u32,
                        batch: d_v as u32,
                        group,
                    },
                    b_transposed: false,
                    c: View {
                        offset: (r0 * h * d_v) as u32,
                        stride: (h * d_v) as u32,
                        batch: d_v as u32,
                        group: 1,
                    },
                    alpha: 1.0,
                    batches: h,
                },
                [&buffers.weights, &buffers.v, &buffers.concat],
            ));
        }
        if let Some(gate_rows) = &gate_rows {
            steps.push(Step::Gate(
                gate::params(n * h * d_v),
                [gate_rows, &buffers.concat],
            ));
        }
        steps.push(plain_product(
            n,
            d_model,
            h * d_v,
            [&buffers.concat, &buffers.w_o, &buffers.projected],
        ));
        if let Some([.., b_o]) = &biases {
            steps.push(Step::Gate(
                gate::bias(n, d_model),
                [b_o, &buffers.projected],
            ));
        }
        let (block_rows, block_cols) = config.block();
        steps.push(Step::Flash(FlashParams {
            seq_len: n as u32,
            key_len: m as u32,
            d_k: d_k as u32,
            d_v: d_v as u32,
            q_stride: (h * d_k) as u32,
            k_stride: (h_kv * d_k) as u32,
            v_stride: (h_kv * d_v) as u32,
            o_stride: (h * d_v) as u32,
            group,
            block_rows: block_rows as u32,
            block_cols: block_cols as u32,
            mask_kind,
            valid_len,
            radius,
            scale: scoring.dot_scale(),
            shaped,
            cap,
            inv_t,
            _pad: 0,
        }));
        if let Some(gate_rows) = &gate_rows {
            steps.push(Step::Gate(
                gate::params(n * h * d_v),
                [gate_rows, &buffers.flash_concat],
            ));
        }
        steps.push(plain_product(
            n,
            d_model,
            h * d_v,
            [
                &buffers.flash_concat,
                &buffers.w_o,
                &buffers.flash_projected,
            ],
        ));
        if let Some([.., b_o]) = &biases {
            steps.push(Step::Gate(
                gate::bias(n, d_model),
                [b_o, &buffers.flash_projected],
            ));
        }

        let offsets: Vec<u32> = steps
            .iter()
            .map(|step| match step {
                Step::Matmul(product, _) => slots.push(&product.params()),
                Step::Prepare(params, _) => slots.push(params),
                Step::Softmax(params, _) => slots.push(params),
                Step::Flash(params) => slots.push(params),
                Step::Gate(params, _) => slots.push(params),
            })
            .collect();
        queue.write_buffer(&buffers.uniforms, 0, slots.bytes());

        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("attention"),
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("attention"),
                timestamp_writes: None,
            });
            for (step, offset) in steps.iter().zip(&offsets) {
                match step {
                    Step::Matmul(product, [a, b, c]) => {
                        let group = self.matmul.bind(device, &buffers.uniforms, &[a, b, c]);
                        self.matmul
                            .dispatch(&mut pass, &group, *offset, product.workgroups());
                    }
                    Step::Gate(params, [g, y]) => {
                        let group = self.gate.bind(device, &buffers.uniforms, &[g, y]);
                        self.gate.dispatch(
                            &mut pass,
                            &group,
                            *offset,
                            gate::workgroups(params.len as usize),
                        );
                    }
                    Step::Prepare(params, [x, gain, y]) => {
                        let group = self.prepare.bind(
                            device,
                            &buffers.uniforms,
                            &[x, &buffers.angles, gain, y],
                        );
                        self.prepare.dispatch(
                            &mut pass,
                            &group,
                            *offset,
                            prepare::workgroups(params.rows as usize, params.heads as usize),
                        );
                    }
                    Step::Softmax(_, rows) => {
                        let group = self.softmax.bind(
                            device,
                            &buffers.uniforms,
                            &[
                                &buffers.scores,
                                &buffers.weights,
                                &buffers.custom,
                                &buffers.heads,
                            ],
                        );
                        self.softmax.dispatch(
                            &mut pass,
                            &group,
                            *offset,
                            softmax::workgroups(*rows, h),
                        );
                    }
                    Step::Flash(_) => {
                        let group = self.flash.bind(
                            device,
                            &buffers.uniforms,
                            &[
                                q_read,
                                k_read,
                                &buffers.v,
                                &buffers.flash_concat,
                                &buffers.custom,
                                &buffers.heads,
                            ],
                        );
                        self.flash
                            .dispatch(&mut pass, &group, *offset, flash::workgroups(n, h));
                    }
                }
            }
        }
        for &(part, offset, len) in &buffers.readback {
            encoder.copy_buffer_to_buffer(
                buffers.buffer(part),
                0,
                &buffers.staging,
                offset,
                len as u64 * 4,
            );
        }
        queue.submit([encoder.finish()]);
        let read = read_back(device, &buffers.staging, &buffers.readback).await;
        let scope_error = scope.pop().await;
        // A lost device explains any other failure: report the loss first.
        self.context.check()?;
        if let Some(error) = scope_error {
            return Err(GpuError::Shader(error.to_string()));
        }
        read
    }
}

/// One dispatch of a submission.
enum Step<'a> {
    /// A product with its buffers A, B and C.
    Matmul(Product, [&'a wgpu::Buffer; 3]),
    /// The output gate (the second buffer times σ(the first), element by element), or a bias
    /// (the first) added to each row of the second.
    Gate(GateParams, [&'a wgpu::Buffer; 2]),
    /// QK-norm (with the gains of the second buffer) and RoPE from the first buffer into the
    /// third.
    Prepare(PrepareParams, [&'a wgpu::Buffer; 3]),
    /// The softmax of a chunk of rows.
    Softmax(SoftmaxParams, usize),
    Flash(FlashParams),
}

/// C [rows, cols] = A [rows, inner] · B [inner, cols], all whole row-major matrices.
fn plain_product(rows: usize, cols: usize, inner: usize, buffers: [&wgpu::Buffer; 3]) -> Step<'_> {
    Step::Matmul(Product::plain(rows, cols, inner), buffers)
}

/// What the shaders compute: projections with or without biases (linear attention's without),
/// with every score option (RoPE, ALiBi, soft-caps, QK-norm, sink logits); else
/// `GpuError::Unsupported`, naming what they do not (the page says it beside a model's layer
/// that its worker computed on the CPU).
pub fn supported(config: &Config) -> Result<(), GpuError> {
    if config.weights().biases.is_some() && config.linear().is_some() {
        return Err(GpuError::Unsupported(unsupported::LINEAR_BIASES));
    }
    if config.linear().is_some_and(|(_, w)| w.conv.is_some()) {
        return Err(GpuError::Unsupported(unsupported::LINEAR_CONV));
    }
    if config.output_gate().is_some() && config.gate().is_none() {
        return Err(GpuError::Unsupported(unsupported::NORMED_GATE));
    }

    Ok(())
}

/// "No sink logit" in the heads buffer: `NO_SINK` in score.wgsl.
const NO_SINK: f32 = -3.0e38;
