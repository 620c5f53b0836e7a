//! The trained model in the page: whether it is loaded, and its forward pass on the current
//! sentence. The model's files are fetched only when it is first asked for (the default view
//! never waits for them); `bridge::model_files` fetches them and reports here.

use std::sync::Arc;

use crate::ui::browser::clock::now_ms;
use attention_core::api::{ModelChoice, Request, RequestError};
use attention_core::models::{Forward, Layout, Model};

/// The shipped model, compared by identity.
#[derive(Debug, Clone)]
pub struct ModelRef(pub Arc<Model>);

impl PartialEq for ModelRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Where the trained model in use is (the last one asked for: GPT-2 or Llama).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ModelStatus {
    /// Not asked for yet: nothing fetched.
    #[default]
    Idle,
    Loading(Layout),
    Ready(ModelRef),
    /// The files could not be fetched or read; the message says why.
    Failed(Layout, String),
}

impl ModelStatus {
    /// The layout this status is about (`None` while idle).
    pub fn layout(&self) -> Option<Layout> {
        match self {
            Self::Idle => None,
            Self::Loading(layout) | Self::Failed(layout, _) => Some(*layout),
            Self::Ready(gpt) => Some(gpt.0.config.layout),
        }
    }

    /// The model, when it is loaded and is the one of `layout`.
    pub fn ready(&self, layout: Option<Layout>) -> Option<&Arc<Model>> {
        match self {
            Self::Ready(gpt) if Some(gpt.0.config.layout) == layout => Some(&gpt.0),
            _ => None,
        }
    }

    /// As `state().model_status` names it, for the model `wanted`: a model of the other layout
    /// still in place counts as loading.
    pub fn name(&self, wanted: Option<Layout>) -> &'static str {
        match self {
            Self::Idle => "idle",
            _ if self.layout() != wanted => "loading",
            Self::Loading(_) => "loading",
            Self::Ready(_) => "ready",
            Self::Failed(..) => "failed",
        }
    }
}

/// A forward pass, compared by identity, with how long it took.
#[derive(Debug, Clone)]
pub struct ForwardRef(pub Arc<Forward>, pub f64);

impl PartialEq for ForwardRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What the trained model reads from a request: the sentence, the mask, the temperature, the
/// tiles and the score options (a soft-cap, QK-norm, sink logits). The settings it fixes (the
/// shape, the seed, LayerNorm, the positions, a second sentence) are kept in the request for
/// random weights, and left out here.
pub fn trained_request(request: &Request) -> Request {
    Request {
        model: Some(
            request
                .model
                .clone()
                .filter(|m| m.layout().is_some())
                .unwrap_or(ModelChoice::Trained),
        ),
        sentence: request.sentence.clone(),
        mask: request.mask.clone(),
        temperature: request.temperature,
        block: request.block,
        softcap: request.softcap,
        qk_norm: request.qk_norm,
        sink_logits: request.sink_logits.clone(),
        ablate: request.ablate.clone(),
        ..Request::default()
    }
}

/// The trained model on `request`'s sentence (its last 128 characters when it is longer).
pub fn run(gpt: &Model, request: &Request) -> Result<ForwardRef, RequestError> {
    let started = now_ms();
    let (sentence, run) = trained_request(request).trained_run()?;
    let forward = gpt.read(&sentence, &run)?;
    Ok(ForwardRef(Arc::new(forward), now_ms() - started))
}
