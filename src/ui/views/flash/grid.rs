//! The score matrix in tiles, coloured by what the algorithm has done, with its counters; and the
//! pseudocode with the line being executed.

use leptos::prelude::*;

use super::counters::FlashCounters;
use super::state::Player;
use crate::ui::logic::flash_frame_views::grid;
use crate::ui::state::Lab;
use crate::ui::views::heatmap::Heatmap;
use crate::ui::views::heatmap::Look;

#[component]
pub fn TileGrid(player: Player) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().flash;
    let grid_view = Memo::new(move |_| player.at(grid));
    let grid_data = Signal::derive(move || grid_view.get().map(|(data, _)| data));
    let grid_span = Signal::derive(move || grid_view.get().and_then(|(_, span)| span));
    let summarised = move || {
        player
            .replay
            .with(|r| r.as_ref().is_some_and(|r| r.summarised()))
    };
    // A cell is a tile (summarised) or a score inside one: either way, go to that tile's step.
    let choose = Callback::new(move |(row, col): (usize, usize)| {
        let tile = player.replay.with_untracked(|r| {
            r.as_ref().map(|r| {
                if r.summarised() {
                    (row, col)
                } else {
                    (row / r.sizes.block_rows, col / r.sizes.block_cols)
                }
            })
        });
        if let Some((row_block, col_block)) = tile {
            player.go_to_tile(row_block, col_block);
        }
    });
    view! {
        <figure class="stage">
            <figcaption><h3>{move || text().grid_title}</h3></figcaption>
            <Show when=summarised><p class="help block">{move || text().grid_summary}</p></Show>
            <BlockChooser player=player />
            <div class="heatmap-frame">
                <Heatmap data=grid_data look=Look::of(lab) test_id="flash-grid"
                    label=Signal::derive(move || text().grid_title.to_string())
                    no_table=true highlight=grid_span on_choose=choose />
            </div>
            <p class="help block">{move || text().grid_choose}</p>
            <ul class="flash-legend" aria-hidden="true">
                {(0..4).map(|i| view! {
                    <li><span class=format!("swatch swatch-{i}")></span>{move || text().legend[i]}</li>
                }).collect_view()}
            </ul>
            <FlashCounters player=player />
        </figure>
    }
}

#[component]
pub fn Pseudocode(player: Player) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().flash;
    let line = move || player.frame.get().map_or(0, |f| f.phase.line());
    view! {
        <figure class="stage pseudocode">
            <figcaption><h3>{move || text().pseudocode_title}</h3></figcaption>
            <ol data-testid="pseudocode">
                {(0..11).map(|i| view! {
                    <li class:active=move || line() == i + 1 data-testid=format!("pseudocode-line-{}", i + 1)
                        aria-current=move || (line() == i + 1).then_some("step")>
                        <code>{move || text().pseudocode[i]}</code>
                    </li>
                }).collect_view()}
            </ol>
        </figure>
    }
}

/// For a long input: which query block the player replays, and buttons to pick the one before or
/// after.
#[component]
fn BlockChooser(player: Player) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().flash;
    // (block, blocks, first query, last query) while only one block is replayed.
    let replayed = Memo::new(move |_| {
        player.replay.with(|r| {
            r.as_ref().filter(|r| r.partial()).map(|r| {
                let block = r.blocks.start;
                let first = block * r.sizes.block_rows;
                let last = (first + r.sizes.block_rows).min(r.sizes.seq_len) - 1;
                (block, r.sizes.tiles().0, first, last)
            })
        })
    });
    move || {
        replayed.get().map(|(block, blocks, first, last)| {
            view! {
                <div class="flash-block" data-testid="flash-block">
                    <p class="note">{(text().replayed_block)(block, blocks, first, last)}</p>
                    <button type="button" class="button" data-testid="flash-block-previous"
                        title=move || text().previous_block aria-label=move || text().previous_block
                        disabled={block == 0}
                        on:click=move |_| player.go_to_block(block.saturating_sub(1))>"▲"</button>
                    <button type="button" class="button" data-testid="flash-block-next"
                        title=move || text().next_block aria-label=move || text().next_block
                        disabled={block + 1 >= blocks}
                        on:click=move |_| player.go_to_block(block + 1)>"▼"</button>
                </div>
            }
        })
    }
}
