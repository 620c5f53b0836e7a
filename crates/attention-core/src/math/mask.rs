//! Attention masks: which keys each query may look at.

use std::ops::Range;

use ndarray::{Array2, ArrayView1, s};

/// The keys one query may attend to, relative to some first column.
#[derive(Debug, Clone, PartialEq)]
pub enum RowKeys<'a> {
    /// Exactly the keys in this range: most built-in masks allow a contiguous run of keys.
    Range(Range<usize>),
    /// The keys in two disjoint ranges, the first before the second: a sliding window's sink
    /// tokens, then its window.
    Two(Range<usize>, Range<usize>),
    /// A row of a custom mask: `true` where allowed.
    Explicit(ArrayView1<'a, bool>),
}

impl RowKeys<'_> {
    /// Whether key `j` (relative to the same first column) is allowed.
    pub fn allows(&self, j: usize) -> bool {
        match self {
            Self::Range(range) => range.contains(&j),
            Self::Two(first, second) => first.contains(&j) || second.contains(&j),
            Self::Explicit(allowed) => allowed[j],
        }
    }

    /// Whether any key is allowed.
    pub fn any(&self) -> bool {
        match self {
            Self::Range(range) => !range.is_empty(),
            Self::Two(first, second) => !first.is_empty() || !second.is_empty(),
            Self::Explicit(allowed) => allowed.iter().any(|&a| a),
        }
    }
}

/// A mask as a user asks for it. Checked against the sequence lengths into a [`Mask`].
#[derive(Debug, Clone, PartialEq, Default)]
pub enum MaskSpec {
    /// Every query sees every key.
    #[default]
    None,
    /// Query i sees keys j ≤ i (a decoder must not look ahead).
    Causal,
    /// Keys at positions ≥ `valid_len` are padding, hidden from every query.
    Padding { valid_len: usize },
    /// Query i sees keys with |i − j| ≤ `radius` (local attention).
    Window { radius: usize },
    /// Query i sees keys i − `radius` … i (the causal sliding window of Mistral and gpt-oss) and
    /// also the first `sink_tokens` keys whatever their distance (StreamingLLM's attention sinks),
    /// never a key after itself.
    Sliding { radius: usize, sink_tokens: usize },
    /// An explicit [queries, keys] matrix: `true` where attention is allowed.
    Custom { allowed: Array2<bool> },
}

impl MaskSpec {
    /// The name used by the CLI and the JavaScript API: "none", "causal", "padding", "window", "custom".
    pub fn kind(&self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Causal => "causal",
            Self::Padding { .. } => "padding",
            Self::Window { .. } => "window",
            Self::Sliding { .. } => "sliding",
            Self::Custom { .. } => "custom",
        }
    }
}

/// A mask checked against `queries` × `keys` (see `Config`): every query of it is answerable.
#[derive(Debug, Clone, PartialEq)]
pub struct Mask {
    spec: MaskSpec,
    queries: usize,
    keys: usize,
}

impl Mask {
    /// Only `Config` builds masks, after checking the spec against the lengths.
    pub(crate) fn new_unchecked(spec: MaskSpec, queries: usize, keys: usize) -> Self {
        Self {
            spec,
            queries,
            keys,
        }
    }

    /// No mask over `queries` × `keys`: always valid.
    pub fn unmasked(queries: usize, keys: usize) -> Self {
        Self::new_unchecked(MaskSpec::None, queries, keys)
    }

    pub fn spec(&self) -> &MaskSpec {
        &self.spec
    }

    /// May query `i` attend to key `j`?
    #[inline]
    pub fn allows(&self, i: usize, j: usize) -> bool {
        match &self.spec {
            MaskSpec::None => true,
            MaskSpec::Causal => j <= i,
            MaskSpec::Padding { valid_len } => j < *valid_len,
            MaskSpec::Window { radius } => i.abs_diff(j) <= *radius,
            MaskSpec::Sliding {
                radius,
                sink_tokens,
            } => j <= i && (i - j <= *radius || j < *sink_tokens),
            MaskSpec::Custom { allowed } => allowed[[i, j]],
        }
    }

