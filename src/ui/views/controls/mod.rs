//! The control panel: every parameter of the computation, one component per section, each taking
//! effect as it changes. Impossible combinations are prevented where a control can (K/V heads are
//! offered only as divisors of the number of heads) and otherwise explained inline.

mod attention_kind;
mod backend;
mod layer_norm;
mod mask;
mod model;
pub mod own_model;
mod positions;
mod score_shaping;
mod shape;
mod shown;
mod softmax;
mod tiles;
mod weights;
mod widgets;

use leptos::prelude::*;

pub use widgets::{AutoIntControl, IntControl, Segmented};

/// Every numeric and categorical parameter.
#[component]
pub fn Controls() -> impl IntoView {
    view! {
        <section class="panel controls" data-testid="controls">
            <model::ModelControl />
            <weights::WeightsControl />
            <shape::ModelShape />
            <attention_kind::AttentionKindControl />
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
