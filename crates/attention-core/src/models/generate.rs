//! Generation one character at a time, with a KV cache or without.
//!
//! A decoder computes each position's keys and values once: they depend only on the characters
//! up to that position, which never change. So after the prompt is *prefilled* (all its rows at
//! once), each new character needs only its own row: its q, k and v in every layer, its k and v
//! appended to the cache, its one query row attending to every cached key. Without the cache the
//! whole text is run again for every character, and each step costs more than the last.
//!
//! [`Model::extend`] is that path for any number of new rows (the prompt, or one character); it is
//! the same arithmetic as the traced forward pass ([`Model::forward`], which runs each layer's
//! attention through the lab's own [`crate::Config`]), so [`generate`] can check every step
//! against a recompute of the whole text.

use crate::math::gemm::linear;
use ndarray::{Array1, Array2, ArrayView2, s};

use crate::math::mask::MaskSpec;
use crate::math::rng::SplitMix64;
use crate::math::scoring::{Position, Scoring, Shaping, rms_norm_rows, rope};
use crate::models::{Model, ModelRun, Prediction, sample_next, top_k};

/// The most steps one request may generate.
pub const MAX_STEPS: usize = 1024;
/// Bytes per cached number (the cache holds f32).
pub const BYTES_PER_NUMBER: usize = 4;

/// Every layer's cached keys and values: for layer l, `keys[l]` and `values[l]` hold one row of
/// n_kv_head · d_head numbers per cached position (row-major; keys after RoPE).
#[derive(Debug, Clone, PartialEq)]
pub struct KvCache {
    pub keys: Vec<Vec<f32>>,
    pub values: Vec<Vec<f32>>,
    /// Numbers per row: n_kv_head · d_head.
    pub width: usize,
    /// Positions cached.
    pub len: usize,
    /// A hybrid's linear layers keep no keys: a state per head and the convolution's last rows
    /// instead, of a fixed size however long the text (`None` for a softmax layer).
    pub linear: Vec<Option<LinearCache>>,
}

/// What a Gated DeltaNet layer carries from one token to the next.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearCache {
    /// Per head: S [d_k, d_v].
    pub states: Vec<Array2<f32>>,
    /// The last taps − 1 rows of q, k and v side by side before the convolution.
    pub conv_rows: Array2<f32>,
}

impl KvCache {
    /// An empty cache for `model`.
    pub fn new(model: &Model) -> Self {
        let layers = model.blocks.len();
        let (heads, d_head) = (model.config.n_heads, model.config.d_head());
        let taps = model.config.conv_taps;
        Self {
            keys: vec![Vec::new(); layers],
            values: vec![Vec::new(); layers],
            width: model.config.n_kv_heads * d_head,
            len: 0,
            linear: model
                .blocks
                .iter()
                .map(|b| {
                    b.linear.as_ref().map(|_| LinearCache {
                        states: vec![Array2::zeros((d_head, d_head)); heads],
                        conv_rows: Array2::zeros((taps.saturating_sub(1), 3 * heads * d_head)),
                    })
                })
                .collect(),
        }
    }

    /// What the cache holds, in bytes: 2 (K and V) · softmax layers · positions · K/V heads ·
    /// d_head · 4, and a hybrid's fixed states and convolution rows.
    pub fn bytes(&self) -> usize {
        // Nothing cached yet (or a run without the cache): nothing held.
        if self.len == 0 {
            return 0;
        }
        let softmax = self.linear.iter().filter(|l| l.is_none()).count();
        let fixed: usize = self
            .linear
            .iter()
            .flatten()
            .map(|l| l.states.iter().map(Array2::len).sum::<usize>() + l.conv_rows.len())
            .sum();
        (2 * softmax * self.len * self.width + fixed) * BYTES_PER_NUMBER
    }

    /// Cached rows (one layer's keys or values) as [rows.len() / width, width].
    #[expect(
        clippy::expect_used,
        reason = "every row the cache holds was pushed with its width"
    )]
    fn rows<'a>(&self, rows: &'a [f32]) -> ArrayView2<'a, f32> {
        ArrayView2::from_shape((rows.len() / self.width.max(1), self.width), rows)
            .expect("rows of the cache's width")
    }
}

