//! FlashAttention as an animation students drive: the tiled score matrix, the blocks of Q, K and V
//! in use, the running max and sum of the current query block, the tile's values, the output
//! accumulator, the pseudocode line being executed, and counters of what is held and moved.
//! It only replays the trace's steps (see `model::flash_views`); it never recomputes one.
//!
//! One component per part of the view; they share the [`Player`]: the replay, the position and
//! whether it plays.

mod blocks;
mod counters;
mod grid;
mod player;
mod result;
mod state;

use state::Player;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::browser::observers::observe_visible;
use crate::ui::logic::sections::Section;
use crate::ui::state::Lab;
use crate::ui::views::section::{SectionShare, presented};

/// The player over the lab's own trace (a section of the pipeline), or, with `imported`, over
/// the open file's chosen head (a card of its views, shown when the file brought Q, K and V).
#[component]
pub fn FlashView(#[prop(optional)] imported: bool) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().flash;
    let section = NodeRef::<leptos::html::Section>::new();
    let visible = RwSignal::new(false);
    observe_visible(move || section.get().map(Into::into), visible);
    let player = Player::new(lab, visible, imported);
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let in_field = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
        // Keys typed into fields are theirs; keys the tile grid used (its cursor) too.
        if in_field || ev.default_prevented() {
            return;
        }
        match ev.key().as_str() {
            " " => player.playing.update(|p| *p = !*p),
            "ArrowRight" => {
                player.playing.set(false);
                player.step_by(1);
            }
            "ArrowLeft" => {
                player.playing.set(false);
                player.step_by(-1);
            }
            "Home" => player.go_to(0),
            "End" => player.go_to(usize::MAX),
            _ => return,
        }
        ev.prevent_default();
    };
    let parts = move || {
        view! {
            <p class="caption">{move || text().caption}</p>
            <player::PlayerControls player=player />
            <div class="flash-layout">
                <grid::TileGrid player=player />
                <grid::Pseudocode player=player />
            </div>
            <blocks::BlockInputs player=player />
            <blocks::BlockState player=player />
        }
    };
    if imported {
        return view! {
            <section
                node_ref=section
                class="imported-card flash"
                data-testid="imported-flash-player"
                id="imported-flash"
                tabindex="0"
                aria-label=move || text().title
                on:keydown=on_key
            >
                <h4>{move || text().title}</h4>
                {parts()}
            </section>
        }
        .into_any();
    }
    view! {
        <section
            node_ref=section
            class="step flash"
            class:presented=move || presented(lab, Section::Flash)
            data-testid="flash-view"
            data-view="flash"
            id="section-flash"
            tabindex="0"
            aria-label=move || text().title
            on:keydown=on_key
        >
            <h2 class="step-title">
                <span class="step-number">{Section::Flash.number(false)}</span>
                {move || text().title}
            </h2>
            <SectionShare section=Section::Flash />
            {parts()}
            <result::FlashResult />
        </section>
    }
    .into_any()
}
