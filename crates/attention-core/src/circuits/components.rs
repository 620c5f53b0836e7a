//! The residual stream entering a layer as the exact sum of what wrote it: the token embedding,
//! the position embedding (where the layout adds one), and for each earlier layer each head's
//! output through its rows of W_O, the attention's output bias and the MLP's output. Named as
//! the page counts, from 1: `"token"`, `"position"`, `"L{l}.H{h}"`, `"L{l}.attn_bias"`,
//! `"L{l}.mlp"`.

use std::ops::Range;

use ndarray::{Array2, ArrayView2, s};

use crate::models::{Forward, Model};
use crate::pipeline::config::Sequence;
use crate::pipeline::trace::Trace;

/// The name of every constant term (a norm's β, a projection's bias).
pub const BIAS: &str = "bias";

/// Named parts [seq_len, d_model] (f64) summing to a residual stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Components {
    pub names: Vec<String>,
    pub parts: Vec<Array2<f64>>,
}

fn wide(x: ArrayView2<f32>) -> Array2<f64> {
    x.mapv(f64::from)
}

impl Components {
    /// A random-weight sequence's X: its token embeddings and, when positions are added to X,
    /// its positions; X itself (`"x"`) when it was given as vectors.
    pub fn of_sequence(sequence: &Sequence) -> Self {
        match &sequence.parts {
            Some((e, p)) => {
                let mut out = Self {
                    names: vec!["token".into()],
                    parts: vec![wide(e.view())],
                };
                if sequence.first_position.is_some() {
                    out.names.push("position".into());
                    out.parts.push(wide(p.view()));
                }
                out
            }
            None => Self {
                names: vec!["x".into()],
                parts: vec![wide(sequence.x.view())],
            },
        }
    }

    /// What entered layer `layer` (from 0; `n_layers` for what leaves the last block and enters
    /// the final norm) of `forward`.
    pub fn entering(model: &Model, forward: &Forward, layer: usize) -> Self {
        Self::entering_rows(model, forward, layer, 0..forward.ids.len())
    }

    /// The same for the positions `rows` only (each part [rows, d_model]): one position's
    /// parts cost one row's projections, not the sequence's.
    pub fn entering_rows(
        model: &Model,
        forward: &Forward,
        layer: usize,
        rows: Range<usize>,
    ) -> Self {
        let pick = |x: ArrayView2<f32>| wide(x.slice(s![rows.clone(), ..]));
        let mut out = Self {
            names: vec!["token".into()],
            parts: vec![pick(forward.embeddings.view())],
        };
        if model.position_embedding.is_some() {
            out.names.push("position".into());
            out.parts.push(pick(forward.positions.view()));
        }
        for (index, ran) in forward.layers.iter().enumerate().take(layer) {
            let first = out.parts.len();
            out.add_heads(index, &ran.attention, rows.clone());
            // Gemma's norm after the attention: at each position a fixed diagonal map (γ over
            // that row's root mean square), so each head's part goes through it alone.
            if let Some(post) = &model.blocks[index].post_attention_norm {
                let frozen = crate::circuits::frozen::FrozenNorm::at(
                    post,
                    ran.attention.projected.slice(s![rows.clone(), ..]),
                );
                for part in &mut out.parts[first..] {
                    *part = frozen.part_rows(part.view());
                }
            }
            out.names.push(format!("L{}.mlp", index + 1));
            out.parts.push(pick(ran.mlp.view()));
        }
        out
    }

    /// Each head of `trace` (layer `index` from 0) through its rows of W_O, and the output bias,
    /// at the positions `positions`.
    fn add_heads(&mut self, index: usize, trace: &Trace, positions: Range<usize>) {
        let dims = trace.config.dims();
        let weights = trace.config.weights();
        for (h, head) in trace.heads.iter().enumerate() {
            let rows = weights.w_o.slice(s![h * dims.d_v..(h + 1) * dims.d_v, ..]);
            self.names.push(format!("L{}.H{}", index + 1, h + 1));
            let output = head.output.slice(s![positions.clone(), ..]);
            self.parts.push(wide(output).dot(&wide(rows.view())));
        }
        if let Some(biases) = &weights.biases {
            let n = positions
                .len()
                .min(trace.heads.first().map_or(0, |h| h.output.nrows()));
            let bias = biases.o.mapv(f64::from);
            let mut part = Array2::zeros((n, bias.len()));
            part.rows_mut()
                .into_iter()
                .for_each(|mut r| r.assign(&bias));
            self.names.push(format!("L{}.attn_bias", index + 1));
            self.parts.push(part);
        }
    }

    /// Their sum, [seq_len, d_model].
    pub fn sum(&self) -> Array2<f64> {
        let mut parts = self.parts.iter();
        let Some(first) = parts.next() else {
            return Array2::zeros((0, 0));
        };
        parts.fold(first.clone(), |acc, p| acc + p)
    }

    /// Where component `name` is, if it is one.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}
