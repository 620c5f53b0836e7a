//! The head view: queries on the left, keys on the right, a line for each pair whose thickness
//! and opacity follow the attention weight (the picture BertViz made popular). Hovering a token
//! shows only its lines. Lines are batched by opacity into a few paths, not stroked one by one.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, PointerEvent};

use crate::ui::browser::canvas::{computed, pixel_ratio, size_canvas};
use crate::ui::browser::observers::{observe_visible, observe_width};
use crate::ui::browser::share::{download_png, report};
use crate::ui::logic::format::shorten_label;
use crate::ui::logic::head_lines::{self, Focus};
use crate::ui::logic::visible_all;
use crate::ui::state::Lab;
use ndarray::Array2;

/// Opacity levels lines are grouped into.
const LEVELS: usize = 12;
/// Weights below this are not drawn unless their token is focused: they would be invisible.
const FAINTEST: f32 = 0.01;
/// Up to this many keys, every line is drawn; beyond, each query's strongest few, about
/// `LINE_BUDGET` in all and between 2 and 6 per query (all of a focused token's lines are always
/// drawn). Thousands of faint anti-aliased lines cost milliseconds of rasterising and show nothing.
const ALL_LINES_UP_TO: usize = 16;
const LINE_BUDGET: usize = 400;
const FONT: &str =
    "12px system-ui, -apple-system, 'Segoe UI', 'Noto Sans CJK SC', 'PingFang SC', sans-serif";

