//! What each head of a user's own attention does on its tokens, measured as researchers of
//! decoders and encoders both read heads: each role is the mean weight on the keys it names,
//! over every query that can show it (not one sample of queries), and only where the numbers are
//! weights.
//!
//! The roles: previous token (key i − 1), induction (the key right after an earlier occurrence
//! of the query's token, when that is not key i − 1), same token (other occurrences of it), first token, the token itself,
//! next token (key i + 1, where the head sees later keys: encoders), special tokens (`[CLS]`,
//! `[SEP]`, `<s>`, `<|endoftext|>`, …) and punctuation. A key may count in two roles (the token
//! before can also be an earlier occurrence): each role is a measure of its own, not a share of
//! one whole.

use ndarray::ArrayView2;
use serde::Serialize;

use crate::math::fastmath;

/// How far a row's sum may be from 1 for it to be a distribution (bf16's rounding is 2⁻⁸).
pub const ROW_SUM_TOLERANCE: f32 = 1e-2;

/// What a file's numbers are, as the roles read them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RowsAre {
    /// Every row sums to 1 (or to 0: every key masked), nothing negative: each role's mean is a
    /// share of the query's attention.
    Weights,
    /// Nothing negative and no row above 1, but `rows` rows sum to less (a head with a sink
    /// logit, keys dropped): means of weight, not shares of a whole.
    PartWeights { rows: usize },
    /// A negative number or a row summing past 1: scores or logits, not weights. No role or
    /// entropy is measured on them. The first such place: a negative `value`, or a row's `sum`.
    NotWeights {
        layer: usize,
        head: usize,
        row: usize,
        value: Option<f32>,
        sum: f32,
    },
}

impl RowsAre {
    /// What the heads `[layer][head]` (weights [queries, keys]) hold.
    pub fn of<'a>(heads: impl IntoIterator<Item = (usize, usize, ArrayView2<'a, f32>)>) -> Self {
        let mut short = 0;
        for (layer, head, weights) in heads {
            for (row, values) in weights.outer_iter().enumerate() {
                let sum: f32 = values.sum();
                let negative = values.iter().copied().find(|v| *v < 0.0);
                if negative.is_some() || sum > 1.0 + ROW_SUM_TOLERANCE {
                    return RowsAre::NotWeights {
                        layer,
                        head,
                        row,
                        value: negative,
                        sum,
                    };
                }
                if sum < 1.0 - ROW_SUM_TOLERANCE && sum != 0.0 {
                    short += 1;
                }
            }
        }
        if short == 0 {
            RowsAre::Weights
        } else {
            RowsAre::PartWeights { rows: short }
        }
    }

    pub fn are_weights(self) -> bool {
        !matches!(self, RowsAre::NotWeights { .. })
    }
}

/// One role of one head: the mean weight on the role's keys over the `queries` that can show it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RoleMeasure {
    pub mean: f32,
    pub queries: usize,
}

/// The roles, in the order the table shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeadRole {
    Previous,
    Induction,
    Same,
    First,
    SelfToken,
    Next,
    Special,
    Punctuation,
}

impl HeadRole {
    pub const ALL: [HeadRole; 8] = [
        HeadRole::Previous,
        HeadRole::Induction,
        HeadRole::Same,
        HeadRole::First,
        HeadRole::SelfToken,
        HeadRole::Next,
        HeadRole::Special,
        HeadRole::Punctuation,
    ];

    /// The role's name in the CLI's JSON.
    pub fn name(self) -> &'static str {
        match self {
            HeadRole::Previous => "previous",
            HeadRole::Induction => "induction",
            HeadRole::Same => "same",
            HeadRole::First => "first",
            HeadRole::SelfToken => "self",
            HeadRole::Next => "next",
            HeadRole::Special => "special",
            HeadRole::Punctuation => "punctuation",
        }
    }
}

