//! What a change of parameters fits in the rest of the request: the sink logits to the number
//! of heads, a custom mask to the number of tokens.

use attention_core::api::{MaskRequest, Request};

/// Gives the sink logits one value per head when the number of heads changes (new heads start at
/// 0, removed heads drop theirs); on a change of model, whose heads the request does not know,
/// they are cleared.
pub fn fit_sink_logits(request: &mut Request, model_changed: bool) {
    if request.is_trained() {
        if model_changed {
            request.sink_logits = None;
        }
        return;
    }
    let heads = request
        .n_heads
        .unwrap_or(attention_core::pipeline::config::DEFAULT_N_HEADS);
    if let Some(logits) = &mut request.sink_logits {
        logits.resize(heads, 0.0);
    }
}

/// Resizes a custom mask to the request's token counts.
pub fn fit_custom_mask(request: &mut Request) {
    if !matches!(request.mask, Some(MaskRequest::Custom { .. })) {
        return;
    }
    let (Some(queries), Some(keys)) = request.lengths() else {
        return;
    };
    if let Some(MaskRequest::Custom { allowed }) = &mut request.mask {
        allowed.resize(queries, vec![true; keys]);
        for row in allowed.iter_mut() {
            row.resize(keys, true);
        }
    }
}
