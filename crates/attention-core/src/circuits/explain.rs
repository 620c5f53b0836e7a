//! A score taken apart, exactly. The norm before attention is frozen at its input
//! ([`FrozenNorm`]); through W_Q (and b_Q), QK-norm (its scale frozen the same way) and RoPE
//! (linear at a given position) each component gives a query part, and through W_K a key part;
//! the constant terms (β, the biases) are the part called `"bias"`. Then
//! q_i·k_j / (√d_k · T) = Σ_a Σ_b (query part a)·(key part b) / (√d_k · T) exactly: `terms[a][b]`.
//! ALiBi's bias and a soft-cap's non-linearity are terms of their own: the terms decompose the
//! score before the cap, `softcap` is what the cap changed.

use ndarray::{Array1, Array2, ArrayView1, s};

use crate::circuits::components::{BIAS, Components};
use crate::circuits::error::ExplainError;
use crate::circuits::frozen::FrozenNorm;
use crate::math::scoring::{Position, QK_NORM_EPSILON, Side, rope_angle};
use crate::pipeline::config::LayerNormMode;
use crate::pipeline::trace::Trace;

/// One score, taken apart.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub query: usize,
    pub key: usize,
    /// [query-side components + bias, key-side components + bias]: each pair's share of the
    /// scaled score (before a soft-cap).
    pub terms: Array2<f64>,
    /// ALiBi's bias −m_h·|i − j|, divided by T.
    pub alibi: Option<f64>,
    /// What the soft-cap changed: c·tanh(z/c)/T − z/T.
    pub softcap: Option<f64>,
    /// The score as the trace computed it (before the mask).
    pub score: f32,
    /// Σ terms (+ ALiBi + the cap's effect): `score`, up to rounding.
    pub sum: f64,
    /// The weight softmax gave this key (`None` for a summarised trace).
    pub weight: Option<f32>,
    /// Whether the mask hides this key (its weight is then 0).
    pub masked: bool,
}

impl Explanation {
    /// Σ over key-side components of the query-side component `a`'s terms.
    pub fn query_total(&self, a: usize) -> f64 {
        self.terms.row(a).sum()
    }

    /// Σ over query-side components of the key-side component `b`'s terms.
    pub fn key_total(&self, b: usize) -> f64 {
        self.terms.column(b).sum()
    }
}

/// What one head reads, ready to take its scores apart.
pub struct Reading<'a> {
    trace: &'a Trace,
    head: usize,
    queries: Components,
    keys: Components,
    query_norm: FrozenNorm,
    key_norm: FrozenNorm,
    /// The head's columns of W_Q and of its K/V group's W_K, [d_model, d_k], f64.
    w_q: Array2<f64>,
    w_k: Array2<f64>,
    /// β·W + b of each side, [d_k].
    q_constant: Array1<f64>,
    k_constant: Array1<f64>,
}

impl<'a> Reading<'a> {
    /// Head `head` (from 0) of `trace`, whose input is `components` (the key side's are the
    /// source's own in cross-attention).
    pub fn new(
        trace: &'a Trace,
        components: &Components,
        head: usize,
    ) -> Result<Self, ExplainError> {
        let config = &trace.config;
        let dims = *config.dims();
        if head >= dims.n_heads {
            return Err(ExplainError::Counted {
                field: "explain.head",
                what: "heads",
                value: head + 1,
                max: dims.n_heads,
            });
        }
        // The parts must be the trace's input, position for position.
        let fits =
            |c: &Components, rows: usize| c.parts.iter().all(|p| p.dim() == (rows, dims.d_model));
        if !fits(components, config.seq_len()) {
            return Err(ExplainError::Other {
                field: "explain",
                message: "the components are not this layer's input".into(),
            });
        }
        let query_norm = match config.layer_norm() {
            LayerNormMode::Pre => FrozenNorm::at(config.norm(), config.x()),
            LayerNormMode::None | LayerNormMode::Post => FrozenNorm::identity(config.seq_len()),
        };
        let (keys, key_norm) = match config.source() {
            Some(source) => (
                Components::of_sequence(source),
                FrozenNorm::identity(config.key_len()),
            ),
            None => (components.clone(), query_norm.clone()),
        };
        let weights = config.weights();
        let group = dims.kv_group(head);
        let columns = |w: &Array2<f32>, at: usize| {
            w.slice(s![.., at * dims.d_k..(at + 1) * dims.d_k])
                .mapv(f64::from)
        };
        let (w_q, w_k) = (columns(&weights.w_q, head), columns(&weights.w_k, group));
        let bias = |b: Option<&Array1<f32>>, at: usize| {
            b.map_or_else(
                || Array1::zeros(dims.d_k),
                |b| {
                    b.slice(s![at * dims.d_k..(at + 1) * dims.d_k])
                        .mapv(f64::from)
                },
            )
        };
        let biases = weights.biases.as_ref();
        let q_constant =
            query_norm.constant(dims.d_model).dot(&w_q) + bias(biases.map(|b| &b.q), head);
        let k_constant =
            key_norm.constant(dims.d_model).dot(&w_k) + bias(biases.map(|b| &b.k), group);
        Ok(Self {
            trace,
            head,
            queries: components.clone(),
            keys,
            query_norm,
            key_norm,
            w_q,
            w_k,
            q_constant,
            k_constant,
        })
    }

