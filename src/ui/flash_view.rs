//! FlashAttention as an animation students drive: the tiled score matrix, the blocks of Q, K and V
//! in use, the running max and sum of the current query block, the tile's values, the output
//! accumulator, the pseudocode line being executed, and counters of what is held and moved.
//! It only replays the trace's steps (see [`super::flash_frames`]); it never recomputes one.

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;
use ndarray::{Array2, s};
use wasm_bindgen::JsCast;

use super::colormap::Scale;
use super::flash_frames::{
    Counters, Frame, Phase, Sizes, counters, frames, keep_position, scores_held, standard_accesses,
};
use super::heatmap::{Heatmap, HeatmapData, Span, format_value};
use super::memory_chart::{MemoryChart, draw};
use super::stages::Stage;
use super::state::{Lab, TraceRef};

/// Above this many tokens, the score grid shows one cell per tile.
const SUMMARISE_ABOVE: usize = 128;
/// Steps per second the player offers.
const SPEEDS: [f64; 5] = [1.0, 2.0, 4.0, 8.0, 16.0];
/// Colours of the grid: pending tiles (two tones, alternating by tile), done tiles (two tones),
/// the current tile.
const GRID: [[u8; 3]; 5] = [
    [232, 235, 241],
    [214, 219, 229],
    [163, 194, 236],
    [137, 174, 226],
    [245, 159, 0],
];

/// The trace of one head, with its frames: what the player walks through.
#[derive(Clone)]
struct Replay {
    trace: TraceRef,
    head: usize,
    frames: Arc<Vec<Frame>>,
    sizes: Sizes,
}

impl PartialEq for Replay {
    fn eq(&self, other: &Self) -> bool {
        self.trace == other.trace && self.head == other.head
    }
}

impl Replay {
    fn flash(&self) -> &attention_core::flash::FlashHead {
        &self.trace.0.flash.heads[self.head]
    }
}

fn value(v: f32) -> String {
    format_value(v)
}

/// Which state each tile is in at `frame`: done (< the frame's step), current, or not yet.
fn tile_state(tile_step: usize, frame: &Frame) -> u8 {
    let current = matches!(
        frame.phase,
        Phase::Skip | Phase::Scores | Phase::Max | Phase::Exp | Phase::Sum | Phase::Accumulate
    );
    let done_up_to = match frame.phase {
        Phase::Start => frame.step,
        Phase::Normalize => frame.step + 1,
        _ => frame.step,
    };
    if current && tile_step == frame.step {
        2
    } else if tile_step < done_up_to {
        1
    } else {
        0
    }
}

/// The score grid at a frame: per cell (or per tile, when summarised) its state's colour index;
/// masked cells are −∞ (drawn as checks).
fn grid(replay: &Replay, frame: &Frame) -> (HeatmapData, Option<Span>) {
    let trace = &replay.trace.0;
    let (rows, cols) = trace.mask.dim();
    let (block_rows, block_cols) = trace.config.block();
    let tiles_across = cols.div_ceil(block_cols);
    let steps = &replay.flash().steps;
    let colour = |tile_row: usize, tile_col: usize| {
        let state = tile_state(tile_row * tiles_across + tile_col, frame);
        let parity = ((tile_row + tile_col) % 2) as u8;
        match state {
            2 => 4.0,
            1 => f32::from(2 + parity),
            _ => f32::from(parity),
        }
    };
    let current = steps.get(frame.step).filter(|_| frame.col_block.is_some());
    if rows.max(cols) > SUMMARISE_ABOVE {
        let tiles_down = rows.div_ceil(block_rows);
        let values = Array2::from_shape_fn((tiles_down, tiles_across), |(r, c)| {
            if steps[r * tiles_across + c].skipped {
                f32::NEG_INFINITY
            } else {
                colour(r, c)
            }
        });
        let span = current.map(|step| Span {
            rows: step.row_block..step.row_block + 1,
            cols: step.col_block..step.col_block + 1,
        });
        let labels = |n: usize, size: usize| (0..n).map(|t| format!("{}", t * size)).collect();
        return (
            HeatmapData {
                values,
                row_labels: labels(tiles_down, block_rows),
                col_labels: labels(tiles_across, block_cols),
                scale: Scale::Palette(&GRID),
            },
            span,
        );
    }
    let values = Array2::from_shape_fn((rows, cols), |(i, j)| {
        if trace.mask[[i, j]] {
            colour(i / block_rows, j / block_cols)
        } else {
            f32::NEG_INFINITY
        }
    });
    let span = current.map(|step| Span {
        rows: step.rows.clone(),
        cols: step.cols.clone(),
    });
    (
        HeatmapData {
            values,
            row_labels: trace.config.tokens().to_vec(),
            col_labels: trace.config.key_sequence().tokens.clone(),
            scale: Scale::Palette(&GRID),
        },
        span,
    )
}

