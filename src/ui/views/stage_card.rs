//! One stage of the pipeline as a card: its title, formula, caption and heatmap, for the selected
//! head where the stage is per head; for a long input, the overview of blocks with its zoomed
//! region at full resolution. And a section made of stage cards.

use leptos::prelude::*;

use super::controls::Segmented;
use super::heatmap::look::Look;
use super::heatmap::{CellPick, Heatmap};
use super::section::{SectionHeading, presented};
use crate::ui::logic::controls::{Choice, MaskKind};
use crate::ui::logic::matrix::{MatrixView, Span};
use crate::ui::logic::sections::Section;
use crate::ui::logic::stages::Stage;
use crate::ui::state::{ActiveCell, Lab};

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
pub fn zoom_ranges(
    lab: Lab,
    n: usize,
    m: usize,
) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
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
    let title = move || {
        lab.shown
            .with(|t| stage.title(t.as_ref().map(|t| &*t.0), lab.lang.get()))
            .to_string()
    };
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
                look=Look::of(lab)
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
                look=Look::of(lab)
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
        let title = lab
            .shown
            .with(|t| stage.title(t.as_ref().map(|t| &*t.0), lang));
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
            .unwrap_or(attention_core::math::weights::Dims {
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
    let title = move || {
        lab.shown
            .with(|t| stage.title(t.as_ref().map(|t| &*t.0), lab.lang.get()))
            .to_string()
    };
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
    // A weight chosen (clicked, tapped, Enter, or moved to with the arrow keys): "Why here?"
    // takes its score apart below.
    let choose = Callback::new(move |(row, col): (usize, usize)| {
        if stage == Stage::Weights {
            lab.why.set(Some((row, col)));
        }
    });
    view! {
        <Show when=shown>
            <figure class="stage" data-stage=stage.id()>
                <figcaption>
                    <h3>{title}</h3>
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
                            look=Look::of(lab)
                            test_id=format!("heatmap-{}", stage.id())
                            label=Signal::derive(title)
                            export=export_label(lab, stage)
                            on_cell=on_cell
                            on_choose=choose
                            on_drawn=Callback::new(move |_| lab.drawn())
                        />
                        {(stage == Stage::Weights).then(|| view! { <super::why::WhyHere /> })}
                    }
                >
                    <OverviewStage stage=stage />
                </Show>
            </figure>
        </Show>
    }
}

/// A section whose views are its stages.
#[component]
pub fn StageSection(section: Section) -> impl IntoView {
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