    /// The keys that query `i` may attend to among `cols`, numbered from `cols.start`.
    pub fn row_keys(&self, i: usize, cols: Range<usize>) -> RowKeys<'_> {
        let allowed = match &self.spec {
            MaskSpec::None => 0..self.keys,
            MaskSpec::Causal => 0..i + 1,
            MaskSpec::Padding { valid_len } => 0..*valid_len,
            MaskSpec::Window { radius } => i.saturating_sub(*radius)..i + radius + 1,
            MaskSpec::Sliding {
                radius,
                sink_tokens,
            } => {
                let window = i.saturating_sub(*radius)..i + 1;
                // The sinks the window does not already cover.
                let sinks = 0..(*sink_tokens).min(window.start);
                let (sinks, window) = (clip(sinks, &cols), clip(window, &cols));
                return if sinks.is_empty() {
                    RowKeys::Range(window)
                } else if window.is_empty() {
                    RowKeys::Range(sinks)
                } else {
                    RowKeys::Two(sinks, window)
                };
            }
            MaskSpec::Custom { allowed } => {
                return RowKeys::Explicit(allowed.slice(s![i, cols]));
            }
        };
        RowKeys::Range(clip(allowed, &cols))
    }

    /// The smallest run of keys that holds every key a query of `rows` may see (empty when they
    /// see none): what the memory-lean standard pass multiplies, so that a causal mask's hidden
    /// half is never computed.
    pub fn visible_span(&self, rows: Range<usize>) -> Range<usize> {
        if matches!(self.spec, MaskSpec::None | MaskSpec::Custom { .. }) {
            return 0..self.keys;
        }
        let (mut start, mut end) = (self.keys, 0);
        for i in rows {
            let (first, last) = match self.row_keys(i, 0..self.keys) {
                RowKeys::Range(keys) => (keys.clone(), keys),
                RowKeys::Two(first, second) => (first, second),
                RowKeys::Explicit(_) => (0..self.keys, 0..self.keys),
            };
            for keys in [first, last].into_iter().filter(|k| !k.is_empty()) {
                start = start.min(keys.start);
                end = end.max(keys.end);
            }
        }
        if start < end { start..end } else { 0..0 }
    }

    /// [queries, keys]: `true` where attention is allowed. Filled a run of keys at a time (cell
    /// by cell it was 9 ms of a 4096-token result's landing in the page).
    pub fn to_matrix(&self) -> Array2<bool> {
        if let MaskSpec::Custom { allowed } = &self.spec {
            return allowed.clone();
        }
        let mut matrix = Array2::from_elem((self.queries, self.keys), false);
        for (i, mut row) in matrix.outer_iter_mut().enumerate() {
            match self.row_keys(i, 0..self.keys) {
                RowKeys::Range(keys) => row.slice_mut(ndarray::s![keys]).fill(true),
                RowKeys::Two(first, second) => {
                    row.slice_mut(ndarray::s![first]).fill(true);
                    row.slice_mut(ndarray::s![second]).fill(true);
                }
                RowKeys::Explicit(allowed) => {
                    row.iter_mut().zip(allowed).for_each(|(cell, &a)| *cell = a)
                }
            }
        }
        matrix
    }

    /// The queries that may attend to no key at all.
    pub fn fully_masked_rows(&self) -> Vec<usize> {
        (0..self.queries)
            .filter(|&i| !self.row_keys(i, 0..self.keys).any())
            .collect()
    }

    /// True when no query in `rows` may see any key in `cols`: FlashAttention skips such a tile.
    pub fn hides_tile(&self, rows: Range<usize>, cols: Range<usize>) -> bool {
        if rows.is_empty() || cols.is_empty() {
            return true;
        }
        match &self.spec {
            MaskSpec::None => false,
            MaskSpec::Causal => cols.start > rows.end - 1,
            MaskSpec::Padding { valid_len } => cols.start >= *valid_len,
            MaskSpec::Window { radius } => {
                // The smallest |i − j| over the tile: 0 when the ranges overlap.
                let gap = cols
                    .start
                    .saturating_sub(rows.end - 1)
                    .max(rows.start.saturating_sub(cols.end - 1));
                gap > *radius
            }
            MaskSpec::Sliding {
                radius,
                sink_tokens,
            } => {
                // A sink key is seen by every query at or after it; else the window: keys after
                // every query, or before every query's window.
                let sink_seen = cols.start < *sink_tokens && cols.start < rows.end;
                !sink_seen
                    && (cols.start > rows.end - 1
                        || cols.end - 1 < rows.start.saturating_sub(*radius))
            }
            MaskSpec::Custom { allowed } => {
                rows.clone().all(|i| cols.clone().all(|j| !allowed[[i, j]]))
            }
        }
    }
}