/// The weights of one head with its tokens (as labels show them).
#[derive(Debug, Clone, PartialEq)]
pub struct Lines {
    /// [queries, keys]
    pub weights: Array2<f32>,
    pub queries: Vec<String>,
    pub keys: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Geometry {
    row: f64,
    label_w: f64,
    width: f64,
    queries: usize,
    keys: usize,
}

/// The selected head of the shown trace, or the head `lines` gives (a user's own file).
#[component]
pub fn HeadView(#[prop(optional, into)] lines: Option<Signal<Option<Lines>>>) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let focus = RwSignal::new(None::<Focus>);
    let geometry = StoredValue::new(None::<Geometry>);
    let width = RwSignal::new(None::<f64>);
    observe_width(move || canvas.get().and_then(|c| c.parent_element()), width);
    let visible = RwSignal::new(false);
    observe_visible(move || canvas.get().map(Into::into), visible);

    // What the picture depends on, compared by value: unchanged weights draw nothing.
    let given = lines;
    let lines = Memo::new(move |_| {
        if let Some(given) = given {
            return given.get();
        }
        let trace = lab.shown.get()?;
        let head = lab.selected_head().min(trace.0.heads.len() - 1);
        Some(Lines {
            weights: trace.0.heads[head].weights.clone(),
            queries: visible_all(trace.0.config.tokens()),
            keys: visible_all(&trace.0.config.key_sequence().tokens),
        })
    });
    // The theme's ink and accent, read (a style lookup, which can force a style recalculation)
    // once per theme rather than on every redraw.
    let colours = StoredValue::new(None::<(crate::ui::logic::theme::Theme, String, String)>);
    let label_layer = StoredValue::new_local(None::<LabelLayer>);
    Effect::new(move |_| {
        if !visible.get() {
            return;
        }
        let theme = lab.scheme();
        let available = width.get();
        let (Some(canvas), Some(lines)) = (canvas.get(), lines.get()) else {
            return;
        };
        let (ink, accent) = match colours.get_value() {
            Some((t, ink, accent)) if t == theme => (ink, accent),
            _ => {
                let ink = computed(&canvas, "color").unwrap_or_else(|| "#222".into());
                let accent = computed(&canvas, "--accent").unwrap_or_else(|| ink.clone());
                colours.set_value(Some((theme, ink.clone(), accent.clone())));
                (ink, accent)
            }
        };
        let drawn = label_layer
            .try_update_value(|layer| {
                draw(
                    &canvas,
                    &lines,
                    focus.get(),
                    available,
                    (&ink, &accent, None),
                    pixel_ratio(),
                    Some(layer),
                )
            })
            .unwrap_or(Ok(Geometry::default()));
        match drawn {
            Ok(g) => geometry.set_value(Some(g)),
            Err(error) => web_sys::console::error_2(&"head view: drawing failed".into(), &error),
        }
        lab.drawn();
    });

    let on_move = move |ev: PointerEvent| {
        let Some(g) = geometry.get_value() else {
            return;
        };
        let Some(rect) = canvas.get_untracked().map(|c| c.get_bounding_client_rect()) else {
            return;
        };
        let (x, y) = (
            f64::from(ev.client_x()) - rect.left(),
            f64::from(ev.client_y()) - rect.top(),
        );
        let index = ((y - 6.0) / g.row).floor();
        let picked = if index < 0.0 {
            None
        } else if x < g.width / 2.0 {
            ((index as usize) < g.queries).then_some(Focus::Query(index as usize))
        } else {
            ((index as usize) < g.keys).then_some(Focus::Key(index as usize))
        };
        if picked != focus.get_untracked() {
            focus.set(picked);
        }
    };
    let text = move || lab.lang.get().text();
    // The keyboard moves the same focus the pointer does; what it picks is said in words.
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let Some((queries, keys)) = lines.with_untracked(|l| l.as_ref().map(|l| l.weights.dim()))
        else {
            return;
        };
        if let Some(next) = head_lines::step(focus.get_untracked(), &ev.key(), queries, keys) {
            ev.prevent_default();
            focus.set(next);
        }
    };
    let described = move |picked: Option<Focus>| {
        lines.with(|l| {
            l.as_ref().map(|l| {
                head_lines::describe(&l.weights, &l.queries, &l.keys, picked, lab.lang.get())
            })
        })
    };
    // Exported for slides as the heatmaps are: at least twice the pixels, on the panel's
    // colour rather than transparent.
    let export_png = move |_| {
        let (Some(shown), Some(lines)) = (canvas.get_untracked(), lines.get_untracked()) else {
            return;
        };
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let ink = computed(&shown, "color").unwrap_or_else(|| "#222".into());
        let accent = computed(&shown, "--accent").unwrap_or_else(|| ink.clone());
        let paper = computed(&shown, "--panel").unwrap_or_else(|| "#ffffff".into());
        let result = document
            .create_element("canvas")
            .and_then(|c| c.dyn_into::<HtmlCanvasElement>().map_err(Into::into))
            .and_then(|export| {
                let width = f64::from(shown.client_width()).max(220.0);
                draw(
                    &export,
                    &lines,
                    None,
                    Some(width),
                    (&ink, &accent, Some(&paper)),
                    pixel_ratio().max(EXPORT_RATIO),
                    None,
                )?;
                download_png("head-view.png", &export)
            });
        report(result);
    };
    view! {
        <div class="head-view">
            <div class="heatmap-tools">
                <button type="button" class="table-toggle" data-testid="head-view-png" on:click=export_png>
                    {move || text().export_png}
                </button>
            </div>
            <div class="head-view-axes" aria-hidden="true">
                <span>{move || text().queries}</span>
                <span>{move || text().keys}</span>
            </div>
            <canvas
                class="head-view-canvas"
                node_ref=canvas
                data-testid="head-view"
                role="img"
                tabindex="0"
                aria-label=move || {
                    described(None).map(|d| format!("{d} {}", text().head_lines.keys_help))
                }
                on:pointermove=on_move
                on:pointerleave=move |_| focus.set(None)
                on:keydown=on_key
                on:blur=move |_| focus.set(None)
            ></canvas>
            <p class="help block" data-testid="head-view-focus" aria-live="polite">
                {move || focus.get().and_then(|f| described(Some(f)))}
            </p>
        </div>
    }
}

fn short(label: &str) -> String {
    shorten_label(label, 10)
}

/// Exported images have at least this many device pixels per CSS pixel.
const EXPORT_RATIO: f64 = 2.0;

