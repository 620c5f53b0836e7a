//! The page's model worker: a user's model (a Hugging Face folder) held in this worker's
//! memory, so that its forward pass and its generation never hold up the page's thread.
//!
//! Messages (arrays, as the unit worker's):
//! - to the worker: `[id, "model", name, files, vocab]`: a folder's files (an object of file name
//!   → `ArrayBuffer`, handed over by the page, read a tensor at a time) and the vocabulary's pieces (the page's tokenizer module read them); the
//!   worker builds its copy of the model (`models::hf::from_folder_with`) and answers
//!   `[id, "model", memory, kept]` (its WebAssembly memory's bytes, and the bytes of the folders'
//!   files it keeps to build again: [`reopen`]), or `[id, "error", message]`;
//! - to the worker: `[id, "reopen", name]`: the folder `name` the page goes back to, built again
//!   from the files the worker kept ([`reopen`]), answered as `"model"` is, or
//!   `[id, "not_kept", name]`;
//! - to the worker: `[id, "forward", request, tokens, ids, whole, edit, gpu]`: the trained
//!   request's JSON (its mask, temperature, tiles, score options, heads knocked out), the
//!   window's tokens and ids (a `Uint32Array`), how many tokens the whole text has, and whether
//!   each layer's attention is computed on this worker's WebGPU (`model/on_gpu.rs`); the worker runs
//!   `Model::forward_work` a block at a time (a newer `forward` replaces it between two blocks,
//!   and it waits while they come faster than one per `HOLD_MS`: see [`forward`]) and answers
//!   `[id, "forward", buffer, ms, memory, logits, adapter, fallback]`, the work as
//!   `ForwardWork::to_flat` in a transferred `ArrayBuffer`, the milliseconds it computed, its
//!   memory's bytes, the next-token logits after the last position (a transferred
//!   `ArrayBuffer`, or null for no token), the GPU's name when a layer was computed there (else
//!   null), and, when the GPU was asked for and could not compute a layer, why: `[code,
//!   detail]` (`GpuError::code` and `GpuError::detail`; else null);
//! - to the worker: `[id, "generate", request, steps, cache, temperature, seed, ids]`: a
//!   generation of the held model after the prompt's ids (a `Uint32Array`, the page tokenized
//!   the sentence) under the trained request (its JSON: the attention's temperature;
//!   `temperature` 0 for greedy sampling, `seed` a decimal string), prefilled at once (the worker answers only
//!   `[id, "error", message]`, when it cannot start);
//! - to the worker: `[id, "stream", ids, window, sinks]`: a stream evaluation of the held model
//!   (see [`stream`] for its answers); `[id, "compose"]`: the composition of its heads (see
//!   [`compose`]); `[0, "drop", what]`: the forward pass, the stream or the composition under
//!   way is not wanted ([`drop_job`]);
//! - to the worker: `[id, "step", check]`: the next step of generation `id` (compared with a
//!   recompute of the whole text when `check`); the worker answers `[id, "step", json]`, the
//!   step as `Step`'s JSON (`null` once every asked step is taken), or `[id, "error", message]`;
//! - to the worker: `[id, "generate_json", request, ids]`: a whole generation after the prompt's
//!   ids (a `Uint32Array`) under the trained request (its JSON, with its `"generate"` object), as
//!   `attentionLab.generate()` answers it for a folder's model, one after another, each taken a
//!   few steps a turn (a forward pass asked for meanwhile runs between them; another model
//!   answers the waiting ones with an error); the worker answers
//!   `[id, "generated", json]`, the CLI's `"generate"` JSON ([`generate_json_from_ids`]), or
//!   `[id, "error", message]`.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use attention_core::api::{GenerationJson, Request, generation_input, step_json};
use attention_core::circuits::composition::CompositionSteps;
use attention_core::io::safetensors::ReadAt;
use attention_core::models::Model;
use attention_core::models::generate::{Decoder, GenerateSpec, Sampling};
use attention_core::models::hf::from_folder_with;
use attention_core::models::remote::LayeredWork;
use attention_core::models::stream::{StreamPhase, StreamSpec, StreamSteps};
use attention_core::models::tokenizer::{PiecesOnly, TextTokenizer};
use js_sys::{Array, Float32Array, Object, Uint8Array, Uint32Array};
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel};

use super::scope::{now, post};

mod on_gpu;

