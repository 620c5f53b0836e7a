//! Attention masks: which keys each query may look at.

use std::ops::Range;

use ndarray::{Array2, ArrayView1, s};

/// The keys one query may attend to, relative to some first column.
#[derive(Debug, Clone, PartialEq)]
pub enum RowKeys<'a> {
    /// Exactly the keys in this range: every built-in mask allows a contiguous run of keys.
    Range(Range<usize>),
    /// A row of a custom mask: `true` where allowed.
    Explicit(ArrayView1<'a, bool>),
}

impl RowKeys<'_> {
    /// Whether key `j` (relative to the same first column) is allowed.
    pub fn allows(&self, j: usize) -> bool {
        match self {
            Self::Range(range) => range.contains(&j),
            Self::Explicit(allowed) => allowed[j],
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
    pub(super) fn new_unchecked(spec: MaskSpec, queries: usize, keys: usize) -> Self {
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
            MaskSpec::Custom { allowed } => {
                return RowKeys::Explicit(allowed.slice(s![i, cols]));
            }
        };
        let start = allowed.start.clamp(cols.start, cols.end);
        let end = allowed.end.clamp(start, cols.end);
        RowKeys::Range(start - cols.start..end - cols.start)
    }

    /// [queries, keys]: `true` where attention is allowed.
    pub fn to_matrix(&self) -> Array2<bool> {
        Array2::from_shape_fn((self.queries, self.keys), |(i, j)| self.allows(i, j))
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
            MaskSpec::Custom { allowed } => {
                rows.clone().all(|i| cols.clone().all(|j| !allowed[[i, j]]))
            }
        }
    }
}
