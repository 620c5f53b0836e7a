//! The JSON shape of a request and of a trace, shared by the `attention-trace` CLI, the page's
//! `window.attentionLab` API and the tests. Depends on the core; the core does not know it.
//!
//! A request's fields are defined once, in `request.rs`, as the struct and the table
//! ([`FIELDS`]) the JSON Schema, the links and the course element are driven by ([`fields`]).

mod circuits;
pub mod fields;
pub mod import;
mod kernel_bench;
mod lesson;
mod model;
mod request;
mod request_params;
mod request_types;
mod response;

pub use circuits::{
    composition_json, explain_json, model_circuits_json, trace_circuits_json, with_fields,
};
pub use kernel_bench::kernel_bench;
pub use lesson::lesson_json;
pub use model::{
    GenerationJson, GenerationRefusal, forward_json, generate_json, generate_json_from_ids,
    generation_input, step_from_json, step_json, stream_eval_json,
};
pub use request::{FIELDS, Request, field, parse_request, request_schema, request_schema_text};
pub use request_params::nulled_fields;
pub use request_types::{
    AblateRequest, BackendChoice, BlockRequest, ExplainRequest, FocusRequest, GenerateRequest,
    KnockoutRequest, LayerNormRequest, LinearKindRequest, LinearRequest, LogitAttributionRequest,
    MaskRequest, ModelChoice, ModelFolder, PairingRequest, PositionRequest, RequestError,
    SamplingRequest, StreamEvalRequest, WeightsRequest,
};
pub use response::{matrix_json, outputs_json, replay_json, trace_json};
