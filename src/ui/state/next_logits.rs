//! A pass's next-token logits at a position, computed once however many views ask: the LM head
//! reads the whole unembedding (GPT-2 small's is 154 MB of f32), and the next-token list, "Who
//! wrote this prediction?" and `state()` all ask for the same position after each pass. The
//! model's worker sends the last position's with its pass ([`seed`]); others are computed here
//! on first asking.

use std::cell::RefCell;
use std::sync::{Arc, Weak};

use attention_core::models::sampling::{Prediction, top_k};
use attention_core::models::{Forward, Model};
use ndarray::Array1;

/// How many (pass, position) logits are kept: the last pass's few positions.
const KEPT: usize = 4;

type Entry = (Weak<Forward>, usize, Arc<Array1<f32>>);

thread_local! {
    static KEPT_LOGITS: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// Keeps `logits` as `forward`'s at `position` (the model's worker computed them).
pub fn seed(forward: &Arc<Forward>, position: usize, logits: Array1<f32>) {
    KEPT_LOGITS.with_borrow_mut(|kept| {
        // A pass that is gone takes its entries with it (a new pass may reuse its address).
        kept.retain(|(f, _, _)| f.strong_count() > 0);
        kept.insert(0, (Arc::downgrade(forward), position, Arc::new(logits)));
        kept.truncate(KEPT);
    });
}

/// `forward`'s next-token logits after `position`, from what is kept or computed now (and kept).
pub fn logits(model: &Model, forward: &Arc<Forward>, position: usize) -> Arc<Array1<f32>> {
    let found = KEPT_LOGITS.with_borrow(|kept| {
        kept.iter()
            .find(|(f, at, _)| *at == position && std::ptr::eq(f.as_ptr(), Arc::as_ptr(forward)))
            .map(|(_, _, logits)| logits.clone())
    });
    if let Some(logits) = found {
        return logits;
    }
    let logits = model.logits(forward, position);
    seed(forward, position, logits);
    KEPT_LOGITS.with_borrow(|kept| kept[0].2.clone())
}

/// The `k` likeliest next tokens after `position` of `forward`.
pub fn predictions(
    model: &Model,
    forward: &Arc<Forward>,
    position: usize,
    k: usize,
) -> Vec<Prediction> {
    top_k(logits(model, forward, position).view(), k)
}
