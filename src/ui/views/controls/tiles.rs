//! FlashAttention's tile size: query rows and key columns per tile.

use leptos::prelude::*;

use super::widgets::IntControl;
use crate::ui::state::Lab;
use attention_core::api::{BlockRequest, Request};

#[component]
pub fn FlashTiles() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let block = move || lab.request.with(|r| r.block).unwrap_or_default();
    let set_block = move |block: BlockRequest| {
        lab.change(Request {
            block: Some(block),
            ..Request::default()
        })
    };
    view! {
        <h2>{move || text().flash_section}</h2>
        <div class="pair">
            <IntControl
                label=Signal::derive(move || text().block_rows.to_string())
                help=""
                test_id="block-rows"
                min=1usize
                max=64usize
                value=Signal::derive(move || block().rows.unwrap_or(16))
                on_change=Callback::new(move |v| set_block(BlockRequest { rows: Some(v), ..block() }))
            />
            <IntControl
                label=Signal::derive(move || text().block_cols.to_string())
                help=""
                test_id="block-cols"
                min=1usize
                max=64usize
                value=Signal::derive(move || block().cols.unwrap_or(16))
                on_change=Callback::new(move |v| set_block(BlockRequest { cols: Some(v), ..block() }))
            />
        </div>
        <p class="help block">{move || text().block_help}</p>
    }
}
