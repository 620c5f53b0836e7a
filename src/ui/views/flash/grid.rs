//! The score matrix in tiles, coloured by what the algorithm has done, with its counters; and the
//! pseudocode with the line being executed.

use leptos::prelude::*;

use super::Player;
use super::counters::FlashCounters;
use crate::ui::model::flash_views::grid;
use crate::ui::state::Lab;
use crate::ui::views::heatmap::Heatmap;
use crate::ui::views::pipeline::look;

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
    view! {
        <figure class="stage">
            <figcaption><h3>{move || text().grid_title}</h3></figcaption>
            <Show when=summarised><p class="help block">{move || text().grid_summary}</p></Show>
            <div class="heatmap-frame">
                <Heatmap data=grid_data look=look(lab) test_id="flash-grid"
                    label=Signal::derive(move || text().grid_title.to_string())
                    no_table=true highlight=grid_span />
            </div>
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
