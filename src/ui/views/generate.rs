//! The trained model generating, step by step, with its KV cache: play, step or run at once;
//! every step's new query row against the growing cache (per layer, per K/V head); what the
//! cache holds for this model and for MHA, GQA, MQA and MLA; characters per second with and
//! without the cache, measured here. The core's [`Decoder`] does the work, one step per call, so
//! the page draws between steps and never blocks.

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::{Clamped, JsCast};

use super::pipeline::{SectionHeading, presented};
use crate::ui::browser::clock::now_ms;
use crate::ui::model::colormap::viridis;
use crate::ui::model::format::group_digits;
use crate::ui::model::link::GenerationView;
use crate::ui::model::sections::Section;
use crate::ui::model::visible;
use crate::ui::state::Lab;
use crate::ui::state::model::trained_request;
use attention_core::api::{Request, generation_input};
use attention_core::generate::{CacheSizes, Decoder, GenerateSpec, Sampling, Step};
use attention_core::gpt::Gpt;

/// Steps run back to back for this long before the page draws (when not paced).
const FRAME_BUDGET_MS: f64 = 12.0;
/// The pause between steps while playing, so that each can be seen.
const PLAY_PACE: Duration = Duration::from_millis(120);
/// Height of one strip row, CSS pixels.
const ROW_PX: usize = 12;

/// The trained model in use, when loaded.
pub fn model(lab: Lab) -> Option<Arc<Gpt>> {
    let layout = lab.request.with(|r| r.trained_layout());
    lab.model_status.with(|s| s.ready(layout).cloned())
}

/// A generation under way: the model it runs and its decoder.
struct Run {
    model: Arc<Gpt>,
    decoder: Decoder,
    cache: bool,
}

/// A row of the strip picture.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Row {
    /// A layer's name, above its heads.
    Layer(usize),
    /// One query head of a layer.
    Head(usize, usize),
    /// Space between the query heads of two K/V heads.
    Gap,
}

/// The rows: per layer its name, then each K/V head's query heads with a gap between groups.
fn strip_rows(layers: usize, heads: usize, kv_heads: usize) -> Vec<Row> {
    let group = (heads / kv_heads.max(1)).max(1);
    let mut rows = Vec::new();
    for layer in 0..layers {
        rows.push(Row::Layer(layer));
        for head in 0..heads {
            rows.push(Row::Head(layer, head));
            if (head + 1) % group == 0 && head + 1 < heads {
                rows.push(Row::Gap);
            }
        }
    }
    rows
}

/// Draws `step`'s attention rows, one pixel per cached position, on `canvas` ([context ×
/// rows], stretched by CSS); positions not yet cached stay clear.
fn draw_strips(canvas: &web_sys::HtmlCanvasElement, step: &Step, rows: &[Row], context: usize) {
    canvas.set_width(context as u32);
    canvas.set_height(rows.len() as u32);
    let Ok(Some(ctx)) = canvas.get_context("2d") else {
        return;
    };
    let Ok(ctx) = ctx.dyn_into::<web_sys::CanvasRenderingContext2d>() else {
        return;
    };
    let mut pixels = vec![0u8; context * rows.len() * 4];
    for (r, row) in rows.iter().enumerate() {
        let Row::Head(layer, head) = *row else {
            continue;
        };
        let Some(weights) = step.attention.get(layer).and_then(|l| l.get(head)) else {
            continue;
        };
        for (j, &w) in weights.iter().enumerate().take(context) {
            let [red, green, blue] = viridis(w.clamp(0.0, 1.0));
            let at = (r * context + j) * 4;
            pixels[at..at + 4].copy_from_slice(&[red, green, blue, 255]);
        }
    }
    if let Ok(image) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
        Clamped(&pixels),
        context as u32,
        rows.len() as u32,
    ) {
        let _ = ctx.put_image_data(&image, 0.0, 0.0);
    }
}

