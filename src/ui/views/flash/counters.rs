//! Tiles done and skipped, score elements held, and slow-memory traffic: flash so far against
//! standard attention's whole run.

use leptos::prelude::*;

use super::state::Player;
use crate::ui::logic::flash_frames::{scores_held, standard_accesses};
use crate::ui::logic::format::group_digits as number;
use crate::ui::state::Lab;

#[component]
pub fn FlashCounters(player: Player) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().flash;
    let counts = Memo::new(move |_| {
        let index = player.position.get();
        player
            .replay
            .with(|r| r.as_ref().map(|r| (r.counters(index), r.sizes)))
    });
    move || {
        counts.get().map(|(c, sizes)| {
            let (tile, all) = scores_held(&sizes);
            let (standard_reads, standard_writes) = standard_accesses(&sizes);
            view! {
                <dl class="flash-counters">
                    <dt>{text().tiles}</dt>
                    <dd data-testid="flash-tiles">{c.tiles_done} " / " {c.tiles_total}
                        " (" <span data-testid="flash-skipped">{c.tiles_skipped}</span> " " {text().skipped} ")"</dd>
                    <dt>{text().held}</dt>
                    <dd data-testid="flash-held">{text().one_tile} " " {number(tile as u64)} " · " {text().all_scores} " " {number(all as u64)}</dd>
                    <dt>{text().traffic}</dt>
                    <dd data-testid="flash-traffic">
                        {text().traffic_flash} ": " {number(c.reads)} " " {text().reads} ", " {number(c.writes)} " " {text().writes}
                        <br />
                        {text().traffic_standard} ": " {number(standard_reads)} " " {text().reads} ", " {number(standard_writes)} " " {text().writes}
                    </dd>
                </dl>
            }
        })
    }
}
