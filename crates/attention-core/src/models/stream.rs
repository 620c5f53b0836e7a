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
    #[error(
        "stream_eval: a hybrid's linear layers carry a state, not a cache of keys to drop; its rolling cache is not supported (generate runs it with its state)"
    )]
    Hybrid,
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
    #[error("stream_eval.text reads as {count} token of the model's; give a text of at least 2")]
    TooFewTokens { count: usize },
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
    /// first context window after the first, at most [`SHARE_TOKENS`] (the "attention sink"
    /// measure).
    pub first_token_share: Vec<Vec<f32>>,
    /// [layers]: the residual stream's largest |value| after each layer over the same tokens,
    /// where it is, and the mean |value| (a sink's key often rides on one: Sun et al., 2024,
    /// "Massive Activations in Large Language Models").
    pub largest_activation: Vec<crate::models::generate::Activation>,
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
    let mut reader = RollingReader::new(model, spec);
    while reader.read_next(model, ids) {}
    StreamRun {
        losses: reader.losses,
    }
}

/// [`rolling`] a character at a time (a worker reads a few per turn of its event loop).
pub struct RollingReader {
    spec: StreamSpec,
    cache: Rolling,
    turns: Turns,
    /// Gemma 3's turns on its sliding layers (another RoPE base).
    local_turns: Option<Turns>,
    losses: Vec<f32>,
}

impl RollingReader {
    pub fn new(model: &Model, spec: StreamSpec) -> Self {
        let layers = model.blocks.len();
        Self {
            spec,
            cache: Rolling {
                keys: vec![Vec::new(); layers],
                values: vec![Vec::new(); layers],
                kept: Vec::new(),
            },
            turns: Turns::new(
                model.config.rope_theta,
                model.config.d_head(),
                spec.window + spec.sink_tokens,
            ),
            local_turns: model.config.rope_local_theta.map(|base| {
                Turns::new(base, model.config.d_head(), spec.window + spec.sink_tokens)
            }),
            losses: Vec::new(),
        }
    }

    /// The losses read so far, one per position.
    pub fn losses(&self) -> &[f32] {
        &self.losses
    }

    /// Reads the next character of `ids` and the loss of the one after it; `false` once every
    /// character but the last is read (nothing is read then).
    pub fn read_next(&mut self, model: &Model, ids: &[u32]) -> bool {
        let t = self.losses.len();
        if t + 1 >= ids.len() {
            return false;
        }
        let id = ids[t];
        let (spec, cache) = (self.spec, &mut self.cache);
        let config = model.config;
        let d_head = config.d_head();
        let group = config.n_heads / config.n_kv_heads;
        let scoring = model.scoring(1.0);
        let layers = model.blocks.len();
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
        let mut x = model.embed(&[id]).row(0).to_owned();
        for (layer, block) in model.blocks.iter().enumerate() {
            let turns = match (&self.local_turns, config.window(layer)) {
                (Some(local), Some(_)) => local,
                _ => &self.turns,
            };
            let w = &block.attention;
            let normed = block
                .attention_norm
                .apply(x.view().insert_axis(ndarray::Axis(0)));
            let h = normed.row(0);
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
            // A sliding layer (Mistral's, Gemma's) still sees only the last `w` characters.
            let first = config.window(layer).map_or(0, |w| {
                cache.kept.iter().take_while(|&&i| t - i >= w).count()
            });
            let mut scores = vec![0.0f32; count - first];
            for head in 0..config.n_heads {
                let g = head / group;
                let columns = s![first.., g * d_head..(g + 1) * d_head];
                attend_row(
                    ArrayView1::from(&q[head * d_head..(head + 1) * d_head]),
                    keys.slice(columns),
                    values.slice(columns),
                    &scoring,
                    &mut scores,
                    concat.slice_mut(s![head * d_head..(head + 1) * d_head]),
                );
            }
            // The sink twin's output gate, σ(x·W_g) on each head's output.
            let mut concat = concat.insert_axis(ndarray::Axis(0));
            if let Some(gate) = &block.gate {
                for head in 0..config.n_heads {
                    let columns = s![.., head * d_head..(head + 1) * d_head];
                    let factor = gate.factor(normed.view(), head, concat.slice(columns));
                    let mut out = concat.slice_mut(columns);
                    out *= &factor;
                }
            }
            x += &block.attention_added(w.project_out(concat.view())).row(0);
            x += &block.mlp_of(x.view().insert_axis(ndarray::Axis(0))).row(0);
        }
        let last = model
            .final_norm
            .apply(x.view().insert_axis(ndarray::Axis(0)));
        self.losses
            .push(loss(model.head(last.row(0)).view(), ids[t + 1]));
        true
    }
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

/// The most tokens the attention-sink share reads: the first context window, up to this many
/// (the lab's models' whole context; a large model's 32 768 would be hours of a page's time).
pub const SHARE_TOKENS: usize = 512;

/// Each head's mean weight on the first character, over queries 1 … n − 1 of the first context
/// window (n at most [`SHARE_TOKENS`]), under the causal mask: the forward pass through a KV
/// cache, keeping no query's weights but the one on the first key.
pub fn first_token_share(model: &Model, ids: &[u32]) -> Vec<Vec<f32>> {
    let mut reader = ShareReader::new(model, ids);
    while reader.read_next(model, ids, SHARE_TOKENS) {}
    reader.share()
}

/// [`first_token_share`] a chunk of tokens at a time.
pub struct ShareReader {
    cache: crate::models::generate::KvCache,
    probe: crate::models::generate::SinkProbe,
    /// How many tokens it reads in all.
    total: usize,
}

impl ShareReader {
    pub fn new(model: &Model, ids: &[u32]) -> Self {
        Self {
            cache: crate::models::generate::KvCache::new(model),
            probe: crate::models::generate::SinkProbe::new(
                model.blocks.len(),
                model.config.n_heads,
            ),
            total: ids.len().min(model.config.context).min(SHARE_TOKENS),
        }
    }