/// One query row of one head against its keys and values ([n, d_head] each): the scores q·k as
/// `scoring` makes them, their softmax (the lab's exp, summed in f64), and Σ w_j v_j added into `out`.
/// `scores` is left holding exp(s_j − max); the returned 1/Σ turns them into the weights.
pub(crate) fn attend_row(
    q: ndarray::ArrayView1<f32>,
    keys: ArrayView2<f32>,
    values: ArrayView2<f32>,
    scoring: &Scoring,
    scores: &mut [f32],
    mut out: ndarray::ArrayViewMut1<f32>,
) -> f32 {
    for (s, key) in scores.iter_mut().zip(keys.rows()) {
        *s = scoring.score(q.dot(&key), 0, 0);
    }
    let max = scores.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let mut sum = 0.0f64;
    for s in scores.iter_mut() {
        *s = crate::math::fastmath::exp(*s - max);
        sum += f64::from(*s);
    }
    let inverse = (1.0 / sum) as f32;
    for (&weight, value) in scores.iter().zip(values.rows()) {
        out.scaled_add(weight * inverse, &value);
    }
    inverse
}

/// Bytes a cache holds per position: 2 · layers · K/V heads · d_head · bytes per number.
pub fn cache_bytes_per_token(layers: usize, kv_heads: usize, d_head: usize, bytes: usize) -> usize {
    2 * layers * kv_heads * d_head * bytes
}

/// What a cache keeps per position for a model's numbers, in bytes of f32, and for the same model
/// with other ways of sharing K and V.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheSizes {
    /// Bytes per token of the layers that cache keys and values (all but a hybrid's linear
    /// ones).
    pub this_model: usize,
    /// How many layers those are.
    pub layers_with_keys: usize,
    /// One K/V head per query head (multi-head attention).
    pub mha: usize,
    /// Grouped-query attention: the model's own K/V heads when it shares them, else half its
    /// heads (`gqa_kv_heads`).
    pub gqa: usize,
    pub gqa_kv_heads: usize,
    /// One K/V head for all (multi-query attention).
    pub mqa: usize,
    /// DeepSeek-V2's multi-head latent attention, by its formula (not run here): one latent of
    /// 4 · d_head and one shared RoPE key of d_head / 2 per layer.
    pub mla_formula: usize,
    /// A hybrid's linear layers: how many, and the bytes their states and convolution rows
    /// hold whatever the length (0 and 0 for a softmax model).
    pub linear_layers: usize,
    pub state_bytes: usize,
}

impl CacheSizes {
    /// What a hybrid holds after `tokens` tokens: its fixed states and its full layers' keys
    /// and values.
    pub fn hybrid_bytes(&self, tokens: usize) -> usize {
        self.state_bytes + self.this_model * tokens
    }

    /// What the same model holds with every layer softmax attention (its K/V heads kept).
    pub fn all_softmax_bytes(&self, tokens: usize) -> usize {
        let per_layer = self.this_model / self.layers_with_keys.max(1);
        per_layer * (self.layers_with_keys + self.linear_layers) * tokens
    }

    /// From how many tokens on a linear layer's fixed state is smaller than the keys and
    /// values a softmax layer would cache in its place; `None` for a softmax model.
    pub fn crossover_tokens(&self) -> Option<usize> {
        (self.linear_layers > 0 && self.layers_with_keys > 0).then(|| {
            let per_layer = self.this_model / self.layers_with_keys.max(1);
            self.state_bytes / (per_layer * self.linear_layers).max(1) + 1
        })
    }
}

impl CacheSizes {
    pub fn of(config: &crate::models::ModelConfig) -> Self {
        // A hybrid's linear layers cache no keys: only its softmax layers grow with the text.
        let softmax = (0..config.n_layers)
            .filter(|&l| !config.is_linear(l))
            .count();
        let per_token =
            |kv_heads| cache_bytes_per_token(softmax, kv_heads, config.d_head(), BYTES_PER_NUMBER);
        let gqa_kv_heads = if config.n_kv_heads < config.n_heads {
            config.n_kv_heads
        } else {
            (config.n_heads / 2).max(1)
        };
        Self {
            this_model: per_token(config.n_kv_heads),
            mha: per_token(config.n_heads),
            gqa: per_token(gqa_kv_heads),
            gqa_kv_heads,
            mqa: per_token(1),
            mla_formula: softmax * (4 * config.d_head() + config.d_head() / 2) * BYTES_PER_NUMBER,
            layers_with_keys: softmax,
            linear_layers: config.n_layers - softmax,
            // Per linear layer: a d_head × d_head state per head, and taps − 1 rows of q, k, v.
            state_bytes: (config.n_layers - softmax)
                * (config.n_heads * config.d_head() * config.d_head()
                    + config.conv_taps.saturating_sub(1) * 3 * config.n_heads * config.d_head())
                * BYTES_PER_NUMBER,
        }
    }
}