thread_local! {
    static MODEL: RefCell<Option<Model>> = const { RefCell::new(None) };
    /// The forward pass under way (one at a time: a newer one replaces it).
    static PASS: RefCell<Option<Pending>> = const { RefCell::new(None) };
    /// The stream evaluation under way (after any forward pass; a newer one replaces it).
    static STREAM: RefCell<Option<Streaming>> = const { RefCell::new(None) };
    /// The composition of the held model's heads under way (after any forward pass), and its id.
    static COMPOSE: RefCell<Option<(JsValue, CompositionSteps)>> = const { RefCell::new(None) };
    /// The whole generations asked for (`generate_json`), in order: the first taken a few steps
    /// a turn, the others waiting (unstarted: their prefill runs when their turn comes).
    static WHOLE: RefCell<VecDeque<Whole>> = const { RefCell::new(VecDeque::new()) };
    /// Whether the last turn went to the stream evaluation (so that the next goes to the
    /// composition when both wait).
    static STREAMED_LAST: Cell<bool> = const { Cell::new(false) };
    /// When the last `forward` message came, and when the pass may go on (ms, the worker's clock).
    static LAST_EDIT: Cell<f64> = const { Cell::new(f64::NEG_INFINITY) };
    static RESUME_AT: Cell<f64> = const { Cell::new(f64::NEG_INFINITY) };
    static SCHEDULED: Cell<bool> = const { Cell::new(false) };
    static TURN: RefCell<Option<Turn>> = const { RefCell::new(None) };
    /// The generation under way: its message's id and its decoder (one at a time).
    static DECODER: RefCell<Option<(f64, Decoder)>> = const { RefCell::new(None) };
    /// Counts the passes asked for and dropped: a block computed on the GPU for a pass since
    /// replaced or dropped is not put back (`model/on_gpu.rs`).
    static PASS_SERIAL: Cell<u64> = const { Cell::new(0) };
}

/// The pass under way is replaced or dropped.
fn next_serial() -> u64 {
    PASS_SERIAL.set(PASS_SERIAL.get().wrapping_add(1));
    PASS_SERIAL.get()
}

/// Builds the model from `[id, "model", name, files, vocab]`.
pub fn open(scope: &DedicatedWorkerGlobalScope, message: &Array) {
    let name = message.get(2).as_string().unwrap_or_default();
    let (files, vocab) = (message.get(3), message.get(4));
    // Another folder of that name's kept files are not this one's.
    FOLDERS.with_borrow_mut(|folders| folders.retain(|f| f.name != name));
    let id = message.get(0);
    if build(scope, id.clone(), &name, &files, &vocab) {
        remember(name, files, vocab);
        opened(scope, &id);
    }
}

/// `[id, "model", memory, kept]`: the model is built; this worker's WebAssembly memory's bytes,
/// and the bytes of the folders' files it keeps (in JavaScript's memory, beside it).
fn opened(scope: &DedicatedWorkerGlobalScope, id: &JsValue) {
    let kept: f64 = FOLDERS.with_borrow(|folders| folders.iter().map(|f| f.bytes).sum());
    let answer = Array::of4(id, &"model".into(), &memory_bytes().into(), &kept.into());
    post(scope, &answer, None);
}

/// Builds again, from the files it kept, the folder's model `name` that the page goes back to:
/// `[id, "reopen", name]`, answered as `"model"` is, or `[id, "not_kept", name]` when its files
/// were not kept (the page computes then; this worker stays, holding no model).
pub fn reopen(scope: &DedicatedWorkerGlobalScope, message: &Array) {
    let id = message.get(0);
    let name = message.get(2).as_string().unwrap_or_default();
    let kept = FOLDERS.with_borrow(|folders| {
        folders
            .iter()
            .find(|f| f.name == name)
            .map(|f| (f.files.clone(), f.vocab.clone()))
    });
    match kept {
        Some((files, vocab)) => {
            if build(scope, id.clone(), &name, &files, &vocab) {
                remember(name, files, vocab);
                opened(scope, &id);
            }
        }
        None => {
            // What the page posts next is for that model: nothing is computed with another.
            forget_model(scope);
            post(
                scope,
                &Array::of3(&id, &"not_kept".into(), &name.into()),
                None,
            );
        }
    }
}

/// A folder given to this worker: its files (an object of file name → `ArrayBuffer`, in
/// JavaScript's memory), its vocabulary's pieces, and their bytes.
struct Folder {
    name: String,
    files: JsValue,
    vocab: JsValue,
    bytes: f64,
}

