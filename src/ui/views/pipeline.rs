//! The pipeline, one section after another, each with its stages (formula, caption, heatmap):
//! tokens → X → Q, K, V → QKᵀ → ÷ (√d_k · T) → + M → softmax → · V → concat → W_O, then
//! FlashAttention. Every section has its own link and embed code, which keep it in view.

use leptos::prelude::*;

use super::flash::FlashView;
use super::head_view::HeadView;
use super::heatmap::{CellPick, Heatmap, Look};
use super::model_views::{ModelOverview, NextToken};
use crate::ui::browser::{location, share};
use crate::ui::i18n::OverviewTexts;
use crate::ui::model::controls::{Choice, MaskKind};
use crate::ui::model::engine::computes_later;
use crate::ui::model::format::format_ms;
use crate::ui::model::link::LinkState;
use crate::ui::model::matrix::{Legend, MatrixView, Span};
use crate::ui::model::roles::label;
use crate::ui::model::sections::Section;
use crate::ui::model::stages::Stage;
use crate::ui::state::{ActiveCell, Lab};
use crate::ui::views::controls::Segmented;

/// The language, theme and export settings every heatmap of the lab follows.
pub fn look(lab: Lab) -> Look {
    Look {
        lang: lab.lang.into(),
        theme: Signal::derive(move || lab.scheme()),
        titles: lab.export_titles.into(),
    }
}

/// The heatmap of one stage, for the selected head where the stage is per head, on the chosen
/// colour scales. A memo: when a change leaves this matrix as it was (a new temperature does not
/// change Q), nothing redraws.
fn stage_data(lab: Lab, stage: Stage) -> Signal<Option<MatrixView>> {
    Memo::new(move |_| {
        let trace = lab.shown.get()?;
        if !stage.is_shown(&trace.0) {
            return None;
        }
        let head = if stage.is_per_head() {
            lab.selected_head()
        } else {
            0
        };
        Some(stage.view(&trace.0, head, lab.scale_mode.get()))
    })
    .into()
}

/// Rows and columns of a long input's zoomed region.
pub const ZOOM: usize = 32;

/// The zoomed region for a trace of `n` queries and `m` keys: `ZOOM` × `ZOOM` cells from the lab's
/// zoom corner, kept inside the matrix.
fn zoom_ranges(lab: Lab, n: usize, m: usize) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    let (row, col) = lab.zoom.get();
    let r0 = row.min(n.saturating_sub(ZOOM));
    let c0 = col.min(m.saturating_sub(ZOOM));
    (r0..(r0 + ZOOM).min(n), c0..(c0 + ZOOM).min(m))
}