/// What a forward pass notes for the attention-sink measures: each head's summed weight on the
/// first key, and each layer's largest |value| in the residual stream (after its block) with
/// where it is, beside the mean |value| it stands out from.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkProbe {
    /// [layer][query head]: the summed weight on the first key over the rows after the first.
    pub first_key: Vec<Vec<f64>>,
    /// [layer]: the residual stream's largest |value| so far.
    pub largest: Vec<Activation>,
    /// [layer]: Σ|value| and how many values, for the mean.
    sums: Vec<(f64, usize)>,
}

/// The residual stream's largest |value| after a layer: the value (signed), the position and
/// the dimension it is at, and the mean |value| of the same stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Activation {
    pub value: f32,
    pub position: usize,
    pub dimension: usize,
    pub mean_abs: f32,
}

impl SinkProbe {
    pub fn new(layers: usize, heads: usize) -> Self {
        let none = Activation {
            value: 0.0,
            position: 0,
            dimension: 0,
            mean_abs: 0.0,
        };
        Self {
            first_key: vec![vec![0.0; heads]; layers],
            largest: vec![none; layers],
            sums: vec![(0.0, 0); layers],
        }
    }

    /// Notes layer `layer`'s output rows `x`, the first at position `start`.
    fn note(&mut self, layer: usize, start: usize, x: ArrayView2<f32>) {
        let (sum, count) = &mut self.sums[layer];
        let best = &mut self.largest[layer];
        for ((i, d), &v) in x.indexed_iter() {
            *sum += f64::from(v.abs());
            if v.abs() > best.value.abs() {
                best.value = v;
                best.position = start + i;
                best.dimension = d;
            }
        }
        *count += x.len();
        best.mean_abs = (*sum / (*count).max(1) as f64) as f32;
    }
}

impl Model {
    /// Runs the new tokens `ids`, at positions `cache.len ..`, through every layer: their q, k
    /// and v; k and v appended to `cache`; each new query row attending (causally) to every
    /// cached key at attention temperature `temperature`. Returns the new rows' final norm
    /// [ids.len(), d_model] (the LM head of a row, `token_embedding · row`, scores the character after it).
    /// The cache must stay within the context (checked by the caller).
    pub fn extend(&self, cache: &mut KvCache, ids: &[u32], temperature: f32) -> Array2<f32> {
        self.extend_recording(cache, ids, temperature, None)
    }

    /// [`Model::extend`] at temperature 1, adding each new row's attention weight on the cache's
    /// first key to the probe's sums ([layer][query head]), for every row after the first
    /// position, and noting the residual stream's largest |value| after each layer (the
    /// attention-sink measures, without keeping any row's weights).
    pub(crate) fn extend_probed(
        &self,
        cache: &mut KvCache,
        ids: &[u32],
        probe: &mut SinkProbe,
    ) -> Array2<f32> {
        self.extend_with(cache, ids, 1.0, None, Some(probe))
    }

    /// [`Model::extend`], and the last new row's attention weights written to `last_row`:
    /// [layer][query head][cached position].
    fn extend_recording(
        &self,
        cache: &mut KvCache,
        ids: &[u32],
        temperature: f32,
        last_row: Option<&mut Vec<Vec<Vec<f32>>>>,
    ) -> Array2<f32> {
        self.extend_with(cache, ids, temperature, last_row, None)
    }

