//! A trained model's forward pass with each layer's attention computed here: the core runs the
//! model a block at a time (`Model::begin_work`), hands each block's attention over as a
//! [`Config`] (`Model::next_attention`), and puts the block together from what the GPU computed
//! (`Model::work_layer_with`): its norms, residuals and MLP stay the core's.

use attention_core::ConfigError;
use attention_core::models::Model;
use attention_core::models::forward::Forward;
use attention_core::models::model::Reading;
use attention_core::models::remote::ForwardWork;
use thiserror::Error;

use super::backend::GpuBackend;
use super::error::GpuError;

/// Why a model's forward pass on the GPU stopped.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ForwardError {
    #[error("backend: {0}")]
    Gpu(GpuError),
    #[error("{0}")]
    Model(ConfigError),
}

impl GpuBackend {
    /// `model`'s forward pass on `reading` (as `Model::read` reads a text), each layer's
    /// attention (projections, scores, softmax, outputs) computed on this GPU, its MLP on the
    /// CPU. A layer the shaders do not compute (a hybrid's linear layer, with its short
    /// convolution) runs on the CPU; each layer's trace names the backend that computed it.
    pub async fn forward(
        &mut self,
        model: &Model,
        reading: &Reading,
    ) -> Result<Forward, ForwardError> {
        Ok(self.forward_work(model, reading).await?.0)
    }

    /// [`GpuBackend::forward`] and the work it kept (each layer's attention as this GPU
    /// computed it, its backend and its MLP's output), as `Model::forward_work` returns them:
    /// what the page's model worker sends back for the page to put the same pass together.
    pub async fn forward_work(
        &mut self,
        model: &Model,
        reading: &Reading,
    ) -> Result<(Forward, ForwardWork), ForwardError> {
        let mut work = model
            .begin_work(&reading.tokens, &reading.ids, &reading.run)
            .map_err(ForwardError::Model)?;
        while let Some(config) = model
            .next_attention(&mut work)
            .map_err(ForwardError::Model)?
        {
            match self.computed_by(&config).await {
                Ok((computed, backend)) => model.work_layer_with(&mut work, computed, backend),
                Err(GpuError::Unsupported(_)) => model.work_layer(&mut work),
                Err(error) => return Err(ForwardError::Gpu(error)),
            }
            .map_err(ForwardError::Model)?;
        }
        let (mut forward, work) = model.finish_work(work).map_err(ForwardError::Model)?;
        forward.dropped = reading.dropped;
        Ok((forward, work))
    }
}