/// A keyed stage of a long input: all its cells as an overview of blocks (max or mean), with
/// the zoomed region outlined, and that region below at full resolution with its tokens.
#[component]
fn OverviewStage(stage: Stage) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().overview;
    let head = move || lab.selected_head();
    let overview = Memo::new(move |_| {
        let trace = lab.shown.get()?;
        stage.is_overview(&trace.0).then(|| {
            stage.view_reduced(&trace.0, head(), lab.scale_mode.get(), lab.reduction.get())
        })
    });
    let sizes = move || {
        lab.shown.with(|t| {
            t.as_ref().and_then(|t| {
                let o =
                    t.0.overviews
                        .get(head().min(t.0.overviews.len().saturating_sub(1)))?;
                Some((
                    t.0.config.seq_len(),
                    t.0.config.key_len(),
                    o.row_step,
                    o.col_step,
                ))
            })
        })
    };
    let region = Memo::new(move |_| {
        let trace = lab.shown.get()?;
        if !stage.is_overview(&trace.0) {
            return None;
        }
        let (rows, cols) = zoom_ranges(lab, trace.0.config.seq_len(), trace.0.config.key_len());
        Some(stage.region(&trace.0, head(), lab.scale_mode.get(), rows, cols))
    });
    // The zoomed region, outlined on the overview (in blocks).
    let outline = Signal::derive(move || {
        let (n, m, rs, cs) = sizes()?;
        let (rows, cols) = zoom_ranges(lab, n, m);
        Some(Span {
            rows: rows.start / rs..rows.end.div_ceil(rs),
            cols: cols.start / cs..cols.end.div_ceil(cs),
        })
    });
    let active = move |block: bool| {
        Callback::new(move |pick: Option<CellPick>| match pick {
            Some(pick) => {
                let (row, col) = if block {
                    (pick.row, pick.col)
                } else {
                    let (n, m, _, _) = sizes().unwrap_or((0, 0, 1, 1));
                    let (rows, cols) = zoom_ranges(lab, n, m);
                    (rows.start + pick.row, cols.start + pick.col)
                };
                lab.active.set(Some(ActiveCell {
                    stage,
                    head: lab.selected_head(),
                    row,
                    col,
                    x: pick.x,
                    y: pick.y,
                    block,
                }));
            }
            None => {
                if lab.active.get_untracked().is_some_and(|a| a.stage == stage) {
                    lab.active.set(None);
                }
            }
        })
    };
    // A chosen block: the zoom centres on it.
    let choose = Callback::new(move |(row, col): (usize, usize)| {
        let Some((_, _, rs, cs)) = sizes() else {
            return;
        };
        let centre = |block: usize, step: usize| (block * step + step / 2).saturating_sub(ZOOM / 2);
        lab.zoom.set((centre(row, rs), centre(col, cs)));
    });
    let shift = move |(dr, dc): (isize, isize)| {
        let Some((n, m, _, _)) = sizes() else { return };
        let (rows, cols) = zoom_ranges(lab, n, m);
        let step = (ZOOM / 2) as isize;
        let moved = |start: usize, d: isize| (start as isize + d * step).max(0) as usize;
        lab.zoom.set((moved(rows.start, dr), moved(cols.start, dc)));
    };
    let zoom_title = move || {
        let (n, m, _, _) = sizes()?;
        let (rows, cols) = zoom_ranges(lab, n, m);
        Some((text().zoom_title)(
            rows.start,
            rows.end - 1,
            cols.start,
            cols.end - 1,
        ))
    };
    let moves: [(isize, isize, &str); 4] = [(-1, 0, "↑"), (1, 0, "↓"), (0, -1, "←"), (0, 1, "→")];
    let title = move || stage.text(lab.lang.get()).title.to_string();
    view! {
        <div class="overview" data-testid=format!("overview-{}", stage.id())>
            <div class="overview-head">
                <p class="help">
                    {move || sizes().map(|(n, m, rs, cs)| (text().caption)(n, m, rs, cs))}
                </p>
                <span class="field-label">{move || text().reduction}</span>
                <Segmented selected=lab.reduction lang=lab.lang test_id="reduction"
                    on_select=Callback::new(move |r| lab.reduction.set(r)) />
            </div>
            <Heatmap
                data=overview
                look=look(lab)
                test_id=format!("heatmap-{}", stage.id())
                label=Signal::derive(title)
                export=export_label(lab, stage)
                on_cell=active(true)
                on_choose=choose
                highlight=outline
                on_drawn=Callback::new(move |_| lab.drawn())
            />
            <div class="zoom-head">
                <h4 data-testid=format!("zoom-title-{}", stage.id())>{zoom_title}</h4>
                <span class="zoom-moves">
                    {moves
                        .into_iter()
                        .enumerate()
                        .map(|(i, (dr, dc, arrow))| view! {
                            <button type="button" class="table-toggle"
                                data-testid=format!("zoom-move-{}-{i}", stage.id())
                                aria-label=move || text().moves[i]
                                title=move || text().moves[i]
                                on:click=move |_| shift((dr, dc))>{arrow}</button>
                        })
                        .collect_view()}
                </span>
            </div>
            <p class="help">{move || text().zoom_hint}</p>
            <Heatmap
                data=region
                look=look(lab)
                test_id=format!("zoom-{}", stage.id())
                label=Signal::derive(move || zoom_title().unwrap_or_default())
                on_cell=active(false)
            />
        </div>
    }
}

