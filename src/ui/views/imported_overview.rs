//! The chosen head of a long file (past 512 × 512 cells), as the lab shows its own long inputs:
//! an overview of blocks (largest or mean) with the zoomed region outlined, a click or Enter on a
//! block centring the zoom on it, and that region below at full resolution with its tokens.

use leptos::prelude::*;

use super::controls::Segmented;
use super::heatmap::look::Look;
use super::heatmap::{CellPick, Heatmap};
use super::stage_card::{ZOOM, zoom_ranges};
use crate::ui::logic::imported::{Part, overview, region};
use crate::ui::logic::matrix::Span;
use crate::ui::state::Lab;

/// `part` of the head at `at` as an overview and a zoomed region; `on_cell` gets a cell of the
/// region in the whole head's rows and columns.
#[component]
pub fn ImportedOverview(
    part: Part,
    at: Memo<(usize, usize)>,
    #[prop(into)] label: Signal<String>,
    #[prop(optional)] on_cell: Option<Callback<Option<CellPick>>>,
) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let text = move || &lab.lang.get().text().overview;
    let size = move || {
        lab.imported_ok()
            .map_or((0, 0), |run| (run.0.tokens.len(), run.0.keys().len()))
    };
    let steps = move || {
        let (n, m) = size();
        (
            attention_core::pipeline::overview::Overview::step(n),
            attention_core::pipeline::overview::Overview::step(m),
        )
    };
    let blocks = Memo::new(move |_| {
        let (layer, head) = at.get();
        overview(
            &lab.imported_ok()?.0,
            layer,
            head,
            part,
            lab.scale_mode.get(),
            lab.reduction.get(),
        )
    });
    let zoomed = Memo::new(move |_| {
        let (layer, head) = at.get();
        let (n, m) = size();
        let (rows, cols) = zoom_ranges(lab, n, m);
        region(
            &lab.imported_ok()?.0,
            layer,
            head,
            part,
            lab.scale_mode.get(),
            rows,
            cols,
        )
    });
    let outline = Signal::derive(move || {
        let (n, m) = size();
        let (rs, cs) = steps();
        let (rows, cols) = zoom_ranges(lab, n, m);
        Some(Span {
            rows: rows.start / rs..rows.end.div_ceil(rs),
            cols: cols.start / cs..cols.end.div_ceil(cs),
        })
    });
    let choose = Callback::new(move |(row, col): (usize, usize)| {
        let (rs, cs) = steps();
        let centre = |block: usize, step: usize| (block * step + step / 2).saturating_sub(ZOOM / 2);
        lab.zoom.set((centre(row, rs), centre(col, cs)));
    });
    let shift = move |(dr, dc): (isize, isize)| {
        let (n, m) = size();
        let (rows, cols) = zoom_ranges(lab, n, m);
        let step = (ZOOM / 2) as isize;
        let moved = |start: usize, d: isize| (start as isize + d * step).max(0) as usize;
        lab.zoom.set((moved(rows.start, dr), moved(cols.start, dc)));
    };
    let zoom_title = move || {
        let (n, m) = size();
        let (rows, cols) = zoom_ranges(lab, n, m);
        (text().zoom_title)(rows.start, rows.end - 1, cols.start, cols.end - 1)
    };
    let region_cell = Callback::new(move |pick: Option<CellPick>| {
        let (n, m) = size();
        let (rows, cols) = zoom_ranges(lab, n, m);
        if let Some(on_cell) = on_cell {
            on_cell.run(pick.map(|p| CellPick {
                row: rows.start + p.row,
                col: cols.start + p.col,
                ..p
            }));
        }
    });
    let moves: [(isize, isize, &str); 4] = [(-1, 0, "↑"), (1, 0, "↓"), (0, -1, "←"), (0, 1, "→")];
    let id = part.id();
    view! {
        <div class="overview" data-testid=format!("imported-overview-{id}")>
            <div class="overview-head">
                <p class="help">{move || {
                    let (n, m) = size();
                    let (rs, cs) = steps();
                    (text().caption)(n, m, rs, cs)
                }}</p>
                <span class="field-label">{move || text().reduction}</span>
                <Segmented selected=lab.reduction lang=lab.lang test_id=if part == Part::Weights { "imported-reduction-weights" } else { "imported-reduction-scores" }
                    on_select=Callback::new(move |r| lab.reduction.set(r)) />
            </div>
            <Heatmap data=blocks look=Look::of(lab) test_id=format!("heatmap-imported-{id}")
                label=label on_choose=choose highlight=outline />
            <div class="zoom-head">
                <h4 data-testid=format!("imported-zoom-title-{id}")>{zoom_title}</h4>
                <span class="zoom-moves">
                    {moves.into_iter().enumerate().map(|(i, (dr, dc, arrow))| view! {
                        <button type="button" class="table-toggle"
                            data-testid=format!("imported-zoom-move-{id}-{i}")
                            aria-label=move || text().moves[i]
                            title=move || text().moves[i]
                            on:click=move |_| shift((dr, dc))>{arrow}</button>
                    }).collect_view()}
                </span>
            </div>
            <p class="help">{move || lab.lang.get().import_roles().zoom_hint}</p>
            <Heatmap data=zoomed look=Look::of(lab) test_id=format!("zoom-imported-{id}")
                label=Signal::derive(zoom_title) on_cell=region_cell />
        </div>
    }
}
