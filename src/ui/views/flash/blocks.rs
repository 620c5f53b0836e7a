//! The blocks in use: Q, K and V with the current blocks outlined; the query block's running max,
//! rescale and sum; the tile's S or exp(S − m); the output accumulator (then O / l).

use leptos::prelude::*;

use super::state::Player;
use crate::ui::logic::flash_frame_views::{accumulator, block_rows, tile};
use crate::ui::logic::matrix::Span;
use crate::ui::logic::stages::Stage;
use crate::ui::state::Lab;
use crate::ui::views::heatmap::Heatmap;
use crate::ui::views::heatmap::Look;

#[component]
pub fn BlockInputs(player: Player) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let matrix = move |stage: Stage| {
        Memo::new(move |_| {
            player
                .replay
                .with(|r| r.as_ref().and_then(|r| r.input_view(stage)))
        })
    };
    let q = matrix(Stage::Q);
    let k = matrix(Stage::K);
    let v = matrix(Stage::V);
    let current_step =
        move || player.at(|replay, frame| (*frame, replay.flash().steps[frame.step].clone()));
    let q_span = Signal::derive(move || {
        current_step().map(|(_, step)| Span {
            rows: step.rows.clone(),
            cols: 0..usize::MAX,
        })
    });
    let kv_span = Signal::derive(move || {
        current_step()
            .filter(|(frame, step)| frame.col_block.is_some() && !step.skipped)
            .map(|(_, step)| Span {
                rows: step.cols.clone(),
                cols: 0..usize::MAX,
            })
    });
    view! {
        <div class="stage-row">
            <figure class="stage">
                <figcaption><h3>"Q"</h3></figcaption>
                <div class="heatmap-frame"><Heatmap data=q look=Look::of(lab) test_id="flash-q" label="Q" highlight=q_span /></div>
            </figure>
            <figure class="stage">
                <figcaption><h3>"K"</h3></figcaption>
                <div class="heatmap-frame"><Heatmap data=k look=Look::of(lab) test_id="flash-k" label="K" highlight=kv_span /></div>
            </figure>
            <figure class="stage">
                <figcaption><h3>"V"</h3></figcaption>
                <div class="heatmap-frame"><Heatmap data=v look=Look::of(lab) test_id="flash-v" label="V" highlight=kv_span /></div>
            </figure>
        </div>
    }
}

#[component]
pub fn BlockState(player: Player) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().flash;
    let rows = Memo::new(move |_| player.at(block_rows));
    let tile_view = Memo::new(move |_| player.at(tile).flatten());
    let accumulator_view = Memo::new(move |_| player.at(accumulator));
    view! {
        <div class="stage-row">
            <figure class="stage">
                <figcaption><h3>{move || text().block_title}</h3></figcaption>
                <table class="flash-table" data-testid="flash-table">
                    <thead><tr>
                        {(0..4).map(|i| view! { <th scope="col">{move || text().columns[i]}</th> }).collect_view()}
                    </tr></thead>
                    <tbody>
                        {move || rows.get().unwrap_or_default().into_iter().map(|row| view! {
                            <tr data-testid=format!("flash-row-{}", row.index)>
                                <th scope="row">{row.index} " " {row.token}</th>
                                <td data-testid="flash-m">{row.m}</td>
                                <td data-testid="flash-rescale">{row.rescale}</td>
                                <td data-testid="flash-l">{row.l}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </figure>
            <figure class="stage">
                <figcaption><h3>{move || match tile_view.get() {
                    Some((_, true)) => text().tile_probs,
                    Some((_, false)) => text().tile_scores,
                    None => text().no_tile,
                }}</h3></figcaption>
                <div class="heatmap-frame">
                    <Heatmap data=Signal::derive(move || tile_view.get().map(|(d, _)| d)) look=Look::of(lab) test_id="flash-tile"
                        label=Signal::derive(move || text().tile_scores.to_string()) />
                </div>
            </figure>
            <figure class="stage">
                <figcaption><h3>{move || if accumulator_view.get().is_some_and(|(_, done)| done) { text().output_rows } else { text().accumulator }}</h3></figcaption>
                <div class="heatmap-frame">
                    <Heatmap data=Signal::derive(move || accumulator_view.get().map(|(d, _)| d)) look=Look::of(lab) test_id="flash-acc"
                        label=Signal::derive(move || text().accumulator.to_string()) />
                </div>
            </figure>
        </div>
    }
}