/// The title line and file name of an exported stage: the matrix, the head, the sentence and
/// the settings that made it.
fn export_label(lab: Lab, stage: Stage) -> Signal<(String, String)> {
    Signal::derive(move || {
        let lang = lab.lang.get();
        let title = stage.text(lang).title;
        let head = stage.is_per_head().then(|| lab.selected_head() + 1);
        let request = lab.request.get();
        let sentence = request.sentence.clone().unwrap_or_default();
        let short: String = sentence.chars().take(40).collect();
        let ellipsis = if sentence.chars().count() > 40 {
            "…"
        } else {
            ""
        };
        let dims = lab
            .shown
            .with(|t| t.as_ref().map(|t| *t.0.config.dims()))
            .unwrap_or(attention_core::weights::Dims {
                d_model: 16,
                n_heads: 2,
                n_kv_heads: 2,
                d_k: 8,
                d_v: 8,
            });
        let mask = MaskKind::of(request.mask.as_ref()).label(lang);
        let head_text = head.map_or(String::new(), |h| {
            format!(" · {} {h}", lang.text().head_label)
        });
        let line = format!(
            "{title}{head_text} · “{short}{ellipsis}” · d_model {} · {} × d_k {} · T = {} · {mask}",
            dims.d_model,
            dims.n_heads,
            dims.d_k,
            request.temperature.unwrap_or(1.0),
        );
        let words: String = sentence
            .split_whitespace()
            .take(4)
            .flat_map(|w| w.chars().filter(|c| c.is_alphanumeric()).chain(['-']))
            .collect();
        let slug: String = words.trim_end_matches('-').chars().take(32).collect();
        let name = match head {
            Some(h) => format!("{}-head{h}-{slug}", stage.id()),
            None => format!("{}-{slug}", stage.id()),
        };
        (line, name.trim_end_matches('-').to_string())
    })
}

/// One stage: title, formula, caption and heatmap; hidden when the trace has no such matrix.
#[component]
pub fn StageCard(stage: Stage) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || stage.text(lab.lang.get());
    let shown = move || {
        lab.shown
            .with(|t| t.as_ref().is_some_and(|t| stage.is_shown(&t.0)))
    };
    let formula = move || {
        lab.shown.with(|t| {
            t.as_ref()
                .map(|t| stage.formula(&t.0, lab.lang.get()))
                .unwrap_or_default()
        })
    };
    // A trained model's layer, or one's own X, has captions of its own.
    let caption = move || {
        lab.shown.with(|t| {
            t.as_ref()
                .map(|t| stage.caption(&t.0, lab.lang.get()))
                .unwrap_or_else(|| text().caption.to_string())
        })
    };
    // In cross-attention, keys and values come from the other sentence: say so where they show.
    let from_source = move || {
        matches!(stage, Stage::K | Stage::V)
            && lab
                .shown
                .with(|t| t.as_ref().is_some_and(|t| t.0.config.source().is_some()))
    };
    let on_cell = Callback::new(move |pick: Option<CellPick>| match pick {
        Some(pick) => lab.active.set(Some(ActiveCell {
            stage,
            head: if stage.is_per_head() {
                lab.selected_head()
            } else {
                0
            },
            row: pick.row,
            col: pick.col,
            x: pick.x,
            y: pick.y,
            block: false,
        })),
        None => {
            if lab.active.get_untracked().is_some_and(|a| a.stage == stage) {
                lab.active.set(None);
            }
        }
    });
    view! {
        <Show when=shown>
            <figure class="stage" data-stage=stage.id()>
                <figcaption>
                    <h3>{move || text().title}</h3>
                    <p class="formula" data-testid=format!("formula-{}", stage.id())>{formula}</p>
                    <p class="caption" data-testid=format!("caption-{}", stage.id())>
                        {caption}
                        <Show when=from_source>
                            " (" {move || lab.lang.get().text().from_source} ")"
                        </Show>
                    </p>
                </figcaption>
                <Show
                    when=move || lab.shown.with(|t| t.as_ref().is_some_and(|t| stage.is_overview(&t.0)))
                    fallback=move || view! {
                        <Heatmap
                            data=stage_data(lab, stage)
                            look=look(lab)
                            test_id=format!("heatmap-{}", stage.id())
                            label=Signal::derive(move || text().title.to_string())
                            export=export_label(lab, stage)
                            on_cell=on_cell
                            on_drawn=Callback::new(move |_| lab.drawn())
                        />
                    }
                >
                    <OverviewStage stage=stage />
                </Show>
            </figure>
        </Show>
    }
}

/// Whether `section` is the one the lab presents full screen (every other section is hidden).
pub fn presented(lab: Lab, section: Section) -> bool {
    lab.presenting.get()
        && lab.lesson.with(Option::is_none)
        && lab.view.with(|v| v.as_deref() == Some(section.id()))
}