    fn extend_with(
        &self,
        cache: &mut KvCache,
        ids: &[u32],
        temperature: f32,
        mut last_row: Option<&mut Vec<Vec<Vec<f32>>>>,
        mut probe: Option<&mut SinkProbe>,
    ) -> Array2<f32> {
        let m = ids.len();
        let start = cache.len;
        let d_head = self.config.d_head();
        let (heads, kv_heads) = (self.config.n_heads, self.config.n_kv_heads);
        let group = heads / kv_heads;
        let mut x = self.embed(ids);
        if let Some(wpe) = &self.position_embedding {
            x += &wpe.slice(s![start..start + m, ..]);
        }
        let scoring = self.scoring(temperature);
        let rotate = |rows: &mut Array2<f32>, count: usize, layer: usize| {
            if let Position::Rope { base, pairing } = self.config.position_at(layer) {
                for h in 0..count {
                    let head = rows.slice_mut(s![.., h * d_head..(h + 1) * d_head]);
                    rope(head, base, pairing, start);
                }
            }
        };
        let total = start + m;
        let mut scores = vec![0.0f32; total];
        if let Some(rows) = last_row.as_deref_mut() {
            rows.clear();
        }
        for (layer, block) in self.blocks.iter().enumerate() {
            let w = &block.attention;
            let h = block.attention_norm.apply(x.view());
            if let (Some(weights), Some(Some(state))) = (&block.linear, cache.linear.get_mut(layer))
            {
                let concat = self.linear_rows(block, weights, state, h.view());
                x += &block.attention_added(w.project_out(concat.view()));
                x += &block.mlp_of(x.view());
                if let Some(probe) = probe.as_deref_mut() {
                    probe.note(layer, start, x.view());
                }
                if let Some(rows) = last_row.as_deref_mut() {
                    // No weights over the cache (its memory is its state): empty rows.
                    rows.push(vec![Vec::new(); heads]);
                }
                continue;
            }
            let mut q = linear(h.view(), w.w_q.view());
            let mut k = linear(h.view(), w.w_k.view());
            let mut v = linear(h.view(), w.w_v.view());
            if let Some(b) = &w.biases {
                q += &b.q;
                k += &b.k;
                v += &b.v;
            }
            if let Some(norm) = &block.qk_norm {
                for (rows, gamma, count) in [(&mut q, &norm.q, heads), (&mut k, &norm.k, kv_heads)]
                {
                    for h in 0..count {
                        let head = rows.slice_mut(s![.., h * d_head..(h + 1) * d_head]);
                        rms_norm_rows(head, gamma, norm.epsilon);
                    }
                }
            }
            rotate(&mut q, heads, layer);
            rotate(&mut k, kv_heads, layer);
            cache.keys[layer].extend(k.iter());
            cache.values[layer].extend(v.iter());
            let keys = cache.rows(&cache.keys[layer]);
            let values = cache.rows(&cache.values[layer]);
            let mut concat = Array2::<f32>::zeros((m, heads * d_head));
            let mut layer_rows = Vec::new();
            for i in 0..m {
                let visible = start + i + 1;
                // Mistral's window (Gemma's sliding layers): the last `w` keys only.
                let first = self
                    .config
                    .window(layer)
                    .map_or(0, |w| visible.saturating_sub(w));
                for head in 0..heads {
                    let g = head / group;
                    let qi = q.slice(s![i, head * d_head..(head + 1) * d_head]);
                    let columns = s![first..visible, g * d_head..(g + 1) * d_head];
                    let inverse = attend_row(
                        qi,
                        keys.slice(columns),
                        values.slice(columns),
                        &scoring,
                        &mut scores[first..visible],
                        concat.slice_mut(s![i, head * d_head..(head + 1) * d_head]),
                    );
                    if let Some(probe) = probe.as_deref_mut()
                        && first == 0
                        && visible > 1
                    {
                        probe.first_key[layer][head] += f64::from(scores[0] * inverse);
                    }
                    if i + 1 == m && last_row.is_some() {
                        let mut row = vec![0.0; first];
                        row.extend(scores[first..visible].iter().map(|e| e * inverse));
                        layer_rows.push(row);
                    }
                }
            }
            if let Some(rows) = last_row.as_deref_mut() {
                rows.push(layer_rows);
            }
            if let Some(gate) = &block.gate {
                for head in 0..heads {
                    let columns = s![.., head * d_head..(head + 1) * d_head];
                    let factor = gate.factor(h.view(), head, concat.slice(columns));
                    let mut out = concat.slice_mut(columns);
                    out *= &factor;
                }
            }
            x += &block.attention_added(w.project_out(concat.view()));
            x += &block.mlp_of(x.view());
            if let Some(probe) = probe.as_deref_mut() {
                probe.note(layer, start, x.view());
            }
        }
        cache.len = total;
        self.final_norm.apply(x.view())
    }