#[component]
pub fn GenerateSection() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let section = Section::Generate;
    view! {
        <section class="step generate-view" data-view=section.id() data-testid="generator"
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <Generator />
        </section>
    }
}

#[component]
fn Generator() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().model.generate;
    let linked = lab.generation.get_untracked();
    let asked = RwSignal::new(if linked.steps > 0 { linked.steps } else { 40 });
    let cache = RwSignal::new(true);
    let sampling = RwSignal::new(linked.temperature);
    let seed = StoredValue::new(linked.seed);
    let run = StoredValue::new_local(None::<Run>);
    let steps = RwSignal::new(Vec::<Step>::new());
    let prompt = RwSignal::new(Vec::<String>::new());
    let shown = RwSignal::new(None::<usize>);
    let target = RwSignal::new(0usize);
    let pace = StoredValue::new(Duration::ZERO);
    let ticking = StoredValue::new(false);
    let error = RwSignal::new(None::<String>);
    // Measured: (steps, ms) with the cache and without, for the latest run of each.
    let speed = RwSignal::new([None::<(usize, f64)>; 2]);
    let hover = RwSignal::new(None::<(usize, usize, usize)>);

    let reset = move || {
        run.set_value(None);
        steps.set(Vec::new());
        prompt.set(Vec::new());
        shown.set(None);
        target.set(0);
        error.set(None);
        hover.set(None);
    };
    let keep_link = move || {
        let taken = steps.with_untracked(Vec::len);
        let t = sampling.get_untracked();
        let view = GenerationView {
            steps: taken,
            temperature: if taken > 0 { t } else { 0.0 },
            seed: if taken > 0 && t > 0.0 {
                seed.get_value()
            } else {
                0
            },
        };
        if lab.generation.get_untracked() != view {
            lab.generation.set(view);
        }
    };
    // The decoder for the current sentence, model and settings: the prompt prefilled.
    let start = move || -> bool {
        if run.with_value(Option::is_some) {
            return true;
        }
        let Some(model) = model(lab) else {
            error.set(Some(texts().need_model.to_string()));
            return false;
        };
        let request = trained_request(&lab.request.get_untracked());
        let t = sampling.get_untracked();
        let spec = GenerateSpec {
            steps: asked.get_untracked(),
            cache: cache.get_untracked(),
            sampling: if t > 0.0 {
                Sampling::Temperature {
                    temperature: t,
                    seed: seed.get_value(),
                }
            } else {
                Sampling::Greedy
            },
            check: true,
        };
        let decoder = generation_input(&request).and_then(|(sentence, temperature)| {
            Decoder::new(&model, &sentence, &spec, temperature, &now_ms).map_err(|e| e.to_string())
        });
        match decoder {
            Ok(decoder) => {
                prompt.set(
                    decoder
                        .prompt()
                        .iter()
                        .map(|&id| model.vocab[id as usize].clone())
                        .collect(),
                );
                let slot = usize::from(!spec.cache);
                speed.update(|s| s[slot] = None);
                run.set_value(Some(Run {
                    model,
                    decoder,
                    cache: spec.cache,
                }));
                error.set(None);
                true
            }
            Err(message) => {
                error.set(Some(message));
                false
            }
        }
    };
    // Steps until the target, a frame's budget at a time (or one per pace while playing), the
    // page drawing in between.
    fn tick(
        run: StoredValue<Option<Run>, LocalStorage>,
        steps: RwSignal<Vec<Step>>,
        target: RwSignal<usize>,
        pace: StoredValue<Duration>,
        ticking: StoredValue<bool>,
        speed: RwSignal<[Option<(usize, f64)>; 2]>,
        done: impl Fn() + Clone + 'static,
    ) {
        let began = now_ms();
        let mut taken = Vec::new();
        let mut slot = 0;
        let more = run
            .try_update_value(|run| {
                let Some(run) = run.as_mut() else {
                    return false;
                };
                slot = usize::from(!run.cache);
                let wanted = target.get_untracked();
                while run.decoder.taken() < wanted {
                    let Some(step) = run.decoder.step(&run.model, &now_ms) else {
                        break;
                    };
                    taken.push(step);
                    if pace.get_value() > Duration::ZERO || now_ms() - began > FRAME_BUDGET_MS {
                        break;
                    }
                }
                run.decoder.taken() < wanted && !run.decoder.done()
            })
            .unwrap_or(false);
        if !taken.is_empty() {
            let ms: f64 = taken.iter().map(|s| s.ms).sum();
            speed.update(|s| {
                let (n, total) = s[slot].unwrap_or((0, 0.0));
                s[slot] = Some((n + taken.len(), total + ms));
            });
            steps.update(|s| s.extend(taken));
        }
        if more {
            let next = done.clone();
            set_timeout(
                move || tick(run, steps, target, pace, ticking, speed, next),
                pace.get_value(),
            );
        } else {
            ticking.set_value(false);
            done();
        }
    }
    let playing = RwSignal::new(false);
    let go = move |to: usize, step_pace: Duration| {
        if !start() {
            return;
        }
        target.set(to);
        pace.set_value(step_pace);
        shown.set(None);
        if !ticking.get_value() {
            ticking.set_value(true);
            let done = move || {
                playing.set(false);
                keep_link();
            };
            set_timeout(
                move || tick(run, steps, target, pace, ticking, speed, done),
                Duration::ZERO,
            );
        }
    };
    // Every drawn step is kept in the link as it lands.
    Effect::new(move |_| {
        steps.track();
        if run.with_value(Option::is_some) {
            keep_link();
        }
    });
    // A new sentence, model or setting makes the run stale; the first time the model is ready,
    // a link's generation is run again (the same characters: greedy, or its seed).
    let key = Memo::new(move |_| {
        (
            trained_request(&lab.request.get()),
            cache.get(),
            sampling.get(),
            model(lab).map(|m| m.shape.layout),
        )
    });
    let seen_ready = StoredValue::new(false);
    Effect::new(move |_| {
        let ready = key.with(|k| k.3.is_some());
        reset();
        if !ready {
            return;
        }
        if seen_ready.get_value() {
            lab.generation.update(|g| *g = GenerationView::default());
            return;
        }
        seen_ready.set_value(true);
        let linked = lab.generation.get_untracked();
        if linked.steps > 0 {
            asked.set(asked.get_untracked().max(linked.steps));
            go(linked.steps, Duration::ZERO);
        }
    });
    let taken = move || steps.with(Vec::len);
    let play = move |_| {
        if playing.get_untracked() {
            playing.set(false);
            target.set(taken());
            return;
        }
        if run.with_value(|r| r.as_ref().is_some_and(|r| r.decoder.done())) {
            reset();
        }
        if sampling.get_untracked() > 0.0 && run.with_value(Option::is_none) {
            seed.set_value((random_draw() * 1e15) as u64);
        }
        playing.set(true);
        go(asked.get_untracked(), PLAY_PACE);
    };
    let one = move |_| {
        playing.set(false);
        if run.with_value(Option::is_none) && sampling.get_untracked() > 0.0 {
            seed.set_value((random_draw() * 1e15) as u64);
        }
        go(taken() + 1, Duration::ZERO);
    };
    let all = move |_| {
        playing.set(false);
        if run.with_value(|r| r.as_ref().is_some_and(|r| r.decoder.done())) {
            reset();
        }
        if run.with_value(Option::is_none) && sampling.get_untracked() > 0.0 {
            seed.set_value((random_draw() * 1e15) as u64);
        }
        go(asked.get_untracked(), Duration::ZERO);
    };
    let restart = move |_| {
        playing.set(false);
        reset();
        lab.generation.set(GenerationView::default());
    };
    let keep = move |_| {
        let text: String = steps.with_untracked(|s| s.iter().map(|s| s.token.clone()).collect());
        let sentence = lab
            .request
            .with_untracked(|r| r.sentence.clone().unwrap_or_default());
        if !text.is_empty() {
            lab.change(Request {
                sentence: Some(format!("{sentence}{text}")),
                ..Request::default()
            });
        }
    };
    let set_asked = move |ev| {
        if let Ok(v) = event_target_value(&ev).parse::<usize>() {
            asked.set(v.clamp(1, attention_core::generate::MAX_STEPS));
            // A run asked for another number of steps starts again.
            playing.set(false);
            reset();
        }
    };
    // The step on view: the scrubber's, or the latest.
    let at = move || {
        let n = taken();
        shown.get().filter(|&s| s < n).or(n.checked_sub(1))
    };
    let shape = move || model(lab).map(|m| m.shape);
    let rows = Memo::new(move |_| {
        shape().map_or_else(Vec::new, |s| strip_rows(s.n_layer, s.n_head, s.n_kv_head))
    });
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |_| {
        let (Some(canvas), Some(shape)) = (canvas.get(), shape()) else {
            return;
        };
        let Some(index) = at() else { return };
        steps.with(|s| {
            if let Some(step) = s.get(index) {
                rows.with(|rows| draw_strips(&canvas, step, rows, shape.n_positions));
            }
        });
    });
    let characters = move || {
        let mut all = prompt.get();
        steps.with(|s| all.extend(s.iter().map(|s| s.token.clone())));
        all
    };
    let point = move |ev: web_sys::PointerEvent| {
        let (Some(canvas), Some(shape)) = (canvas.get_untracked(), shape()) else {
            return;
        };
        let rect = canvas.get_bounding_client_rect();
        if rect.width() <= 0.0 || rect.height() <= 0.0 {
            return;
        }
        let fx = (f64::from(ev.client_x()) - rect.left()) / rect.width();
        let fy = (f64::from(ev.client_y()) - rect.top()) / rect.height();
        let row = rows.with(
            |r| match r.get((fy * r.len() as f64).floor().max(0.0) as usize) {
                Some(Row::Head(l, h)) => Some((*l, *h)),
                _ => None,
            },
        );
        let column = (fx * shape.n_positions as f64).floor().max(0.0) as usize;
        let cached = at().map_or(0, |i| prompt.with(Vec::len) + i + 1);
        hover.set(row.filter(|_| column < cached).map(|(l, h)| (l, h, column)));
    };
    let hover_line = move || {
        let (layer, head, position) = hover.get()?;
        let shape = shape()?;
        let weight = steps.with(|s| {
            s.get(at()?)?
                .attention
                .get(layer)?
                .get(head)?
                .get(position)
                .copied()
        })?;
        let token = characters().get(position).cloned().unwrap_or_default();
        let group = shape.n_head / shape.n_kv_head.max(1);
        Some((texts().hover)(
            layer + 1,
            head + 1,
            head / group.max(1) + 1,
            &visible(&token),
            position,
            weight,
        ))
    };
    let labels = move || {
        let shape = shape();
        let group = shape.map_or(1, |s| s.n_head / s.n_kv_head.max(1)).max(1);
        rows.get()
            .into_iter()
            .map(|row| match row {
                Row::Layer(layer) => view! {
                    <span class="strip-label layer-name">{(texts().layer)(layer + 1)}</span>
                }
                .into_any(),
                Row::Head(_, head) => {
                    let first = head % group == 0;
                    let heads: Vec<String> =
                        (head..head + group).map(|h| (h + 1).to_string()).collect();
                    view! {
                        <span class="strip-label">
                            {(texts().query_head)(head + 1, head / group + 1)}
                            {first.then(|| view! {
                                <span class="strip-group">
                                    {(texts().kv_group)(head / group + 1, &heads.join(", q"))}
                                </span>
                            })}
                        </span>
                    }
                    .into_any()
                }
                Row::Gap => view! { <span class="strip-label gap"></span> }.into_any(),
            })
            .collect_view()
    };
    let step_line = move || {
        let index = at()?;
        let shape = shape()?;
        steps.with(|s| {
            let step = s.get(index)?;
            Some((texts().step_line)(
                index + 1,
                &visible(&step.token),
                step.cache_len.max(prompt.with(Vec::len) + index + 1),
                shape.n_positions,
            ))
        })
    };
    let top = move || {
        let index = at()?;
        let model = model(lab)?;
        steps.with(|s| {
            let step = s.get(index)?;
            Some(
                step.top
                    .iter()
                    .map(|p| {
                        let token = model.vocab.get(p.id as usize).cloned().unwrap_or_default();
                        let chosen = p.id == step.id;
                        view! {
                            <li class:chosen=chosen>
                                <span class="prediction-token">{visible(&token)}</span>
                                <span class="prediction-p">{format!("{:.1}%", p.p * 100.0)}</span>
                            </li>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    let cached_now = move || at().map_or(0, |i| prompt.with(Vec::len) + i + 1);
    let cache_line = move || {
        let shape = shape()?;
        let n = cached_now();
        (n > 0).then(|| {
            let bytes = CacheSizes::of(&shape).this_model * n;
            (texts().cache_line)(
                n,
                shape.n_positions,
                shape.n_layer,
                shape.n_kv_head,
                shape.d_head(),
                &group_digits(bytes as u64),
            )
        })
    };
    let bars = move || {
        let shape = shape()?;
        let n = cached_now();
        if n == 0 {
            return None;
        }
        let sizes = CacheSizes::of(&shape);
        let t = texts();
        let mut bars = vec![(
            (t.this_model)(shape.n_kv_head, shape.n_head),
            sizes.this_model,
            true,
        )];
        if shape.n_kv_head != shape.n_head {
            bars.push((t.mha.to_string(), sizes.mha, false));
        } else {
            bars.push(((t.gqa)(sizes.gqa_kv_heads), sizes.gqa, false));
        }
        bars.push((t.mqa.to_string(), sizes.mqa, false));
        bars.push((t.mla.to_string(), sizes.mla_formula, false));
        let largest = bars.iter().map(|b| b.1).max().unwrap_or(1).max(1);
        Some(view! {
            <figure class="cache-bytes" data-testid="generate-memory">
                <figcaption>{(t.bytes_title)(n)}</figcaption>
                <ul>
                    {bars.into_iter().map(|(label, per, this)| view! {
                        <li class:this-model=this>
                            <span class="bytes-label">{label}</span>
                            <span class="bytes-bar" style=format!("width: {:.1}%", 100.0 * per as f64 / largest as f64)></span>
                            <span class="bytes-value">{format!("{} B", group_digits((per * n) as u64))}</span>
                        </li>
                    }).collect_view()}
                </ul>
            </figure>
        })
    };
    let checked = move || {
        let delta = steps.with(|s| s.iter().filter_map(|s| s.max_delta).reduce(f32::max))?;
        Some((texts().checked)(delta))
    };
    let trained = move || lab.request.with(|r| r.trained_layout().is_some());
    let loading = move || model(lab).is_none();
    let scrub = move |ev| {
        if let Ok(v) = event_target_value(&ev).parse::<usize>() {
            shown.set(Some(v.saturating_sub(1)));
        }
    };
    view! {
        <p class="help block">{move || texts().help}</p>
        <Show when=trained fallback=move || view! { <p class="help block">{move || texts().need_model}</p> }>
            <div class="control-row">
                <label class="control-label">
                    <input type="number" min="1" max="1024" data-testid="generate-steps"
                        prop:value=move || asked.get().to_string() on:change=set_asked />
                    " " {move || texts().steps}
                </label>
                <label class="control-label">
                    <input type="checkbox" data-testid="generate-cache" prop:checked=move || cache.get()
                        on:change=move |ev| cache.set(event_target_checked(&ev)) />
                    " " {move || texts().cache}
                </label>
                <label class="control-label">
                    {move || lab.lang.get().text().model.sampling}
                    " "
                    <input type="range" min="0" max="2" step="0.1" data-testid="generate-sampling"
                        prop:value=move || sampling.get().to_string()
                        on:change=move |ev| if let Ok(v) = event_target_value(&ev).parse() { sampling.set(v) } />
                    " "
                    <span class="help">{move || if sampling.get() == 0.0 { lab.lang.get().text().model.greedy.to_string() } else { format!("{:.1}", sampling.get()) }}</span>
                </label>
            </div>
            <div class="control-row">
                <button type="button" class="button" data-testid="generate-play" on:click=play disabled=loading>
                    {move || if playing.get() { texts().pause } else { texts().play }}
                </button>
                <button type="button" class="button" data-testid="generate-step" on:click=one disabled=loading>{move || texts().step}</button>
                <button type="button" class="button" data-testid="generate" on:click=all disabled=loading>{move || texts().all}</button>
                <button type="button" class="button" data-testid="generate-restart" on:click=restart
                    disabled=move || taken() == 0>{move || texts().restart}</button>
            </div>
            {move || loading().then(|| view! { <p class="help block">{lab.lang.get().text().model.loading}</p> })}
            {move || error.get().map(|e| view! { <p class="error" data-testid="generate-error" role="alert">{e}</p> })}
            <Show when=move || { taken() > 0 }>
                <p class="generated" data-testid="generated">
                    {move || {
                        let n = prompt.with(Vec::len);
                        let now = at().map(|i| n + i);
                        let hovered = hover.get().map(|h| h.2);
                        characters().into_iter().enumerate().map(|(i, c)| {
                            let (new, current, hovered) = (i >= n, now == Some(i), hovered == Some(i));
                            view! {
                                <span class:generated-char=new class:current=current
                                    class:hovered=hovered>{visible(&c)}</span>
                            }
                        }).collect_view()
                    }}
                </p>
                <label class="control-label scrubber">
                    {move || texts().shown_step} " "
                    <input type="range" min="1" data-testid="generate-scrub"
                        prop:max=move || taken().to_string()
                        prop:value=move || at().map_or(1, |i| i + 1).to_string()
                        on:input=scrub />
                    " " <span data-testid="generate-at">{move || format!("{} / {}", at().map_or(0, |i| i + 1), taken())}</span>
                </label>
                <p class="help block" data-testid="generate-step-line">{step_line}</p>
                <div class="chosen-among">
                    <span class="help">{move || texts().chosen_among}</span>
                    <ul class="predictions inline">{top}</ul>
                </div>
                <p class="help block">{move || texts().rows_help}</p>
                <div class="strips" style=move || format!("--strip-rows: {}; --strip-row: {ROW_PX}px", rows.with(Vec::len))>
                    <div class="strip-labels">{labels}</div>
                    <canvas class="strip-canvas" node_ref=canvas data-testid="generate-strips"
                        role="img" aria-label=move || texts().rows_help
                        on:pointermove=point on:pointerdown=point
                        on:pointerleave=move |_| hover.set(None)></canvas>
                </div>
                <p class="help strip-legend">
                    {move || texts().weight} " 0 " <span class="viridis-bar"></span> " 1"
                </p>
                <p class="help block hover-line" data-testid="generate-hover">{hover_line}</p>
                <p class="help block" data-testid="generate-cache-line">{cache_line}</p>
                {bars}
                <figure class="generate-speed" data-testid="generate-speed">
                    <figcaption>{move || texts().speed_title}</figcaption>
                    <p>{move || (texts().speed_row)(true, speed.get()[0])}</p>
                    <p>{move || (texts().speed_row)(false, speed.get()[1])}</p>
                    <p class="help">{move || texts().speed_help}</p>
                </figure>
                <p class="help block" data-testid="generate-check">{checked}</p>
                <button type="button" class="button" data-testid="generate-keep" on:click=keep>{move || texts().keep}</button>
            </Show>
        </Show>
    }
}

/// A number in [0, 1) for sampling seeds: random in the browser, fixed elsewhere.
pub fn random_draw() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Math::random()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.5
    }
}