/// A head's roles, and the entropy of its rows that are distributions.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedRoles {
    /// In [`HeadRole::ALL`]'s order; `None` where no query can show the role on these tokens
    /// (no token repeats; the head sees no later key; no special token) or the numbers are not
    /// weights.
    pub measures: [Option<RoleMeasure>; 8],
    /// The mean over rows that are distributions of −Σ w·log₂ w, in bits; `None` when none is.
    pub entropy_bits: Option<f32>,
    /// How many rows the entropy is the mean of.
    pub entropy_rows: usize,
}

impl ImportedRoles {
    pub fn get(&self, role: HeadRole) -> Option<RoleMeasure> {
        let at = HeadRole::ALL.iter().position(|r| *r == role).unwrap_or(0);
        self.measures[at]
    }

    /// The role with the largest mean, when it is at least `threshold`.
    pub fn dominant(&self, threshold: f32) -> Option<(HeadRole, f32)> {
        HeadRole::ALL
            .into_iter()
            .filter_map(|role| self.get(role).map(|m| (role, m.mean)))
            .filter(|(_, mean)| *mean >= threshold)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// A special token, as tokenizers write them: `[CLS]`, `[SEP]`, `[PAD]`, `<s>`, `</s>`,
/// `<pad>`, `<|endoftext|>`, `<|im_start|>` — not a byte piece such as `<0xE6>`.
pub fn is_special(token: &str) -> bool {
    let t = token.trim();
    let inner = |open: &str, close: &str| {
        t.strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
            .filter(|inner| {
                !inner.is_empty()
                    && inner
                        .chars()
                        .all(|c| c.is_alphanumeric() || "_-/|:".contains(c))
            })
    };
    if let Some(name) = inner("<|", "|>") {
        return !name.is_empty();
    }
    if let Some(name) = inner("[", "]") {
        return name.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    }
    if let Some(name) = inner("<", ">") {
        let name = name.trim_start_matches('/');
        let byte = name.len() == 4 && name.starts_with("0x");
        return !byte && !name.is_empty() && !name.contains('|');
    }
    false
}

/// A token that is only punctuation (ASCII's and CJK's), once a tokenizer's space marks (`Ġ`,
/// `▁`, `##`) and white space are taken off.
pub fn is_punctuation(token: &str) -> bool {
    let t = token
        .trim_start_matches("##")
        .trim_start_matches(['Ġ', '▁', 'Ċ'])
        .trim();
    !t.is_empty()
        && !is_special(token)
        && t.chars().all(|c| {
            c.is_ascii_punctuation()
                || "，。、；：？！“”‘’（）《》【】…—·「」『』〈〉～".contains(c)
        })
}

/// The tokens as ids, told apart by their text.
pub fn text_ids(tokens: &[String]) -> Vec<u32> {
    let mut seen: Vec<&str> = Vec::new();
    tokens
        .iter()
        .map(|token| {
            let at = seen
                .iter()
                .position(|t| *t == token.as_str())
                .unwrap_or_else(|| {
                    seen.push(token);
                    seen.len() - 1
                });
            at as u32
        })
        .collect()
}

/// Whether a head sees no later key: every weight above the diagonal is 0.
fn causal(weights: ArrayView2<f32>) -> bool {
    weights
        .outer_iter()
        .enumerate()
        .all(|(i, row)| row.iter().skip(i + 1).all(|w| *w == 0.0))
}

/// One head's roles: `weights` [queries, keys] on `tokens` (the queries'), `key_tokens` the
/// keys' when they are other tokens (cross-attention: only the first-key, special and
/// punctuation roles then mean anything). `are_weights`: whether the file's numbers are weights
/// ([`RowsAre::are_weights`]); otherwise no role is measured.
pub fn head_roles(
    weights: ArrayView2<f32>,
    tokens: &[String],
    key_tokens: Option<&[String]>,
    are_weights: bool,
) -> ImportedRoles {
    let (entropy_bits, entropy_rows) = if are_weights {
        entropy_of_distributions(weights)
    } else {
        (None, 0)
    };
    if !are_weights {
        return ImportedRoles {
            measures: [None; 8],
            entropy_bits,
            entropy_rows,
        };
    }
    let keys = key_tokens.unwrap_or(tokens);
    let (n, m) = (
        weights.nrows().min(tokens.len()),
        weights.ncols().min(keys.len()),
    );
    let self_attention = key_tokens.is_none();
    let ids = text_ids(tokens);
    let special: Vec<bool> = keys.iter().map(|t| is_special(t)).collect();
    let punctuation: Vec<bool> = keys.iter().map(|t| is_punctuation(t)).collect();
    let sees_later = self_attention && !causal(weights);
    // A causal head's first query has one key to look at: it shows no role.
    let start = usize::from(self_attention && !sees_later);
    let mut sums = [0.0f64; 8];
    let mut counts = [0usize; 8];
    for i in start..n {
        let row = weights.row(i);
        let mut add = |role: usize, keys: &mut dyn Iterator<Item = usize>| {
            sums[role] += keys.map(|j| f64::from(row[j])).sum::<f64>();
            counts[role] += 1;
        };
        if self_attention {
            let earlier: Vec<usize> = (0..i).filter(|&p| ids[p] == ids[i]).collect();
            let elsewhere: Vec<usize> = (0..n)
                .filter(|&p| p != i && ids[p] == ids[i] && (sees_later || p < i))
                .collect();
            if i >= 1 {
                add(0, &mut std::iter::once(i - 1));
            }
            // After an earlier occurrence, the key that followed it — not the token just before
            // the query, which cannot tell induction from looking one token back.
            let followers: Vec<usize> = earlier
                .iter()
                .map(|p| p + 1)
                .filter(|j| *j + 1 < i)
                .collect();
            if !followers.is_empty() {
                add(1, &mut followers.into_iter());
            }
            if !elsewhere.is_empty() {
                add(2, &mut elsewhere.into_iter());
            }
            if i >= 1 {
                add(3, &mut std::iter::once(0));
            }
            add(4, &mut std::iter::once(i));
            if sees_later && i + 1 < m {
                add(5, &mut std::iter::once(i + 1));
            }
        } else {
            add(3, &mut std::iter::once(0));
        }
        // The keys the query can see that are special tokens (or punctuation), itself apart.
        let visible = |j: usize| !self_attention || j != i;
        let limit = if self_attention && !sees_later {
            (i + 1).min(m)
        } else {
            m
        };
        let specials: Vec<usize> = (0..limit).filter(|&j| special[j] && visible(j)).collect();
        if !specials.is_empty() {
            add(6, &mut specials.into_iter());
        }
        let marks: Vec<usize> = (0..limit)
            .filter(|&j| punctuation[j] && visible(j))
            .collect();
        if !marks.is_empty() {
            add(7, &mut marks.into_iter());
        }
    }
    let measures = std::array::from_fn(|r| {
        (counts[r] > 0).then(|| RoleMeasure {
            mean: (sums[r] / counts[r] as f64) as f32,
            queries: counts[r],
        })
    });
    ImportedRoles {
        measures,
        entropy_bits,
        entropy_rows,
    }
}

/// The mean over the rows that are distributions (nothing negative, summing to 1 within
/// [`ROW_SUM_TOLERANCE`]) of −Σ w·log₂ w (0·log 0 = 0), in bits, and how many rows that is.
/// Each term in f32 by [`fastmath::log2_normal`] (libm's is a slow software routine in wasm),
/// each row summed in f64.
pub fn entropy_of_distributions(weights: ArrayView2<f32>) -> (Option<f32>, usize) {
    let mut total = 0.0f64;
    let mut rows = 0usize;
    for row in weights.outer_iter() {
        let sum: f32 = row.sum();
        if (sum - 1.0).abs() > ROW_SUM_TOLERANCE || row.iter().any(|w| *w < 0.0) {
            continue;
        }
        total += row
            .iter()
            .map(|&w| f64::from(-w * fastmath::log2_normal(w.max(f32::MIN_POSITIVE))))
            .sum::<f64>();
        rows += 1;
    }
    ((rows > 0).then(|| (total / rows as f64) as f32), rows)
}
