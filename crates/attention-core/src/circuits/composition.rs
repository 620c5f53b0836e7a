//! How strongly heads compose (Elhage et al., 2021): an earlier head a writes x·W_OV^a into the
//! residual stream; a later head b reads it with its query (Q-composition), its key
//! (K-composition) or its value (V-composition). In the lab's row convention, with each head's
//! norm weight folded into what it reads (R = diag(γ), after centring for LayerNorm):
//! W_OV = R·W_V·W_O, W_QK = (R·W_Q)(R·W_K)ᵀ, and
//! Q: ‖W_OV^a·W_QK^b‖_F, K: ‖W_QK^b·(W_OV^a)ᵀ‖_F, V: ‖W_OV^a·W_OV^b‖_F, each over the product
//! of the two norms. RoPE's rotation is left out (it depends on the distance, as in the paper's
//! and TransformerLens's scores). A random baseline of the same shapes says what "strong" is.
//!
//! The same measured on the sentence: the share of a later head's scores that comes from each
//! earlier component, on the query's side and on the key's ([`sentence_shares`]).

use ndarray::{Array1, Array2, s};

use crate::circuits::components::Components;
use crate::circuits::explain::Reading;
use crate::circuits::frozen::FrozenNorm;
use crate::math::norm::Norm;
use crate::math::rng::{SplitMix64, stream_seed};
use crate::models::{Forward, Model};

/// A head's factors, each [d_model, d_k] or [d_v, d_model], with its norm folded in.
struct Factors {
    /// R·W_Q [d, d_k]
    u: Array2<f64>,
    /// R·W_K [d, d_k]
    v: Array2<f64>,
    /// R·W_V [d, d_v]
    p: Array2<f64>,
    /// W_O's rows [d_v, d]
    q: Array2<f64>,
}

impl Factors {
    fn of(
        norm: &Norm,
        w_q: Array2<f64>,
        w_k: Array2<f64>,
        w_v: Array2<f64>,
        w_o: Array2<f64>,
    ) -> Self {
        let d = w_q.nrows();
        let frozen = FrozenNorm::at(norm, Array2::<f32>::zeros((0, d)).view());
        let gamma = frozen.gamma(d);
        let read = |w: Array2<f64>| {
            let mut w = w;
            for (r, mut row) in w.rows_mut().into_iter().enumerate() {
                row *= gamma[r];
            }
            if frozen.centres() {
                // C·M with C = I − 11ᵀ/d: each column less its mean.
                let mean = w
                    .mean_axis(ndarray::Axis(0))
                    .unwrap_or_else(|| Array1::zeros(w.ncols()));
                w -= &mean;
            }
            w
        };
        Self {
            u: read(w_q),
            v: read(w_k),
            p: read(w_v),
            q: w_o,
        }
    }

    fn of_model(model: &Model, layer: usize, head: usize) -> Self {
        let block = &model.blocks[layer];
        let w = &block.attention;
        let d_k = model.config.d_head();
        // A hybrid's linear layer has a key for every head.
        let group = if block.linear.is_some() {
            head
        } else {
            head / (model.config.n_heads / model.config.n_kv_heads.max(1)).max(1)
        };
        let cols =
            |m: &Array2<f32>, at: usize| m.slice(s![.., at * d_k..(at + 1) * d_k]).mapv(f64::from);
        Self::of(
            &block.attention_norm,
            cols(&w.w_q, head),
            cols(&w.w_k, group),
            cols(&w.w_v, group),
            writes(block, head, d_k),
        )
    }
}

/// What head `head` writes to the residual stream, its rows of W_O [d_k, d_model]: times the
/// gain of Gemma's norm after the attention where the block has one (its division by the root
/// mean square depends on the input, and is left out as the norms before a reader are).
fn writes(
    block: &crate::models::Block<crate::models::Mlp>,
    head: usize,
    d_k: usize,
) -> Array2<f64> {
    let mut w_o = block
        .attention
        .w_o
        .slice(s![head * d_k..(head + 1) * d_k, ..])
        .mapv(f64::from);
    if let Some((gamma, _)) = block
        .post_attention_norm
        .as_ref()
        .and_then(|n| n.affine.as_ref())
    {
        for mut row in w_o.rows_mut() {
            row.zip_mut_with(gamma, |w, &g| *w *= f64::from(g));
        }
    }
    w_o
}