/// Presents `section` full screen, from its top.
pub fn present(lab: Lab, section: Section) {
    lab.view.set(Some(section.id().to_string()));
    lab.presenting.set(true);
    if let Some(window) = web_sys::window() {
        window.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

/// The bar over a presented section: where it is among the page's sections, the buttons to
/// move, and ← → and Esc.
#[component]
fn PresentBar() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().share;
    let current = move || {
        let trained = lab.request.with(|r| r.is_trained());
        let section = lab
            .view
            .with(|v| v.as_deref().and_then(Section::from_id))
            .filter(|s| Section::on_page(trained).contains(s))
            .unwrap_or(Section::on_page(trained)[0]);
        (section, trained)
    };
    let go = move |step: isize| {
        let (section, trained) = current();
        if let Some(next) = section.beside(trained, step) {
            present(lab, next);
        }
    };
    let keys = window_event_listener(leptos::ev::keydown, move |event| {
        if !lab.presenting.get_untracked() || lab.lesson.with_untracked(Option::is_some) {
            return;
        }
        let typing = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if typing || event.default_prevented() {
            return;
        }
        match event.key().as_str() {
            "ArrowRight" | "PageDown" => untrack(|| go(1)),
            "ArrowLeft" | "PageUp" => untrack(|| go(-1)),
            "Escape" => lab.presenting.set(false),
            _ => return,
        }
        event.prevent_default();
    });
    on_cleanup(move || keys.remove());
    // Entering with no section in view presents the first.
    Effect::new(move |_| {
        if lab.presenting.get()
            && lab.lesson.with(Option::is_none)
            && lab
                .view
                .with(|v| v.as_deref().and_then(Section::from_id).is_none())
        {
            let (section, _) = untrack(current);
            lab.view.set(Some(section.id().to_string()));
        }
    });
    view! {
        <Show when=move || lab.presenting.get() && lab.lesson.with(Option::is_none)>
            <div class="present-bar" data-testid="present-bar">
                <span class="help" data-testid="present-where">{move || {
                    let (section, trained) = current();
                    let sections = Section::on_page(trained);
                    let at = sections.iter().position(|&s| s == section).unwrap_or(0);
                    format!("{} · {}", (texts().section_of)(at + 1, sections.len()), section.title(lab.lang.get()))
                }}</span>
                <button type="button" class="button" data-testid="present-previous"
                    disabled=move || { let (s, t) = current(); s.beside(t, -1).is_none() }
                    on:click=move |_| go(-1)>{move || texts().previous_section}</button>
                <button type="button" class="button" data-testid="present-next"
                    disabled=move || { let (s, t) = current(); s.beside(t, 1).is_none() }
                    on:click=move |_| go(1)>{move || texts().next_section}</button>
                <button type="button" class="button" data-testid="present-end"
                    on:click=move |_| lab.presenting.set(false)>{move || texts().end_present}</button>
                <span class="help">{move || texts().present_help}</span>
            </div>
        </Show>
    }
}

/// The link and the embed code of one section, which keep it (and the head and step) in view.
#[component]
pub fn SectionShare(section: Section) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let texts = move || &lab.lang.get().text().share;
    let shown = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<bool>);
    let state = move || LinkState {
        view: crate::ui::model::link::ViewSettings {
            view: Some(section.id().to_string()),
            ..location::current(lab).view
        },
        ..location::current(lab)
    };
    let copy = move |text: String| {
        shown.set(Some(text.clone()));
        status.set(None);
        leptos::task::spawn_local(async move {
            status.set(Some(share::copy(&text).await));
        });
    };
    view! {
        <span class="section-share">
            <button type="button" class="table-toggle" data-testid=format!("link-{}", section.id())
                on:click=move |_| copy(location::href(&state()))>
                {move || texts().link_here}
            </button>
            <button type="button" class="table-toggle" data-testid=format!("embed-{}", section.id())
                on:click=move |_| copy(share::embed_code(&state(), &section.panels()))>
                {move || texts().embed_here}
            </button>
            // Not inside an embed (it has no page to fill), nor while presenting.
            <Show when=move || lab.embed.with(Option::is_none) && !lab.presenting.get()>
                <button type="button" class="table-toggle" data-testid=format!("present-{}", section.id())
                    on:click=move |_| present(lab, section)>
                    {move || texts().present_here}
                </button>
            </Show>
        </span>
        {move || shown.get().map(|value| view! {
            <div class="share-result section-share-result">
                <input type="text" readonly data-testid=format!("share-text-{}", section.id()) prop:value=value
                    aria-label=move || (texts().copied_of)(section.title(lab.lang.get())) />
                <span class="help" role="status">
                    {move || match status.get() {
                        Some(true) => lab.lang.get().text().copied,
                        Some(false) => lab.lang.get().text().copy_by_hand,
                        None => "",
                    }}
                </span>
            </div>
        })}
        <crate::ui::views::share_bar::ShareWarnings shared=shown.into() />
    }
}

