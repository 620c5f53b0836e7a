//! The generator's strips by keyboard: which cell (layer, query head, cached position) the arrow
//! keys pick. ↑ ↓ move through the layers' heads in order, ← → through the cached positions,
//! Home and End to the first and the newest, Escape lets go.

/// A cell of the strips: (layer, query head, position in the cache).
pub type Cell = (usize, usize, usize);

/// The cell after `key` (`None` inside: nothing picked), or `None` if the key is not the
/// strips'. Nothing picked yet, any arrow picks the first head's newest position.
pub fn step(
    cell: Option<Cell>,
    key: &str,
    layers: usize,
    heads: usize,
    cached: usize,
) -> Option<Option<Cell>> {
    if layers == 0 || heads == 0 || cached == 0 {
        return None;
    }
    let rows = layers * heads;
    let Some((layer, head, position)) = cell else {
        return matches!(
            key,
            "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight" | "Home" | "End"
        )
        .then_some(Some((0, 0, cached - 1)));
    };
    let row = (layer * heads + head).min(rows - 1);
    let position = position.min(cached - 1);
    let at = |row: usize, position: usize| Some((row / heads, row % heads, position));
    Some(match key {
        "ArrowDown" => at((row + 1).min(rows - 1), position),
        "ArrowUp" => at(row.saturating_sub(1), position),
        "ArrowRight" => at(row, (position + 1).min(cached - 1)),
        "ArrowLeft" => at(row, position.saturating_sub(1)),
        "Home" => at(row, 0),
        "End" => at(row, cached - 1),
        "Escape" => None,
        _ => return None,
    })
}