/// ‖L·M·Rᵀ‖_F² from the Gram matrices LᵀL and RᵀR: tr(LᵀL · M · RᵀR · Mᵀ).
fn frobenius_squared(l_gram: &Array2<f64>, m: &Array2<f64>, r_gram: &Array2<f64>) -> f64 {
    let left = l_gram.dot(m);
    let right = m.dot(r_gram);
    (&left * &right).sum()
}

/// The three scores of every (earlier a, later b) pair.
struct Grams {
    pp: Array2<f64>,
    qq: Array2<f64>,
    uu: Array2<f64>,
    vv: Array2<f64>,
    ov: f64,
    qk: f64,
}

impl Grams {
    fn of(f: &Factors) -> Self {
        let pp = f.p.t().dot(&f.p);
        let qq = f.q.dot(&f.q.t());
        let uu = f.u.t().dot(&f.u);
        let vv = f.v.t().dot(&f.v);
        let ov = frobenius_squared(&pp, &Array2::eye(pp.nrows()), &qq).sqrt();
        let qk = frobenius_squared(&uu, &Array2::eye(uu.nrows()), &vv).sqrt();
        Self {
            pp,
            qq,
            uu,
            vv,
            ov,
            qk,
        }
    }
}

/// (Q, K, V) composition of earlier head `a` into later head `b`.
fn scores(a: &Factors, ga: &Grams, b: &Factors, gb: &Grams) -> [f64; 3] {
    let ratio = |x: f64, y: f64| if y > 0.0 { x / y } else { 0.0 };
    let q = frobenius_squared(&ga.pp, &a.q.dot(&b.u), &gb.vv).sqrt();
    let k = frobenius_squared(&gb.uu, &b.v.t().dot(&a.q.t()), &ga.pp).sqrt();
    let v = frobenius_squared(&ga.pp, &a.q.dot(&b.p), &gb.qq).sqrt();
    [
        ratio(q, ga.ov * gb.qk),
        ratio(k, ga.ov * gb.qk),
        ratio(v, ga.ov * gb.ov),
    ]
}

/// Every head pair's composition, over the model's heads in page order (layer by layer, head
/// by head): `q[a][b]` is how strongly head a's output is read by head b's queries; `None`
/// where a is not in an earlier layer than b.
#[derive(Debug, Clone, PartialEq)]
pub struct Composition {
    /// `"L{l}.H{h}"` of each head, in page order.
    pub heads: Vec<String>,
    pub q: Vec<Vec<Option<f64>>>,
    pub k: Vec<Vec<Option<f64>>>,
    pub v: Vec<Vec<Option<f64>>>,
    /// The mean score of random weights of the same shapes (Q, K and V alike).
    pub baseline: f64,
}

impl Composition {
    /// Its scores as one buffer for a worker to send: Q's, K's then V's rows, n × n each, NaN
    /// where a pair is not scored; then the baseline.
    pub fn to_flat(&self) -> Vec<f64> {
        let mut flat: Vec<f64> = [&self.q, &self.k, &self.v]
            .into_iter()
            .flat_map(|m| m.iter().flatten().map(|x| x.unwrap_or(f64::NAN)))
            .collect();
        flat.push(self.baseline);
        flat
    }

    /// [`Composition::to_flat`] read back for a model of `config`'s shape; `None` for a buffer
    /// of another length.
    pub fn from_flat(config: &crate::models::ModelConfig, flat: &[f64]) -> Option<Self> {
        let n = config.n_layers * config.n_heads;
        if flat.len() != 3 * n * n + 1 {
            return None;
        }
        let matrix = |m: usize| -> Vec<Vec<Option<f64>>> {
            flat[m * n * n..(m + 1) * n * n]
                .chunks(n.max(1))
                .map(|row| row.iter().map(|&x| (!x.is_nan()).then_some(x)).collect())
                .collect()
        };
        Some(Self {
            heads: (0..n)
                .map(|i| format!("L{}.H{}", i / config.n_heads + 1, i % config.n_heads + 1))
                .collect(),
            q: matrix(0),
            k: matrix(1),
            v: matrix(2),
            baseline: flat[3 * n * n],
        })
    }
}