/// A section's heading: its number, its title, and its link and embed buttons.
#[component]
pub fn SectionHeading(section: Section) -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <h2 class="step-title">
            {section.number().map(|n| view! { <span class="step-number">{n}</span> })}
            {move || section.title(lab.lang.get())}
        </h2>
        <SectionShare section=section />
    }
}

/// A section whose views are its stages.
#[component]
fn StageSection(section: Section) -> impl IntoView {
    let lab = expect_context::<Lab>();
    view! {
        <section class="step" data-view=section.id() id=format!("section-{}", section.id())
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <div class="stage-row">
                {section.stages().iter().map(|&stage| view! { <StageCard stage=stage /> }).collect_view()}
            </div>
        </section>
    }
}

/// Softmax: the weights beside the head view, what a fully masked row means, and what random
/// weights mean for the picture.
#[component]
fn SoftmaxSection() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let fully_masked = move || {
        lab.shown.with(|t| {
            let trace = t.as_ref()?;
            let rows =
                &trace.0.heads[lab.selected_head().min(trace.0.heads.len() - 1)].fully_masked_rows;
            (!rows.is_empty()).then(|| {
                let list = rows
                    .iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                (text().fully_masked_note)(&list)
            })
        })
    };
    // Random weights make accidental patterns; a trained head's pattern is what it learned.
    let weights_note = move || {
        let learned = lab.forward.with(|f| {
            let run = f.as_ref()?.as_ref().ok()?;
            let (layer, head) = (lab.layer.get(), lab.selected_head());
            let roles = run.0.head_roles();
            let role = label(roles.get(layer)?.get(head)?, lab.lang.get());
            Some((text().model.learned_note)(layer + 1, head + 1, &role))
        });
        learned.unwrap_or_else(|| {
            let own = lab.request.with(|r| r.weights.is_some());
            if own {
                text().own_weights_note.to_string()
            } else {
                text().random_weights_note.to_string()
            }
        })
    };
    let section = Section::Softmax;
    view! {
        <section class="step" data-view=section.id() id="section-softmax"
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <div class="stage-row">
                <StageCard stage=Stage::Weights />
                <figure class="stage">
                    <figcaption>
                        <h3>{move || text().head_view_title}</h3>
                        <p class="caption">{move || text().head_view_help}</p>
                    </figcaption>
                    <UnlessSummarised test_id="head-view-note" why=|t| t.head_view>
                        <HeadView />
                    </UnlessSummarised>
                </figure>
            </div>
            <p class="note" data-testid="fully-masked-note">{fully_masked}</p>
            <p class="help block" data-testid="weights-note">{weights_note}</p>
        </section>
    }
}

/// Buttons to choose the head the per-head views show.
#[component]
pub fn HeadSelector() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let heads = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().map_or(0, |t| t.0.heads.len()))
    });
    let group = move || {
        lab.shown.with(|t| {
            t.as_ref().map_or(0, |t| {
                t.0.heads[lab.selected_head().min(t.0.heads.len() - 1)].kv_group
            })
        })
    };
    view! {
        <div class="head-selector" role="tablist" data-testid="head-selector">
            <span class="field-label">{move || text().head_label}</span>
            {move || {
                (0..heads.get())
                    .map(|h| {
                        view! {
                            <button
                                type="button"
                                role="tab"
                                data-testid=format!("head-tab-{h}")
                                aria-selected=move || (lab.selected_head() == h).to_string()
                                class:active=move || lab.selected_head() == h
                                on:click=move |_| lab.head.set(h)
                            >
                                {h + 1}
                            </button>
                        }
                    })
                    .collect_view()
            }}
            // Which K/V head the selected head reads, when heads share them.
            {move || {
                let groups = lab.shown.with(|t| {
                    t.as_ref().map_or(1, |t| t.0.config.dims().n_kv_heads)
                });
                (groups < heads.get()).then(|| view! {
                    <span class="help kv-reads" data-testid="kv-reads" title=move || text().kv.reads_help>
                        {(text().kv.reads)(group() + 1, groups)}
                    </span>
                })
            }}
            <LayerSelector />
        </div>
    }
}