    /// (tokens read, tokens to read).
    pub fn progress(&self) -> (usize, usize) {
        (self.cache.len, self.total)
    }

    /// Reads up to `chunk` more tokens; `false` once every token is read (nothing is read then).
    pub fn read_next(&mut self, model: &Model, ids: &[u32], chunk: usize) -> bool {
        let from = self.cache.len;
        if from >= self.total || chunk == 0 {
            return false;
        }
        let to = (from + chunk).min(self.total);
        model.extend_probed(&mut self.cache, &ids[from..to], &mut self.probe);
        true
    }

    /// [layers][heads]: the mean weight on the first token so far (over every query read after
    /// the first).
    pub fn share(&self) -> Vec<Vec<f32>> {
        let queries = self.cache.len.saturating_sub(1).max(1) as f64;
        self.probe
            .first_key
            .iter()
            .map(|row| row.iter().map(|&s| (s / queries) as f32).collect())
            .collect()
    }

    /// [layers]: the residual stream's largest |value| after each layer, over the tokens read.
    pub fn largest(&self) -> Vec<crate::models::generate::Activation> {
        self.probe.largest.clone()
    }
}

/// Reads `text` through rolling caches with and without sinks and through a sliding-window
/// recompute.
pub fn stream_eval(model: &Model, text: &str, spec: StreamSpec) -> Result<StreamEval, StreamError> {
    let ids = stream_ids(model, text, spec)?;
    let mut steps = StreamSteps::new(model, ids, spec)?;
    while steps.advance(model) != StreamPhase::Done {}
    Ok(steps.into_eval())
}

/// What a stream evaluation is reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamPhase {
    /// The rolling cache with the sink tokens kept.
    WithSinks,
    /// The same cache without them.
    WithoutSinks,
    /// Each head's share of attention on the first token.
    Share,
    /// The sliding-window recompute, a position at a time.
    Recompute,
    Done,
}

/// [`stream_eval`] a small piece at a time (a character of a rolling run, a few tokens of the
/// share, one position of the recompute): a worker runs pieces for a few tens of milliseconds a
/// turn of its event loop, posting what is read, so the page draws the curves as they come.
pub struct StreamSteps {
    ids: Vec<u32>,
    spec: StreamSpec,
    with_sinks: RollingReader,
    without_sinks: RollingReader,
    share: ShareReader,
    recompute: Vec<f32>,
}

impl StreamSteps {
    /// The evaluation of `ids` (a text's tokens, at least two, each in the vocabulary) under
    /// `spec`, checked as [`stream_ids`] checks a text (its length apart).
    pub fn new(model: &Model, ids: Vec<u32>, spec: StreamSpec) -> Result<Self, StreamError> {
        stream_check(model, spec)?;
        if ids.len() < 2 {
            return Err(StreamError::TooFewTokens { count: ids.len() });
        }
        // A text of MAX_STREAM_CHARS characters reads as at most 4 byte-level tokens each.
        if ids.len() > 4 * MAX_STREAM_CHARS {
            return Err(StreamError::Length {
                count: ids.len(),
                max: MAX_STREAM_CHARS,
            });
        }
        if let Some(&id) = ids.iter().find(|&&id| id as usize >= model.vocab.len()) {
            return Err(GenerateError::UnknownCharacters(format!("#{id}")).into());
        }
        Ok(Self {
            with_sinks: RollingReader::new(model, spec),
            without_sinks: RollingReader::new(
                model,
                StreamSpec {
                    sink_tokens: 0,
                    ..spec
                },
            ),
            share: ShareReader::new(model, &ids),
            recompute: Vec::with_capacity(ids.len() - 1),
            ids,
            spec,
        })
    }