    /// A Gated DeltaNet layer on the new normed rows `h` [m, d_model]: the convolution
    /// continued from the cached rows, each head's state carried token by token, the output
    /// gate; the heads' outputs side by side [m, heads · d_head] (before W_O).
    fn linear_rows(
        &self,
        block: &crate::models::Block<crate::models::Mlp>,
        weights: &crate::math::linear::LinearWeights,
        cache: &mut LinearCache,
        h: ArrayView2<f32>,
    ) -> Array2<f32> {
        use crate::math::linear::{LinearKind, delta_step, prepared, short_conv};
        let (m, heads, d_head) = (h.nrows(), self.config.n_heads, self.config.d_head());
        let w = &block.attention;
        let width = heads * d_head;
        let mut joined = Array2::<f32>::zeros((cache.conv_rows.nrows() + m, 3 * width));
        joined
            .slice_mut(s![..cache.conv_rows.nrows(), ..])
            .assign(&cache.conv_rows);
        for (i, matrix) in [&w.w_q, &w.w_k, &w.w_v].into_iter().enumerate() {
            joined
                .slice_mut(s![cache.conv_rows.nrows().., i * width..(i + 1) * width])
                .assign(&linear(h, matrix.view()));
        }
        let mixed = match &weights.conv {
            Some(conv) => short_conv(joined.view(), conv.view()),
            None => joined.clone(),
        };
        let keep = cache.conv_rows.nrows();
        cache
            .conv_rows
            .assign(&joined.slice(s![joined.nrows() - keep.., ..]));
        let mixed = mixed.slice(s![mixed.nrows() - m.., ..]);
        let mut concat = Array2::<f32>::zeros((m, width));
        for head in 0..heads {
            let part = |i: usize| {
                mixed.slice(s![
                    ..,
                    i * width + head * d_head..i * width + (head + 1) * d_head
                ])
            };
            let (q, k) = prepared(LinearKind::GatedDelta, part(0), part(1));
            let v = part(2);
            let (beta, log_alpha) = weights.strips(h, head, true);
            let state = &mut cache.states[head];
            for t in 0..m {
                let o = delta_step(state, [q.row(t), k.row(t), v.row(t)], beta[t], log_alpha[t]);
                concat
                    .slice_mut(s![t, head * d_head..(head + 1) * d_head])
                    .assign(&o);
            }
            if let Some(gate) = &block.gate {
                let columns = s![.., head * d_head..(head + 1) * d_head];
                let factor = gate.factor(h, head, concat.slice(columns));
                let mut out = concat.slice_mut(columns);
                out *= &factor;
            }
        }
        concat
    }

    /// The next-character scores after one final-norm row: wte · row, [vocab_size].
    pub fn head(&self, row: ndarray::ArrayView1<f32>) -> Array1<f32> {
        let mut logits = self.unembedding().dot_vector(row);
        if let Some(all) = logits.as_slice_mut() {
            self.config.cap_logits(all);
        }
        logits
    }

    /// How a cached row's scores are made at `temperature`: q·k/√d_k, Gemma 2's cap, ÷T.
    pub(crate) fn scoring(&self, temperature: f32) -> Scoring {
        Shaping {
            softcap: self.config.attention_softcap,
            ..Shaping::default()
        }
        .scoring(0, self.config.n_heads, self.config.d_head(), temperature)
    }
}

/// How the next character is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// The most likely one (never `<unk>`).
    Greedy,
    /// Drawn from softmax(logits / temperature), reproducibly from `seed`.
    Temperature { temperature: f64, seed: u64 },
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenerateSpec {
    pub steps: usize,
    /// With the KV cache; `false`: the whole text is run again at every step.
    pub cache: bool,
    pub sampling: Sampling,
    /// Whether every step's logits are compared with a recompute of the whole text (costs a
    /// full forward pass per step).
    pub check: bool,
}