/// The bytes of kept folders' files, in all, past which the oldest are let go (a model of a
/// billion parameters is not kept beside the one built from it).
const KEEP_BYTES: f64 = 512.0 * 1024.0 * 1024.0;

thread_local! {
    /// The folders this worker was given, the latest last, while their files fit in
    /// [`KEEP_BYTES`]: the page going back to one of them has it built here again ([`reopen`]).
    static FOLDERS: RefCell<Vec<Folder>> = const { RefCell::new(Vec::new()) };
}

fn remember(name: String, files: JsValue, vocab: JsValue) {
    let bytes = files.dyn_ref::<Object>().map_or(0.0, |object| {
        Object::values(object)
            .iter()
            .map(|buffer| f64::from(Uint8Array::new(&buffer).length()))
            .sum()
    });
    FOLDERS.with_borrow_mut(|folders| {
        folders.retain(|f| f.name != name);
        // A folder over the budget is not kept, and sends none of the others away.
        if bytes > KEEP_BYTES {
            return;
        }
        folders.push(Folder {
            name,
            files,
            vocab,
            bytes,
        });
        while folders.iter().map(|f| f.bytes).sum::<f64>() > KEEP_BYTES {
            folders.remove(0);
        }
    });
}

/// Lets go of the model held and of everything computed with it; a whole generation under way
/// is answered with an error (its promise would otherwise wait for ever).
fn forget_model(scope: &DedicatedWorkerGlobalScope) {
    MODEL.with_borrow_mut(|model| *model = None);
    PASS.with_borrow_mut(|pass| *pass = None);
    next_serial();
    STREAM.with_borrow_mut(|stream| *stream = None);
    COMPOSE.with_borrow_mut(|compose| *compose = None);
    DECODER.with_borrow_mut(|decoder| *decoder = None);
    for whole in WHOLE.with_borrow_mut(std::mem::take) {
        error_to(
            scope,
            whole.id(),
            "generate: the model was replaced before the generation finished",
        );
    }
}

/// Builds the model `name` from its `files` and `vocab` in place of the one held, and answers
/// `[id, "error", message]` when it cannot be built; whether it was built (the caller answers
/// then: [`opened`]).
fn build(
    scope: &DedicatedWorkerGlobalScope,
    id: JsValue,
    name: &str,
    files: &JsValue,
    vocab: &JsValue,
) -> bool {
    forget_model(scope);
    // The files stay in JavaScript's memory; the model is built from them a tensor at a time.
    let mut read = BTreeMap::new();
    if let Some(object) = files.dyn_ref::<Object>() {
        for key in Object::keys(object).iter() {
            let Some(file) = key.as_string() else {
                continue;
            };
            let value = js_sys::Reflect::get(files, &key).unwrap_or(JsValue::NULL);
            read.insert(file, JsBytes(Uint8Array::new(&value)));
        }
    }
    let vocab: Vec<String> = Array::from(vocab)
        .iter()
        .map(|piece| piece.as_string().unwrap_or_default())
        .collect();
    let built = from_folder_with(name, &read, &|_| {
        Ok(Arc::new(PiecesOnly(vocab.clone())) as Arc<dyn TextTokenizer>)
    });
    drop(read);
    match built {
        Ok(model) => {
            MODEL.with_borrow_mut(|slot| *slot = Some(model));
            true
        }
        Err(error) => {
            error_to(scope, id, &error.to_string());
            false
        }
    }
}

