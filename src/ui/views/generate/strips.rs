//! The strip picture of the step on view: its new query row against every cached key, one row
//! per query head of each layer (the query heads of one K/V head together), a pixel per cached
//! position; the row labels; and the cell under the pointer in words.

use leptos::prelude::*;
use wasm_bindgen::{Clamped, JsCast};

use super::run::Generation;
use crate::ui::logic::colormap::{ScaleMode, viridis};
use crate::ui::logic::visible;
use attention_core::models::generate::Step;

/// Height of one strip row, CSS pixels.
const ROW_PX: usize = 12;

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
/// Draws each query head's weights as a strip; `stretched` (contrast scales) runs each strip's
/// colours from 0 to its own largest weight instead of 0 … 1, so that a projected strip of small
/// weights is not uniformly dark.
fn draw_strips(
    canvas: &web_sys::HtmlCanvasElement,
    step: &Step,
    rows: &[Row],
    context: usize,
    stretched: bool,
) {
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
        let top = if stretched {
            weights.iter().copied().fold(0.0f32, f32::max)
        } else {
            1.0
        };
        for (j, &w) in weights.iter().enumerate().take(context) {
            let t = if top > 0.0 { w / top } else { 0.0 };
            let [red, green, blue] = viridis(t.clamp(0.0, 1.0));
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

/// The strips of the step on view, their labels, and the hovered cell in words.
#[component]
pub fn Strips(generation: Generation) -> impl IntoView {
    let g = generation;
    let lab = g.lab;
    let texts = move || &lab.lang.get().text().model.generate;
    let rows = Memo::new(move |_| {
        g.config().map_or_else(Vec::new, |s| {
            strip_rows(s.n_layers, s.n_heads, s.n_kv_heads)
        })
    });
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    Effect::new(move |_| {
        let (Some(canvas), Some(config)) = (canvas.get(), g.config()) else {
            return;
        };
        let Some(index) = g.at() else { return };
        let stretched = lab.scale_mode.get() == ScaleMode::Contrast;
        g.steps.with(|s| {
            if let Some(step) = s.get(index) {
                rows.with(|rows| draw_strips(&canvas, step, rows, config.context, stretched));
            }
        });
    });
    let point = move |ev: web_sys::PointerEvent| {
        let (Some(canvas), Some(config)) = (canvas.get_untracked(), g.config()) else {
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
        let column = (fx * config.context as f64).floor().max(0.0) as usize;
        let cached = g.cached_now();
        g.hover
            .set(row.filter(|_| column < cached).map(|(l, h)| (l, h, column)));
    };
    // The keyboard moves the same cell the pointer does.
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let Some(config) = g.config() else { return };
        let next = crate::ui::logic::strip_keys::step(
            g.hover.get_untracked(),
            &ev.key(),
            config.n_layers,
            config.n_heads,
            g.cached_now(),
        );
        if let Some(next) = next {
            ev.prevent_default();
            g.hover.set(next);
        }
    };
    // The step in words: each query head's strongest cached character, with its weight.
    let summary = move || {
        g.config()?;
        let index = g.at()?;
        let characters = g.characters();
        let name = |p: usize| {
            format!(
                "{p} “{}”",
                visible(characters.get(p).map_or("", |s| s.as_str()))
            )
        };
        g.steps.with(|s| {
            let step = s.get(index)?;
            let mut each = Vec::new();
            for (layer, heads) in step.attention.iter().enumerate() {
                for (head, weights) in heads.iter().enumerate() {
                    let best = weights
                        .iter()
                        .enumerate()
                        .max_by(|a, b| a.1.total_cmp(b.1))
                        .map(|(p, &w)| format!("{} {w:.2}", name(p)));
                    if let Some(best) = best {
                        each.push(format!("L{} q{} → {best}", layer + 1, head + 1));
                    }
                }
            }
            Some(format!(
                "{} {}",
                (texts().strips_summary)(index + 1, &visible(&step.token), &each.join("; ")),
                texts().strips_keys
            ))
        })
    };
    let hover_line = move || {
        let (layer, head, position) = g.hover.get()?;
        let config = g.config()?;
        let weight = g.steps.with(|s| {
            s.get(g.at()?)?
                .attention
                .get(layer)?
                .get(head)?
                .get(position)
                .copied()
        })?;
        let token = g.characters().get(position).cloned().unwrap_or_default();
        let group = config.n_heads / config.n_kv_heads.max(1);
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
        let group = g
            .config()
            .map_or(1, |s| s.n_heads / s.n_kv_heads.max(1))
            .max(1);
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
    view! {
        <p class="help block">{move || texts().rows_help}</p>
        <div class="strips" style=move || format!("--strip-rows: {}; --strip-row: {ROW_PX}px", rows.with(Vec::len))>
            <div class="strip-labels" aria-hidden="true">{labels}</div>
            <canvas class="strip-canvas" node_ref=canvas data-testid="generate-strips"
                role="img" tabindex="0" aria-label=summary
                on:pointermove=point on:pointerdown=point on:keydown=on_key
                on:pointerleave=move |_| g.hover.set(None) on:blur=move |_| g.hover.set(None)></canvas>
        </div>
        <p class="help strip-legend">
            {move || texts().weight} " 0 " <span class="viridis-bar"></span> " 1"
        </p>
        <Show when=move || lab.scale_mode.get() == ScaleMode::Contrast>
            <p class="help block" data-testid="strips-stretched">{move || texts().stretched}</p>
        </Show>
        <p class="help block hover-line" data-testid="generate-hover" aria-live="polite">{hover_line}</p>
    }
}