/// The multiply-adds [`composition`] takes on a model of `config`'s shape: for each pair of
/// heads in different layers, three products of one head's [d_k, d_model] by the other's
/// [d_model, d_k]. It grows as the square of the heads: about 90 billion for GPT-2 small's
/// 144 heads, two trillion for a 1 B model's 384; the lab's own models take a few million.
pub fn composition_cost(config: &crate::models::ModelConfig) -> u64 {
    let d_k = config.d_head() as u64;
    composition_pairs(config).saturating_mul(3 * d_k * d_k * config.d_model as u64)
}

/// The pairs of heads [`composition`] scores: each head with each head of a later layer.
pub fn composition_pairs(config: &crate::models::ModelConfig) -> u64 {
    let (layers, heads) = (config.n_layers as u64, config.n_heads as u64);
    heads * heads * layers * layers.saturating_sub(1) / 2
}

/// The composition scores of `model`'s heads, from its weights ([`composition_cost`]
/// multiply-adds).
pub fn composition(model: &Model) -> Composition {
    let mut steps = CompositionSteps::new(model);
    while !steps.advance(model) {}
    steps.finish(model)
}

/// [`composition`] a step at a time: each head's factors, then the pairs of heads a few at a
/// time (a model's worker computes steps for a few tens of milliseconds a turn of its event
/// loop, saying how far it is; one pair of GPT-2 small's heads is about 6 ms there).
pub struct CompositionSteps {
    at: Vec<(usize, usize)>,
    factors: Vec<Factors>,
    grams: Vec<Grams>,
    q: Vec<Vec<Option<f64>>>,
    k: Vec<Vec<Option<f64>>>,
    v: Vec<Vec<Option<f64>>>,
    /// The next pair to look at: (earlier head a, later head b), in page order.
    next: (usize, usize),
    /// Pairs scored so far, and in all.
    scored: usize,
    pairs: usize,
}

/// The most pairs one step scores.
const PAIRS_PER_STEP: usize = 4;

impl CompositionSteps {
    pub fn new(model: &Model) -> Self {
        let config = &model.config;
        let at: Vec<(usize, usize)> = (0..config.n_layers)
            .flat_map(|l| (0..config.n_heads).map(move |h| (l, h)))
            .collect();
        let n = at.len();
        Self {
            factors: Vec::with_capacity(n),
            grams: Vec::with_capacity(n),
            q: vec![vec![None; n]; n],
            k: vec![vec![None; n]; n],
            v: vec![vec![None; n]; n],
            next: (0, 0),
            scored: 0,
            pairs: composition_pairs(config) as usize,
            at,
        }
    }

    /// (work done, all): each head's factors count one, each pair scored one.
    pub fn progress(&self) -> (usize, usize) {
        (self.factors.len() + self.scored, self.at.len() + self.pairs)
    }

    /// Computes the next step (a head's factors, or up to a few pairs); `true` once every step
    /// is done (nothing is computed then).
    pub fn advance(&mut self, model: &Model) -> bool {
        let n = self.at.len();
        if self.factors.len() < n {
            let (l, h) = self.at[self.factors.len()];
            let factors = Factors::of_model(model, l, h);
            self.grams.push(Grams::of(&factors));
            self.factors.push(factors);
            return false;
        }
        let mut this_step = 0;
        while self.next.0 < n && this_step < PAIRS_PER_STEP {
            let (a, b) = self.next;
            self.next = if b + 1 < n { (a, b + 1) } else { (a + 1, 0) };
            if self.at[a].0 < self.at[b].0 {
                let [sq, sk, sv] = scores(
                    &self.factors[a],
                    &self.grams[a],
                    &self.factors[b],
                    &self.grams[b],
                );
                self.q[a][b] = Some(sq);
                self.k[a][b] = Some(sk);
                self.v[a][b] = Some(sv);
                self.scored += 1;
                this_step += 1;
            }
        }
        this_step == 0
    }