/// One row of the block table: the query and its m, rescale and l as this frame shows them.
#[derive(Debug, Clone, PartialEq)]
struct BlockRow {
    index: usize,
    token: String,
    m: String,
    rescale: String,
    l: String,
}

fn block_rows(replay: &Replay, frame: &Frame) -> Vec<BlockRow> {
    let step = &replay.flash().steps[frame.step];
    let tokens = replay.trace.0.config.tokens();
    let arrow = |before: f32, after: f32| format!("{} → {}", value(before), value(after));
    step.rows
        .clone()
        .enumerate()
        .map(|(r, i)| {
            let (m, rescale, l) = match frame.phase {
                Phase::Start => (value(f32::NEG_INFINITY), String::new(), value(0.0)),
                Phase::Skip | Phase::Scores => {
                    (value(step.m_prev[r]), String::new(), value(step.l_prev[r]))
                }
                Phase::Max | Phase::Exp => (
                    arrow(step.m_prev[r], step.m[r]),
                    String::new(),
                    value(step.l_prev[r]),
                ),
                Phase::Sum | Phase::Accumulate => (
                    arrow(step.m_prev[r], step.m[r]),
                    value(step.rescale[r]),
                    arrow(step.l_prev[r], step.l[r]),
                ),
                Phase::Normalize => (value(step.m[r]), String::new(), value(step.l[r])),
            };
            BlockRow {
                index: i,
                token: tokens[i].clone(),
                m,
                rescale,
                l,
            }
        })
        .collect()
}

/// The tile's S (with masked cells) or P, as the frame shows it.
fn tile(replay: &Replay, frame: &Frame) -> Option<(HeatmapData, bool)> {
    let step = &replay.flash().steps[frame.step];
    let trace = &replay.trace.0;
    let show_probs = match frame.phase {
        Phase::Scores | Phase::Max => false,
        Phase::Exp | Phase::Sum | Phase::Accumulate => true,
        _ => return None,
    };
    let values = if show_probs {
        step.probs.clone()
    } else {
        let mut scores = step.scores.clone();
        let mask = trace.mask.slice(s![step.rows.clone(), step.cols.clone()]);
        scores.zip_mut_with(&mask, |s, &allowed| {
            if !allowed {
                *s = f32::NEG_INFINITY;
            }
        });
        scores
    };
    let scale = if show_probs {
        Stage::Weights.scale(&values)
    } else {
        Stage::Scaled.scale(&values)
    };
    Some((
        HeatmapData {
            scale,
            row_labels: trace.config.tokens()[step.rows.clone()].to_vec(),
            col_labels: trace.config.key_sequence().tokens[step.cols.clone()].to_vec(),
            values,
        },
        show_probs,
    ))
}

/// The accumulator before this tile, after it, or the final rows after the division by l.
fn accumulator(replay: &Replay, frame: &Frame) -> (HeatmapData, bool) {
    let flash = replay.flash();
    let step = &flash.steps[frame.step];
    let d_v = flash.output.ncols();
    let (values, final_rows) = match frame.phase {
        Phase::Normalize => (
            flash.output.slice(s![step.rows.clone(), ..]).to_owned(),
            true,
        ),
        Phase::Accumulate | Phase::Skip => (step.acc.clone(), false),
        Phase::Start => (Array2::zeros((step.rows.len(), d_v)), false),
        // Before this tile: the previous step's accumulator in the same block, or zeros.
        _ => (
            frame
                .step
                .checked_sub(1)
                .map(|previous| &flash.steps[previous])
                .filter(|previous| previous.row_block == step.row_block)
                .map_or_else(
                    || Array2::zeros((step.rows.len(), d_v)),
                    |previous| previous.acc.clone(),
                ),
            false,
        ),
    };
    (
        HeatmapData {
            scale: Stage::HeadOutput.scale(&values),
            row_labels: replay.trace.0.config.tokens()[step.rows.clone()].to_vec(),
            col_labels: (0..d_v).map(|d| d.to_string()).collect(),
            values,
        },
        final_rows,
    )
}