/// Buttons to choose the trained model's layer the pipeline shows.
#[component]
fn LayerSelector() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let layers = Memo::new(move |_| {
        lab.forward.with(|f| {
            f.as_ref()
                .and_then(|f| f.as_ref().ok())
                .map_or(0, |f| f.0.layers.len())
        })
    });
    let selected = move || lab.layer.get().min(layers.get().saturating_sub(1));
    view! {
        <Show when=move || lab.request.with(|r| r.is_trained()) && (layers.get() > 0)>
            <span class="layer-selector" data-testid="layer-selector">
                <span class="field-label">{move || lab.lang.get().text().model.layer_label}</span>
                {move || {
                    (0..layers.get())
                        .map(|l| view! {
                            <button type="button" role="tab" data-testid=format!("layer-tab-{l}")
                                aria-selected=move || (selected() == l).to_string()
                                class:active=move || selected() == l
                                on:click=move |_| lab.layer.set(l)>
                                {l + 1}
                            </button>
                        })
                        .collect_view()
                }}
            </span>
        </Show>
    }
}

/// Small multiples: every head's weights side by side, on the weights' scale; a click selects
/// the head.
#[component]
pub fn AllHeads() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    // Only a new number of heads rebuilds the grid; new weights just redraw it.
    let heads = Memo::new(move |_| {
        lab.shown
            .with(|t| t.as_ref().map_or(0, |t| t.0.heads.len()))
    });
    let section = Section::AllHeads;
    view! {
        <section class="step" data-testid="all-heads" data-view=section.id()
            class:presented=move || presented(lab, section)>
            <SectionHeading section=section />
            <p class="caption">{move || text().all_heads_help}</p>
            <div class="small-multiples">
                {move || {
                    (0..heads.get())
                        .map(|h| {
                            let data = Memo::new(move |_| {
                                let trace = lab.shown.get()?;
                                if h >= trace.0.heads.len() {
                                    return None;
                                }
                                let mut view = Stage::Weights.view(&trace.0, h, lab.scale_mode.get());
                                view.row_labels.clear();
                                view.col_labels.clear();
                                view.legend = Legend::Hidden;
                                Some(view)
                            });
                            view! {
                                <button
                                    type="button"
                                    class="small-multiple"
                                    data-testid=format!("all-heads-{h}")
                                    class:active=move || lab.selected_head() == h
                                    on:click=move |_| lab.head.set(h)
                                >
                                    <span class="small-multiple-title">
                                        {move || text().head_label}
                                        " "
                                        {h + 1}
                                    </span>
                                    <Heatmap
                                        data=data
                                        look=look(lab)
                                        test_id=format!("heatmap-head-{h}")
                                        label=Signal::derive(move || format!("{} {}", text().head_label, h + 1))
                                        compact=true
                                        on_drawn=Callback::new(move |_| lab.drawn())
                                    />
                                </button>
                            }
                        })
                        .collect_view()
                }}
            </div>
        </section>
    }
}

