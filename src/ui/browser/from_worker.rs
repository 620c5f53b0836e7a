//! What a worker answers the page (the unit worker's and the model worker's messages, read
//! from their arrays).

use js_sys::{Array, Float32Array};
use wasm_bindgen::prelude::*;

/// One answer from the worker.
pub enum FromWorker {
    /// It is listening (messages posted before this would be lost).
    Ready,
    /// Request `id`'s Q, K and V, as `UnitJob::projections_to_flat`.
    Projections { id: u32, flat: Numbers },
    /// Unit `unit` of request `id`, as `UnitPart::to_flat`.
    Unit { id: u32, unit: usize, flat: Numbers },
    /// Request `id` was refused (the page checks requests first, so this is a bug's trace).
    Error { id: u32, message: String },
    /// The kernel measure's result, as JSON ([`attention_core::api::kernel_bench`]).
    Kernel { json: String },
    /// The model worker holds the model of message `id`; its memory's bytes, and the bytes of
    /// the folders' files it keeps.
    ModelOpened { id: u32, memory: f64, kept: f64 },
    /// The model worker's forward pass `id`, as `ForwardWork::to_flat`, the milliseconds it took
    /// there and the worker's memory's bytes.
    Forward {
        id: u32,
        flat: Numbers,
        ms: f64,
        memory: f64,
        /// The next-token logits after the last position.
        last_logits: Option<Numbers>,
        /// The GPU's name, when it computed a layer's attention.
        adapter: Option<String>,
        /// Why the GPU asked for did not compute a layer (the CPU did): its `GpuError::code`
        /// and message.
        gpu_failed: Option<(String, String)>,
    },
    /// The next step of the model worker's generation `id`, as `Step`'s JSON (`null`: every
    /// asked step is taken).
    Stepped { id: u32, json: String },
    /// The model worker kept no files of the folder that message `id` asked it to build again.
    NotKept { id: u32 },
    /// The model worker's whole generation `id`, as the CLI's `"generate"` JSON.
    Generated { id: u32, json: String },
    /// How far the model worker's stream evaluation `id` has read: its rolling cache with sinks
    /// (phase 0), without (1) or the share on the first token (2), `done` of `total`.
    Streaming {
        id: u32,
        phase: usize,
        done: usize,
        total: usize,
    },
    /// The stream evaluation `id`'s two rolling runs' losses and each head's share of attention
    /// on the first token ([layers × heads], `heads` to a layer).
    Streamed {
        id: u32,
        with_sinks: Numbers,
        without_sinks: Numbers,
        share: Numbers,
        heads: usize,
    },
    /// The stream evaluation `id`'s recompute at positions `from ..`.
    Recomputed {
        id: u32,
        from: usize,
        losses: Numbers,
    },
    /// How far the model worker's composition `id` is: `done` of `total` steps.
    Composing { id: u32, done: usize, total: usize },
    /// The composition `id`, as `Composition::to_flat`.
    Composed { id: u32, flat: Vec<f64> },
    /// The worker could not start (its files are missing, as in wasm-bindgen-test) or stopped.
    Failed,
}

/// A worker's numbers, still in the buffer it transferred: read (copied into the page's memory)
/// only for a result that is not stale.
pub struct Numbers(Float32Array);

impl Numbers {
    pub fn to_vec(&self) -> Vec<f32> {
        self.0.to_vec()
    }
}

pub(super) fn read(data: &JsValue) -> FromWorker {
    let message = Array::from(data);
    let id = message.get(0).as_f64().unwrap_or(0.0) as u32;
    let number = |i| message.get(i).as_f64().unwrap_or(0.0) as usize;
    match message.get(1).as_string().as_deref() {
        _ if message.get(0).as_string().as_deref() == Some("ready") => FromWorker::Ready,
        Some("projections") => FromWorker::Projections {
            id,
            flat: Numbers(Float32Array::new(&message.get(2))),
        },
        Some("unit") => FromWorker::Unit {
            id,
            unit: number(2),
            flat: Numbers(Float32Array::new(&message.get(3))),
        },
        Some("error") => FromWorker::Error {
            id,
            message: message.get(2).as_string().unwrap_or_default(),
        },
        Some("model") => FromWorker::ModelOpened {
            id,
            memory: message.get(2).as_f64().unwrap_or(0.0),
            kept: message.get(3).as_f64().unwrap_or(0.0),
        },
        Some("forward") => FromWorker::Forward {
            id,
            flat: Numbers(Float32Array::new(&message.get(2))),
            ms: message.get(3).as_f64().unwrap_or(0.0),
            memory: message.get(4).as_f64().unwrap_or(0.0),
            last_logits: {
                let logits = message.get(5);
                logits
                    .is_instance_of::<js_sys::ArrayBuffer>()
                    .then(|| Numbers(Float32Array::new(&logits)))
            },
            adapter: message.get(6).as_string(),
            gpu_failed: message.get(7).dyn_into::<Array>().ok().and_then(|failed| {
                let detail = failed.get(1).as_string().unwrap_or_default();
                failed.get(0).as_string().map(|code| (code, detail))
            }),
        },
        Some("step") => FromWorker::Stepped {
            id,
            json: message.get(2).as_string().unwrap_or_default(),
        },
        Some("not_kept") => FromWorker::NotKept { id },
        Some("generated") => FromWorker::Generated {
            id,
            json: message.get(2).as_string().unwrap_or_default(),
        },
        Some("streaming") => FromWorker::Streaming {
            id,
            phase: number(2),
            done: number(3),
            total: number(4),
        },
        Some("streamed") => FromWorker::Streamed {
            id,
            with_sinks: Numbers(Float32Array::new(&message.get(2))),
            without_sinks: Numbers(Float32Array::new(&message.get(3))),
            share: Numbers(Float32Array::new(&message.get(4))),
            heads: number(5),
        },
        Some("recomputed") => FromWorker::Recomputed {
            id,
            from: number(2),
            losses: Numbers(Float32Array::new(&message.get(3))),
        },
        Some("composing") => FromWorker::Composing {
            id,
            done: number(2),
            total: number(3),
        },
        Some("composed") => FromWorker::Composed {
            id,
            flat: js_sys::Float64Array::new(&message.get(2)).to_vec(),
        },
        Some("kernel") => FromWorker::Kernel {
            json: message.get(2).as_string().unwrap_or_default(),
        },
        _ => FromWorker::Failed,
    }
}
