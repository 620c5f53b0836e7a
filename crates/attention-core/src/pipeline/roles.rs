//! What a head does, in shares of its attention: on the token just before the query, on the
//! token after an earlier occurrence of the query's own (induction), on earlier occurrences of
//! it, on the first token, elsewhere. Measured the same way for the trained models' heads and for
//! a user's own attention.

use ndarray::ArrayView2;

/// The share of a head's attention on the keys each role names, on this input, all measured on
/// one footing: over the same queries, each key of a query counted in one role only (the first
/// that names it, in the order of the fields), so that the five shares of a row sum to its
/// weight (1, or 0 for a row with every key masked).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HeadRoles {
    /// The share on the token just before the query (i − 1).
    pub previous: f32,
    /// On the tokens right after earlier occurrences of the query's own token.
    pub induction: f32,
    /// On earlier occurrences of the query's own token.
    pub same: f32,
    /// On the first token.
    pub first: f32,
    /// On every other key (the query itself, other earlier keys, later keys without a mask).
    pub other: f32,
    /// How many queries the shares are averaged over, and whether they are the queries whose
    /// token occurred before (where every role can show; all queries after the first when no
    /// token repeats).
    pub queries: usize,
    pub repeated_only: bool,
}

/// Which role a key plays for query `i`, in the order of precedence: 0 previous, 1 induction,
/// 2 same, 3 first, 4 other.
fn role_of(ids: &[u32], i: usize, j: usize) -> usize {
    if j + 1 == i {
        0
    } else if j >= 1 && j < i && ids[j - 1] == ids[i] {
        1
    } else if j < i && ids[j] == ids[i] {
        2
    } else if j == 0 {
        3
    } else {
        4
    }
}

/// A head's [`HeadRoles`]: weights [n, n] of one head on tokens `ids`.
pub fn roles(weights: ArrayView2<f32>, ids: &[u32]) -> HeadRoles {
    let n = ids.len().min(weights.nrows());
    let repeated: Vec<usize> = (1..n).filter(|&i| ids[..i].contains(&ids[i])).collect();
    let (queries, repeated_only) = if repeated.is_empty() {
        ((1..n).collect::<Vec<_>>(), false)
    } else {
        (repeated, true)
    };
    let mut sums = [0.0f32; 5];
    for &i in &queries {
        for (j, &w) in weights.row(i).iter().enumerate().take(ids.len()) {
            sums[role_of(ids, i, j)] += w;
        }
    }
    let count = queries.len().max(1) as f32;
    let [previous, induction, same, first, other] = sums.map(|s| s / count);
    HeadRoles {
        previous,
        induction,
        same,
        first,
        other,
        queries: queries.len(),
        repeated_only,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, array};

    #[test]
    fn head_roles_are_shares_of_one_whole_on_one_footing() {
        // "abcab": the queries whose token came before are 3 (a) and 4 (b).
        let ids = [1u32, 2, 3, 1, 2];
        let n = ids.len();
        // A head that puts 0.6 on the induction target, 0.3 on the first token, 0.1 on itself.
        let mut weights = Array2::<f32>::zeros((n, n));
        for i in 0..n {
            weights[[i, i]] = 1.0;
        }
        weights
            .row_mut(3)
            .assign(&array![0.3f32, 0.6, 0.0, 0.1, 0.0]);
        weights
            .row_mut(4)
            .assign(&array![0.3f32, 0.0, 0.6, 0.1, 0.0]);
        let r = roles(weights.view(), &ids);
        assert_eq!((r.queries, r.repeated_only), (2, true));
        // Query 3 (a): key 1 follows the earlier a → induction; key 0 is an earlier a → same
        // (which comes before first). Query 4 (b): key 2 follows the earlier b → induction;
        // key 0 → first; key 3 is the previous token.
        assert!((r.induction - 0.6).abs() < 1e-6, "{r:?}");
        assert!((r.same - 0.15).abs() < 1e-6, "{r:?}");
        assert!((r.first - 0.15).abs() < 1e-6, "{r:?}");
        assert!((r.previous - 0.05).abs() < 1e-6, "{r:?}");
        assert!((r.other - 0.05).abs() < 1e-6, "{r:?}");
        let total = r.previous + r.induction + r.same + r.first + r.other;
        assert!((total - 1.0).abs() < 1e-6, "{total}");
        // Nothing repeats: every query after the first.
        let r = roles(weights.view(), &[1, 2, 3, 4, 5]);
        assert_eq!((r.queries, r.repeated_only), (4, false));
    }
}
