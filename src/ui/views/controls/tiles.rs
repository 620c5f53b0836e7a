//! FlashAttention's tile size: query rows and key columns per tile; by default chosen from the
//! sentence (a handful of tiles per side), or set by hand.

use leptos::prelude::*;

use super::widgets::AutoIntControl;
use crate::ui::state::Lab;
use attention_core::api::{BlockRequest, Request};

#[component]
pub fn FlashTiles() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let block = move || lab.request.with(|r| r.block).unwrap_or_default();
    // The tile size in effect, chosen or automatic.
    let in_effect = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().map_or((1, 1), |t| t.0.config.block()))
    });
    let set_block = move |block: BlockRequest| {
        lab.change(Request {
            block: Some(block),
            ..Request::default()
        })
    };
    view! {
        <h2>{move || text().flash_section}</h2>
        <div class="pair">
            <AutoIntControl
                label=Signal::derive(move || text().block_rows.to_string())
                help=""
                test_id="block-rows"
                value=Signal::derive(move || in_effect.get().0)
                auto=Signal::derive(move || block().rows.is_none())
                lang=lab.lang
                on_change=Callback::new(move |rows| set_block(BlockRequest { rows, ..block() }))
            />
            <AutoIntControl
                label=Signal::derive(move || text().block_cols.to_string())
                help=""
                test_id="block-cols"
                value=Signal::derive(move || in_effect.get().1)
                auto=Signal::derive(move || block().cols.is_none())
                lang=lab.lang
                on_change=Callback::new(move |cols| set_block(BlockRequest { cols, ..block() }))
            />
        </div>
        <p class="help block">{move || text().block_help}</p>
    }
}
