//! The compact lab of `?embed=1`: only the chosen panels, no page chrome, and a link to the
//! full lab.

use leptos::prelude::*;

use super::controls::Controls;
use super::flash::FlashView;
use super::head_view::HeadView;
use super::input_panel::InputPanel;
use super::live_region::LiveRegion;
use super::pipeline::{AllHeads, StageCard};
use super::tooltip::Tooltip;
use crate::ui::browser::location;
use crate::ui::model::link::LinkState;
use crate::ui::model::stages::Stage;
use crate::ui::state::Lab;

/// What an embed shows when its link names no panels.
pub const DEFAULT_PANELS: [&str; 2] = ["weights", "head-view"];

/// One panel of an embed, by name.
fn panel(name: &str) -> AnyView {
    let stage = Stage::from_id(name);
    match (name, stage) {
        (_, Some(stage)) => {
            view! { <div class="step"><div class="stage-row"><StageCard stage=stage /></div></div> }
                .into_any()
        }
        ("head-view", _) => view! { <div class="step"><HeadView /></div> }.into_any(),
        ("all-heads", _) => view! { <AllHeads /> }.into_any(),
        ("flash", _) => view! { <FlashView /> }.into_any(),
        ("sentence", _) => view! { <InputPanel /> }.into_any(),
        ("controls", _) => view! { <Controls /> }.into_any(),
        _ => ().into_any(),
    }
}

/// The compact lab: the chosen panels, no page chrome, and a link to the full lab.
#[component]
pub fn EmbedLayout() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let panels = Memo::new(move |_| {
        let chosen = lab.embed.get().map(|e| e.panels).unwrap_or_default();
        if chosen.is_empty() {
            DEFAULT_PANELS
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
        } else {
            chosen
        }
    });
    let full = move || {
        location::href(&LinkState {
            embed: None,
            ..location::current(lab)
        })
    };
    view! {
        <div class="lab embed" lang=move || lab.lang.get().code() data-testid="embed">
            <div class="embed-bar">
                <span class="embed-title">{move || text().title}</span>
                <span class="help">{move || lab.shown.with(|t| t.as_ref().map(|t| t.0.config.tokens().join(" ")))}</span>
                <a href=full target="_blank" rel="noopener" data-testid="open-full">{move || text().open_full}</a>
            </div>
            {move || panels.get().iter().map(|p| panel(p)).collect_view()}
            <Tooltip />
            <LiveRegion />
        </div>
    }
}