    /// The scores, once [`CompositionSteps::advance`] has returned `true` (rows not yet
    /// computed stay `None`).
    pub fn finish(self, model: &Model) -> Composition {
        let config = &model.config;
        Composition {
            heads: self
                .at
                .iter()
                .map(|&(l, h)| format!("L{}.H{}", l + 1, h + 1))
                .collect(),
            q: self.q,
            k: self.k,
            v: self.v,
            baseline: baseline(config.d_model, config.d_head(), 16),
        }
    }
}

/// The mean Q-, K- and V-composition of `draws` pairs of random heads (uniform weights, no
/// norm) of width `d` and head width `d_k`: what two heads that do not compose score.
pub fn baseline(d: usize, d_k: usize, draws: usize) -> f64 {
    let mut rng = SplitMix64::new(stream_seed(0, "composition baseline"));
    let mut draw = |rows: usize, cols: usize| {
        Array2::from_shape_simple_fn((rows, cols), || rng.next_symmetric(1.0))
    };
    let norm = Norm {
        epsilon: 0.0,
        affine: None,
        rms: true,
    };
    let mut total = 0.0;
    for _ in 0..draws {
        let mut head = || {
            Factors::of(
                &norm,
                draw(d, d_k),
                draw(d, d_k),
                draw(d, d_k),
                draw(d_k, d),
            )
        };
        let (a, b) = (head(), head());
        let (ga, gb) = (Grams::of(&a), Grams::of(&b));
        total += scores(&a, &ga, &b, &gb).iter().sum::<f64>();
    }
    total / (3 * draws.max(1)) as f64
}

/// Where a head's scores on the sentence came from: each component's share of |contribution|,
/// on the query's side and on the key's, weighted by the attention each cell got.
#[derive(Debug, Clone, PartialEq)]
pub struct SentenceShares {
    /// The components (`"bias"` last).
    pub names: Vec<String>,
    /// Per component: its share (summing to 1 over components) of the query side.
    pub query: Vec<f64>,
    /// Per component: its share of the key side.
    pub key: Vec<f64>,
}

/// Head `head` of layer `layer` (from 0) on `forward`'s sentence: for every visible cell, the
/// query-side part a's contribution (a's query part · the whole key) and the key-side part b's
/// (the whole query · b's key part), weighted by the cell's attention weight, as shares.
pub fn sentence_shares(
    model: &Model,
    forward: &Forward,
    layer: usize,
    head: usize,
) -> Option<SentenceShares> {
    let trace = &forward.layers.get(layer)?.attention;
    // A linear layer has no q·k scores to take apart (its A is not a softmax).
    if trace.config.linear().is_some() {
        return None;
    }
    let components = Components::entering(model, forward, layer);
    let reading = Reading::new(trace, &components, head).ok()?;
    let queries = reading.all_parts(true);
    let keys = reading.all_parts(false);
    let c = queries.len();
    let n = trace.config.seq_len();
    let total = |parts: &[Array2<f64>]| {
        parts
            .iter()
            .fold(Array2::zeros(parts[0].raw_dim()), |acc, p| acc + p)
    };
    let (q_whole, k_whole) = (total(&queries), total(&keys));
    let weights = &trace.heads[head].weights;
    let mut query = vec![0.0; c];
    let mut key = vec![0.0; c];
    for i in 0..n {
        for j in 0..trace.config.key_len() {
            let w = weights.get((i, j)).copied().unwrap_or(0.0) as f64;
            if w == 0.0 {
                continue;
            }
            for a in 0..c {
                query[a] += w * queries[a].row(i).dot(&k_whole.row(j)).abs();
                key[a] += w * q_whole.row(i).dot(&keys[a].row(j)).abs();
            }
        }
    }
    let share = |v: Vec<f64>| {
        let sum: f64 = v.iter().sum();
        v.into_iter()
            .map(|x| if sum > 0.0 { x / sum } else { 0.0 })
            .collect()
    };
    Some(SentenceShares {
        names: reading.query_names(),
        query: share(query),
        key: share(key),
    })
}
