//! The compact lab of `?embed=1`: only the chosen panels, no page chrome, and a link to the
//! full lab.

use leptos::prelude::*;

use super::controls::Controls;
use super::flash::FlashView;
use super::head_view::HeadView;
use super::heads::AllHeads;
use super::import_opener::{ImportStatus, ImportSummary};
use super::imported::imported_panel;
use super::input_panel::InputPanel;
use super::learn::ChapterPage;
use super::linear::SoftmaxOnly;
use super::live_region::LiveRegion;
use super::model_views::{ModelOverview, NextToken};
use super::stage_card::StageCard;
use super::tooltip::Tooltip;
use crate::ui::bridge::location;
use crate::ui::browser::address;
use crate::ui::logic::link::LinkState;
use crate::ui::logic::sections::{CHAPTER_PANELS, DEFAULT_PANELS};
use crate::ui::logic::stages::Stage;
use crate::ui::state::Lab;
use crate::ui::views::link_notices::LinkNotices;

/// One panel of an embed, by name.
fn panel(name: &str) -> AnyView {
    let stage = Stage::from_id(name);
    match (name, stage) {
        (_, Some(stage)) => {
            view! { <div class="embed-panel"><StageCard stage=stage /></div> }.into_any()
        }
        ("head-view", _) => {
            view! { <div class="embed-panel"><SoftmaxOnly><HeadView /></SoftmaxOnly></div> }
                .into_any()
        }
        ("all-heads", _) => view! { <div class="embed-panel wide"><AllHeads /></div> }.into_any(),
        ("flash", _) => {
            view! { <div class="embed-panel wide"><SoftmaxOnly><FlashView /></SoftmaxOnly></div> }
                .into_any()
        }
        ("sentence", _) => view! { <div class="embed-panel"><InputPanel /></div> }.into_any(),
        ("controls", _) => view! { <div class="embed-panel"><Controls /></div> }.into_any(),
        ("model-view" | "head-roles", _) => {
            view! { <div class="embed-panel wide"><ModelOverview /></div> }.into_any()
        }
        ("circuit", _) => view! {
            <div class="embed-panel wide"><super::circuit_graph::CircuitGraph /></div>
        }
        .into_any(),
        ("next-token", _) => view! { <div class="embed-panel"><NextToken /></div> }.into_any(),
        ("generate", _) => {
            view! { <div class="embed-panel wide"><super::generate::GenerateSection /></div> }
                .into_any()
        }
        ("stream", _) => {
            view! { <div class="embed-panel wide"><super::stream::StreamSection /></div> }
                .into_any()
        }
        // Unknown panels never get here: the link left them out, with a notice.
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
        address::href(&LinkState {
            embed: None,
            ..location::current(lab)
        })
    };
    view! {
        <div class="lab embed" lang=move || lab.lang.get().code() data-testid="embed">
            <div class="embed-bar">
                <span class="embed-title">{move || text().title}</span>
                // The sentence as typed: Chinese stays unspaced.
                <span class="help embed-sentence">{move || match lab.imported.get() {
                    Some(file) => Some(file.name),
                    None => lab.request.with(|r| r.sentence.clone()),
                }}</span>
                // A page with no address of its own (a notebook's) has no full lab to open.
                {address::given_link().is_none().then(|| view! {
                    <a href=full target="_blank" rel="noopener" data-testid="open-full">{move || text().open_full}</a>
                })}
            </div>
            <LinkNotices />
            // A chapter (`?embed=1&lesson=<id>`) comes with the sentence and the controls it
            // names in its panels (the chapter's Embed button names both), and says so when it
            // has none.
            <Show when=move || lab.lesson.with(Option::is_none) fallback=move || {
                let beside = move || {
                    lab.embed.with(|e| {
                        e.as_ref().map_or(Vec::new(), |e| {
                            e.panels
                                .iter()
                                .filter(|p| CHAPTER_PANELS.contains(&p.as_str()))
                                .cloned()
                                .collect::<Vec<_>>()
                        })
                    })
                };
                let without_controls = move || !beside().iter().any(|p| p == "controls");
                view! {
                    <div class="embed-chapter" class:alone=move || beside().is_empty()>
                        <Show when=move || !beside().is_empty()>
                            <div class="embed-chapter-side" data-testid="embed-chapter-side">
                                {move || beside().iter().map(|p| panel(p)).collect_view()}
                            </div>
                        </Show>
                        <div>
                            <Show when=without_controls>
                                <p class="note" data-testid="embed-no-controls">{move || text().share.embedded_without_controls}</p>
                            </Show>
                            <ChapterPage />
                        </div>
                    </div>
                }
            }>
                // One's own file (`src=`, or sent by the host): its views under the same names.
                <ImportStatus />
                <Show when=move || lab.is_imported() fallback=move || view! {
                    <div class="embed-panels">
                        {move || panels.get().iter().map(|p| panel(p)).collect_view()}
                    </div>
                }>
                    <ImportSummary embedded=true />
                    <div class="embed-panels imported" data-testid="embed-imported">
                        {move || panels.get().iter().filter_map(|p| imported_panel(p)).collect_view()}
                    </div>
                </Show>
            </Show>
            <Tooltip />
            <LiveRegion />
        </div>
    }
}
