//! A user's model's attention on the WebGPU this worker finds (`navigator.gpu` is a worker's
//! too): each block's attention — projections, scores, softmax, outputs — computed by
//! `attention_gpu::GpuBackend`, its norms, residual and MLP here, as the command line's
//! `"backend": "gpu"` computes them (`GpuBackend::forward`). The GPU is opened on the first pass
//! that asks for it and kept; a pass waits for it between its blocks (the worker answers
//! other messages meanwhile), and a block it cannot compute is computed on the CPU, the pass
//! saying why ([`super::Pending::fallback`]).

use std::cell::RefCell;

use attention_gpu::{GpuBackend, GpuError};
use web_sys::DedicatedWorkerGlobalScope;

use super::{PASS, PASS_SERIAL, Pending, cpu_block, error_to, now, schedule, went_on, with_model};

/// The worker's GPU.
enum Gpu {
    /// Not asked for yet (or lost: opened again when next asked for).
    Unopened,
    Opening,
    Ready(Box<GpuBackend>),
    /// Computing a block (the backend is with that computation).
    Computing,
    /// It could not be opened: every pass asking for it is computed on the CPU, saying why.
    Failed(GpuError),
}

thread_local! {
    static GPU: RefCell<Gpu> = const { RefCell::new(Gpu::Unopened) };
}

impl Pending {
    /// Whether this pass waits for the GPU (while it opens, or computes another block): a pass
    /// asking for it cannot run its next block then.
    pub(super) fn waits_for_gpu(&self) -> bool {
        self.gpu && GPU.with_borrow(|gpu| matches!(gpu, Gpu::Opening | Gpu::Computing))
    }

    /// The next block of this pass (one that asks for the GPU): its attention sent to the GPU,
    /// the block put together when it answers; on the CPU when the GPU failed to open; the GPU
    /// opened first when it is not open.
    pub(super) fn gpu_block(self, scope: &DedicatedWorkerGlobalScope) {
        let mut pending = self;
        // The rest of a block's MLP, whose attention the GPU computed: here, a piece a turn.
        if pending.work.mid_block() {
            return cpu_block(scope, pending);
        }
        let gpu = GPU.replace(Gpu::Computing);
        let mut backend = match gpu {
            Gpu::Ready(backend) => backend,
            // A device refused once is asked for again by the next pass (a new edit), not by
            // every block; what cannot change in this browser (no WebGPU, no adapter, a shader it
            // does not compile) is not.
            Gpu::Failed(GpuError::RequestDevice(_)) if !pending.reopened_gpu => {
                pending.reopened_gpu = true;
                open(scope);
                return PASS.with_borrow_mut(|pass| *pass = Some(pending));
            }
            Gpu::Failed(error) => {
                pending.fallback.get_or_insert_with(|| error.clone());
                GPU.set(Gpu::Failed(error));
                return cpu_block(scope, pending);
            }
            Gpu::Unopened => {
                open(scope);
                return PASS.with_borrow_mut(|pass| *pass = Some(pending));
            }
            // Not called then (`waits_for_gpu`): the pass waits.
            busy @ (Gpu::Opening | Gpu::Computing) => {
                GPU.set(busy);
                return PASS.with_borrow_mut(|pass| *pass = Some(pending));
            }
        };
        let config = with_model(|model| {
            model
                .next_attention(&mut pending.work)
                .map_err(|e| e.to_string())
        });
        let config = match config {
            Ok(Some(config)) => config,
            // Every block has run: the pass is answered.
            Ok(None) => {
                GPU.set(Gpu::Ready(backend));
                return went_on(scope, pending, Ok(true));
            }
            Err(error) => {
                GPU.set(Gpu::Ready(backend));
                return error_to(scope, pending.id, &error);
            }
        };
        let scope = scope.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let started = now();
            let computed = backend.computed_by(&config).await;
            drop(config);
            // A lost device is opened again for the next pass that asks.
            GPU.set(match computed {
                Err(GpuError::DeviceLost(_)) => Gpu::Unopened,
                _ => Gpu::Ready(backend),
            });
            // A pass replaced or dropped meanwhile is not put back.
            if PASS_SERIAL.get() == pending.serial {
                let done = with_model(|model| {
                    match computed {
                        Ok((computed, by)) => {
                            if let attention_core::Backend::Gpu { adapter } = &by {
                                pending.adapter.get_or_insert_with(|| adapter.clone());
                            }
                            model.work_layer_with(&mut pending.work, computed, by)
                        }
                        // What the shaders do not compute (a hybrid's linear layer): here, as the
                        // command line does, the layer's trace naming the CPU.
                        // (A piece at a time, as on the CPU: a large MLP in slices.)
                        Err(GpuError::Unsupported(_)) => model.work_piece(&mut pending.work),
                        Err(error) => {
                            pending.fallback.get_or_insert(error);
                            model.work_piece(&mut pending.work)
                        }
                    }
                    .map_err(|e| e.to_string())
                });
                pending.ms += now() - started;
                went_on(&scope, pending, done);
            }
            schedule(&scope);
        });
    }
}

/// Opens the GPU (its adapter, device and shaders), then goes on with what waits.
fn open(scope: &DedicatedWorkerGlobalScope) {
    GPU.set(Gpu::Opening);
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        GPU.set(match GpuBackend::new().await {
            Ok(backend) => Gpu::Ready(Box::new(backend)),
            Err(error) => Gpu::Failed(error),
        });
        schedule(&scope);
    });
}
