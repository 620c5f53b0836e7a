//! A trained model whatever its layout: its parameters, and the forward pass with every
//! intermediate kept. Each layer's attention is the lab's own: a [`Config`] whose input is the
//! normed residual stream, whose weights are the layer's W_Q, W_K, W_V, W_O (with GPT-2's
//! biases), whose positions are the layout's, under the mask and temperature the user chose,
//! computed by [`crate::compute_trace`]. So the views, the tooltips and FlashAttention work on a
//! trained model's heads exactly as on random ones.

use ndarray::{Array1, Array2, ArrayView2, s};

use crate::io::model_files::{ConfigJson, vocab_from_json};
use crate::io::safetensors::{ReadAt, SafetensorsHeader, header_bytes};
use crate::math::linear::{DEFAULT_CHUNK, LinearKind, LinearSpec, OutputGate};
use crate::math::mask::MaskSpec;
use crate::math::norm::Norm;
use crate::math::scoring::{Position, Shaping};
use crate::math::weights::Weights;
use crate::models::config::ModelConfig;
use crate::models::forward::{Forward, ForwardLayer, ModelRun};
use crate::models::gpt2::{self, GeluMlp};
use crate::models::layout::Layout;
use crate::models::llama::{self, SwiGluMlp};
use crate::models::parts::{Block, Parts};
use crate::models::qwen3_next;
use crate::models::remote::{
    ForwardWork, LayerSource, LayerWork, LayeredWork, Pass, attention_fits,
};
use crate::models::sampling::{Prediction, top_k};
use crate::models::stored::Stored;
use crate::models::tensors::{ModelError, Numbers};
use crate::models::tokenizer::Tokenizer;
use crate::pipeline::config::{Config, Input, LayerNormMode, Params};
use crate::pipeline::error::ConfigError;
use crate::pipeline::trace::{Backend, FlashDetail, trace_from};
use crate::pipeline::units::compute_parts;

/// A block's MLP, as its layout computes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Mlp {
    Gelu(GeluMlp),
    SwiGlu(SwiGluMlp),
}

impl Mlp {
    /// The MLP of the normed rows `x` [seq_len, d_model].
    pub fn apply(&self, x: ArrayView2<f32>) -> Array2<f32> {
        match self {
            Self::Gelu(mlp) => mlp.apply(x),
            Self::SwiGlu(mlp) => mlp.apply(x),
        }
    }

    fn parameter_count(&self) -> usize {
        match self {
            Self::Gelu(mlp) => mlp.parameter_count(),
            Self::SwiGlu(mlp) => mlp.parameter_count(),
        }
    }

    /// Its matrices, each in its file's number type.
    pub fn stored(&self) -> Vec<&Stored> {
        match self {
            Self::Gelu(mlp) => vec![&mlp.c_fc.0, &mlp.c_proj.0],
            Self::SwiGlu(mlp) => vec![&mlp.gate, &mlp.up, &mlp.down],
        }
    }
}

impl Block<Mlp> {
    /// What the MLP adds to the residual stream `x` [seq_len, d_model]: MLP(LN₂(x)), and for
    /// Gemma's sandwich the norm of that.
    pub fn mlp_of(&self, x: ArrayView2<f32>) -> Array2<f32> {
        let out = self.mlp.apply(self.mlp_norm.apply(x).view());
        match &self.post_mlp_norm {
            Some(post) => post.apply(out.view()),
            None => out,
        }
    }

    /// What the attention adds to the residual stream, from its output projected by W_O: that,
    /// or for Gemma's sandwich its norm.
    pub fn attention_added(&self, projected: Array2<f32>) -> Array2<f32> {
        match &self.post_attention_norm {
            Some(post) => post.apply(projected.view()),
            None => projected,
        }
    }
}

/// A text as a model reads it: the tokens in its window, with the run cut to them.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub tokens: Vec<String>,
    pub ids: Vec<u32>,
    /// Tokens before the window ([`Forward::dropped`]).
    pub dropped: usize,
    pub run: ModelRun,
}

