//! The JSON shape of a request and of a trace, shared by the `attention-trace` CLI, the page's
//! `window.attentionLab` API and the tests. Depends on the core; the core does not know it.

pub mod import;
mod kernel_bench;
mod lesson;
mod model;
mod request;
mod response;

pub use kernel_bench::kernel_bench;
pub use lesson::lesson_json;
pub use model::{forward_json, generate_json, generation_input, stream_eval_json};
pub use request::{
    BackendChoice, BlockRequest, FocusRequest, GenerateRequest, LayerNormRequest, MaskRequest,
    ModelChoice, PairingRequest, PositionRequest, Request, RequestError, SamplingRequest,
    StreamEvalRequest, WeightsRequest, parse_request,
};
pub use response::{matrix_json, outputs_json, replay_json, trace_json};
