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

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::browser::observers::observe_visible;
use crate::ui::model::flash_frames::{Frame, keep_position};
use crate::ui::model::flash_views::Replay;
use crate::ui::model::sections::Section;
use crate::ui::state::Lab;
use crate::ui::views::pipeline::SectionShare;

/// What the parts of the FlashAttention view share.
#[derive(Clone, Copy)]
pub struct Player {
    /// The selected head's trace and frames.
    pub replay: Memo<Option<Replay>>,
    /// The frame shown (an index into the frames).
    pub position: RwSignal<usize>,
    pub frame: Memo<Option<Frame>>,
    pub playing: RwSignal<bool>,
}

impl Player {
    /// `visible`: whether the player is on screen (or about to be). Off screen it keeps its last
    /// replay rather than recording the tile steps of every new trace.
    fn new(lab: Lab, visible: RwSignal<bool>) -> Self {
        let replay = Memo::new(move |previous: Option<&Option<Replay>>| {
            if !visible.get() {
                return previous.cloned().flatten();
            }
            let trace = lab.shown.get()?;
            Some(Replay::new(
                trace,
                lab.selected_head(),
                lab.scale_mode.get(),
            ))
        });
        let position = lab.flash_step;
        // The position survives a change of parameters where it can (same block and phase).
        let last_key = StoredValue::new(None);
        Effect::new(move |_| {
            replay.with(|replay| {
                if let Some(replay) = replay {
                    let kept = keep_position(
                        &replay.frames,
                        last_key.get_value(),
                        position.get_untracked(),
                    );
                    if kept != position.get_untracked() {
                        position.set(kept);
                    }
                }
            });
        });
        let frame = Memo::new(move |_| {
            let index = position.get();
            replay.with(|r| r.as_ref().and_then(|r| r.frames.get(index).copied()))
        });
        Effect::new(move |_| {
            if let Some(frame) = frame.get() {
                last_key.set_value(Some(frame.key()));
            }
        });
        Self {
            replay,
            position,
            frame,
            playing: RwSignal::new(false),
        }
    }

    /// The number of frames.
    pub fn total(&self) -> usize {
        self.replay
            .with(|r| r.as_ref().map_or(0, |r| r.frames.len()))
    }

    /// Moves `delta` frames, within the replay.
    pub fn step_by(&self, delta: isize) {
        let last = self.total().saturating_sub(1);
        self.position
            .update(|p| *p = p.saturating_add_signed(delta).min(last));
    }

    /// Stops playing and goes to frame `index` (clamped).
    pub fn go_to(&self, index: usize) {
        self.playing.set(false);
        self.position.set(index.min(self.total().saturating_sub(1)));
    }

    /// What the replay and the frame give, when both exist.
    pub fn at<T>(&self, f: impl FnOnce(&Replay, &Frame) -> T) -> Option<T> {
        let frame = self.frame.get()?;
        self.replay.with(|r| r.as_ref().map(|r| f(r, &frame)))
    }
}

#[component]
pub fn FlashView() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().flash;
    let section = NodeRef::<leptos::html::Section>::new();
    let visible = RwSignal::new(false);
    observe_visible(move || section.get().map(Into::into), visible);
    let player = Player::new(lab, visible);
    let on_key = move |ev: web_sys::KeyboardEvent| {
        // Keys typed into fields are theirs.
        let in_field = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
        if in_field {
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
    view! {
        <section
            node_ref=section
            class="step flash"
            data-testid="flash-view"
            data-view="flash"
            id="section-flash"
            tabindex="0"
            aria-label=move || text().title
            on:keydown=on_key
        >
            <h2 class="step-title">
                <span class="step-number">{Section::Flash.number()}</span>
                {move || text().title}
            </h2>
            <SectionShare section=Section::Flash />
            <p class="caption">{move || text().caption}</p>
            <player::PlayerControls player=player />
            <div class="flash-layout">
                <grid::TileGrid player=player />
                <grid::Pseudocode player=player />
            </div>
            <blocks::BlockInputs player=player />
            <blocks::BlockState player=player />
            <result::FlashResult />
        </section>
    }
}
