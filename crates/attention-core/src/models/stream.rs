//! Reading a text longer than the model's context through a rolling KV cache, as a streaming
//! server does, with and without attention sinks (Xiao et al., 2023, "Efficient Streaming
//! Language Models with Attention Sinks").
//!
//! The cache keeps the first `sink_tokens` characters and the last `window` (the current one
//! included); older ones are evicted. Positions are assigned inside the cache, as StreamingLLM
//! does for RoPE: keys are cached before their rotation, and at every step the entry in cache
//! slot s is turned as position s, the query as the last slot. So a RoPE model never sees a
//! position beyond what it was trained on, however long the text. (GPT-2's learned positions are
//! added to its input before K and V are computed, so its cached entries cannot move: this runs
//! the Llama layout only.)
//!
//! Beside it, a sliding-window recompute: for every position, the model run afresh on the last
//! `window` characters alone (exact for a window model, and `window` times the work).

use ndarray::{Array2, ArrayView1, s};

use crate::math::scoring::rms_norm_rows;
use crate::models::Model;
use crate::models::generate::{GenerateError, attend_row, prompt_ids};

/// The longest text a stream evaluation reads.
pub const MAX_STREAM_CHARS: usize = 4096;

/// A plain English passage of 956 characters (written for the lab), nearly four times the Llama
/// model's context: what the page streams unless the reader gives another.
pub const SAMPLE_TEXT: &str = "Every morning the baker opens the shop before the sun is up. She \
lights the oven, weighs the flour and the salt, and sets the dough to rest while the street is \
still quiet. By six the first loaves are out, and the smell of warm bread reaches the corner where \
the bus stops. People come in one by one: a nurse on her way home, two students with one coin \
between them, an old man who buys the same small loaf every day and tells the same joke about the \
weather. The baker knows most of them by name. When the shelves are empty she cleans the trays, \
writes down what sold and what did not, and plans the next day. In winter she bakes more of the \
dark bread, because people want something heavy when it is cold; in summer she makes more rolls, \
because people eat outside and want something they can carry. It is a small business, and it will \
never make her rich, but the work is honest and the bread is good, and every evening she walks \
home tired and content.";

/// What a stream evaluation reads and keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamSpec {
    /// The most recent characters kept (the current one included).
    pub window: usize,
    /// The first characters kept whatever their distance.
    pub sink_tokens: usize,
}

/// Why a stream evaluation cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StreamError {
    #[error(transparent)]
    Text(#[from] GenerateError),
    #[error(
        "stream_eval: positions cannot move inside the cache of a model with learned positions (GPT-2); use \"model\": \"llama\""
    )]
    LearnedPositions,
    #[error("stream_eval.window must be at least 1 (got 0)")]
    ZeroWindow,
    #[error("stream_eval.sink_tokens must be fewer than the window ({window}); got {sink_tokens}")]
    SinksNotBelowWindow { sink_tokens: usize, window: usize },
    #[error(
        "stream_eval: window {window} + sink_tokens {sink_tokens} exceed the model's context of {context}; the cache would hold positions it was never trained on"
    )]
    PastContext {
        window: usize,
        sink_tokens: usize,
        context: usize,
    },
    #[error("stream_eval.text: {count} characters; give between 2 and {max}")]
    Length { count: usize, max: usize },
}

/// One run's next-character losses (nats), one per position after the first.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRun {
    pub losses: Vec<f32>,
}

impl StreamRun {
    pub fn mean(&self) -> f32 {
        self.losses.iter().sum::<f32>() / self.losses.len().max(1) as f32
    }
}

/// The three runs, and each head's share of attention on the first character.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamEval {
    pub ids: Vec<u32>,
    pub with_sinks: StreamRun,
    /// The same cache with `sink_tokens` = 0.
    pub without_sinks: StreamRun,
    pub recompute: StreamRun,
    /// [layers][heads]: the mean weight on the text's first character, over every query of the
    /// first context window after the first (the "attention sink" measure).
    pub first_token_share: Vec<Vec<f32>>,
}

/// A rolling cache: for each layer the keys (before RoPE) and values of the kept characters, in
/// the order they came, and which characters they are.
struct Rolling {
    keys: Vec<Vec<Vec<f32>>>,
    values: Vec<Vec<Vec<f32>>>,
    kept: Vec<usize>,
}

/// RoPE's (cos, sin) for every position of the context and pair of d_head, computed in f64 as
/// [`crate::math::scoring::rope`] computes them, so a turn here is that function's to the bit.
struct Turns {
    table: Vec<(f64, f64)>,
    pairs: usize,
}