/// One generated character (as JSON from a model's worker to the page: `api::step_json`).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub id: u32,
    pub token: String,
    /// The five likeliest characters it was chosen among, with their probabilities.
    pub top: Vec<Prediction>,
    /// Positions cached after it was appended (the text's length so far), and their bytes; 0
    /// without the cache.
    pub cache_len: usize,
    pub cache_bytes: usize,
    /// How long appending it took: its row through the model (with the cache), or the whole
    /// text again by the same arithmetic (without).
    pub ms: f64,
    /// The largest |Δ| between this step's logits and a recompute of the whole text by the
    /// traced forward pass, each layer's attention the lab's own (`None` when not checked).
    pub max_delta: Option<f32>,
    /// Its query row in every layer, against everything cached (itself included):
    /// [layer][query head][position] (query head h reads K/V head h / (heads / K/V heads)); a
    /// hybrid's linear layer has empty rows (it keeps a state, not weights over positions).
    pub attention: Vec<Vec<Vec<f32>>>,
}

/// A generation: the prompt's ids, its prefill time, every step.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    pub prompt: Vec<u32>,
    pub prefill_ms: f64,
    pub steps: Vec<Step>,
}

impl Generation {
    /// The generated characters.
    pub fn text(&self) -> String {
        self.steps.iter().map(|s| s.token.as_str()).collect()
    }
}

/// Why a generation cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GenerateError {
    #[error("sentence: the prompt is empty; give at least one character")]
    EmptyPrompt,
    #[error(
        "sentence: {0} not in the model's vocabulary; it could only read them as <unk> (write them otherwise or leave them out)"
    )]
    UnknownCharacters(String),
    #[error("generate.steps must be between 1 and {max} (got {value})")]
    Steps { value: usize, max: usize },
    #[error(
        "generate.steps: the prompt ({prompt} characters) and {steps} steps exceed the model's context of {context}; use fewer steps or a shorter prompt (stream_eval reads past the context)"
    )]
    PastContext {
        prompt: usize,
        steps: usize,
        context: usize,
    },
    #[error(
        "generate.sampling.temperature must be above 0 and finite (got {0}); use \"greedy\" for the most likely character"
    )]
    SamplingTemperature(f64),
}

/// The steps asked for and the sampling temperature, checked.
fn check_spec(spec: &GenerateSpec) -> Result<(), GenerateError> {
    if spec.steps == 0 || spec.steps > MAX_STEPS {
        return Err(GenerateError::Steps {
            value: spec.steps,
            max: MAX_STEPS,
        });
    }
    if let Sampling::Temperature { temperature, .. } = spec.sampling
        && !(temperature > 0.0 && temperature.is_finite())
    {
        return Err(GenerateError::SamplingTemperature(temperature));
    }
    Ok(())
}

/// A prompt of `prompt` tokens and the steps asked for, within the model's context.
fn check_context(model: &Model, prompt: usize, spec: &GenerateSpec) -> Result<(), GenerateError> {
    let context = model.config.context;
    if prompt + spec.steps > context {
        return Err(GenerateError::PastContext {
            prompt,
            steps: spec.steps,
            context,
        });
    }
    Ok(())
}

/// The prompt's ids, refusing characters the model does not know (each named once).
pub fn prompt_ids(model: &Model, prompt: &str) -> Result<Vec<u32>, GenerateError> {
    let pairs = model.tokenize(prompt);
    if pairs.is_empty() {
        return Err(GenerateError::EmptyPrompt);
    }
    let mut unknown: Vec<String> = Vec::new();
    for (token, id) in &pairs {
        if model.tokenizer.is_unknown(*id) && !unknown.contains(token) {
            unknown.push(token.clone());
        }
    }
    if !unknown.is_empty() {
        let named: Vec<String> = unknown.iter().map(|t| format!("{t:?}")).collect();
        return Err(GenerateError::UnknownCharacters(named.join(", ")));
    }
    Ok(pairs.into_iter().map(|(_, id)| id).collect())
}