    /// The query side's component names, `"bias"` last.
    pub fn query_names(&self) -> Vec<String> {
        names(&self.queries)
    }

    /// The key side's component names, `"bias"` last.
    pub fn key_names(&self) -> Vec<String> {
        names(&self.keys)
    }

    /// Each query-side component's part of q at `position` as the scores read it, [C + 1, d_k].
    pub fn query_parts(&self, position: usize) -> Array2<f64> {
        self.parts(Side::Query, position)
    }

    /// Each key-side component's part of k at `position` as the scores read it, [C + 1, d_k].
    pub fn key_parts(&self, position: usize) -> Array2<f64> {
        self.parts(Side::Key, position)
    }

    /// Every position's parts of one side at once: per component (`"bias"` last) [len, d_k].
    pub fn all_parts(&self, query: bool) -> Vec<Array2<f64>> {
        let (components, norm, w, constant, actual) = if query {
            (
                &self.queries,
                &self.query_norm,
                &self.w_q,
                &self.q_constant,
                &self.trace.heads[self.head].q,
            )
        } else {
            (
                &self.keys,
                &self.key_norm,
                &self.w_k,
                &self.k_constant,
                &self.trace.heads[self.head].k,
            )
        };
        let len = actual.nrows();
        let mut out: Vec<Array2<f64>> = components
            .parts
            .iter()
            .map(|part| norm.part_rows(part.view()).dot(w))
            .collect();
        let mut bias = Array2::zeros((len, w.ncols()));
        bias.rows_mut()
            .into_iter()
            .for_each(|mut r| r.assign(constant));
        out.push(bias);
        for position in 0..len {
            let mut rows = Array2::zeros((out.len(), w.ncols()));
            for (c, part) in out.iter().enumerate() {
                rows.row_mut(c).assign(&part.row(position));
            }
            let side = if query { Side::Query } else { Side::Key };
            self.shape(&mut rows, actual.row(position), position, side);
            for (c, part) in out.iter_mut().enumerate() {
                part.row_mut(position).assign(&rows.row(c));
            }
        }
        out
    }

    /// One side's parts at `position`: each component through the frozen norm and W, the
    /// constant last, shaped as the scores read it.
    fn parts(&self, side: Side, position: usize) -> Array2<f64> {
        let head = &self.trace.heads[self.head];
        let (components, norm, w, constant, actual) = match side {
            Side::Query => (
                &self.queries,
                &self.query_norm,
                &self.w_q,
                &self.q_constant,
                head.q.row(position),
            ),
            Side::Key => (
                &self.keys,
                &self.key_norm,
                &self.w_k,
                &self.k_constant,
                head.k.row(position),
            ),
        };
        let count = components.parts.len();
        let d_k = w.ncols();
        let mut out = Array2::zeros((count + 1, d_k));
        for (c, part) in components.parts.iter().enumerate() {
            out.row_mut(c)
                .assign(&norm.part(position, part.row(position)).dot(w));
        }
        out.row_mut(count).assign(constant);
        self.shape(&mut out, actual, position, side);
        out
    }