/// Starts `[id, "forward", request, tokens, ids, whole, edit]`, in place of any pass under way
/// (a pass of an older edit is not wanted any more). It runs a block per turn of the worker's
/// event loop; while edits keep coming (each an `edit` message within [`HOLD_MS`] of the one
/// before: a sentence being typed), it waits for them to pause, so that the page's thread has
/// the machine's other core to itself while a person types.
pub fn forward(scope: &DedicatedWorkerGlobalScope, message: &Array) {
    let id = message.get(0);
    let started = now();
    let request = message.get(2).as_string().unwrap_or_default();
    let tokens: Vec<String> = Array::from(&message.get(3))
        .iter()
        .map(|t| t.as_string().unwrap_or_default())
        .collect();
    let ids = Uint32Array::new(&message.get(4)).to_vec();
    let whole = message.get(5).as_f64().unwrap_or(0.0) as usize;
    let edit = message.get(6).as_bool().unwrap_or(true);
    let gpu = message.get(7).as_bool().unwrap_or(false);
    PASS.with_borrow_mut(|pass| *pass = None);
    let serial = next_serial();
    let run = serde_json::from_str::<Request>(&request)
        .map_err(|e| e.to_string())
        .and_then(|r| r.trained_run().map_err(|e| e.to_string()));
    let begun = run.and_then(|(_, run)| {
        let run = run.windowed(whole, whole.saturating_sub(ids.len()));
        with_model(|model| {
            model
                .begin_work(&tokens, &ids, &run)
                .map_err(|e| e.to_string())
        })
    });
    match begun {
        Ok(work) => {
            if edit {
                let edited = LAST_EDIT.replace(started);
                if started - edited < HOLD_MS {
                    RESUME_AT.set(started + HOLD_MS);
                }
            }
            PASS.with_borrow_mut(|pass| {
                *pass = Some(Pending {
                    id,
                    work,
                    positions: ids.len(),
                    ms: now() - started,
                    serial,
                    gpu,
                    adapter: None,
                    fallback: None,
                    reopened_gpu: false,
                })
            });
            schedule(scope);
        }
        Err(error) => error_to(scope, id, &error),
    }
}

/// Drops what the page wants no longer: `[0, "drop", what]`, the forward pass under way
/// (`what` absent or "pass"), the stream evaluation ("stream") or the composition ("compose").
pub fn drop_job(message: &Array) {
    match message.get(2).as_string().as_deref() {
        Some("stream") => STREAM.with_borrow_mut(|stream| *stream = None),
        Some("compose") => COMPOSE.with_borrow_mut(|compose| *compose = None),
        _ => {
            PASS.with_borrow_mut(|pass| *pass = None);
            next_serial();
        }
    }
}

/// How soon after the edit before it an edit counts as typing, ms (a fast typist's keys come
/// 100–250 ms apart).
const HOLD_MS: f64 = 250.0;

/// The forward pass under way.
struct Pending {
    id: JsValue,
    work: LayeredWork,
    /// Its number of tokens.
    positions: usize,
    /// The milliseconds computed so far (not the waits).
    ms: f64,
    /// Its number among the passes asked for ([`PASS_SERIAL`]).
    serial: u64,
    /// Whether its attention is asked of the GPU.
    gpu: bool,
    /// The GPU's name, once it computed a layer.
    adapter: Option<String>,
    /// Why the GPU did not compute a layer it was asked for (the CPU did): the first failure.
    fallback: Option<attention_gpu::GpuError>,
    /// Whether it asked again for a GPU device refused before (once a pass).
    reopened_gpu: bool,
}

/// Runs the pass under way's next block on the worker's next turn, or when the typing pauses.
fn schedule(scope: &DedicatedWorkerGlobalScope) {
    if SCHEDULED.replace(true) {
        return;
    }
    let wait = RESUME_AT.get() - now();
    let scheduled = TURN.with_borrow_mut(|turn| {
        let turn = turn.get_or_insert_with(|| Turn::new(scope));
        if wait > 0.0 {
            scope
                .set_timeout_with_callback_and_timeout_and_arguments_0(
                    turn.callback.as_ref().unchecked_ref(),
                    wait.ceil() as i32,
                )
                .is_ok()
        } else {
            turn.channel
                .as_ref()
                .is_some_and(|c| c.port2().post_message(&JsValue::NULL).is_ok())
        }
    });
    if !scheduled {
        // No timer or channel: the pass goes on now, without waiting.
        SCHEDULED.set(false);
        RESUME_AT.set(f64::NEG_INFINITY);
        next_block(scope);
    }
}

/// The worker's own turn: a message to itself (no timer's delay) or a timeout while typing.
struct Turn {
    channel: Option<MessageChannel>,
    callback: Closure<dyn Fn(JsValue)>,
}

impl Turn {
    fn new(scope: &DedicatedWorkerGlobalScope) -> Self {
        let on = scope.clone();
        let callback = Closure::<dyn Fn(JsValue)>::new(move |_| next_block(&on));
        let channel = MessageChannel::new().ok();
        if let Some(channel) = &channel {
            channel
                .port1()
                .set_onmessage(Some(callback.as_ref().unchecked_ref()));
        }
        Self { channel, callback }
    }
}

