//! Two ways researchers of encoder models look at a file of attention besides head by head: with
//! its special tokens hidden (`[CLS]`, `[SEP]`, `<s>`: they take much of the weight and hide the
//! rest), each row renormalised over the keys left; and the mean over each layer's heads or over
//! the layers, as a view of its own.

use ndarray::{Array2, Array4, Axis};

use crate::io::head_roles::is_special;
use crate::io::import::{ImportNotice, Imported, Tensors};
use crate::io::imported::{ImportedRun, ShownHead};

pub use crate::io::imported::Mean;

/// The positions of `tokens` that are special tokens.
pub fn special_positions(tokens: &[String]) -> Vec<usize> {
    (0..tokens.len())
        .filter(|&i| is_special(&tokens[i]))
        .collect()
}

/// `x` [layers, heads, rows, columns] with only the rows `rows` and the columns `columns`.
fn keep(x: &Array4<f32>, rows: &[usize], columns: Option<&[usize]>) -> Array4<f32> {
    let x = x.select(Axis(2), rows);
    match columns {
        Some(columns) => x.select(Axis(3), columns),
        None => x,
    }
}

/// Why special tokens cannot be hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CannotHide {
    #[error(
        "hide_special: no token is a special token ([CLS], [SEP], <s>, </s>, <|endoftext|>, …)"
    )]
    NoSpecialTokens,
    #[error("hide_special: every query or every key is a special token: nothing would be left")]
    AllSpecial,
    #[error(
        "hide_special: the numbers are not weights (one is negative): scores or logits cannot be renormalised"
    )]
    NotWeights,
}

impl Imported {
    /// Whether [`Imported::without_special`] can hide anything, without building it.
    pub fn can_hide_special(&self) -> Result<(), CannotHide> {
        let (queries, keys) = (
            special_positions(&self.tokens).len(),
            special_positions(self.keys()).len(),
        );
        if queries == 0 && keys == 0 {
            return Err(CannotHide::NoSpecialTokens);
        }
        if queries == self.tokens.len() || keys == self.keys().len() {
            return Err(CannotHide::AllSpecial);
        }
        if let Tensors::Attention(a) = &self.tensors
            && a.iter().any(|w| *w < 0.0)
        {
            return Err(CannotHide::NotWeights);
        }
        Ok(())
    }

    /// The distinct special tokens among the queries and the keys, in order.
    pub fn special_tokens(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for token in self.tokens.iter().chain(self.key_tokens.iter().flatten()) {
            if is_special(token) && !names.contains(token) {
                names.push(token.clone());
            }
        }
        names
    }

    /// The file without its special tokens' queries and keys ([`is_special`]), each row of
    /// weights divided by what is left of it, so that it sums to 1 again (a row whose every
    /// weight was on special tokens has nothing left, and stays 0); from Q and K, their
    /// rows are dropped (the softmax over the keys left is the same renormalisation). Refused
    /// when no token is special, when every query or every key is, or when the numbers are not
    /// weights (a negative one: scores or logits cannot be renormalised).
    pub fn without_special(&self) -> Result<Imported, CannotHide> {
        self.can_hide_special()?;
        let hidden_queries = special_positions(&self.tokens);
        let hidden_keys = special_positions(self.keys());
        let rows: Vec<usize> = (0..self.tokens.len())
            .filter(|i| !hidden_queries.contains(i))
            .collect();
        let columns: Vec<usize> = (0..self.keys().len())
            .filter(|j| !hidden_keys.contains(j))
            .collect();
        let tensors = match &self.tensors {
            Tensors::Attention(a) => {
                let mut a = keep(a, &rows, Some(&columns));
                for mut row in a.lanes_mut(Axis(3)) {
                    let sum: f32 = row.sum();
                    if sum > 0.0 {
                        row.mapv_inplace(|w| w / sum);
                    }
                }
                Tensors::Attention(a)
            }
            Tensors::Vectors { q, k, v } => Tensors::Vectors {
                q: keep(q, &rows, None),
                k: keep(k, &columns, None),
                v: v.as_ref().map(|v| keep(v, &columns, None)),
            },
        };
        let pick = |tokens: &[String], at: &[usize]| -> Vec<String> {
            at.iter().map(|&i| tokens[i].clone()).collect()
        };
        let names = self.special_tokens();
        let mut notices: Vec<ImportNotice> = self
            .notices
            .iter()
            .filter(|n| !matches!(n, ImportNotice::RowsDoNotSumToOne { .. }))
            .cloned()
            .collect();
        notices.push(ImportNotice::SpecialHidden {
            queries: hidden_queries.len(),
            keys: hidden_keys.len(),
            tokens: names,
        });
        Ok(Imported {
            tensors,
            tokens: pick(&self.tokens, &rows),
            key_tokens: self.key_tokens.as_ref().map(|k| pick(k, &columns)),
            notices,
        })
    }
}

impl ImportedRun {
    /// The mean of the weights over each layer's heads (one head per layer) or over the layers
    /// (one layer of every head): weights only, as a file of weights would show them.
    pub fn averaged(&self, over: Mean) -> ImportedRun {
        let mean = |heads: Vec<&ShownHead>| -> ShownHead {
            let mut sum = Array2::<f32>::zeros(heads[0].weights.dim());
            for head in &heads {
                sum += &head.weights;
            }
            sum /= heads.len() as f32;
            ShownHead {
                q: None,
                k: None,
                v: None,
                scores: None,
                weights: sum,
                output: None,
                flash_output: None,
                fully_masked_rows: Vec::new(),
            }
        };
        let layers = match over {
            Mean::Heads => self
                .layers
                .iter()
                .map(|heads| vec![mean(heads.iter().collect())])
                .collect(),
            Mean::Layers => vec![
                (0..self.head_count())
                    .map(|h| mean(self.layers.iter().map(|heads| &heads[h]).collect()))
                    .collect(),
            ],
        };
        ImportedRun {
            tokens: self.tokens.clone(),
            key_tokens: self.key_tokens.clone(),
            layers,
            from_vectors: false,
            max_flash_diff: None,
            computed_under: None,
            rope: None,
            notices: self.notices.clone(),
            mean: Some(over),
        }
    }
}
