//! The head view without a pointer: which token the keyboard has picked (arrow keys move it,
//! ← and → cross between the queries and the keys), and what the view shows in words — each
//! query's strongest keys, or the queries that look at a key most — for screen readers and for
//! anyone who wants the numbers behind the lines.

use ndarray::Array2;

use crate::ui::i18n::Lang;

/// A token of the head view, on the queries' side or the keys'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Query(usize),
    Key(usize),
}

/// The focus after `key` is pressed (`None` inside: nothing picked), or `None` if the key is
/// not the view's: ↑ ↓ move along a side, ← → cross to the same row of the other, Home and End
/// go to a side's ends, Escape lets go.
pub fn step(focus: Option<Focus>, key: &str, queries: usize, keys: usize) -> Option<Option<Focus>> {
    if queries == 0 || keys == 0 {
        return None;
    }
    let last = |f: Focus| match f {
        Focus::Query(_) => queries - 1,
        Focus::Key(_) => keys - 1,
    };
    let at = |f: Focus, i: usize| match f {
        Focus::Query(_) => Focus::Query(i.min(queries - 1)),
        Focus::Key(_) => Focus::Key(i.min(keys - 1)),
    };
    let index = |f: Focus| match f {
        Focus::Query(i) | Focus::Key(i) => i,
    };
    let Some(f) = focus else {
        return matches!(
            key,
            "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight" | "Home" | "End"
        )
        .then_some(Some(Focus::Query(0)));
    };
    Some(match key {
        "ArrowDown" => Some(at(f, index(f) + 1)),
        "ArrowUp" => Some(at(f, index(f).saturating_sub(1))),
        "ArrowRight" => Some(Focus::Key(index(f).min(keys - 1))),
        "ArrowLeft" => Some(Focus::Query(index(f).min(queries - 1))),
        "Home" => Some(at(f, 0)),
        "End" => Some(at(f, last(f))),
        "Escape" => None,
        _ => return None,
    })
}

/// The `count` largest entries of `values`, largest first: (index, value).
fn strongest(values: impl Iterator<Item = f32>, count: usize) -> Vec<(usize, f32)> {
    let mut all: Vec<(usize, f32)> = values.enumerate().collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(count);
    all
}

/// At most this many queries are listed in the summary (each with its strongest key).
const SUMMARY_QUERIES: usize = 24;

/// What the view shows, in words: with nothing picked, each query's strongest key; with a query
/// picked, its three strongest keys; with a key, the three queries that look at it most.
pub fn describe(
    weights: &Array2<f32>,
    queries: &[String],
    keys: &[String],
    focus: Option<Focus>,
    lang: Lang,
) -> String {
    let t = &lang.text().head_lines;
    let name = |labels: &[String], i: usize| format!("{i} “{}”", labels.get(i).map_or("", |s| s));
    let list = |pairs: Vec<(usize, f32)>, labels: &[String]| {
        pairs
            .into_iter()
            .map(|(i, w)| format!("{} {w:.2}", name(labels, i)))
            .collect::<Vec<_>>()
            .join(t.separator)
    };
    match focus {
        Some(Focus::Query(i)) if i < weights.nrows() => (t.query)(
            &name(queries, i),
            &list(strongest(weights.row(i).iter().copied(), 3), keys),
        ),
        Some(Focus::Key(j)) if j < weights.ncols() => (t.key)(
            &name(keys, j),
            &list(strongest(weights.column(j).iter().copied(), 3), queries),
        ),
        _ => {
            let rows = weights.nrows().min(SUMMARY_QUERIES);
            let each = (0..rows)
                .map(|i| {
                    let (j, w) = strongest(weights.row(i).iter().copied(), 1)
                        .first()
                        .copied()
                        .unwrap_or((0, 0.0));
                    format!("{} → {} {w:.2}", name(queries, i), name(keys, j))
                })
                .collect::<Vec<_>>()
                .join(t.separator);
            (t.summary)(weights.nrows(), weights.ncols(), rows, &each)
        }
    }
}