/// While a large trace is computed after a paint: what is being computed (the views keep the
/// last result until it is done). Once a long input's result is shown the note keeps its place,
/// saying what was computed and in how long, so that the views below never move as it comes
/// and goes: they jumped by its height at each edit and at each result (and each jump laid the
/// whole column out and painted it again, in the frame of the keystroke).
#[component]
pub fn ComputingNote() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let note = Memo::new(move |_| {
        let (pending, later) = lab.outcome.with(|o| (o.pending, o.later));
        (pending && later).then(|| {
            let (tokens, heads) = lab.request.with(|r| {
                (
                    r.lengths().0.unwrap_or(0),
                    r.n_heads.unwrap_or(attention_core::config::DEFAULT_N_HEADS),
                )
            });
            (lab.lang.get().text().computing_trace)(tokens, heads)
        })
    });
    // The shown result's tokens and heads, when it is one computed in the background.
    let long = Memo::new(move |_| {
        lab.shown.with(|t| {
            let config = &t.as_ref()?.0.config;
            let (tokens, keys, heads) = (config.seq_len(), config.key_len(), config.dims().n_heads);
            computes_later(heads, tokens, keys).then_some((tokens, heads))
        })
    });
    let done = move || {
        if note.with(Option::is_some) {
            return None;
        }
        let (tokens, heads) = long.get()?;
        let ms = lab
            .outcome
            .with(|o| (!o.pending && o.result.is_ok()).then_some(o.compute_ms))?;
        Some((lab.lang.get().text().computed_trace)(
            tokens,
            heads,
            &format_ms(ms),
        ))
    };
    // Updated by the worker after each head; not announced (the note above is).
    let progress = move || {
        let (pending, later) = lab.outcome.with(|o| (o.pending, o.later));
        let (done, heads) = lab.cpu_jobs.progress.get().filter(|_| pending && later)?;
        Some((lab.lang.get().text().computing_progress)(done, heads))
    };
    view! {
        <div class="computing-note" data-testid="computing-box"
            class:shown=move || note.with(Option::is_some)
            class:kept=move || long.with(Option::is_some)>
            <p role="status" data-testid="computing">{move || note.get()}</p>
            <p data-testid="computed">{done}</p>
            <p class="computing-progress" aria-hidden="true" data-testid="computing-progress">
                {progress}
            </p>
        </div>
    }
}

/// The whole pipeline.
#[component]
pub fn Pipeline() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || lab.lang.get().text();
    let flash = move || {
        lab.shown
            .with(|t| t.as_ref().map(|t| t.0.flash.max_abs_diff))
    };
    view! {
        <div class="pipeline">
            <div class="pipeline-head">
                <h2 class="pipeline-title">{move || text().pipeline_title}</h2>
                <div class="scale-choice">
                    <span class="field-label">{move || text().scales.title}</span>
                    <Segmented selected=lab.scale_mode lang=lab.lang test_id="scale-mode"
                        on_select=Callback::new(move |mode| lab.scale_mode.set(mode)) />
                </div>
            </div>
            <p class="help block">{move || text().cell_hint} " " {move || text().scales.help}</p>
            <PresentBar />
            <ComputingNote />
            <Show when=move || lab.request.with(|r| r.is_trained())>
                <NextToken />
                <super::generate::GenerateSection />
                <super::stream::StreamSection />
                <ModelOverview />
            </Show>
            <StageSection section=Section::Tokens />
            <div class="sticky-heads">
                <HeadSelector />
            </div>
            <StageSection section=Section::Qkv />
            <super::shaping::ShapingSection />
            <StageSection section=Section::Scores />
            <SoftmaxSection />
            <StageSection section=Section::Values />
            <AllHeads />
            <StageSection section=Section::Combine />
            <p class="flash-check" data-testid="flash-diff">
                {move || text().flash_equal}
                " "
                {move || flash().map(|d| format!("{d:.1e}")).unwrap_or_default()}
            </p>
            <FlashView />
        </div>
    }
}

/// A note's sentence from the number of tokens and the most a view takes.
type WhyWaiting = fn(usize, usize) -> String;

/// Its children while the shown trace keeps every cell; for a summarised trace, a note saying
/// why they wait for a shorter input (`why` picks the sentence).
#[component]
fn UnlessSummarised(
    test_id: &'static str,
    why: fn(&OverviewTexts) -> WhyWaiting,
    children: ChildrenFn,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let note =
        move || summarised(lab).map(|n| why(&lab.lang.get().text().overview)(n, MOST_TRACED));
    view! {
        <Show when=move || summarised(lab).is_none() fallback=move || view! {
            <p class="note" data-testid=test_id>{note}</p>
        }>
            {children()}
        </Show>
    }
}

/// The most tokens (queries, with as many keys) whose every cell the page keeps: beyond, heads
/// are summarised (`attention_core::overview::FULL_HEAD_CELLS`).
pub const MOST_TRACED: usize = 512;

/// The number of tokens when the shown trace is summarised.
pub fn summarised(lab: Lab) -> Option<usize> {
    lab.shown.with(|t| {
        t.as_ref()
            .filter(|t| t.0.is_summarised())
            .map(|t| t.0.config.seq_len().max(t.0.config.key_len()))
    })
}
