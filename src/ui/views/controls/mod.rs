//! The control panel: every parameter of the computation, one component per section, each taking
//! effect as it changes. Impossible combinations are prevented where a control can (K/V heads are
//! offered only as divisors of the number of heads) and otherwise explained inline.

mod backend;
mod layer_norm;
mod mask;
mod model;
mod positions;
mod score_shaping;
mod shape;
mod softmax;
mod tiles;
mod weights;
mod widgets;

use leptos::prelude::*;

use crate::ui::state::Lab;
use attention_core::weights::Dims;

pub use widgets::{AutoIntControl, IntControl, Segmented};

/// Every numeric and categorical parameter.
#[component]
pub fn Controls() -> impl IntoView {
    view! {
        <section class="panel controls" data-testid="controls">
            <model::ModelControl />
            <weights::WeightsControl />
            <shape::ModelShape />
            <softmax::Softmax />
            <mask::MaskControl />
            <positions::PositionsControl />
            <score_shaping::ScoreShapingControl />
            <layer_norm::LayerNormControl />
            <backend::BackendControl />
            <tiles::FlashTiles />
        </section>
    }
}

/// Whether the trained model is chosen (its shape, weights and LayerNorm are then fixed).
fn trained(lab: Lab) -> Memo<bool> {
    Memo::new(move |_| lab.request.with(|r| r.is_trained()))
}

/// The dimensions in effect (the shown trace's; the defaults before the first one).
fn shown_dims(lab: Lab) -> Memo<Dims> {
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
fn shown_lengths(lab: Lab) -> Memo<(usize, usize)> {
    Memo::new(move |_| {
        lab.shown.with(|t| {
            t.as_ref()
                .map_or((1, 1), |t| (t.0.config.seq_len(), t.0.config.key_len()))
        })
    })
}