/// A trained model and its vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub config: ModelConfig,
    /// The tokens as they read, index = id: the characters of the lab's models (id 0 is
    /// [`crate::models::text::UNK`]), a Hugging Face tokenizer's pieces.
    pub vocab: Vec<String>,
    pub tokenizer: Tokenizer,
    /// What requests and the JSON call it: `"trained"`, `"llama"`, `"llama-gated"`, `"hybrid"`, or
    /// a folder's name.
    pub name: String,
    /// [vocab_size, d_model], in its file's number type (as the MLPs and the LM head:
    /// [`Stored`]).
    pub token_embedding: Stored,
    /// [context, d_model]: GPT-2's learned positions; `None` when the layout adds none.
    pub position_embedding: Option<Array2<f32>>,
    pub blocks: Vec<Block<Mlp>>,
    pub final_norm: Norm,
    /// [vocab_size, d_model]: an untied LM head; `None`: the token embedding scores the next
    /// token (tied, as in the lab's models and GPT-2).
    pub lm_head: Option<Stored>,
}

impl Model {
    /// A model from the bytes of its three files: `model.safetensors` (f32, f16 or bf16),
    /// `config.json` (whose `model_type` names the layout) and `vocab.json`.
    pub fn from_files(safetensors: &[u8], config: &str, vocab: &str) -> Result<Self, ModelError> {
        let json = ConfigJson::parse(config).map_err(ModelError::Config)?;
        let vocab = vocab_from_json(vocab).map_err(ModelError::Vocab)?;
        let format = |e: crate::io::found::ImportError| ModelError::Format(e.to_string());
        let header = SafetensorsHeader::parse(
            &header_bytes(&safetensors).map_err(format)?,
            safetensors.size(),
        )
        .map_err(format)?;
        let mut tensor = |name: &str, shape: &[usize]| -> Result<Numbers, ModelError> {
            let (found, numbers) = header
                .numbers(&safetensors, name)
                .ok_or_else(|| ModelError::Missing(name.to_string()))?
                .map_err(format)?;
            if found != shape {
                return Err(ModelError::Shape {
                    name: name.to_string(),
                    expected: shape.to_vec(),
                    found,
                });
            }
            Ok(numbers)
        };
        match Layout::from_model_type(json.str("model_type")) {
            Some(Layout::Gpt2) => {
                let config = gpt2::config(&json)?;
                let parts = gpt2::load(&config, &vocab, &mut tensor)?;
                Ok(Self::assemble(config, vocab, parts.map_mlp(Mlp::Gelu)))
            }
            Some(Layout::Llama) => {
                let config = llama::config(&json)?;
                let parts = llama::load(&config, &vocab, true, &mut tensor)?;
                Ok(Self::assemble(config, vocab, parts.map_mlp(Mlp::SwiGlu)))
            }
            Some(Layout::Hybrid) => {
                let config = qwen3_next::config(&json)?;
                // transformers' default for Qwen3-Next: an LM head of its own.
                let tied = json.bool("tie_word_embeddings").unwrap_or(false);
                let parts = qwen3_next::load(&config, &vocab, tied, &mut tensor)?;
                Ok(Self::assemble(config, vocab, parts.map_mlp(Mlp::SwiGlu)))
            }
            None => Err(ModelError::Config(format!(
                "model_type {:?}: the lab reads \"gpt2\", \"llama\" and \"qwen3_next\"",
                json.str("model_type").unwrap_or_default()
            ))),
        }
    }

    /// A model from its numbers, its vocabulary and its parts (a layout's loader gives them).
    pub fn assemble(config: ModelConfig, vocab: Vec<String>, parts: Parts<Mlp>) -> Self {
        Self {
            config,
            tokenizer: Tokenizer::chars(&vocab),
            name: crate::models::Shipped::of(config.layout, config.output_gate)
                .name()
                .to_string(),
            vocab,
            token_embedding: parts.token_embedding,
            position_embedding: parts.position_embedding,
            blocks: parts.blocks,
            final_norm: parts.final_norm,
            lm_head: parts.lm_head,
        }
    }

