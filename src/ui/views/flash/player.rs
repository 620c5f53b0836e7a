//! The player's buttons, speed, position and the phase in words; playback on a timer.

use std::time::Duration;

use leptos::prelude::*;

use super::state::Player;
use crate::ui::browser::canvas::prefers_reduced_motion;
use crate::ui::logic::flash_frame_views::phase_text;
use crate::ui::state::Lab;

/// Steps per second the player offers.
const SPEEDS: [f64; 5] = [1.0, 2.0, 4.0, 8.0, 16.0];

#[component]
pub fn PlayerControls(player: Player) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().flash;
    let Player {
        position, playing, ..
    } = player;
    // With reduced motion asked for, the player starts at its slowest and never goes faster
    // than one step a second.
    let calm = prefers_reduced_motion();
    let speed = RwSignal::new(if calm { 0 } else { 2usize });

    // Playback: one step per tick until the end.
    let timer = StoredValue::new_local(None::<IntervalHandle>);
    Effect::new(move |_| {
        let on = playing.get();
        let steps_per_second = if calm {
            SPEEDS[0]
        } else {
            SPEEDS[speed.get().min(SPEEDS.len() - 1)]
        };
        let interval = Duration::from_secs_f64(1.0 / steps_per_second);
        if let Some(handle) = timer.try_update_value(Option::take).flatten() {
            handle.clear();
        }
        if on {
            if position.get_untracked() + 1 >= player.total() {
                position.set(0);
            }
            let tick = move || {
                if position.get_untracked() + 1 >= player.total() {
                    playing.set(false);
                } else {
                    player.step_by(1);
                }
            };
            match set_interval_with_handle(tick, interval) {
                Ok(handle) => timer.set_value(Some(handle)),
                Err(error) => web_sys::console::error_2(&"flash: no timer".into(), &error),
            }
        }
    });
    on_cleanup(move || {
        if let Some(handle) = timer.try_update_value(Option::take).flatten() {
            handle.clear();
        }
    });
    let phase = move || player.at(|replay, frame| phase_text(replay, frame, lab.lang.get()));
    view! {
        <div class="flash-controls" role="toolbar" aria-label=move || text().title>
            <button type="button" class="button" data-testid="flash-start" title=move || text().to_start
                on:click=move |_| player.go_to(0)>"⏮"</button>
            <button type="button" class="button" data-testid="flash-back" title=move || text().back
                on:click=move |_| { playing.set(false); player.step_by(-1); }>"◀"</button>
            <button type="button" class="button play" data-testid="flash-play"
                on:click=move |_| playing.update(|p| *p = !*p)>
                {move || if playing.get() { text().pause } else { text().play }}
            </button>
            <button type="button" class="button" data-testid="flash-forward" title=move || text().forward
                on:click=move |_| { playing.set(false); player.step_by(1); }>"▶"</button>
            <button type="button" class="button" data-testid="flash-end" title=move || text().to_end
                on:click=move |_| player.go_to(usize::MAX)>"⏭"</button>
            <label class="speed">
                <select data-testid="flash-speed" disabled=calm on:change=move |ev| {
                    if let Ok(index) = event_target_value(&ev).parse::<usize>() { speed.set(index); }
                }>
                    {SPEEDS.iter().enumerate().map(|(index, s)| view! {
                        <option value=index.to_string() selected=move || speed.get() == index>{s.to_string()}</option>
                    }).collect_view()}
                </select>
                " "
                {move || text().speed}
            </label>
            <span class="help" data-testid="flash-frame">
                {move || (text().frame)(position.get() + 1, player.total())}
            </span>
        </div>
        <p class="help block">{move || text().keys_hint}</p>
        <p class="flash-phase" data-testid="flash-phase" aria-live="polite">{phase}</p>
    }
}