/// One block of the pass under way, then back to the event loop (where a newer edit replaces
/// it); the pass's answer once its last block has run.
fn next_block(scope: &DedicatedWorkerGlobalScope) {
    SCHEDULED.set(false);
    let idle = !pass_runnable()
        && COMPOSE.with_borrow(Option::is_none)
        && STREAM.with_borrow(Option::is_none)
        && WHOLE.with_borrow(VecDeque::is_empty);
    if idle {
        return;
    }
    if RESUME_AT.get() > now() {
        return schedule(scope);
    }
    take_turn(scope);
    // What waits besides (a generation, a composition, a stream asked for while this turn was
    // scheduled, which did not schedule one of its own) has the next turn.
    schedule(scope);
}

/// One turn: a block of the pass asked for, else a whole generation's steps, else a
/// composition's or a stream evaluation's.
fn take_turn(scope: &DedicatedWorkerGlobalScope) {
    let pass = pass_runnable()
        .then(|| PASS.with_borrow_mut(Option::take))
        .flatten();
    let Some(pending) = pass else {
        // A whole generation (an API call waiting on it) before the views' longer work.
        if !WHOLE.with_borrow(VecDeque::is_empty) {
            return whole_turn(scope);
        }
        // A composition and a stream evaluation take turns.
        let composes = COMPOSE.with_borrow(Option::is_some);
        let streams = STREAM.with_borrow(Option::is_some);
        let stream_now = streams && !(composes && STREAMED_LAST.get());
        STREAMED_LAST.set(stream_now);
        return if stream_now {
            stream_turn(scope)
        } else {
            compose_turn(scope)
        };
    };
    if pending.gpu {
        return pending.gpu_block(scope);
    }
    cpu_block(scope, pending);
}

/// `f` of the model held, or why there is none.
fn with_model<T>(f: impl FnOnce(&Model) -> Result<T, String>) -> Result<T, String> {
    MODEL.with_borrow(|model| f(model.as_ref().ok_or(NO_MODEL)?))
}

/// What a message needing the model is answered while the worker holds none.
const NO_MODEL: &str = "no model is open in the worker";

/// The next piece of `pending` computed here: a block's attention, or a slice of a large MLP
/// (`Model::work_piece`: tens of milliseconds, so that a newer edit is read soon).
fn cpu_block(scope: &DedicatedWorkerGlobalScope, mut pending: Pending) {
    let started = now();
    let done = with_model(|model| {
        model
            .work_piece(&mut pending.work)
            .map_err(|e| e.to_string())
    });
    pending.ms += now() - started;
    went_on(scope, pending, done);
}

/// The pass after a block: kept for the next, answered after its last, or its error.
fn went_on(scope: &DedicatedWorkerGlobalScope, pending: Pending, done: Result<bool, String>) {
    match done {
        Ok(false) => PASS.with_borrow_mut(|pass| *pass = Some(pending)),
        Ok(true) => answer(scope, pending),
        Err(error) => error_to(scope, pending.id, &error),
    }
}

/// Whether the pass under way can run its next block now (not while it waits for the GPU).
fn pass_runnable() -> bool {
    PASS.with_borrow(|pass| {
        pass.as_ref()
            .is_some_and(|pending| !pending.waits_for_gpu())
    })
}

/// Posts the answer of a pass whose every block has run: its work, the milliseconds computed,
/// the worker's memory and the next-token logits after its last position.
fn answer(scope: &DedicatedWorkerGlobalScope, pending: Pending) {
    let Pending {
        id,
        work,
        positions,
        mut ms,
        adapter,
        fallback,
        ..
    } = pending;
    let started = now();
    let finished = with_model(|model| {
        let (forward, work) = model.finish_work(work).map_err(|e| e.to_string())?;
        // The next-token logits after the last position, which the page shows first: the
        // LM head reads the whole unembedding, better here than on the page's thread.
        let last = positions
            .checked_sub(1)
            .map(|at| model.logits(&forward, at));
        Ok::<_, String>((work.to_flat(), last))
    });
    ms += now() - started;
    match finished {
        Ok((flat, last)) => {
            let buffer = Float32Array::from(flat.as_slice()).buffer();
            let logits = last.map_or(JsValue::NULL, |l| {
                Float32Array::from(l.as_slice().unwrap_or_default())
                    .buffer()
                    .into()
            });
            let reply = Array::of5(
                &id,
                &"forward".into(),
                &buffer,
                &ms.into(),
                &memory_bytes().into(),
            );
            reply.push(&logits);
            reply.push(&adapter.map_or(JsValue::NULL, JsValue::from));
            reply.push(&fallback.map_or(JsValue::NULL, |error| {
                Array::of2(&error.code().into(), &error.detail().into()).into()
            }));
            let transfer = Array::of1(&buffer);
            if !logits.is_null() {
                transfer.push(&logits);
            }
            post(scope, &reply, Some(&transfer));
        }
        Err(error) => error_to(scope, id, &error),
    }
}