    /// How many numbers the model holds (the LM head shares the token embedding's).
    pub fn parameter_count(&self) -> usize {
        let norm = |n: &Norm| {
            n.affine
                .as_ref()
                .map_or(0, |(g, b)| if n.rms { g.len() } else { g.len() + b.len() })
        };
        let weights = |w: &Weights| {
            w.w_q.len()
                + w.w_k.len()
                + w.w_v.len()
                + w.w_o.len()
                + w.biases
                    .as_ref()
                    .map_or(0, |b| b.q.len() + b.k.len() + b.v.len() + b.o.len())
        };
        self.token_embedding.len()
            + self.lm_head.as_ref().map_or(0, Stored::len)
            + self.position_embedding.as_ref().map_or(0, Array2::len)
            + norm(&self.final_norm)
            + self
                .blocks
                .iter()
                .map(|b| {
                    norm(&b.attention_norm)
                        + norm(&b.mlp_norm)
                        + b.post_attention_norm.as_ref().map_or(0, norm)
                        + b.post_mlp_norm.as_ref().map_or(0, norm)
                        + weights(&b.attention)
                        + b.qk_norm.as_ref().map_or(0, |n| n.q.len() + n.k.len())
                        + b.linear.as_ref().map_or(0, |l| {
                            l.w_beta.len()
                                + l.w_alpha.len()
                                + l.a_log.len()
                                + l.dt_bias.len()
                                + l.conv.as_ref().map_or(0, Array2::len)
                        })
                        + b.gate.as_ref().map_or(0, |g| match g.as_ref() {
                            OutputGate::Sigmoid(w) => w.len(),
                            OutputGate::NormSilu { w_z, gamma, .. } => w_z.len() + gamma.len(),
                        })
                        + b.mlp.parameter_count()
                })
                .sum::<usize>()
    }

    /// The bytes its numbers take in memory: the token embedding, the LM head and the MLPs in
    /// their file's number type ([`Stored`]), everything else in f32.
    pub fn bytes(&self) -> usize {
        let stored: Vec<&Stored> = std::iter::once(&self.token_embedding)
            .chain(self.lm_head.as_ref())
            .chain(self.blocks.iter().flat_map(|b| b.mlp.stored()))
            .collect();
        let numbers: usize = stored.iter().map(|m| m.len()).sum();
        stored.iter().map(|m| m.bytes()).sum::<usize>() + 4 * (self.parameter_count() - numbers)
    }

    /// The text as the model reads it. The lab's models: full-width letters and digits as
    /// ASCII, runs of spaces and tabs as one space, at most two line breaks in a row (as in
    /// training), then one token per character, [`crate::models::text::UNK`] for characters
    /// outside the vocabulary. A Hugging Face model: its own tokenizer's ids, with the special
    /// tokens it adds.
    pub fn tokenize(&self, text: &str) -> Vec<(String, u32)> {
        self.tokenizer.encode(text)
    }

    /// The id of character `c`, if it is one token.
    pub fn id_of(&self, c: char) -> Option<u32> {
        self.tokenizer.id_of(c)
    }

    /// The matrix that scores the next token, [vocab_size, d_model]: the LM head, or the token
    /// embedding when they are tied.
    pub fn unembedding(&self) -> &Stored {
        self.lm_head.as_ref().unwrap_or(&self.token_embedding)
    }

    /// The token embeddings of `ids`, [len, d_model] (times √d_model for Gemma).
    pub fn embed(&self, ids: &[u32]) -> Array2<f32> {
        let mut rows = self.token_embedding.gather(ids);
        if let Some(scale) = self.config.embedding_scale {
            rows *= scale;
        }
        rows
    }

    /// The text of `ids` (a Hugging Face tokenizer joins bytes split over tokens again).
    pub fn decode(&self, ids: &[u32]) -> String {
        self.tokenizer.decode(ids, &self.vocab)
    }

    /// Runs the model on `ids` (at most `context`) with every layer's attention under `run`'s
    /// mask and temperature. Each layer's attention is traced without FlashAttention's steps
    /// (see [`Forward::layer_trace`] for one layer with them).
    pub fn forward(
        &self,
        tokens: &[String],
        ids: &[u32],
        run: &ModelRun,
    ) -> Result<Forward, ConfigError> {
        self.forward_by(tokens, ids, run, &mut LayerSource::Here(None))
    }

    /// [`Model::forward`], keeping what cost a matrix product in each layer (its attention's
    /// [`Computed`] and its MLP's output): what a worker sends to the page, which puts the same
    /// forward pass together with [`Model::forward_from`].
    pub fn forward_work(
        &self,
        tokens: &[String],
        ids: &[u32],
        run: &ModelRun,
    ) -> Result<(Forward, ForwardWork), ConfigError> {
        let work = self.begin_work(tokens, ids, run)?;
        self.finish_work(work)
    }

    /// The forward pass [`Model::forward_work`] computed elsewhere on the same `tokens`, `ids`
    /// and `run`, put together here: each layer's trace derived from its [`Computed`] as
    /// [`Model::forward`] derives it, its MLP's output taken as given. A layer whose work does not
    /// fit (another model's, another input's) is computed here instead, so the result is always
    /// this model's.
    pub fn forward_from(
        &self,
        tokens: &[String],
        ids: &[u32],
        run: &ModelRun,
        work: ForwardWork,
    ) -> Result<Forward, ConfigError> {
        self.forward_by(
            tokens,
            ids,
            run,
            &mut LayerSource::Given(work.layers.into_iter()),
        )
    }