    /// QK-norm (its scale frozen at the actual vector, then its learned γ where it has one) and
    /// RoPE at `position`, on every row of `out` [parts, d_k].
    fn shape(&self, out: &mut Array2<f64>, actual: ArrayView1<f32>, position: usize, side: Side) {
        let d_k = out.ncols();
        let shaping = self.trace.config.shaping();
        if shaping.qk_norm {
            // The scale QK-norm divided the whole vector by, frozen.
            let n = actual.len().max(1) as f32;
            let mean_square = actual.iter().map(|v| v * v).sum::<f32>() / n;
            let epsilon = shaping
                .qk_gain
                .as_ref()
                .map_or(QK_NORM_EPSILON, |g| g.epsilon);
            *out *= f64::from(1.0 / (mean_square + epsilon).sqrt());
            if let Some(gain) = &shaping.qk_gain {
                let gamma = match side {
                    Side::Query => &gain.q,
                    Side::Key => &gain.k,
                };
                for mut row in out.rows_mut() {
                    for (v, &g) in row.iter_mut().zip(gamma) {
                        *v *= f64::from(g);
                    }
                }
            }
        }
        if let Position::Rope { base, pairing } = shaping.position {
            let at = position + shaping.offset;
            let r = pairing.rotated(d_k);
            for p in 0..r / 2 {
                let (a, b) = pairing.dims(p, r);
                let (sin, cos) = rope_angle(at, p, r, base).sin_cos();
                for mut row in out.rows_mut() {
                    let (x1, x2) = (row[a], row[b]);
                    row[a] = x1 * cos - x2 * sin;
                    row[b] = x1 * sin + x2 * cos;
                }
            }
        }
    }

    /// The score of `query` and `key`, taken apart, from the parts already computed.
    fn explain(
        &self,
        query: usize,
        key: usize,
        q_parts: &Array2<f64>,
        k_parts: &Array2<f64>,
    ) -> Explanation {
        let config = &self.trace.config;
        let d_k = config.dims().d_k;
        let scoring = config.scoring(self.head);
        let inv_sqrt_d_k = 1.0 / (d_k as f64).sqrt();
        let inv_t = f64::from(scoring.inv_t());
        let mut terms = q_parts.dot(&k_parts.t());
        let dot_sum: f64 = terms.sum();
        let alibi = scoring.slope().map(|_| f64::from(scoring.bias(query, key)));
        let softcap = scoring.cap().map(|c| {
            let c = f64::from(c);
            let z = dot_sum * inv_sqrt_d_k + alibi.unwrap_or(0.0);
            (c * (z / c).tanh() - z) * inv_t
        });
        terms *= inv_sqrt_d_k * inv_t;
        let head = &self.trace.heads[self.head];
        let score = if head.scores.nrows() > query && head.scores.ncols() > key {
            head.scores[[query, key]]
        } else {
            let dot = head.scored_q().row(query).dot(&head.scored_k().row(key));
            scoring.score(dot, query, key)
        };
        let weight = (head.weights.nrows() > query && head.weights.ncols() > key)
            .then(|| head.weights[[query, key]]);
        let sum = terms.sum() + alibi.map_or(0.0, |a| a * inv_t) + softcap.unwrap_or(0.0);
        Explanation {
            query,
            key,
            terms,
            alibi: alibi.map(|a| a * inv_t),
            softcap,
            score,
            sum,
            weight,
            masked: !self.trace.mask.allows(query, key),
        }
    }

    /// Query `query`'s score of key `key` (from 0), taken apart.
    pub fn cell(&self, query: usize, key: usize) -> Result<Explanation, ExplainError> {
        let query =
            crate::circuits::error::position("explain.query", query, self.trace.config.seq_len())?;
        let key =
            crate::circuits::error::position("explain.key", key, self.trace.config.key_len())?;
        Ok(self.explain(query, key, &self.query_parts(query), &self.key_parts(key)))
    }

    /// Every key's score of query `query`, taken apart (the masked ones too).
    pub fn row(&self, query: usize) -> Result<Vec<Explanation>, ExplainError> {
        let query =
            crate::circuits::error::position("explain.query", query, self.trace.config.seq_len())?;
        let q_parts = self.query_parts(query);
        let keys = self.all_parts(false);
        Ok((0..self.trace.config.key_len())
            .map(|key| {
                let mut k_parts = Array2::zeros((keys.len(), q_parts.ncols()));
                for (c, part) in keys.iter().enumerate() {
                    k_parts.row_mut(c).assign(&part.row(key));
                }
                self.explain(query, key, &q_parts, &k_parts)
            })
            .collect())
    }
}

fn names(components: &Components) -> Vec<String> {
    components
        .names
        .iter()
        .cloned()
        .chain([BIAS.to_string()])
        .collect()
}

/// Head `head`'s score of `query` and `key` (all from 0) in `trace`, whose input is `components`.
pub fn explain_cell(
    trace: &Trace,
    components: &Components,
    head: usize,
    query: usize,
    key: usize,
) -> Result<Explanation, ExplainError> {
    Reading::new(trace, components, head)?.cell(query, key)
}

/// Every score of `query`'s row, taken apart.
pub fn explain_row(
    trace: &Trace,
    components: &Components,
    head: usize,
    query: usize,
) -> Result<Vec<Explanation>, ExplainError> {
    Reading::new(trace, components, head)?.row(query)
}