impl Turns {
    fn new(base: f64, d_head: usize, positions: usize) -> Self {
        let pairs = d_head / 2;
        let thetas: Vec<f64> = (0..pairs)
            .map(|p| base.powf(-2.0 * p as f64 / d_head as f64))
            .collect();
        let table = (0..positions)
            .flat_map(|m| thetas.iter().map(move |&t| (m as f64 * t).sin_cos()))
            .map(|(sin, cos)| (cos, sin))
            .collect();
        Self { table, pairs }
    }

    /// `row` ([heads · d_head]) with each head's pairs (p, p + d_head/2) turned as `position`.
    fn turn(&self, row: &[f32], position: usize) -> Vec<f32> {
        let d_head = 2 * self.pairs;
        let angles = &self.table[position * self.pairs..(position + 1) * self.pairs];
        let mut out = row.to_vec();
        for head in out.chunks_exact_mut(d_head) {
            for (p, &(cos, sin)) in angles.iter().enumerate() {
                let (x1, x2) = (f64::from(head[p]), f64::from(head[p + self.pairs]));
                head[p] = (x1 * cos - x2 * sin) as f32;
                head[p + self.pairs] = (x1 * sin + x2 * cos) as f32;
            }
        }
        out
    }
}

/// The loss of the next character after each position through a rolling cache.
pub fn rolling(model: &Model, ids: &[u32], spec: StreamSpec) -> StreamRun {
    let config = model.config;
    let d_head = config.d_head();
    let group = config.n_heads / config.n_kv_heads;
    let scale = 1.0 / (d_head as f32).sqrt();
    let layers = model.blocks.len();
    let mut cache = Rolling {
        keys: vec![Vec::new(); layers],
        values: vec![Vec::new(); layers],
        kept: Vec::new(),
    };
    let turns = Turns::new(config.rope_theta, d_head, spec.window + spec.sink_tokens);
    let mut losses = Vec::with_capacity(ids.len() - 1);
    for (t, &id) in ids.iter().enumerate().take(ids.len() - 1) {
        // Evict what is neither a sink nor within the window (the current character included).
        let keep = |index: usize| index < spec.sink_tokens || index + spec.window > t;
        let retained: Vec<bool> = cache.kept.iter().map(|&i| keep(i)).collect();
        for layer in 0..layers {
            let mut flags = retained.iter();
            cache.keys[layer].retain(|_| *flags.next().unwrap_or(&true));
            let mut flags = retained.iter();
            cache.values[layer].retain(|_| *flags.next().unwrap_or(&true));
        }
        cache.kept.retain(|&i| keep(i));
        cache.kept.push(t);
        let position = cache.kept.len() - 1;
        let mut x = model.token_embedding.row(id as usize);
        for (layer, block) in model.blocks.iter().enumerate() {
            let w = &block.attention;
            let h = block
                .attention_norm
                .apply(x.view().insert_axis(ndarray::Axis(0)));
            let h = h.row(0);
            let (mut q, mut k, mut v) = (h.dot(&w.w_q), h.dot(&w.w_k), h.dot(&w.w_v));
            if let Some(b) = &w.biases {
                q += &b.q;
                k += &b.k;
                v += &b.v;
            }
            // Qwen3's QK-norm, head by head, before RoPE (keys are cached unturned).
            if let Some(norm) = &block.qk_norm {
                for (x, gamma) in [(&mut q, &norm.q), (&mut k, &norm.k)] {
                    let heads = x.len() / d_head.max(1);
                    if let Ok(rows) = x.view_mut().into_shape_with_order((heads, d_head)) {
                        rms_norm_rows(rows, gamma, norm.epsilon);
                    }
                }
            }
            let q = turns.turn(&q.to_vec(), position);
            cache.keys[layer].push(k.to_vec());
            cache.values[layer].push(v.to_vec());
            let width = config.n_kv_heads * d_head;
            let count = cache.keys[layer].len();
            let turned: Vec<f32> = cache.keys[layer]
                .iter()
                .enumerate()
                .flat_map(|(slot, k)| turns.turn(k, slot))
                .collect();
            #[expect(
                clippy::expect_used,
                reason = "each cached row has the K/V width: it is one projection's row"
            )]
            let (keys, values) = (
                Array2::from_shape_vec((count, width), turned).expect("rows of K/V width"),
                Array2::from_shape_vec((count, width), cache.values[layer].concat())
                    .expect("rows of K/V width"),
            );
            let mut concat = ndarray::Array1::<f32>::zeros(config.n_heads * d_head);
            let mut scores = vec![0.0f32; count];
            for head in 0..config.n_heads {
                let g = head / group;
                let columns = s![.., g * d_head..(g + 1) * d_head];
                attend_row(
                    ArrayView1::from(&q[head * d_head..(head + 1) * d_head]),
                    keys.slice(columns),
                    values.slice(columns),
                    scale,
                    &mut scores,
                    concat.slice_mut(s![head * d_head..(head + 1) * d_head]),
                );
            }
            x += &w
                .project_out(concat.view().insert_axis(ndarray::Axis(0)))
                .row(0);
            let normed = block.mlp_norm.apply(x.view().insert_axis(ndarray::Axis(0)));
            x += &block.mlp.apply(normed.view()).row(0);
        }
        let last = model
            .final_norm
            .apply(x.view().insert_axis(ndarray::Axis(0)));
        losses.push(loss(model.head(last.row(0)).view(), ids[t + 1]));
    }
    StreamRun { losses }
}

