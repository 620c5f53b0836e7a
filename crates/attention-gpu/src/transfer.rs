//! Moving numbers to and from the GPU: a matrix as the floats a buffer takes, and the one
//! readback of a submission's staging buffer.

use std::borrow::Cow;
use std::collections::HashMap;

use ndarray::ArrayView2;

use super::buffers::Part;
use super::error::GpuError;

/// A matrix as contiguous row-major floats (borrowed when it already is).
pub fn floats(matrix: ArrayView2<'_, f32>) -> Cow<'_, [f32]> {
    match matrix.to_slice() {
        Some(slice) => Cow::Borrowed(slice),
        None => Cow::Owned(matrix.iter().copied().collect()),
    }
}

/// Maps the staging buffer and copies each part out.
pub async fn read_back(
    device: &wgpu::Device,
    staging: &wgpu::Buffer,
    layout: &[(Part, u64, usize)],
) -> Result<HashMap<Part, Vec<f32>>, GpuError> {
    let (sender, receiver) = futures_channel::oneshot::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |result| {
        let _ = sender.send(result);
    });
    // Natively the device must be polled; in the browser it completes on its own.
    #[cfg(not(target_arch = "wasm32"))]
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|error| GpuError::Readback(error.to_string()))?;
    #[cfg(target_arch = "wasm32")]
    let _ = device;
    receiver
        .await
        .map_err(|_| GpuError::Readback("the mapping was cancelled".into()))?
        .map_err(|error| GpuError::Readback(error.to_string()))?;
    let parts = {
        let view = staging
            .get_mapped_range(..)
            .map_err(|error| GpuError::Readback(error.to_string()))?;
        let all: &[f32] = bytemuck::cast_slice(&view);
        layout
            .iter()
            .map(|&(part, offset, len)| {
                let start = offset as usize / 4;
                (part, all[start..start + len].to_vec())
            })
            .collect()
    };
    staging.unmap();
    Ok(parts)
}