fn fill(template: &str, frame: &Frame, replay: &Replay) -> String {
    let step = &replay.flash().steps[frame.step];
    let range = |r: &std::ops::Range<usize>| format!("{}–{}", r.start, r.end - 1);
    template
        .replace("{i}", &frame.row_block.to_string())
        .replace(
            "{j}",
            &frame.col_block.map_or(String::new(), |j| j.to_string()),
        )
        .replace("{rows}", &range(&step.rows))
        .replace("{cols}", &range(&step.cols))
}

#[component]
pub fn FlashView() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().flash();
    let replay = Memo::new(move |_| {
        let trace = lab.shown.get()?;
        let head = lab.selected_head().min(trace.0.flash.heads.len() - 1);
        let config = &trace.0.config;
        let (block_rows, block_cols) = config.block();
        let sizes = Sizes {
            seq_len: config.seq_len(),
            key_len: config.key_len(),
            d_k: config.dims().d_k,
            d_v: config.dims().d_v,
            block_rows,
            block_cols,
        };
        let frames = Arc::new(frames(&trace.0.flash.heads[head]));
        Some(Replay {
            trace,
            head,
            frames,
            sizes,
        })
    });
    let position = lab.flash_step;
    let playing = RwSignal::new(false);
    // With reduced motion asked for, the player starts at its slowest and never goes faster
    // than one step a second.
    let calm = prefers_reduced_motion();
    let speed = RwSignal::new(if calm { 0 } else { 2usize });
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
    let total = move || replay.with(|r| r.as_ref().map_or(0, |r| r.frames.len()));
    let step_by = move |delta: isize| {
        let last = total().saturating_sub(1);
        position.update(|p| *p = p.saturating_add_signed(delta).min(last));
    };

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
            if position.get_untracked() + 1 >= total() {
                position.set(0);
            }
            let tick = move || {
                if position.get_untracked() + 1 >= total() {
                    playing.set(false);
                } else {
                    step_by(1);
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
            " " => playing.update(|p| *p = !*p),
            "ArrowRight" => {
                playing.set(false);
                step_by(1);
            }
            "ArrowLeft" => {
                playing.set(false);
                step_by(-1);
            }
            "Home" => {
                playing.set(false);
                position.set(0);
            }
            "End" => {
                playing.set(false);
                position.set(total().saturating_sub(1));
            }
            _ => return,
        }
        ev.prevent_default();
    };

    // What the views show at this frame.
    let grid_view = Memo::new(move |_| {
        let frame = frame.get()?;
        replay.with(|r| r.as_ref().map(|r| grid(r, &frame)))
    });
    let grid_data = Signal::derive(move || grid_view.get().map(|(data, _)| data));
    let grid_span = Signal::derive(move || grid_view.get().and_then(|(_, span)| span));
    let summarised = move || {
        replay.with(|r| {
            r.as_ref()
                .is_some_and(|r| r.sizes.seq_len.max(r.sizes.key_len) > SUMMARISE_ABOVE)
        })
    };
    let matrix = move |pick: fn(&attention_core::trace::HeadTrace) -> &Array2<f32>,
                       stage: Stage| {
        Memo::new(move |_| {
            replay.with(|r| {
                r.as_ref().map(|r| {
                    let head = &r.trace.0.heads[r.head];
                    let values = pick(head).clone();
                    HeatmapData {
                        scale: stage.scale(&values),
                        row_labels: stage.row_labels(&r.trace.0),
                        col_labels: stage.col_labels(&r.trace.0),
                        values,
                    }
                })
            })
        })
    };
    let q = matrix(|h| &h.q, Stage::Q);
    let k = matrix(|h| &h.k, Stage::K);
    let v = matrix(|h| &h.v, Stage::V);
    let current_step = move || {
        let frame = frame.get()?;
        replay.with(|r| {
            r.as_ref()
                .map(|r| (frame, r.flash().steps[frame.step].clone()))
        })
    };
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
    let rows = Memo::new(move |_| {
        let frame = frame.get()?;
        replay.with(|r| r.as_ref().map(|r| block_rows(r, &frame)))
    });
    let tile_view = Memo::new(move |_| {
        let frame = frame.get()?;
        replay.with(|r| r.as_ref().and_then(|r| tile(r, &frame)))
    });
    let accumulator_view = Memo::new(move |_| {
        let frame = frame.get()?;
        replay.with(|r| r.as_ref().map(|r| accumulator(r, &frame)))
    });
    let counts = Memo::new(move |_| {
        let index = position.get();
        replay.with(|r| {
            r.as_ref()
                .map(|r| (counters(r.flash(), &r.frames, index, &r.sizes), r.sizes))
        })
    });
    let phase_text = move || {
        let frame = frame.get()?;
        let template = text().phases[match frame.phase {
            Phase::Start => 0,
            Phase::Skip => 1,
            Phase::Scores => 2,
            Phase::Max => 3,
            Phase::Exp => 4,
            Phase::Sum => 5,
            Phase::Accumulate => 6,
            Phase::Normalize => 7,
        }];
        replay.with(|r| r.as_ref().map(|r| fill(template, &frame, r)))
    };
    let line = move || frame.get().map_or(0, |f| f.phase.line());

    view! {
        <section
            class="step flash"
            data-testid="flash-view"
            data-view="flash"
            tabindex="0"
            aria-label=move || text().title
            on:keydown=on_key
        >
            <h2 class="step-title">
                <span class="step-number">7</span>
                {move || text().title}
            </h2>
            <p class="caption">{move || text().caption}</p>
            <div class="flash-controls" role="toolbar" aria-label=move || text().title>
                <button type="button" class="button" data-testid="flash-start" title=move || text().to_start
                    on:click=move |_| { playing.set(false); position.set(0); }>"⏮"</button>
                <button type="button" class="button" data-testid="flash-back" title=move || text().back
                    on:click=move |_| { playing.set(false); step_by(-1); }>"◀"</button>
                <button type="button" class="button play" data-testid="flash-play"
                    on:click=move |_| playing.update(|p| *p = !*p)>
                    {move || if playing.get() { text().pause } else { text().play }}
                </button>
                <button type="button" class="button" data-testid="flash-forward" title=move || text().forward
                    on:click=move |_| { playing.set(false); step_by(1); }>"▶"</button>
                <button type="button" class="button" data-testid="flash-end" title=move || text().to_end
                    on:click=move |_| { playing.set(false); position.set(total().saturating_sub(1)); }>"⏭"</button>
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
                    {move || text().frame.replace("{i}", &(position.get() + 1).to_string()).replace("{n}", &total().to_string())}
                </span>
            </div>
            <p class="help block">{move || text().keys_hint}</p>
            <p class="flash-phase" data-testid="flash-phase" aria-live="polite">{phase_text}</p>

            <div class="flash-layout">
                <figure class="stage">
                    <figcaption><h3>{move || text().grid_title}</h3></figcaption>
                    <Show when=summarised><p class="help block">{move || text().grid_summary}</p></Show>
                    <div class="heatmap-frame">
                        <Heatmap data=grid_data test_id="flash-grid" label=Signal::derive(move || text().grid_title.to_string())
                            no_legend=true no_table=true highlight=grid_span />
                    </div>
                    <ul class="flash-legend" aria-hidden="true">
                        {(0..4).map(|i| view! {
                            <li><span class=format!("swatch swatch-{i}")></span>{move || text().legend[i]}</li>
                        }).collect_view()}
                    </ul>
                    <FlashCounters counts=counts />
                </figure>
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
            </div>

            <div class="stage-row">
                <figure class="stage">
                    <figcaption><h3>"Q"</h3></figcaption>
                    <div class="heatmap-frame"><Heatmap data=q test_id="flash-q" label="Q" highlight=q_span /></div>
                </figure>
                <figure class="stage">
                    <figcaption><h3>"K"</h3></figcaption>
                    <div class="heatmap-frame"><Heatmap data=k test_id="flash-k" label="K" highlight=kv_span /></div>
                </figure>
                <figure class="stage">
                    <figcaption><h3>"V"</h3></figcaption>
                    <div class="heatmap-frame"><Heatmap data=v test_id="flash-v" label="V" highlight=kv_span /></div>
                </figure>
            </div>

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
                        <Heatmap data=Signal::derive(move || tile_view.get().map(|(d, _)| d)) test_id="flash-tile"
                            label=Signal::derive(move || text().tile_scores.to_string()) />
                    </div>
                </figure>
                <figure class="stage">
                    <figcaption><h3>{move || if accumulator_view.get().is_some_and(|(_, done)| done) { text().output_rows } else { text().accumulator }}</h3></figcaption>
                    <div class="heatmap-frame">
                        <Heatmap data=Signal::derive(move || accumulator_view.get().map(|(d, _)| d)) test_id="flash-acc"
                            label=Signal::derive(move || text().accumulator.to_string()) />
                    </div>
                </figure>
            </div>
            <FlashResult />
        </section>
    }
}