/// −log softmax(logits)[target], in nats.
fn loss(logits: ArrayView1<f32>, target: u32) -> f32 {
    let max = logits.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    let sum: f64 = logits.iter().map(|&v| f64::from((v - max).exp())).sum();
    (sum.ln() - f64::from(logits[target as usize] - max)) as f32
}

/// The loss of the character after position `t`, the model run afresh on the last `window`
/// characters up to it alone (one point of the sliding-window recompute; a page computes them a
/// few at a time).
pub fn recompute_at(model: &Model, ids: &[u32], t: usize, window: usize) -> f32 {
    let from = (t + 1).saturating_sub(window);
    let mut cache = crate::models::generate::KvCache::new(model);
    let rows = model.extend(&mut cache, &ids[from..=t], 1.0);
    loss(model.head(rows.row(rows.nrows() - 1)).view(), ids[t + 1])
}

/// For every position, the model on the last `window` characters alone.
fn recompute(model: &Model, ids: &[u32], window: usize) -> StreamRun {
    let losses = (0..ids.len() - 1)
        .map(|t| recompute_at(model, ids, t, window))
        .collect();
    StreamRun { losses }
}

/// Each head's mean weight on the first character, over queries 1 … n − 1 of the first context
/// window (the traced forward pass under the causal mask).
pub fn first_token_share(model: &Model, ids: &[u32]) -> Vec<Vec<f32>> {
    let n = ids.len().min(model.config.context);
    let tokens: Vec<String> = ids[..n]
        .iter()
        .map(|&id| model.vocab[id as usize].clone())
        .collect();
    let Ok(forward) = model.forward(&tokens, &ids[..n], &crate::models::ModelRun::default()) else {
        return Vec::new();
    };
    forward
        .layers
        .iter()
        .map(|layer| {
            layer
                .attention
                .heads
                .iter()
                .map(|head| {
                    let column = head.weights.slice(s![1..n, 0]);
                    column.sum() / (n - 1).max(1) as f32
                })
                .collect()
        })
        .collect()
}

/// Reads `text` through rolling caches with and without sinks and through a sliding-window
/// recompute.
pub fn stream_eval(model: &Model, text: &str, spec: StreamSpec) -> Result<StreamEval, StreamError> {
    let ids = stream_ids(model, text, spec)?;
    Ok(StreamEval {
        with_sinks: rolling(model, &ids, spec),
        without_sinks: rolling(
            model,
            &ids,
            StreamSpec {
                sink_tokens: 0,
                ..spec
            },
        ),
        recompute: recompute(model, &ids, spec.window),
        first_token_share: first_token_share(model, &ids),
        ids,
    })
}

/// `text`'s ids, when `model` can stream it under `spec`: the checks of [`stream_eval`].
pub fn stream_ids(model: &Model, text: &str, spec: StreamSpec) -> Result<Vec<u32>, StreamError> {
    if !model.config.layout.streams() {
        return Err(StreamError::LearnedPositions);
    }
    if spec.window == 0 {
        return Err(StreamError::ZeroWindow);
    }
    if spec.sink_tokens >= spec.window {
        return Err(StreamError::SinksNotBelowWindow {
            sink_tokens: spec.sink_tokens,
            window: spec.window,
        });
    }
    let context = model.config.context;
    if spec.window + spec.sink_tokens > context {
        return Err(StreamError::PastContext {
            window: spec.window,
            sink_tokens: spec.sink_tokens,
            context,
        });
    }
    let count = crate::models::normalise(text).chars().count();
    if !(2..=MAX_STREAM_CHARS).contains(&count) {
        return Err(StreamError::Length {
            count,
            max: MAX_STREAM_CHARS,
        });
    }
    Ok(prompt_ids(model, text)?)
}