    fn forward_by(
        &self,
        tokens: &[String],
        ids: &[u32],
        run: &ModelRun,
        source: &mut LayerSource,
    ) -> Result<Forward, ConfigError> {
        let mut pass = self.begin_pass(tokens, ids, run)?;
        while pass.layers.len() < self.blocks.len() {
            self.next_layer(&mut pass, source)?;
        }
        Ok(self.end_pass(pass))
    }

    /// A forward pass's start: the input checked, the embeddings looked up.
    pub(crate) fn begin_pass(
        &self,
        tokens: &[String],
        ids: &[u32],
        run: &ModelRun,
    ) -> Result<Pass, ConfigError> {
        let n = ids.len();
        if n == 0 {
            return Err(ConfigError::EmptyInput { field: "sentence" });
        }
        if n > self.config.context {
            return Err(ConfigError::TooManyTokens {
                field: "sentence",
                count: n,
                max: self.config.context,
            });
        }
        crate::pipeline::knockout::check_knockouts(
            &run.ablate,
            self.config.n_layers,
            self.config.n_heads,
        )?;
        let d = self.config.d_model;
        let embeddings = self.embed(ids);
        // Llama adds no position vector: RoPE turns q and k inside attention.
        let positions = match &self.position_embedding {
            Some(position_embedding) => position_embedding.slice(s![0..n, ..]).to_owned(),
            None => Array2::zeros((n, d)),
        };
        let x = &embeddings + &positions;
        Ok(Pass {
            tokens: tokens.to_vec(),
            ids: ids.to_vec(),
            run: run.clone(),
            embeddings,
            positions,
            x,
            layers: Vec::with_capacity(self.blocks.len()),
        })
    }

    /// Runs `pass`'s next block (nothing once every block has run).
    pub(crate) fn next_layer(
        &self,
        pass: &mut Pass,
        source: &mut LayerSource,
    ) -> Result<(), ConfigError> {
        let index = pass.layers.len();
        let Some(block) = self.blocks.get(index) else {
            return Ok(());
        };
        let run = &pass.run;
        let residual_in = pass.x.clone();
        let parts = (index == 0).then(|| (pass.embeddings.clone(), pass.positions.clone()));
        let config = self.layer_config(index, &pass.tokens, residual_in.clone(), parts, run)?;
        // What came computed: the whole block's work, or its attention alone (its MLP is
        // computed here), with the backend that computed it.
        let given = match source {
            LayerSource::Given(work) => work
                .next()
                .filter(|w| w.fits(&config))
                .map(|w| (w.computed, Some(w.mlp), w.backend)),
            LayerSource::Attention(attention, _) => attention
                .take()
                .filter(|given| attention_fits(&given.0, &config))
                .map(|given| {
                    let (computed, by) = *given;
                    (computed, None, by)
                }),
            LayerSource::Here(_) => None,
        };
        let (computed, given_mlp, backend) =
            given.unwrap_or_else(|| (compute_parts(&config), None, Backend::Cpu));
        let kept = match source {
            LayerSource::Here(Some(_)) | LayerSource::Attention(_, Some(_)) => {
                Some((computed.clone(), backend.clone()))
            }
            _ => None,
        };
        let mut attention = trace_from(&config, computed, backend, FlashDetail::OutputOnly);
        attention.knock_out(&crate::models::forward::knocked_in(&run.ablate, index));
        // The lab's Pre-LN block: its output is x + Attn(LN₁(x)) (Gemma's x + Norm(Attn(LN₁(x))),
        // the layer's `post_norm`).
        let after_attention = attention.output.clone();
        let mlp = given_mlp.unwrap_or_else(|| block.mlp_of(after_attention.view()));
        if let (
            LayerSource::Here(Some(record)) | LayerSource::Attention(_, Some(record)),
            Some((computed, backend)),
        ) = (&mut *source, kept)
        {
            record.push(LayerWork {
                computed,
                backend,
                mlp: mlp.clone(),
            });
        }
        pass.x = &after_attention + &mlp;
        pass.layers.push(ForwardLayer {
            residual_in,
            attention,
            after_attention,
            mlp,
            residual_out: pass.x.clone(),
        });
        Ok(())
    }