/// Draws the lines on `canvas` at `ratio` device pixels per CSS pixel, in the theme's ink and
/// accent, on `paper` when given (an export) or transparent.
fn draw(
    canvas: &HtmlCanvasElement,
    lines: &Lines,
    focus: Option<Focus>,
    available: Option<f64>,
    (ink, accent, paper): (&str, &str, Option<&str>),
    ratio: f64,
    layer: Option<&mut Option<LabelLayer>>,
) -> Result<Geometry, JsValue> {
    let weights = &lines.weights;
    let (queries, keys) = weights.dim();
    let query_labels = &lines.queries;
    let key_labels = &lines.keys;
    let width = available
        .or_else(|| canvas.parent_element().map(|p| f64::from(p.client_width())))
        .unwrap_or(360.0)
        .clamp(220.0, 520.0);
    let row = (520.0 / queries.max(keys) as f64).clamp(3.0, 22.0);
    let height = row * queries.max(keys) as f64 + 12.0;

    let ctx = size_canvas(canvas, width, height, ratio)?;
    if let Some(paper) = paper {
        ctx.set_fill_style_str(paper);
        ctx.fill_rect(0.0, 0.0, width, height);
    }
    ctx.set_font(FONT);
    let label_w = (width * 0.28).min(110.0);
    let (x_left, x_right) = (label_w + 6.0, width - label_w - 6.0);
    let y = |i: usize| 6.0 + (i as f64 + 0.5) * row;

    // The lines worth drawing: each query's strongest keys, or all lines of the focused token.
    let per_query = (LINE_BUDGET / queries.max(1)).clamp(2, 6);
    let mut scratch: Vec<f32> = Vec::with_capacity(keys);
    let strong: Vec<f32> = weights
        .outer_iter()
        .map(|row| {
            if keys <= ALL_LINES_UP_TO {
                return 0.0;
            }
            // The per_query-th largest weight of the row (a selection, not a sort).
            scratch.clear();
            scratch.extend(row.iter().copied());
            let nth = (per_query - 1).min(keys - 1);
            *scratch.select_nth_unstable_by(nth, |a, b| b.total_cmp(a)).1
        })
        .collect();
    let shown = |i: usize, j: usize| match focus {
        Some(Focus::Query(q)) => q == i,
        Some(Focus::Key(k)) => k == j,
        None => weights[[i, j]] >= strong[i],
    };
    // Grouped by opacity level (in one pass over the weights): one path and one stroke per
    // level; a weight w falls in level ⌈w·LEVELS⌉, the one whose range (low, high] holds it.
    let mut levels: Vec<Vec<(usize, usize)>> = vec![Vec::new(); LEVELS];
    for ((i, j), &w) in weights.indexed_iter() {
        if w <= 0.0 || !shown(i, j) || (w < FAINTEST && focus.is_none()) {
            continue;
        }
        let w_level = if focus.is_some() {
            w.max(FAINTEST * 2.0)
        } else {
            w
        };
        let level = ((w_level * LEVELS as f32).ceil() as usize).clamp(1, LEVELS);
        levels[level - 1].push((i, j));
    }
    ctx.set_stroke_style_str(accent);
    for (level, pairs) in levels.iter().enumerate() {
        if pairs.is_empty() {
            continue;
        }
        let high = (level + 1) as f32 / LEVELS as f32;
        let width = 0.6 + 2.4 * f64::from(high);
        ctx.set_global_alpha(f64::from(0.15 + 0.85 * high));
        ctx.set_line_width(width);
        // Lines at most a device pixel wide share one path (a browser draws such hairlines
        // directly); a wider line is a path of its own: one path of many crossing wide strokes is
        // turned into a polygon first, which in Chromium's software canvas took 11 ms for 400
        // lines against 3 ms stroked one by one (benches/README.md, the head view).
        let shared = width * ratio <= 1.0;
        if shared {
            ctx.begin_path();
        }
        for &(i, j) in pairs {
            if !shared {
                ctx.begin_path();
            }
            ctx.move_to(x_left, y(i));
            ctx.line_to(x_right, y(j));
            if !shared {
                ctx.stroke();
            }
        }
        if shared {
            ctx.stroke();
        }
    }
    ctx.set_global_alpha(1.0);

    // Token labels, thinned out when rows are too short to read. Without a focus they are the
    // same on every redraw that only changes the weights: drawn once into a layer and copied.
    let sides = (query_labels.as_slice(), key_labels.as_slice());
    match (focus, layer) {
        (None, Some(layer)) => {
            let fresh = layer.as_ref().is_some_and(|l| {
                let k = &l.key;
                k.queries == *query_labels
                    && k.keys == *key_labels
                    && (k.width, k.height, k.ratio)
                        == (width.to_bits(), height.to_bits(), ratio.to_bits())
                    && k.ink == ink
            });
            if !fresh {
                let canvas = match layer.take() {
                    Some(old) => old.canvas,
                    None => web_sys::window()
                        .and_then(|w| w.document())
                        .ok_or("no document")?
                        .create_element("canvas")?
                        .dyn_into::<HtmlCanvasElement>()?,
                };
                let label_ctx = size_canvas(&canvas, width, height, ratio)?;
                draw_labels(
                    &label_ctx,
                    sides,
                    (x_left, x_right),
                    row,
                    None,
                    (ink, accent),
                )?;
                *layer = Some(LabelLayer {
                    key: LabelKey {
                        queries: query_labels.clone(),
                        keys: key_labels.clone(),
                        width: width.to_bits(),
                        height: height.to_bits(),
                        ratio: ratio.to_bits(),
                        ink: ink.to_string(),
                    },
                    canvas,
                });
            }
            if let Some(layer) = layer.as_ref() {
                ctx.draw_image_with_html_canvas_element_and_dw_and_dh(
                    &layer.canvas,
                    0.0,
                    0.0,
                    width,
                    height,
                )?;
            }
        }
        _ => draw_labels(&ctx, sides, (x_left, x_right), row, focus, (ink, accent))?,
    }
    ctx.set_global_alpha(1.0);
    Ok(Geometry {
        row,
        label_w,
        width,
        queries,
        keys,
    })
}