/// Starts `[id, "stream", ids, window, sinks]`: the held model reads the text's `ids` (a
/// `Uint32Array`; the page tokenized it) through rolling caches with and without sinks, measures
/// each head's share of attention on the first token and recomputes each position on its
/// window alone (`StreamSteps`), in place of any stream under way, behind any forward pass,
/// and waiting as forward passes wait while a sentence is typed. Each turn of about
/// [`STREAM_TURN_MS`] posts what it read: `[id, "streaming", phase, done, total]` while the
/// rolling caches and the share are read (phase 0, 1, 2), then `[id, "streamed", with_sinks,
/// without_sinks, share, heads]` (the losses and the shares [layers × heads] as `Float32Array`s),
/// then `[id, "recomputed", from, losses]` for the recompute's new positions until the last.
pub fn stream(scope: &DedicatedWorkerGlobalScope, message: &Array) {
    let id = message.get(0);
    STREAM.with_borrow_mut(|stream| *stream = None);
    let ids = Uint32Array::new(&message.get(2)).to_vec();
    let spec = StreamSpec {
        window: message.get(3).as_f64().unwrap_or(0.0) as usize,
        sink_tokens: message.get(4).as_f64().unwrap_or(0.0) as usize,
    };
    let steps = with_model(|model| StreamSteps::new(model, ids, spec).map_err(|e| e.to_string()));
    match steps {
        Ok(steps) => {
            STREAM.with_borrow_mut(|stream| {
                *stream = Some(Streaming {
                    id,
                    steps,
                    read_sent: false,
                    recomputed_sent: 0,
                })
            });
            schedule(scope);
        }
        Err(error) => error_to(scope, id, &error),
    }
}

/// How long a turn of a stream evaluation reads before the worker reads its messages, ms.
const STREAM_TURN_MS: f64 = 40.0;

/// A stream evaluation under way, and what of it the page has been sent.
struct Streaming {
    id: JsValue,
    steps: StreamSteps,
    /// Whether the rolling runs and the share have been sent.
    read_sent: bool,
    /// How many positions of the recompute have been sent.
    recomputed_sent: usize,
}

/// Reads the stream evaluation under way for about [`STREAM_TURN_MS`] and posts what it read.
fn stream_turn(scope: &DedicatedWorkerGlobalScope) {
    let Some(mut job) = STREAM.with_borrow_mut(Option::take) else {
        return;
    };
    let deadline = now() + STREAM_TURN_MS;
    let phase = MODEL.with_borrow(|model| {
        let model = model.as_ref()?;
        loop {
            let phase = job.steps.advance(model);
            if phase == StreamPhase::Done || now() >= deadline {
                return Some(phase);
            }
        }
    });
    let Some(phase) = phase else {
        return error_to(scope, job.id, NO_MODEL);
    };
    let read = matches!(phase, StreamPhase::Recompute | StreamPhase::Done);
    if read && !job.read_sent {
        let (with_sinks, without_sinks) = job.steps.rolling_losses();
        let share = job.steps.first_token_share();
        let heads = share.first().map_or(0, Vec::len);
        let reply = Array::of5(
            &job.id,
            &"streamed".into(),
            &Float32Array::from(with_sinks),
            &Float32Array::from(without_sinks),
            &Float32Array::from(share.concat().as_slice()),
        );
        reply.push(&(heads as f64).into());
        post(scope, &reply, None);
        job.read_sent = true;
    }
    if job.read_sent {
        let fresh = &job.steps.recomputed()[job.recomputed_sent..];
        if !fresh.is_empty() {
            let reply = Array::of4(
                &job.id,
                &"recomputed".into(),
                &(job.recomputed_sent as f64).into(),
                &Float32Array::from(fresh),
            );
            post(scope, &reply, None);
            job.recomputed_sent += fresh.len();
        }
    } else {
        let (done, total) = job.steps.progress();
        let index = match phase {
            StreamPhase::WithSinks => 0,
            StreamPhase::WithoutSinks => 1,
            _ => 2,
        };
        let reply = Array::of5(
            &job.id,
            &"streaming".into(),
            &f64::from(index).into(),
            &(done as f64).into(),
            &(total as f64).into(),
        );
        post(scope, &reply, None);
    }
    if phase != StreamPhase::Done {
        STREAM.with_borrow_mut(|stream| *stream = Some(job));
        schedule(scope);
    }
}