    /// The forward pass of `pass` once every block has run: the final norm applied.
    pub(crate) fn end_pass(&self, pass: Pass) -> Forward {
        let final_norm = self.final_norm.apply(pass.x.view());
        Forward {
            tokens: pass.tokens,
            ids: pass.ids,
            dropped: 0,
            embeddings: pass.embeddings,
            positions: pass.positions,
            layers: pass.layers,
            final_norm,
            knocked: pass.run.ablate,
            roles: Default::default(),
        }
    }

    /// Runs the model on `text` as it reads it: one token per character, and of a text longer
    /// than its context only the last `context` characters (the window a model slides over
    /// a long text; [`Forward::dropped`] says how many came before it). A custom mask given
    /// for the whole text is cut to the window, a padding mask's length moved with it.
    pub fn read(&self, text: &str, run: &ModelRun) -> Result<Forward, ConfigError> {
        let reading = self.reading(text, run);
        let mut forward = self.forward(&reading.tokens, &reading.ids, &reading.run)?;
        forward.dropped = reading.dropped;
        Ok(forward)
    }

    /// What [`Model::read`] runs the forward pass on: `text`'s tokens in the window, how many
    /// came before it, and `run` with its mask cut to the window.
    pub fn reading(&self, text: &str, run: &ModelRun) -> Reading {
        let pairs = self.tokenize(text);
        let whole = pairs.len();
        let dropped = whole.saturating_sub(self.config.context);
        let (tokens, ids): (Vec<String>, Vec<u32>) = pairs.into_iter().skip(dropped).unzip();
        Reading {
            tokens,
            ids,
            dropped,
            run: run.windowed(whole, dropped),
        }
    }

    /// The next-token scores after `position` of `forward`: LN_f(x) · wteᵀ, [vocab_size]. Computed
    /// on demand (one row costs d_model × vocab_size multiply-adds; every row at 128 characters
    /// would be most of a forward pass, and a view shows one position at a time).
    pub fn logits(&self, forward: &Forward, position: usize) -> Array1<f32> {
        self.head(forward.final_norm.row(position))
    }

    /// The next-token scores after every position, [seq_len, vocab_size].
    pub fn all_logits(&self, forward: &Forward) -> Array2<f32> {
        let mut logits = self
            .unembedding()
            .times_transposed(forward.final_norm.view());
        if let Some(all) = logits.as_slice_mut() {
            self.config.cap_logits(all);
        }
        logits
    }

    /// The mean loss (nats) of predicting each next character of `forward`'s text from the ones
    /// before it: −log p(token i+1 | tokens ≤ i), averaged over i; `None` for one character.
    pub fn mean_loss(&self, forward: &Forward) -> Option<f64> {
        let n = forward.ids.len();
        if n < 2 {
            return None;
        }
        let logits = self.all_logits(forward);
        let total: f64 = (0..n - 1)
            .map(|i| {
                let row = logits.row(i);
                let max = row.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
                let sum: f64 = row.iter().map(|&v| f64::from(v - max).exp()).sum();
                let target = f64::from(row[forward.ids[i + 1] as usize] - max);
                sum.ln() - target
            })
            .sum();
        Some(total / (n - 1) as f64)
    }

    /// The `k` most likely next tokens after `position`, most likely first.
    pub fn predictions(&self, forward: &Forward, position: usize, k: usize) -> Vec<Prediction> {
        top_k(self.logits(forward, position).view(), k)
    }

