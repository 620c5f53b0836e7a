//! The trained model in the page: whether it is loaded, and its forward pass on the current
//! sentence. The model's files are fetched only when it is first asked for (the default view
//! never waits for them); `bridge::model_files` fetches them and reports here.

use std::sync::Arc;

use crate::ui::browser::clock::now_ms;
use attention_core::api::{BackendChoice, ModelChoice, Request, RequestError};
use attention_core::models::{Forward, Model, Shipped, Tokenizer};

/// The shipped model, compared by identity.
#[derive(Debug, Clone)]
pub struct ModelRef(pub Arc<Model>);

impl PartialEq for ModelRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Which trained model: one shipped with the lab (by its layout), or a folder the user opened
/// (by its name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelKey {
    Shipped(Shipped),
    Folder(String),
}

impl ModelKey {
    /// The model a request asks for (`None` for random weights).
    pub fn of(request: &Request) -> Option<Self> {
        match request.model.as_ref()? {
            ModelChoice::Random => None,
            ModelChoice::Folder(folder) => Some(Self::Folder(folder.path.clone())),
            shipped => shipped.shipped().map(Self::Shipped),
        }
    }

    /// The key of a loaded model.
    pub fn of_model(model: &Model) -> Self {
        match model.tokenizer {
            Tokenizer::Chars(_) => {
                Self::Shipped(Shipped::of(model.config.layout, model.config.output_gate))
            }
            Tokenizer::Hf(_) => Self::Folder(model.name.clone()),
        }
    }
}

/// Where the trained model in use is (the last one asked for: GPT-2, Llama, the hybrid, or a folder's).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ModelStatus {
    /// Not asked for yet: nothing fetched.
    #[default]
    Idle,
    Loading(ModelKey),
    Ready(ModelRef),
    /// The files could not be fetched or read; the message says why.
    Failed(ModelKey, String),
}

impl ModelStatus {
    /// The model this status is about (`None` while idle).
    pub fn key(&self) -> Option<ModelKey> {
        match self {
            Self::Idle => None,
            Self::Loading(key) | Self::Failed(key, _) => Some(key.clone()),
            Self::Ready(gpt) => Some(ModelKey::of_model(&gpt.0)),
        }
    }

    /// The model, when it is loaded and is the one `wanted`.
    pub fn ready(&self, wanted: Option<&ModelKey>) -> Option<&Arc<Model>> {
        match self {
            Self::Ready(gpt) if Some(&ModelKey::of_model(&gpt.0)) == wanted => Some(&gpt.0),
            _ => None,
        }
    }

    /// As `state().model_status` names it, for the model `wanted`: another model still in place
    /// counts as loading.
    pub fn name(&self, wanted: Option<&ModelKey>) -> &'static str {
        match self {
            Self::Idle => "idle",
            _ if self.key().as_ref() != wanted => "loading",
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
                .filter(|m| *m != ModelChoice::Random)
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

/// What a trained model's forward pass on the page reads from a request: its
/// [`trained_request`], and whether its attention is asked of the GPU (a folder's model's
/// worker computes it there; "auto" computes a model on the CPU).
pub fn pass_request(request: &Request) -> Request {
    Request {
        backend: (request.backend == Some(BackendChoice::Gpu)).then_some(BackendChoice::Gpu),
        ..trained_request(request)
    }
}

/// The trained model on `request`'s sentence (its last 128 characters when it is longer).
pub fn run(gpt: &Model, request: &Request) -> Result<ForwardRef, RequestError> {
    let started = now_ms();
    let (sentence, run) = trained_request(request).trained_run()?;
    let forward = gpt.read(&sentence, &run)?;
    Ok(ForwardRef(Arc::new(forward), now_ms() - started))
}

/// The trained model the request asks for (a shipped one or a folder's), when it is loaded.
pub fn in_use(
    request: leptos::prelude::RwSignal<Request>,
    status: leptos::prelude::RwSignal<ModelStatus>,
) -> Option<Arc<Model>> {
    use leptos::prelude::With;
    let key = request.with(ModelKey::of);
    status.with(|s| s.ready(key.as_ref()).cloned())
}
