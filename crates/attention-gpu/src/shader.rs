//! A compute pipeline with its bind group layout, built once per session from a [`Shader`]: the
//! description of a WGSL file that the Rust side relies on (its bindings, workgroup size and
//! parameter block), checked against the WGSL itself by a naga reflection test.

use std::borrow::Cow;

use super::uniforms::{ParamsLayout, SLOT};

/// How a shader binds a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// A parameter block, at a dynamic offset in the shared uniform buffer.
    Params,
    Read,
    Write,
}

/// What the Rust side assumes about a compute shader (entry point `main`, bind group 0).
#[derive(Debug, Clone, Copy)]
pub struct Shader {
    pub name: &'static str,
    /// The WGSL source as compiled (mask.wgsl put in front where the shader tests masks).
    pub source: &'static str,
    /// `@workgroup_size` of `main`.
    pub workgroup_size: [u32; 3],
    /// Bindings 0, 1, … of group 0: the WGSL variable's name and how it is bound.
    pub bindings: &'static [(&'static str, Binding)],
    /// The parameter block (binding 0): its WGSL struct name, its Rust size, and each field's
    /// name and byte offset in the Rust struct (padding left out).
    pub params: ParamsLayout,
}

pub struct Pipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

impl Pipeline {
    /// Compiles `shader` with its bindings.
    pub fn new(device: &wgpu::Device, shader: &Shader) -> Self {
        let (label, source) = (shader.name, shader.source);
        let entries: Vec<wgpu::BindGroupLayoutEntry> = shader
            .bindings
            .iter()
            .enumerate()
            .map(|(index, (_, binding))| wgpu::BindGroupLayoutEntry {
                binding: index as u32,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match binding {
                        Binding::Params => wgpu::BufferBindingType::Uniform,
                        Binding::Read => wgpu::BufferBindingType::Storage { read_only: true },
                        Binding::Write => wgpu::BufferBindingType::Storage { read_only: false },
                    },
                    has_dynamic_offset: *binding == Binding::Params,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(source)),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self { pipeline, layout }
    }

    /// A bind group: `params` (the uniform buffer, one slot wide) then the storage buffers.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        params: &wgpu::Buffer,
        buffers: &[&wgpu::Buffer],
    ) -> wgpu::BindGroup {
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: params,
                offset: 0,
                size: wgpu::BufferSize::new(SLOT),
            }),
        }];
        entries.extend(
            buffers
                .iter()
                .enumerate()
                .map(|(index, buffer)| wgpu::BindGroupEntry {
                    binding: index as u32 + 1,
                    resource: buffer.as_entire_binding(),
                }),
        );
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &self.layout,
            entries: &entries,
        })
    }

    /// Records one dispatch.
    pub fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        group: &wgpu::BindGroup,
        offset: u32,
        workgroups: [u32; 3],
    ) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[offset]);
        pass.dispatch_workgroups(workgroups[0], workgroups[1], workgroups[2]);
    }
}
