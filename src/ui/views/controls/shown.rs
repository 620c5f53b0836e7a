//! What several controls read of the lab: whether the trained model is chosen, and the
//! dimensions and lengths of the trace shown.

use leptos::prelude::*;

use crate::ui::state::Lab;
use attention_core::math::weights::Dims;

/// Whether the trained model is chosen (its shape, weights and LayerNorm are then fixed).
pub(super) fn trained(lab: Lab) -> Memo<bool> {
    Memo::new(move |_| lab.request.with(|r| r.is_trained()))
}

/// The dimensions in effect (the shown trace's; the defaults before the first one).
pub(super) fn shown_dims(lab: Lab) -> Memo<Dims> {
    Memo::new(move |_| {
        lab.shown.with(|t| {
            t.as_ref().map_or(
                Dims {
                    d_model: 16,
                    n_heads: 2,
                    n_kv_heads: 2,
                    d_k: 8,
                    d_v: 8,
                },
                |t| *t.0.config.dims(),
            )
        })
    })
}

/// The numbers of query and key tokens of the shown trace.
pub(super) fn shown_lengths(lab: Lab) -> Memo<(usize, usize)> {
    Memo::new(move |_| {
        lab.shown.with(|t| {
            t.as_ref()
                .map_or((1, 1), |t| (t.0.config.seq_len(), t.0.config.key_len()))
        })
    })
}