/// Tiles done and skipped, score elements held, and slow-memory traffic: flash so far against
/// standard attention's whole run.
#[component]
fn FlashCounters(counts: Memo<Option<(Counters, Sizes)>>) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().flash();
    let number = |n: u64| {
        let text = n.to_string();
        let mut grouped = String::new();
        for (i, c) in text.chars().enumerate() {
            if i > 0 && (text.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(c);
        }
        grouped
    };
    view! {
        {move || counts.get().map(|(c, sizes)| {
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
        })}
    }
}

/// The end of the story: flash equals standard, and what it saves as sequences grow.
#[component]
fn FlashResult() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().flash();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let chart = Memo::new(move |_| {
        let lang = lab.lang.get();
        lab.theme.track();
        lab.shown.with(|t| {
            t.as_ref().map(|t| {
                let (block_rows, block_cols) = t.0.config.block();
                let f = lang.flash();
                MemoryChart {
                    tile: (block_rows * block_cols) as u64,
                    seq_len: t.0.config.seq_len() as u64,
                    title: f.chart_title.into(),
                    x_label: f.chart_x.into(),
                    y_label: f.chart_y.into(),
                    standard: f.chart_standard.into(),
                    flash: f.chart_flash.into(),
                    ink: (0, 0, 0),
                }
            })
        })
    });
    Effect::new(move |_| {
        let (Some(canvas), Some(mut chart)) = (canvas.get(), chart.get()) else {
            return;
        };
        chart.ink = ink_of(&canvas);
        let canvas: web_sys::HtmlCanvasElement = canvas;
        canvas.set_width(520);
        canvas.set_height(300);
        if let Some(backend) = plotters_canvas::CanvasBackend::with_canvas_object(canvas) {
            use plotters::prelude::IntoDrawingArea;
            let root = backend.into_drawing_area();
            if let Err(error) = draw(&root, &chart) {
                web_sys::console::error_1(&format!("memory chart: {error}").into());
            }
        }
    });
    let diff = move || {
        lab.shown
            .with(|t| t.as_ref().map(|t| t.0.flash.max_abs_diff))
    };
    let export_png = move |_| {
        if let Some(canvas) = canvas.get_untracked() {
            super::share::report(super::share::download_png("flash-memory.png", &canvas));
        }
    };
    let export_svg = move |_| {
        let Some(mut chart) = chart.get_untracked() else {
            return;
        };
        if let Some(canvas) = canvas.get_untracked() {
            chart.ink = ink_of(&canvas);
        }
        let mut svg = String::new();
        {
            use plotters::prelude::IntoDrawingArea;
            let root = plotters::prelude::SVGBackend::with_string(&mut svg, (520, 300))
                .into_drawing_area();
            if let Err(error) = draw(&root, &chart) {
                web_sys::console::error_1(&format!("memory chart: {error}").into());
                return;
            }
        }
        super::share::report(super::share::download_text(
            "flash-memory.svg",
            "image/svg+xml",
            &svg,
        ));
    };
    let lab_text = move || lab.lang.get().text();
    view! {
        <div class="flash-result">
            <p class="flash-check" data-testid="flash-equal">
                {move || text().equal} " " {move || diff().map(|d| format!("{d:.1e}")).unwrap_or_default()}
            </p>
            <div>
                <div class="heatmap-tools">
                    <button type="button" class="table-toggle" data-testid="memory-chart-png" on:click=export_png>
                        {move || lab_text().export_png}
                    </button>
                    <button type="button" class="table-toggle" data-testid="memory-chart-svg" on:click=export_svg>
                        {move || lab_text().export_svg}
                    </button>
                </div>
                <canvas class="memory-chart" node_ref=canvas data-testid="memory-chart" role="img"
                    aria-label=move || text().chart_title></canvas>
            </div>
        </div>
    }
}

/// Whether the user asked the system for less motion.
fn prefers_reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| {
            w.match_media("(prefers-reduced-motion: reduce)")
                .ok()
                .flatten()
        })
        .is_some_and(|query| query.matches())
}

/// The canvas's text colour (the theme's ink) as RGB.
fn ink_of(canvas: &web_sys::HtmlCanvasElement) -> (u8, u8, u8) {
    let color = web_sys::window()
        .and_then(|w| w.get_computed_style(canvas).ok().flatten())
        .and_then(|style| style.get_property_value("color").ok())
        .unwrap_or_default();
    let parts: Vec<u8> = color
        .trim_start_matches("rgba(")
        .trim_start_matches("rgb(")
        .trim_end_matches(')')
        .split(',')
        .filter_map(|p| p.trim().parse::<f32>().ok().map(|v| v as u8))
        .collect();
    match parts[..] {
        [r, g, b, ..] => (r, g, b),
        _ => (30, 35, 48),
    }
}
