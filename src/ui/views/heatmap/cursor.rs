//! The heatmap's cell cursor: the cell under the mouse, the cell a finger taps (which stays
//! explained until the next tap), or the keyboard cursor (arrow keys, Home, End, Escape; Space or
//! Enter paints in the mask editor). The cursor's cell is outlined and scrolled into view, and
//! reported with where it is on screen.

use leptos::prelude::*;
use web_sys::{KeyboardEvent, PointerEvent};

use super::draw::Layout;

/// A cell the user points at or moved the keyboard cursor to, with where it is on screen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellPick {
    pub row: usize,
    pub col: usize,
    /// The cell's centre in viewport (client) coordinates.
    pub x: f64,
    pub y: f64,
}

/// How a paint gesture on a cell began or goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    /// A press (or Space/Enter on the keyboard cursor): toggle this cell.
    Start,
    /// The pointer moved onto this cell with the button held: give it the same value.
    Continue,
}

#[derive(Clone, Copy)]
pub struct Cursor {
    layout: RwSignal<Option<Layout>>,
    grid: NodeRef<leptos::html::Canvas>,
    scroller: NodeRef<leptos::html::Div>,
    cell: RwSignal<Option<(usize, usize)>>,
    /// Where the keyboard cursor was when focus left: focus coming back resumes there.
    resume: StoredValue<Option<(usize, usize)>>,
    /// A pointer pressed the canvas: the focus that follows is the pointer's, not the keyboard's.
    pressed: StoredValue<bool>,
    on_cell: Option<Callback<Option<CellPick>>>,
    on_choose: Option<Callback<(usize, usize)>>,
    on_paint: Option<Callback<(usize, usize, Paint)>>,
}

impl Cursor {
    pub fn new(
        layout: RwSignal<Option<Layout>>,
        grid: NodeRef<leptos::html::Canvas>,
        scroller: NodeRef<leptos::html::Div>,
        on_cell: Option<Callback<Option<CellPick>>>,
        on_paint: Option<Callback<(usize, usize, Paint)>>,
        on_choose: Option<Callback<(usize, usize)>>,
    ) -> Self {
        let cursor = Self {
            layout,
            grid,
            scroller,
            cell: RwSignal::new(None),
            resume: StoredValue::new(None),
            pressed: StoredValue::new(false),
            on_cell,
            on_choose,
            on_paint,
        };
        // A cursor outside a smaller matrix is dropped.
        Effect::new(move |_| {
            // The drawn layout's size: it follows the data while the heatmap is on screen (where
            // a cursor can be), without reading every new matrix while it is not.
            let (rows, cols) =
                layout.with(|l| l.as_ref().map_or((0, 0), |l| (l.key.rows, l.key.cols)));
            let outside =
                |cell: Option<(usize, usize)>| cell.is_some_and(|(r, c)| r >= rows || c >= cols);
            if outside(cursor.cell.get_untracked()) {
                cursor.cell.set(None);
            }
            if outside(cursor.resume.get_value()) {
                cursor.resume.set_value(None);
            }
        });
        cursor
    }

    /// Moves the cursor to `cell` (or removes it) and tells the page where it is.
    fn report(&self, cell: Option<(usize, usize)>) {
        self.cell.set(cell);
        let Some(on_cell) = self.on_cell else { return };
        let picked = cell.and_then(|(row, col)| {
            let layout = self.layout.get_untracked()?;
            let rect = self.grid.get_untracked()?.get_bounding_client_rect();
            let (width, height) = shown_cell(&layout, &rect);
            Some(CellPick {
                row,
                col,
                x: rect.left() + (col as f64 + 0.5) * width,
                y: rect.top() + (row as f64 + 0.5) * height,
            })
        });
        on_cell.run(picked);
    }

    /// The cell under a pointer at viewport coordinates (x, y).
    fn cell_at(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let layout = self.layout.get_untracked()?;
        let rect = self.grid.get_untracked()?.get_bounding_client_rect();
        let (width, height) = shown_cell(&layout, &rect);
        let (col, row) = ((x - rect.left()) / width, (y - rect.top()) / height);
        (col >= 0.0
            && row >= 0.0
            && (col as usize) < layout.key.cols
            && (row as usize) < layout.key.rows)
            .then_some((row as usize, col as usize))
    }

    fn at_pointer(&self, ev: &PointerEvent) -> Option<(usize, usize)> {
        self.cell_at(f64::from(ev.client_x()), f64::from(ev.client_y()))
    }

    pub fn pointer_move(&self, ev: &PointerEvent) {
        // A finger's cell stays explained until the next tap; only mice and pens hover.
        if ev.pointer_type() == "touch" && ev.buttons() & 1 == 0 {
            return;
        }
        let pick = self.at_pointer(ev);
        if pick != self.cell.get_untracked() {
            self.report(pick);
            if let (Some(on_paint), Some((row, col))) = (self.on_paint, pick)
                && ev.buttons() & 1 == 1
            {
                on_paint.run((row, col, Paint::Continue));
            }
        }
    }