    /// What the next piece reads.
    pub fn phase(&self) -> StreamPhase {
        let positions = self.ids.len() - 1;
        if self.with_sinks.losses.len() < positions {
            StreamPhase::WithSinks
        } else if self.without_sinks.losses.len() < positions {
            StreamPhase::WithoutSinks
        } else if self.share.cache.len < self.share.total {
            StreamPhase::Share
        } else if self.recompute.len() < positions {
            StreamPhase::Recompute
        } else {
            StreamPhase::Done
        }
    }

    /// (done, to do) in the phase under way.
    pub fn progress(&self) -> (usize, usize) {
        let positions = self.ids.len() - 1;
        match self.phase() {
            StreamPhase::WithSinks => (self.with_sinks.losses.len(), positions),
            StreamPhase::WithoutSinks => (self.without_sinks.losses.len(), positions),
            StreamPhase::Share => self.share.progress(),
            StreamPhase::Recompute | StreamPhase::Done => (self.recompute.len(), positions),
        }
    }

    /// Reads one piece; the phase after it.
    pub fn advance(&mut self, model: &Model) -> StreamPhase {
        match self.phase() {
            StreamPhase::WithSinks => {
                self.with_sinks.read_next(model, &self.ids);
            }
            StreamPhase::WithoutSinks => {
                self.without_sinks.read_next(model, &self.ids);
            }
            StreamPhase::Share => {
                self.share.read_next(model, &self.ids, 16);
            }
            StreamPhase::Recompute => {
                let t = self.recompute.len();
                self.recompute
                    .push(recompute_at(model, &self.ids, t, self.spec.window));
            }
            StreamPhase::Done => {}
        }
        self.phase()
    }

    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// The losses through the rolling cache with sinks, and without them, read so far.
    pub fn rolling_losses(&self) -> (&[f32], &[f32]) {
        (self.with_sinks.losses(), self.without_sinks.losses())
    }

    /// The share of attention on the first token ([layers][heads]), once its phase is over.
    pub fn first_token_share(&self) -> Vec<Vec<f32>> {
        self.share.share()
    }

    /// The residual stream's largest |value| after each layer over the same tokens.
    pub fn largest_activation(&self) -> Vec<crate::models::generate::Activation> {
        self.share.largest()
    }

    /// The recompute's losses read so far.
    pub fn recomputed(&self) -> &[f32] {
        &self.recompute
    }

    /// Everything read (complete once [`StreamSteps::advance`] has returned
    /// [`StreamPhase::Done`]).
    pub fn into_eval(self) -> StreamEval {
        StreamEval {
            first_token_share: self.share.share(),
            largest_activation: self.share.largest(),
            with_sinks: StreamRun {
                losses: self.with_sinks.losses,
            },
            without_sinks: StreamRun {
                losses: self.without_sinks.losses,
            },
            recompute: StreamRun {
                losses: self.recompute,
            },
            ids: self.ids,
        }
    }
}

/// Whether `model` can stream under `spec`: a rotary layout, a window of at least one, fewer
/// sinks than the window, and both within the context.
pub fn stream_check(model: &Model, spec: StreamSpec) -> Result<(), StreamError> {
    if !model.config.layout.streams() {
        return Err(StreamError::LearnedPositions);
    }
    if model.config.hybrid_every.is_some() {
        return Err(StreamError::Hybrid);
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
    Ok(())
}

/// `text`'s ids, when `model` can stream it under `spec`: the checks of [`stream_eval`].
pub fn stream_ids(model: &Model, text: &str, spec: StreamSpec) -> Result<Vec<u32>, StreamError> {
    stream_check(model, spec)?;
    let count = crate::models::normalise(text).chars().count();
    if !(2..=MAX_STREAM_CHARS).contains(&count) {
        return Err(StreamError::Length {
            count,
            max: MAX_STREAM_CHARS,
        });
    }
    let ids = prompt_ids(model, text)?;
    if ids.len() < 2 {
        return Err(StreamError::TooFewTokens { count: ids.len() });
    }
    Ok(ids)
}