/// The logits after the last of `ids`, computed by the traced forward pass (each layer's
/// attention through the lab's own computation) under a causal mask; `None` for no ids or more
/// than the model's context.
pub fn recompute(model: &Model, ids: &[u32], temperature: f64) -> Option<Array1<f32>> {
    let tokens: Vec<String> = ids
        .iter()
        .map(|&id| model.vocab[id as usize].clone())
        .collect();
    let run = ModelRun {
        mask: MaskSpec::Causal,
        temperature,
        ..ModelRun::default()
    };
    let forward = model.forward(&tokens, ids, &run).ok()?;
    Some(model.logits(&forward, ids.len().checked_sub(1)?))
}

/// Generation one step at a time: the prompt prefilled by [`Decoder::new`], then one character
/// per [`Decoder::step`] (a page calls it once a frame; [`generate`] in a loop). Every call takes
/// the same `model`.
#[derive(Debug, Clone)]
pub struct Decoder {
    spec: GenerateSpec,
    /// The attention temperature.
    temperature: f64,
    ids: Vec<u32>,
    prompt_len: usize,
    cache: KvCache,
    /// The scores of the character after the last of `ids`.
    logits: Array1<f32>,
    rng: Option<SplitMix64>,
    /// How long the prefill took, ms.
    pub prefill_ms: f64,
}

impl Decoder {
    /// Checks the request and prefills the prompt; `clock` gives milliseconds (the caller's:
    /// `Instant` natively, `performance.now()` in a page).
    pub fn new(
        model: &Model,
        prompt: &str,
        spec: &GenerateSpec,
        temperature: f64,
        clock: &dyn Fn() -> f64,
    ) -> Result<Self, GenerateError> {
        let ids = Self::prompt_for(model, prompt, spec)?;
        Self::from_ids(model, ids, spec, temperature, clock)
    }

    /// [`Decoder::new`] from the prompt's ids (tokenized by the caller: a model's worker holds
    /// no tokenizer, the page sends the ids), checked as [`Decoder::prompt_for`] checks them;
    /// an id past the vocabulary is refused as a token the model does not know.
    pub fn from_ids(
        model: &Model,
        ids: Vec<u32>,
        spec: &GenerateSpec,
        temperature: f64,
        clock: &dyn Fn() -> f64,
    ) -> Result<Self, GenerateError> {
        check_spec(spec)?;
        if ids.is_empty() {
            return Err(GenerateError::EmptyPrompt);
        }
        let outside: Vec<String> = ids
            .iter()
            .filter(|&&id| id as usize >= model.vocab.len())
            .map(|id| format!("#{id}"))
            .collect();
        if !outside.is_empty() {
            return Err(GenerateError::UnknownCharacters(outside.join(", ")));
        }
        check_context(model, ids.len(), spec)?;
        let rng = match spec.sampling {
            Sampling::Temperature { seed, .. } => Some(SplitMix64::new(seed)),
            Sampling::Greedy => None,
        };
        let mut cache = KvCache::new(model);
        let started = clock();
        let logits = if spec.cache {
            let rows = model.extend(&mut cache, &ids, temperature as f32);
            model.head(rows.row(rows.nrows() - 1))
        } else {
            Self::whole(model, &ids, temperature as f32, None)
        };
        Ok(Self {
            spec: *spec,
            temperature,
            prompt_len: ids.len(),
            ids,
            cache,
            logits,
            rng,
            prefill_ms: clock() - started,
        })
    }

    /// The prompt's ids, or what [`Decoder::new`] would refuse, without its prefill: the page
    /// checks a generation this way before its model's worker starts it.
    pub fn prompt_for(
        model: &Model,
        prompt: &str,
        spec: &GenerateSpec,
    ) -> Result<Vec<u32>, GenerateError> {
        check_spec(spec)?;
        let ids = prompt_ids(model, prompt)?;
        check_context(model, ids.len(), spec)?;
        Ok(ids)
    }

    /// Without the cache: the same arithmetic over the whole text, afresh.
    fn whole(
        model: &Model,
        ids: &[u32],
        temperature: f32,
        last_row: Option<&mut Vec<Vec<Vec<f32>>>>,
    ) -> Array1<f32> {
        let mut cache = KvCache::new(model);
        let rows = model.extend_recording(&mut cache, ids, temperature, last_row);
        model.head(rows.row(rows.nrows() - 1))
    }

    /// The prompt's ids.
    pub fn prompt(&self) -> &[u32] {
        &self.ids[..self.prompt_len]
    }