    /// A press or a tap explains the cell under it (and paints it, in the mask editor).
    pub fn pointer_down(&self, ev: &PointerEvent) {
        self.pressed.set_value(true);
        let Some((row, col)) = self.at_pointer(ev) else {
            return;
        };
        self.report(Some((row, col)));
        if let Some(on_paint) = self.on_paint {
            ev.prevent_default();
            on_paint.run((row, col, Paint::Start));
        }
        if let Some(on_choose) = self.on_choose {
            on_choose.run((row, col));
        }
    }

    pub fn pointer_leave(&self, ev: &PointerEvent) {
        // A finger leaves the canvas when it lifts: the tapped cell stays explained.
        if ev.pointer_type() != "touch" {
            self.report(None);
        }
    }

    pub fn focus(&self) {
        if self.pressed.get_value() {
            self.pressed.set_value(false);
            return;
        }
        if self.cell.get_untracked().is_none() {
            self.report(Some(self.resume.get_value().unwrap_or((0, 0))));
        }
    }

    pub fn blur(&self) {
        self.resume.set_value(self.cell.get_untracked());
        self.report(None);
    }

    pub fn key(&self, ev: &KeyboardEvent) {
        let Some(layout) = self.layout.get_untracked() else {
            return;
        };
        let (rows, cols) = (layout.key.rows, layout.key.cols);
        if rows == 0 || cols == 0 {
            return;
        }
        // A key pressed before the cursor exists (focus can arrive without a focus event when the
        // window itself is not focused) starts it where it last was.
        let (row, col) = self
            .cell
            .get_untracked()
            .or_else(|| self.resume.get_value())
            .unwrap_or((0, 0));
        let moved = match ev.key().as_str() {
            "ArrowUp" => (row.saturating_sub(1), col),
            "ArrowDown" => ((row + 1).min(rows - 1), col),
            "ArrowLeft" => (row, col.saturating_sub(1)),
            "ArrowRight" => (row, (col + 1).min(cols - 1)),
            "Home" => (row, 0),
            "End" => (row, cols - 1),
            "Escape" => {
                self.report(None);
                return;
            }
            " " | "Enter" => {
                if let Some(on_paint) = self.on_paint {
                    ev.prevent_default();
                    on_paint.run((row, col, Paint::Start));
                }
                if let Some(on_choose) = self.on_choose {
                    ev.prevent_default();
                    on_choose.run((row, col));
                }
                return;
            }
            _ => return,
        };
        ev.prevent_default();
        self.scroll_to(&layout, moved);
        self.report(Some(moved));
        if let Some(on_choose) = self.on_choose {
            on_choose.run(moved);
        }
    }

    /// Scrolls the heatmap's frame so that `cell` is in view.
    fn scroll_to(&self, layout: &Layout, (row, col): (usize, usize)) {
        let Some(scroller) = self.scroller.get_untracked() else {
            return;
        };
        let element: &web_sys::Element = &scroller;
        let (x, y) = (
            layout.left + col as f64 * layout.cell,
            layout.top + row as f64 * layout.cell,
        );
        let (left, top) = (
            f64::from(element.scroll_left()),
            f64::from(element.scroll_top()),
        );
        let (width, height) = (
            f64::from(element.client_width()),
            f64::from(element.client_height()),
        );
        if x - layout.left < left {
            element.set_scroll_left((x - layout.left) as i32);
        } else if x + layout.cell > left + width {
            element.set_scroll_left((x + layout.cell - width) as i32);
        }
        if y - layout.top < top {
            element.set_scroll_top((y - layout.top) as i32);
        } else if y + layout.cell > top + height {
            element.set_scroll_top((y + layout.cell - height) as i32);
        }
    }

    /// The outline of the cursor's cell, as a style.
    pub fn outline(&self) -> String {
        let (Some((row, col)), Some((cell, compact, rows, cols))) = (
            self.cell.get(),
            self.layout.with(|l| {
                l.as_ref()
                    .map(|l| (l.cell, l.key.compact, l.key.rows.max(1), l.key.cols.max(1)))
            }),
        ) else {
            return "display: none".to_string();
        };
        // A small multiple is scaled to its box: the outline in shares of it.
        if compact {
            let (across, down) = (100.0 / cols as f64, 100.0 / rows as f64);
            return format!(
                "left: calc({}% - 1px); top: calc({}% - 1px); width: calc({across}% + 2px); height: calc({down}% + 2px)",
                col as f64 * across,
                row as f64 * down,
            );
        }
        format!(
            "left: {}px; top: {}px; width: {}px; height: {}px",
            col as f64 * cell - 1.0,
            row as f64 * cell - 1.0,
            cell + 2.0,
            cell + 2.0
        )
    }
}

/// A cell's size on screen, (width, height): the layout's, or for a small multiple scaled to its
/// box, the canvas's drawn size shared among its cells.
fn shown_cell(layout: &super::draw::Layout, rect: &web_sys::DomRect) -> (f64, f64) {
    if layout.key.compact && rect.width() > 0.0 && rect.height() > 0.0 {
        (
            rect.width() / layout.key.cols.max(1) as f64,
            rect.height() / layout.key.rows.max(1) as f64,
        )
    } else {
        (layout.cell, layout.cell)
    }
}