/// The keys of `allowed` within `cols`, numbered from `cols.start`.
fn clip(allowed: Range<usize>, cols: &Range<usize>) -> Range<usize> {
    let start = allowed.start.clamp(cols.start, cols.end);
    let end = allowed.end.clamp(start, cols.end);
    start - cols.start..end - cols.start
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in mask's row of keys, its tile test and its cell test agree, on every tile
    /// of several sizes: the sliding window with sinks included.
    /// The matrix (filled a run of keys at a time) and the fully masked rows agree with the
    /// cell test, for every kind, on square and non-square shapes.
    #[test]
    fn matrix_and_empty_rows_agree_with_cells() {
        let custom = Array2::from_shape_fn((6, 9), |(i, j)| (i * 9 + j) % 4 == 1 && i != 2);
        let cases = [
            (MaskSpec::None, 6, 9),
            (MaskSpec::Causal, 7, 7),
            (MaskSpec::Padding { valid_len: 4 }, 6, 9),
            (MaskSpec::Window { radius: 1 }, 8, 8),
            (
                MaskSpec::Sliding {
                    radius: 1,
                    sink_tokens: 3,
                },
                9,
                9,
            ),
            (MaskSpec::Custom { allowed: custom }, 6, 9),
        ];
        for (spec, n, m) in cases {
            let mask = Mask::new_unchecked(spec.clone(), n, m);
            let matrix = mask.to_matrix();
            assert_eq!(matrix.dim(), (n, m), "{spec:?}");
            for ((i, j), &allowed) in matrix.indexed_iter() {
                assert_eq!(allowed, mask.allows(i, j), "{spec:?} ({i}, {j})");
            }
            let empty: Vec<usize> = (0..n)
                .filter(|&i| (0..m).all(|j| !mask.allows(i, j)))
                .collect();
            assert_eq!(mask.fully_masked_rows(), empty, "{spec:?}");
        }
        // The visible span of any run of queries holds exactly their visible keys' extent.
        for (spec, n, m) in [
            (MaskSpec::Causal, 9, 9),
            (MaskSpec::Padding { valid_len: 0 }, 5, 7),
            (MaskSpec::Window { radius: 2 }, 9, 9),
            (
                MaskSpec::Sliding {
                    radius: 1,
                    sink_tokens: 2,
                },
                9,
                9,
            ),
        ] {
            let mask = &Mask::new_unchecked(spec.clone(), n, m);
            for first in 0..n {
                for last in first + 1..=n {
                    let seen: Vec<usize> = (first..last)
                        .flat_map(|i| (0..m).filter(move |&j| mask.allows(i, j)))
                        .collect();
                    let span = mask.visible_span(first..last);
                    match (seen.iter().min(), seen.iter().max()) {
                        (Some(&lo), Some(&hi)) => assert_eq!(span, lo..hi + 1, "{spec:?}"),
                        _ => assert!(span.is_empty(), "{spec:?}"),
                    }
                }
            }
        }
        let custom = Mask::new_unchecked(
            MaskSpec::Custom {
                allowed: Array2::from_shape_fn((6, 9), |(i, j)| (i * 9 + j) % 4 == 1 && i != 2),
            },
            6,
            9,
        );
        assert_eq!(custom.fully_masked_rows(), vec![2]);
    }

    #[test]
    fn row_keys_tiles_and_cells_agree() {
        let specs = [
            MaskSpec::None,
            MaskSpec::Causal,
            MaskSpec::Padding { valid_len: 5 },
            MaskSpec::Window { radius: 2 },
            MaskSpec::Sliding {
                radius: 2,
                sink_tokens: 0,
            },
            MaskSpec::Sliding {
                radius: 3,
                sink_tokens: 2,
            },
            MaskSpec::Sliding {
                radius: 0,
                sink_tokens: 4,
            },
        ];
        let n = 13;
        for spec in specs {
            let mask = Mask::new_unchecked(spec.clone(), n, n);
            for block in [1, 2, 3, 5] {
                for r0 in (0..n).step_by(block) {
                    let rows = r0..(r0 + block).min(n);
                    for c0 in (0..n).step_by(block) {
                        let cols = c0..(c0 + block).min(n);
                        let any = rows
                            .clone()
                            .any(|i| cols.clone().any(|j| mask.allows(i, j)));
                        assert_eq!(
                            mask.hides_tile(rows.clone(), cols.clone()),
                            !any,
                            "{spec:?} {rows:?} {cols:?}"
                        );
                        for i in rows.clone() {
                            let keys = mask.row_keys(i, cols.clone());
                            for j in cols.clone() {
                                assert_eq!(
                                    keys.allows(j - c0),
                                    mask.allows(i, j),
                                    "{spec:?} ({i}, {j})"
                                );
                            }
                        }
                    }
                }
            }
        }
        // A sink beyond the window: query 10 with radius 3 and 2 sinks sees 0, 1 and 7 … 10.
        let mask = Mask::new_unchecked(
            MaskSpec::Sliding {
                radius: 3,
                sink_tokens: 2,
            },
            13,
            13,
        );
        assert_eq!(mask.row_keys(10, 0..13), RowKeys::Two(0..2, 7..11));
        assert_eq!(mask.row_keys(2, 0..13), RowKeys::Range(0..3));
    }
}
