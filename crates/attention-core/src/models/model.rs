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
    ForwardWork, LayerSource, LayerWork, LayeredWork, MlpPieces, OpenLayer, Pass, attention_fits,
};
use crate::models::sampling::{Prediction, top_k};
use crate::models::stored::{BLOCK_ROWS, Stored};
use crate::models::tensors::{ModelError, Numbers};
use crate::models::tokenizer::Tokenizer;
use crate::pipeline::config::{Config, Input, LayerNormMode, Params};
use crate::pipeline::error::ConfigError;
use crate::pipeline::trace::{Backend, FlashDetail, trace_from};
use crate::pipeline::units::compute_parts;

/// The multiply-adds of MLP in one piece of [`Model::work_piece`]: about 40 ms in a worker's
/// wasm SIMD kernels (15 G multiply-adds a second), so that a newer edit waits no longer.
pub const PIECE_MACS: usize = 600_000_000;

/// A model's sizes that a traced forward pass's memory depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassShape {
    pub layers: usize,
    pub heads: usize,
    pub d_model: usize,
    /// The MLP's hidden units (d_ff).
    pub hidden: usize,
}

impl PassShape {
    /// The bytes traced forward passes of `tokens` tokens take in a page's WebAssembly memory
    /// beside the model, on the safe side: eighteen [tokens, tokens] matrices a head (the scores
    /// and weights the worker computed, their copy put together, the trace's steps, and the same
    /// of the all-heads pass kept beside it while heads are knocked out) and sixteen rows of
    /// d_model + d_ff a token (the residual stream, the MLP's hidden units, the allocator's blocks
    /// of them) in every layer, as f32. Measured in headless Chromium (benches/README.md): a page
    /// holding GPT-2 small's shape reached 1.6 GB at 479 tokens and broke its 4 GB at 959, and
    /// with a head knocked out 3.7 GB at 567; one holding a billion-parameter model reached
    /// 3.8 GB at 195 tokens and broke at 385.
    pub fn traced_bytes(&self, tokens: usize) -> u64 {
        let n = tokens as u64;
        let per_layer =
            18 * self.heads as u64 * n * n + 16 * n * (self.d_model + self.hidden) as u64;
        4 * self.layers as u64 * per_layer
    }