    /// The attention of block `index` as one of the lab's Pre-LN blocks: input x (the residual
    /// stream; for the first block embeddings plus positions), LN₁ (RMSNorm for Llama) with its learned
    /// γ and β, the block's weights and biases, its K/V heads, the layout's positions (RoPE for Llama), the run's mask and
    /// temperature; its output x + Attn(LN₁(x)).
    fn layer_config(
        &self,
        index: usize,
        tokens: &[String],
        x: Array2<f32>,
        parts: Option<(Array2<f32>, Array2<f32>)>,
        run: &ModelRun,
    ) -> Result<Config, ConfigError> {
        let block = &self.blocks[index];
        let mut shaping = run.shaping.clone();
        if !self.config.layout.adds_positions() {
            shaping.position = self.config.position_at(index);
        }
        // Gemma 2's cap on the scores, unless the run sets its own.
        shaping.softcap = shaping.softcap.or(self.config.attention_softcap);
        if let Some(gain) = &block.qk_norm {
            shaping.qk_norm = true;
            shaping.qk_gain = Some(gain.clone());
        }
        // A hybrid's linear layers have no scores: the run's temperature and score options act
        // on its softmax layers only.
        let temperature = if block.linear.is_some() {
            shaping = Shaping {
                position: Position::None,
                ..Shaping::default()
            };
            1.0
        } else {
            run.temperature
        };
        // Mistral's window (Gemma's on its sliding layers): under the causal mask, each query
        // sees its last `w` keys.
        let mask = match (self.config.window(index), &run.mask) {
            // A hybrid's linear layer is causal by construction: the run's mask shapes its
            // softmax layers.
            _ if block.linear.is_some() => MaskSpec::Causal,
            (Some(w), MaskSpec::Causal) => MaskSpec::Sliding {
                radius: w - 1,
                sink_tokens: 0,
            },
            (_, mask) => mask.clone(),
        };
        Params {
            input: Input::Vectors {
                tokens: tokens.to_vec(),
                x,
                parts,
            },
            n_heads: self.config.n_heads,
            // A hybrid's linear layers have a key for every head.
            n_kv_heads: Some(if block.linear.is_some() {
                self.config.n_heads
            } else {
                self.config.n_kv_heads
            }),
            d_k: Some(self.config.d_head()),
            temperature,
            mask,
            weights: Some(block.attention.clone()),
            block_rows: run.block.0,
            block_cols: run.block.1,
            layer_norm: LayerNormMode::Pre,
            norm: Some(block.attention_norm.clone()),
            post_norm: block.post_attention_norm.clone(),
            model_layer: Some(index),
            trace: true,
            shaping,
            // A hybrid's Gated DeltaNet layer, and its gates.
            linear: block.linear.as_ref().map(|_| LinearSpec {
                kind: LinearKind::GatedDelta,
                chunk: DEFAULT_CHUNK,
            }),
            linear_weights: block.linear.clone(),
            gate_weights: block.gate.clone(),
            ..Params::sentence("")
        }
        .validate()
    }
}

impl Model {
    /// The start of [`Model::forward_work`] on `tokens`, `ids` under `run` (checked as it
    /// checks them); no block has run yet.
    pub fn begin_work(
        &self,
        tokens: &[String],
        ids: &[u32],
        run: &ModelRun,
    ) -> Result<LayeredWork, ConfigError> {
        Ok(LayeredWork {
            pass: self.begin_pass(tokens, ids, run)?,
            kept: Vec::with_capacity(self.blocks.len()),
        })
    }

    /// Runs `work`'s next block; `true` once every block has run.
    pub fn work_layer(&self, work: &mut LayeredWork) -> Result<bool, ConfigError> {
        if work.pass.layers.len() < self.blocks.len() {
            self.next_layer(&mut work.pass, &mut LayerSource::Here(Some(&mut work.kept)))?;
        }
        Ok(work.pass.layers.len() >= self.blocks.len())
    }

    /// The attention of `work`'s next block as every backend takes it (its input, the block's
    /// weights and the run's options), for another backend to compute ([`Model::work_layer_with`]);
    /// `None` once every block has run.
    pub fn next_attention(&self, work: &LayeredWork) -> Result<Option<Config>, ConfigError> {
        let pass = &work.pass;
        let index = pass.layers.len();
        if index >= self.blocks.len() {
            return Ok(None);
        }
        let parts = (index == 0).then(|| (pass.embeddings.clone(), pass.positions.clone()));
        self.layer_config(index, &pass.tokens, pass.x.clone(), parts, &pass.run)
            .map(Some)
    }

    /// Runs `work`'s next block with its attention as `backend` computed it (`computed`, for
    /// the [`Model::next_attention`] it was given), its MLP here; computed here instead when it
    /// does not fit. `true` once every block has run.
    pub fn work_layer_with(
        &self,
        work: &mut LayeredWork,
        computed: crate::Computed,
        backend: Backend,
    ) -> Result<bool, ConfigError> {
        if work.pass.layers.len() < self.blocks.len() {
            let mut source =
                LayerSource::Attention(Some(Box::new((computed, backend))), Some(&mut work.kept));
            self.next_layer(&mut work.pass, &mut source)?;
        }
        Ok(work.pass.layers.len() >= self.blocks.len())
    }

    /// The forward pass of `work` and what it kept, running any block not yet run: what
    /// [`Model::forward_work`] returns.
    pub fn finish_work(
        &self,
        mut work: LayeredWork,
    ) -> Result<(Forward, ForwardWork), ConfigError> {
        while !self.work_layer(&mut work)? {}
        Ok((self.end_pass(work.pass), ForwardWork { layers: work.kept }))
    }
}