/// Starts `[id, "compose"]`: the composition of the held model's heads (`CompositionSteps`),
/// behind any forward pass, a turn of about [`STREAM_TURN_MS`] at a time, each posting
/// `[id, "composing", done, total]`, the last `[id, "composed", flat]` (`Composition::to_flat`
/// as a `Float64Array`).
pub fn compose(scope: &DedicatedWorkerGlobalScope, message: &Array) {
    let id = message.get(0);
    let steps = MODEL.with_borrow(|model| model.as_ref().map(CompositionSteps::new));
    match steps {
        Some(steps) => {
            COMPOSE.with_borrow_mut(|compose| *compose = Some((id, steps)));
            schedule(scope);
        }
        None => error_to(scope, id, NO_MODEL),
    }
}

/// Computes the composition under way for about [`STREAM_TURN_MS`] and says how far it is.
fn compose_turn(scope: &DedicatedWorkerGlobalScope) {
    let Some((id, mut steps)) = COMPOSE.with_borrow_mut(Option::take) else {
        return;
    };
    let deadline = now() + STREAM_TURN_MS;
    let finished = MODEL.with_borrow(|model| {
        let model = model.as_ref()?;
        while now() < deadline {
            if steps.advance(model) {
                return Some(true);
            }
        }
        Some(false)
    });
    match finished {
        None => error_to(scope, id, NO_MODEL),
        Some(true) => {
            let flat = MODEL.with_borrow(|model| model.as_ref().map(|m| steps.finish(m).to_flat()));
            let flat = js_sys::Float64Array::from(flat.unwrap_or_default().as_slice());
            post(scope, &Array::of3(&id, &"composed".into(), &flat), None);
        }
        Some(false) => {
            let (done, total) = steps.progress();
            let reply = Array::of4(
                &id,
                &"composing".into(),
                &(done as f64).into(),
                &(total as f64).into(),
            );
            post(scope, &reply, None);
            COMPOSE.with_borrow_mut(|compose| *compose = Some((id, steps)));
            schedule(scope);
        }
    }
}

/// Starts `[id, "generate", request, steps, cache, temperature, seed, ids]`: its prompt
/// prefilled.
pub fn generate(scope: &DedicatedWorkerGlobalScope, message: &Array) {
    let id = message.get(0);
    DECODER.with_borrow_mut(|decoder| *decoder = None);
    let request = message.get(2).as_string().unwrap_or_default();
    let temperature = message.get(5).as_f64().unwrap_or(0.0);
    let spec = GenerateSpec {
        steps: message.get(3).as_f64().unwrap_or(0.0) as usize,
        cache: message.get(4).as_bool().unwrap_or(true),
        sampling: if temperature > 0.0 {
            Sampling::Temperature {
                temperature,
                seed: message
                    .get(6)
                    .as_string()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0),
            }
        } else {
            Sampling::Greedy
        },
        // Each step says whether it is checked.
        check: false,
    };
    let decoder = serde_json::from_str::<Request>(&request)
        .map_err(|e| e.to_string())
        .and_then(|r| generation_input(&r).map_err(|e| e.to_string()))
        .and_then(|(_, attention_t)| {
            let ids = Uint32Array::new(&message.get(7)).to_vec();
            with_model(|model| {
                Decoder::from_ids(model, ids, &spec, attention_t, &now).map_err(|e| e.to_string())
            })
        });
    match decoder {
        Ok(decoder) => {
            let number = id.as_f64().unwrap_or(f64::NAN);
            DECODER.with_borrow_mut(|slot| *slot = Some((number, decoder)));
        }
        Err(error) => error_to(scope, id, &error),
    }
}

/// Runs `[id, "step", check]`: the next step of generation `id`.
pub fn step(scope: &DedicatedWorkerGlobalScope, message: &Array) {
    let id = message.get(0);
    let number = id.as_f64().unwrap_or(f64::NAN);
    let check = message.get(2).as_bool().unwrap_or(false);
    let stepped = with_model(|model| {
        DECODER.with_borrow_mut(|slot| match slot {
            Some((of, decoder)) if *of == number => {
                Ok(step_json(decoder.step_checked(model, &now, check)))
            }
            _ => Err(format!(
                "generation {number} is not under way in the worker"
            )),
        })
    });
    match stepped {
        Ok(json) => post(scope, &Array::of3(&id, &"step".into(), &json.into()), None),
        Err(error) => error_to(scope, id, &error),
    }
}