    /// Steps taken so far.
    pub fn taken(&self) -> usize {
        self.ids.len() - self.prompt_len
    }

    /// The steps asked for.
    pub fn asked(&self) -> usize {
        self.spec.steps
    }

    /// Whether every asked step is taken.
    pub fn done(&self) -> bool {
        self.taken() >= self.spec.steps
    }

    /// Chooses the next character, appends it and runs its row (or, without the cache, the
    /// whole text again); `None` once every asked step is taken.
    pub fn step(&mut self, model: &Model, clock: &dyn Fn() -> f64) -> Option<Step> {
        self.step_checked(model, clock, self.spec.check)
    }

    /// [`Decoder::step`], compared with a recompute of the whole text or not (`check`), whatever
    /// the spec says: a large model's worker checks the last step it was asked for, not each.
    pub fn step_checked(
        &mut self,
        model: &Model,
        clock: &dyn Fn() -> f64,
        check: bool,
    ) -> Option<Step> {
        if self.done() {
            return None;
        }
        let top = top_k(self.logits.view(), 5);
        let (t, draw) = match (&mut self.rng, self.spec.sampling) {
            (Some(rng), Sampling::Temperature { temperature, .. }) => {
                (temperature, rng.next_unit())
            }
            _ => (0.0, 0.0),
        };
        let id = sample_next(
            self.logits.view(),
            t,
            draw,
            model.tokenizer.first_choosable(),
        )
        .unwrap_or(0);
        self.ids.push(id);
        let attention_t = self.temperature as f32;
        let mut attention = Vec::new();
        let started = clock();
        self.logits = if self.spec.cache {
            let rows =
                model.extend_recording(&mut self.cache, &[id], attention_t, Some(&mut attention));
            model.head(rows.row(0))
        } else {
            Self::whole(model, &self.ids, attention_t, Some(&mut attention))
        };
        let ms = clock() - started;
        let max_delta = check
            .then(|| recompute(model, &self.ids, self.temperature))
            .flatten()
            .map(|full| {
                (&full - &self.logits)
                    .iter()
                    .fold(0.0f32, |m, v| m.max(v.abs()))
            });
        Some(Step {
            id,
            token: model.vocab[id as usize].clone(),
            top,
            cache_len: self.cache.len,
            cache_bytes: self.cache.bytes(),
            ms,
            max_delta,
            attention,
        })
    }
}

/// Generates `spec.steps` characters after `prompt` at attention temperature `temperature`;
/// `clock` gives milliseconds (the caller's: `Instant` natively, `performance.now()` in a page).
pub fn generate(
    model: &Model,
    prompt: &str,
    spec: &GenerateSpec,
    temperature: f64,
    clock: &dyn Fn() -> f64,
) -> Result<Generation, GenerateError> {
    let decoder = Decoder::new(model, prompt, spec, temperature, clock)?;
    Ok(run_out(model, decoder, clock))
}

/// [`generate`] after a prompt tokenized by the caller (a model's worker holds no tokenizer:
/// the page sends the ids), checked as [`Decoder::from_ids`] checks them.
pub fn generate_from_ids(
    model: &Model,
    ids: Vec<u32>,
    spec: &GenerateSpec,
    temperature: f64,
    clock: &dyn Fn() -> f64,
) -> Result<Generation, GenerateError> {
    let decoder = Decoder::from_ids(model, ids, spec, temperature, clock)?;
    Ok(run_out(model, decoder, clock))
}

/// Every step `decoder` was asked for.
fn run_out(model: &Model, mut decoder: Decoder, clock: &dyn Fn() -> f64) -> Generation {
    let mut steps = Vec::with_capacity(decoder.asked());
    while let Some(step) = decoder.step(model, clock) {
        steps.push(step);
    }
    Generation {
        prompt: decoder.prompt().to_vec(),
        prefill_ms: decoder.prefill_ms,
        steps,
    }
}

/// The cache's K rows of layer `layer`, K/V head `head`, as [len, d_head] (for the views).
pub fn cached_keys(cache: &KvCache, layer: usize, head: usize, d_head: usize) -> Array2<f32> {
    cache
        .rows(&cache.keys[layer])
        .slice(s![.., head * d_head..(head + 1) * d_head])
        .to_owned()
}