/// What the token labels of a picture depend on (compared field by field against the new
/// picture's, so an unchanged picture clones nothing).
struct LabelKey {
    queries: Vec<String>,
    keys: Vec<String>,
    /// CSS width and height, and device pixels per CSS pixel (as bits: compared exactly).
    width: u64,
    height: u64,
    ratio: u64,
    ink: String,
}

/// The token labels as last drawn, on a canvas of their own.
struct LabelLayer {
    key: LabelKey,
    canvas: HtmlCanvasElement,
}

/// The token labels of both sides; with a focus, the focused one in the accent and the others
/// faded.
fn draw_labels(
    ctx: &CanvasRenderingContext2d,
    (queries, keys): (&[String], &[String]),
    (x_left, x_right): (f64, f64),
    row: f64,
    focus: Option<Focus>,
    (ink, accent): (&str, &str),
) -> Result<(), JsValue> {
    let y = |i: usize| 6.0 + (i as f64 + 0.5) * row;
    let every = (13.0 / row).ceil().max(1.0) as usize;
    ctx.set_font(FONT);
    ctx.set_text_baseline("middle");
    for (side, labels, x, align) in [
        (0, queries, x_left - 6.0, "right"),
        (1, keys, x_right + 6.0, "left"),
    ] {
        ctx.set_text_align(align);
        for (i, label) in labels.iter().enumerate() {
            let focused = match focus {
                Some(Focus::Query(q)) => side == 0 && q == i,
                Some(Focus::Key(k)) => side == 1 && k == i,
                None => false,
            };
            if i % every != 0 && !focused {
                continue;
            }
            ctx.set_fill_style_str(if focused { accent } else { ink });
            ctx.set_global_alpha(if focus.is_some() && !focused {
                0.55
            } else {
                1.0
            });
            ctx.fill_text(&short(label), x, y(i))?;
        }
    }
    ctx.set_global_alpha(1.0);
    Ok(())
}