/// A whole generation asked for: waiting its turn (its request and prompt), or under way.
enum Whole {
    Waiting {
        id: JsValue,
        request: String,
        ids: Vec<u32>,
    },
    Running {
        id: JsValue,
        run: Box<GenerationJson>,
    },
}

impl Whole {
    fn id(&self) -> JsValue {
        match self {
            Self::Waiting { id, .. } | Self::Running { id, .. } => id.clone(),
        }
    }
}

/// Queues `[id, "generate_json", request, ids]`: a whole generation, prefilled when its turn
/// comes and taken a few steps a turn ([`whole_turn`]), so that a forward pass asked for
/// meanwhile runs between them; `attentionLab.generate()` resolves when its answer comes.
pub fn generate_whole(scope: &DedicatedWorkerGlobalScope, message: &Array) {
    let whole = Whole::Waiting {
        id: message.get(0),
        request: message.get(2).as_string().unwrap_or_default(),
        ids: Uint32Array::new(&message.get(3)).to_vec(),
    };
    WHOLE.with_borrow_mut(|wholes| wholes.push_back(whole));
    schedule(scope);
}

/// The first whole generation's turn: its prefill, or steps for about [`STREAM_TURN_MS`] (at
/// least one); `[id, "generated", json]` once every asked step is taken.
fn whole_turn(scope: &DedicatedWorkerGlobalScope) {
    let Some(whole) = WHOLE.with_borrow_mut(VecDeque::pop_front) else {
        return;
    };
    let (id, mut run) = match whole {
        Whole::Waiting { id, request, ids } => {
            let started = serde_json::from_str::<Request>(&request)
                .map_err(|e| e.to_string())
                .and_then(|request| {
                    with_model(|model| GenerationJson::start(model, &request, Some(ids), &now))
                });
            match started {
                Ok(run) => WHOLE.with_borrow_mut(|wholes| {
                    wholes.push_front(Whole::Running {
                        id,
                        run: Box::new(run),
                    });
                }),
                Err(error) => error_to(scope, id, &error),
            }
            return schedule(scope);
        }
        Whole::Running { id, run } => (id, run),
    };
    let deadline = now() + STREAM_TURN_MS;
    let finished = MODEL.with_borrow(|model| {
        let model = model.as_ref()?;
        loop {
            if !run.step(model, &now) {
                return Some(true);
            }
            if now() >= deadline {
                return Some(false);
            }
        }
    });
    match finished {
        None => error_to(scope, id, NO_MODEL),
        Some(true) => {
            let json = MODEL.with_borrow(|model| model.as_ref().map(|m| run.finish(m)));
            match json {
                Some(json) => post(
                    scope,
                    &Array::of3(&id, &"generated".into(), &json.to_string().into()),
                    None,
                ),
                None => error_to(scope, id, NO_MODEL),
            }
        }
        Some(false) => {
            WHOLE.with_borrow_mut(|wholes| wholes.push_front(Whole::Running { id, run }))
        }
    }
    schedule(scope);
}

/// A file's bytes in JavaScript's memory, read a range at a time (as the page's own
/// `browser::js_bytes`).
struct JsBytes(Uint8Array);

impl ReadAt for JsBytes {
    fn size(&self) -> u64 {
        u64::from(self.0.length())
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), String> {
        match offset.checked_add(out.len() as u64) {
            Some(end) if end <= self.size() => {
                // Both within the buffer's length, which is a u32.
                self.0.subarray(offset as u32, end as u32).copy_to(out);
                Ok(())
            }
            _ => Err(format!("{} bytes at {offset} run past its end", out.len())),
        }
    }
}

/// The size of this worker's WebAssembly memory, bytes (it only grows).
fn memory_bytes() -> f64 {
    let memory = wasm_bindgen::memory();
    js_sys::Reflect::get(&memory, &"buffer".into())
        .ok()
        .and_then(|b| js_sys::Reflect::get(&b, &"byteLength".into()).ok())
        .and_then(|n| n.as_f64())
        .unwrap_or(0.0)
}

fn error_to(scope: &DedicatedWorkerGlobalScope, id: JsValue, message: &str) {
    post(
        scope,
        &Array::of3(&id, &"error".into(), &message.into()),
        None,
    );
}