    /// The most tokens (at least one, at most `context`) whose traced pass fits the page's
    /// memory ([`crate::io::hf_folder::PAGE_MEMORY`]) beside a model of `held` bytes.
    pub fn window(&self, held: u64, context: usize) -> usize {
        let room = crate::io::hf_folder::PAGE_MEMORY.saturating_sub(held);
        let fits = |n: usize| self.traced_bytes(n) <= room;
        let (mut low, mut high) = (1, context.max(1));
        if fits(high) {
            return high;
        }
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if fits(mid) {
                low = mid;
            } else {
                high = mid;
            }
        }
        low
    }
}

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

    /// Its hidden units (d_ff).
    pub fn hidden(&self) -> usize {
        match self {
            Self::Gelu(mlp) => mlp.c_fc.0.ncols(),
            Self::SwiGlu(mlp) => mlp.gate.ncols(),
        }
    }

    /// How many hidden units a piece of [`Model::work_piece`] takes on `rows` tokens: about
    /// `piece` multiply-adds ([`PIECE_MACS`]), a multiple of [`BLOCK_ROWS`] (so that a half
    /// matrix's pieces sum exactly as its whole product); `None` when the whole MLP is at most
    /// two pieces' work.
    pub fn piece_width(&self, rows: usize, piece: usize) -> Option<usize> {
        let hidden = self.hidden().max(1);
        let macs = rows.saturating_mul(self.parameter_count());
        if macs <= piece.saturating_mul(2) {
            return None;
        }
        let per_unit = (macs / hidden).max(1);
        let width = (piece / per_unit) / BLOCK_ROWS * BLOCK_ROWS;
        let width = width.max(BLOCK_ROWS);
        (width < hidden).then_some(width)
    }

    /// Adds the next slice of hidden units' share of the MLP's output to `pieces`.
    fn add_piece(&self, pieces: &mut MlpPieces) {
        let c0 = pieces.next;
        let c1 = (c0 + pieces.width).min(self.hidden());
        let x = pieces.normed.view();
        match self {
            Self::Gelu(mlp) => mlp.add_hidden(x, c0, c1, &mut pieces.out),
            Self::SwiGlu(mlp) => mlp.add_hidden(x, c0, c1, &mut pieces.out),
        }
        pieces.next = c1;
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
        self.post_mlp(out)
    }

    /// [`Block::mlp_of`] `x` to be computed `width` hidden units at a time.
    fn mlp_pieces(&self, x: ArrayView2<f32>, width: usize) -> MlpPieces {
        MlpPieces {
            normed: self.mlp_norm.apply(x),
            out: Array2::zeros(x.dim()),
            next: 0,
            width,
        }
    }

    /// The MLP's output once every slice of its hidden units has run.
    fn mlp_finish(&self, pieces: MlpPieces) -> Array2<f32> {
        let out = match &self.mlp {
            Mlp::Gelu(mlp) => mlp.with_output_bias(pieces.out),
            Mlp::SwiGlu(_) => pieces.out,
        };
        self.post_mlp(out)
    }

    fn post_mlp(&self, out: Array2<f32>) -> Array2<f32> {
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

    /// What a traced pass's memory depends on.
    pub fn pass_shape(&self) -> PassShape {
        PassShape {
            layers: self.config.n_layers,
            heads: self.config.n_heads,
            d_model: self.config.d_model,
            hidden: self.blocks.first().map_or(0, |b| b.mlp.hidden()),
        }
    }

    /// The bytes a traced forward pass of `tokens` tokens takes in a page beside the model
    /// ([`PassShape::traced_bytes`]).
    pub fn traced_pass_bytes(&self, tokens: usize) -> u64 {
        self.pass_shape().traced_bytes(tokens)
    }

    /// How many tokens a traced pass in the page reads at most: the model's context, or fewer
    /// where a pass over more would not fit the page's memory beside the model
    /// ([`PassShape::window`]).
    pub fn page_window(&self) -> usize {
        self.pass_shape()
            .window(self.bytes() as u64, self.config.context)
    }

    /// Why a traced pass of `tokens` tokens is not run in the page, with its numbers.
    pub fn pass_too_large(&self, tokens: usize) -> ConfigError {
        let mb = |b: u64| (b / 1_000_000) as usize;
        ConfigError::PassTooLarge {
            tokens,
            max: self.page_window(),
            needed_mb: mb(self.traced_pass_bytes(tokens)),
            room_mb: mb(crate::io::hf_folder::PAGE_MEMORY.saturating_sub(self.bytes() as u64)),
        }
    }

    /// The tokens read at once here: natively the model's context; in a page (wasm32, 4 GB of
    /// memory) [`Model::page_window`].
    pub fn read_window(&self) -> usize {
        if cfg!(target_arch = "wasm32") {
            self.page_window()
        } else {
            self.config.context
        }
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
        if n > self.read_window() {
            return Err(self.pass_too_large(n));
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
        let Some(mut open) = self.open_layer(pass, source)? else {
            return Ok(());
        };
        let mlp = match open.mlp.take() {
            Some(mlp) => mlp,
            None => self.blocks[open.index].mlp_of(open.after_attention.view()),
        };
        self.close_layer(pass, open, mlp, source.record());
        Ok(())
    }

    /// The next block of `pass` up to its MLP: its attention taken from `source` (or computed
    /// here) and traced, with its knockouts; `None` once every block has run.
    fn open_layer(
        &self,
        pass: &Pass,
        source: &mut LayerSource,
    ) -> Result<Option<OpenLayer>, ConfigError> {
        let index = pass.layers.len();
        if index >= self.blocks.len() {
            return Ok(None);
        }
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
        let (computed, mlp, backend) =
            given.unwrap_or_else(|| (compute_parts(&config), None, Backend::Cpu));
        let kept = source.keeps().then(|| (computed.clone(), backend.clone()));
        let mut attention = trace_from(&config, computed, backend, FlashDetail::OutputOnly);
        attention.knock_out(&crate::models::forward::knocked_in(&run.ablate, index));
        // The lab's Pre-LN block: its output is x + Attn(LN₁(x)) (Gemma's x + Norm(Attn(LN₁(x))),
        // the layer's `post_norm`).
        let after_attention = attention.output.clone();
        Ok(Some(OpenLayer {
            index,
            residual_in,
            attention,
            after_attention,
            kept,
            mlp,
            pieces: None,
        }))
    }

    /// Ends the block `open` with its MLP's output `mlp`: the residual stream moves on, the
    /// layer is traced, and its work is kept in `record` when it keeps it.
    fn close_layer(
        &self,
        pass: &mut Pass,
        open: OpenLayer,
        mlp: Array2<f32>,
        record: Option<&mut Vec<LayerWork>>,
    ) {
        if let (Some(record), Some((computed, backend))) = (record, open.kept) {
            record.push(LayerWork {
                computed,
                backend,
                mlp: mlp.clone(),
            });
        }
        pass.x = &open.after_attention + &mlp;
        pass.layers.push(ForwardLayer {
            residual_in: open.residual_in,
            attention: open.attention,
            after_attention: open.after_attention,
            mlp,
            residual_out: pass.x.clone(),
        });
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

    /// What [`Model::read`] runs the forward pass on: `text`'s tokens in the window
    /// ([`Model::read_window`]), how many came before it, and `run` with its mask cut to the
    /// window.
    pub fn reading(&self, text: &str, run: &ModelRun) -> Reading {
        let pairs = self.tokenize(text);
        let whole = pairs.len();
        let dropped = whole.saturating_sub(self.read_window());
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
            open: None,
            piece_macs: PIECE_MACS,
        })
    }

    /// Runs the rest of `work`'s next block (its whole MLP, when a block is open); `true` once
    /// every block has run.
    pub fn work_layer(&self, work: &mut LayeredWork) -> Result<bool, ConfigError> {
        if let Some(open) = work.open.take() {
            self.finish_open(work, open);
        } else if work.pass.layers.len() < self.blocks.len() {
            self.next_layer(&mut work.pass, &mut LayerSource::Here(Some(&mut work.kept)))?;
        }
        Ok(work.pass.layers.len() >= self.blocks.len())
    }

    /// Runs a piece of `work` of about [`PIECE_MACS`] multiply-adds of MLP at most: the next
    /// block's attention, with its MLP when that is small, or else the next slice of its MLP's
    /// hidden units (a block of a billion-parameter model, 700 ms in the page's worker, becomes
    /// pieces of tens of milliseconds, between which the worker reads its messages). The pass
    /// it gives equals [`Model::work_layer`]'s, to the bit. `true` once every block has run.
    pub fn work_piece(&self, work: &mut LayeredWork) -> Result<bool, ConfigError> {
        match work.open.take() {
            Some(open) => self.mlp_piece(work, open),
            None => {
                let open =
                    self.open_layer(&work.pass, &mut LayerSource::Here(Some(&mut work.kept)))?;
                if let Some(open) = open {
                    self.opened(work, open);
                }
            }
        }
        Ok(work.pass.layers.len() >= self.blocks.len())
    }

    /// The attention of `work`'s next block as every backend takes it (its input, the block's
    /// weights and the run's options), for another backend to compute ([`Model::work_layer_with`]);
    /// `None` once every block has run. A block part of the way through its MLP is finished
    /// first (its output is the next block's input).
    pub fn next_attention(&self, work: &mut LayeredWork) -> Result<Option<Config>, ConfigError> {
        if let Some(open) = work.open.take() {
            self.finish_open(work, open);
        }
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
    /// the [`Model::next_attention`] it was given), its MLP here (in pieces, as
    /// [`Model::work_piece`] runs them, when it is large); computed here instead when it does
    /// not fit. `true` once every block has run.
    pub fn work_layer_with(
        &self,
        work: &mut LayeredWork,
        computed: crate::Computed,
        backend: Backend,
    ) -> Result<bool, ConfigError> {
        if let Some(open) = work.open.take() {
            self.finish_open(work, open);
        }
        let given = Some(Box::new((computed, backend)));
        let open = self.open_layer(
            &work.pass,
            &mut LayerSource::Attention(given, Some(&mut work.kept)),
        )?;
        if let Some(open) = open {
            self.opened(work, open);
        }
        Ok(work.pass.layers.len() >= self.blocks.len())
    }

    /// A block whose attention just ran: closed with its MLP when that is one piece, else left
    /// open with its MLP's pieces to run.
    fn opened(&self, work: &mut LayeredWork, mut open: OpenLayer) {
        let block = &self.blocks[open.index];
        if open.mlp.is_none() {
            let rows = open.after_attention.nrows();
            match block.mlp.piece_width(rows, work.piece_macs) {
                Some(width) => {
                    open.pieces = Some(block.mlp_pieces(open.after_attention.view(), width))
                }
                None => open.mlp = Some(block.mlp_of(open.after_attention.view())),
            }
        }
        if open.pieces.is_some() {
            work.open = Some(open);
        } else {
            self.finish_open(work, open);
        }
    }

    /// The next slice of the open block's MLP; the block closed after its last.
    fn mlp_piece(&self, work: &mut LayeredWork, mut open: OpenLayer) {
        let block = &self.blocks[open.index];
        if let Some(pieces) = &mut open.pieces {
            block.mlp.add_piece(pieces);
            if pieces.next < block.mlp.hidden() {
                work.open = Some(open);
                return;
            }
        }
        self.finish_open(work, open);
    }

    /// Closes the open block, running whatever of its MLP has not run.
    fn finish_open(&self, work: &mut LayeredWork, mut open: OpenLayer) {
        let block = &self.blocks[open.index];
        let mlp = match (open.mlp.take(), open.pieces.take()) {
            (Some(mlp), _) => mlp,
            (None, Some(mut pieces)) => {
                while pieces.next < block.mlp.hidden() {
                    block.mlp.add_piece(&mut pieces);
                }
                block.mlp_finish(pieces)
            }
            (None, None) => block.mlp_of(open.after_attention.view()),
        };
        self.close_layer(&mut work.pass, open, mlp, Some(&mut work.kept));
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
