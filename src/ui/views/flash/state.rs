//! What the parts of the FlashAttention view share: the replay of the selected head, the frame
//! shown, whether it plays, and the query block a long input replays.

use leptos::prelude::*;

use crate::ui::logic::flash_frames::{Frame, Phase, keep_position};
use crate::ui::logic::flash_views::Replay;
use crate::ui::state::Lab;

/// What the parts of the FlashAttention view share.
#[derive(Clone, Copy)]
pub struct Player {
    /// The selected head's trace and frames.
    pub replay: Memo<Option<Replay>>,
    /// The frame shown (an index into the frames).
    pub position: RwSignal<usize>,
    pub frame: Memo<Option<Frame>>,
    pub playing: RwSignal<bool>,
    /// Where the next replay should start (a tile or block asked for), instead of where the
    /// last one was.
    target: StoredValue<Option<(usize, Option<usize>, Phase)>>,
    /// The query block a long input replays.
    pub block: RwSignal<usize>,
}

impl Player {
    /// `visible`: whether the player is on screen (or about to be). Off screen it keeps its last
    /// replay rather than recording the tile steps of every new trace. `imported`: it replays
    /// the open file's chosen head instead of the lab's trace.
    pub(super) fn new(lab: Lab, visible: RwSignal<bool>, imported: bool) -> Self {
        let replay = Memo::new(move |previous: Option<&Option<Replay>>| {
            if !visible.get() {
                return previous.cloned().flatten();
            }
            if imported {
                let run = lab.imported_ok()?;
                return Replay::imported(
                    run.0,
                    lab.layer.get(),
                    lab.selected_head(),
                    lab.scale_mode.get(),
                    lab.flash_block.get(),
                );
            }
            let trace = lab.shown.get()?;
            // Only a long input replays one query block: only then does the choice matter.
            let block = if trace.0.is_summarised() {
                lab.flash_block.get()
            } else {
                0
            };
            Some(Replay::new(
                trace,
                lab.selected_head(),
                lab.scale_mode.get(),
                block,
            ))
        });
        // The replayed query block follows the zoomed region of a long input's overviews: the
        // tiles being looked at are the ones replayed.
        Effect::new(move |_| {
            let (query, _) = lab.zoom.get();
            let block_rows = lab
                .shown
                .with_untracked(|t| t.as_ref().map(|t| t.0.config.block().0));
            if let Some(block_rows) = block_rows {
                lab.flash_block.set(query / block_rows);
            }
        });
        let position = lab.flash_step;
        // The position survives a change of parameters where it can (same block and phase).
        let last_key = StoredValue::new(None);
        let target = StoredValue::new(None);
        Effect::new(move |_| {
            replay.with(|replay| {
                if let Some(replay) = replay {
                    // A tile asked for (`go_to_tile`) wins over the last position.
                    let key = target
                        .try_update_value(Option::take)
                        .flatten()
                        .or_else(|| last_key.get_value());
                    let kept = keep_position(&replay.frames, key, position.get_untracked());
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
            target,
            block: lab.flash_block,
        }
    }

    /// Stops playing and goes to the first step of tile (`row_block`, `col_block`); for a long
    /// input, replaying that query block first if it is another one.
    pub fn go_to_tile(&self, row_block: usize, col_block: usize) {
        self.playing.set(false);
        let found = self.replay.with_untracked(|r| {
            r.as_ref().map(|r| {
                (
                    r.frame_of_tile(row_block, col_block),
                    r.tile_key(row_block, col_block),
                )
            })
        });
        match found {
            Some((Some(index), _)) => self.position.set(index),
            // Another query block: its replay starts at this tile (see `keep_position`).
            Some((None, key)) => {
                self.target.set_value(Some(key));
                self.block.set(row_block);
            }
            None => {}
        }
    }

    /// Replays query block `block` (a long input), from its start.
    pub fn go_to_block(&self, block: usize) {
        self.playing.set(false);
        self.target.set_value(Some((block, None, Phase::Start)));
        self.block.set(block);
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
