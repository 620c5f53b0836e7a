//! A trained decoder-only Transformer, run forward with every intermediate kept, in either of two
//! layouts. Tokens are characters.
//!
//! - **GPT-2** (Radford et al., 2019): token and learned position embeddings; pre-LN blocks
//!   x = x + Attn(LN₁(x)); x = x + MLP(LN₂(x)) with a GELU MLP and biases; a final LayerNorm.
//! - **Llama** (Touvron et al., 2023; the layout of today's open models): token embeddings only;
//!   RMSNorm before attention and MLP; rotary positions (RoPE, "half" pairing) on each head's q
//!   and k; grouped-query attention (several query heads read one K/V head); a SwiGLU MLP; no
//!   biases; a final RMSNorm.
//!
//! In both the LM head is tied to the token embedding, and each layer's attention is the lab's
//! own: a [`Config`] whose input is the normed residual stream, whose weights are the layer's
//! W_Q, W_K, W_V, W_O (with GPT-2's biases), whose positions are RoPE for Llama, under the mask
//! and temperature the user chose, computed by [`crate::compute_trace`]. So the views, the
//! tooltips and FlashAttention work on a trained model's heads exactly as on random ones.

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, s};

use crate::config::{Config, Input, LayerNormMode, Params};
use crate::error::ConfigError;
use crate::layer_norm::Norm;
use crate::mask::MaskSpec;
use crate::scoring::{Pairing, Position, Shaping};
use crate::trace::{FlashDetail, Trace, compute_trace_with};
use crate::weights::{Biases, Weights};

/// The token for characters outside the vocabulary.
pub const UNK: &str = "<unk>";

/// The two layouts a trained model may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Learned positions, LayerNorm, GELU, biases, one K/V head per head.
    Gpt2,
    /// RoPE, RMSNorm, SwiGLU, grouped-query attention, no biases.
    Llama,
}

impl Layout {
    /// The name a request gives it: `"trained"` (GPT-2, the lab's first model) or `"llama"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Gpt2 => "trained",
            Self::Llama => "llama",
        }
    }
}

/// A model's hyper-parameters (GPT-2's `config.json` names; Llama's are read into them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GptShape {
    pub n_layer: usize,
    pub n_head: usize,
    pub n_embd: usize,
    /// The longest input.
    pub n_positions: usize,
    pub vocab_size: usize,
    /// K/V heads: n_head for GPT-2, fewer with grouped-query attention.
    pub n_kv_head: usize,
    /// The MLP's hidden width: 4·n_embd for GPT-2, Llama's `intermediate_size`.
    pub n_inner: usize,
    pub layout: Layout,
    /// RoPE's base θ (Llama's `rope_theta`; unused by GPT-2).
    pub rope_theta: f64,
}

impl GptShape {
    /// GPT-2's shape: one K/V head per head, an MLP four times as wide as the model.
    pub fn gpt2(
        n_layer: usize,
        n_head: usize,
        n_embd: usize,
        n_positions: usize,
        vocab_size: usize,
    ) -> Self {
        Self {
            n_layer,
            n_head,
            n_embd,
            n_positions,
            vocab_size,
            n_kv_head: n_head,
            n_inner: 4 * n_embd,
            layout: Layout::Gpt2,
            rope_theta: 0.0,
        }
    }

    /// Each head's width, d_k = d_v.
    pub fn d_head(&self) -> usize {
        self.n_embd / self.n_head.max(1)
    }
}

/// A block's MLP.
#[derive(Debug, Clone, PartialEq)]
pub enum Mlp {
    /// GPT-2: GELU(x · c_fc + b) · c_proj + b; c_fc [n_embd, n_inner], c_proj [n_inner, n_embd].
    Gelu {
        c_fc: (Array2<f32>, Array1<f32>),
        c_proj: (Array2<f32>, Array1<f32>),
    },
    /// Llama: (SiLU(x · gate) ⊙ (x · up)) · down; gate, up [n_embd, n_inner], down [n_inner,
    /// n_embd].
    SwiGlu {
        gate: Array2<f32>,
        up: Array2<f32>,
        down: Array2<f32>,
    },
}

impl Mlp {
    /// The MLP of the normed rows `x` [seq_len, n_embd].
    pub fn apply(&self, x: ArrayView2<f32>) -> Array2<f32> {
        match self {
            Self::Gelu { c_fc, c_proj } => {
                let mut hidden = x.dot(&c_fc.0);
                hidden += &c_fc.1;
                hidden.mapv_inplace(gelu);
                let mut out = hidden.dot(&c_proj.0);
                out += &c_proj.1;
                out
            }
            Self::SwiGlu { gate, up, down } => {
                let mut hidden = x.dot(gate);
                hidden.mapv_inplace(silu);
                hidden *= &x.dot(up);
                hidden.dot(down)
            }
        }
    }

    fn parameter_count(&self) -> usize {
        match self {
            Self::Gelu { c_fc, c_proj } => {
                c_fc.0.len() + c_fc.1.len() + c_proj.0.len() + c_proj.1.len()
            }
            Self::SwiGlu { gate, up, down } => gate.len() + up.len() + down.len(),
        }
    }
}

/// One block's parameters: its two norms (LayerNorm or RMSNorm), its attention as the lab's
/// [`Weights`] (GPT-2's Q, K and V taken apart from c_attn; Llama's projections transposed to
/// the lab's x · W), its MLP.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub ln_1: Norm,
    pub attention: Weights,
    pub ln_2: Norm,
    pub mlp: Mlp,
}

/// A trained model and its vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub struct Gpt {
    pub shape: GptShape,
    pub epsilon: f32,
    /// The characters, index = id; id 0 is [`UNK`].
    pub vocab: Vec<String>,
    index: std::collections::HashMap<char, u32>,
    /// [vocab_size, n_embd]
    pub wte: Array2<f32>,
    /// [n_positions, n_embd]: GPT-2's learned positions; `None` for Llama (RoPE).
    pub wpe: Option<Array2<f32>>,
    pub blocks: Vec<Block>,
    pub ln_f: Norm,
}

/// What can be wrong with a model's files.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("the model file is not safetensors: {0}")]
    Format(String),
    #[error("the model file lacks {0}")]
    Missing(String),
    #[error("{name}: expected shape {expected:?}, found {found:?}")]
    Shape {
        name: String,
        expected: Vec<usize>,
        found: Vec<usize>,
    },
    #[error("config.json: {0}")]
    Config(String),
    #[error("vocab.json: {0}")]
    Vocab(String),
}

impl Gpt {
    /// A GPT-2 from its parts. `c_attn` is GPT-2's [n_embd, 3·n_embd] Conv1D weight with Q, K
    /// and V side by side (and its [3·n_embd] bias); the tensors come by Hugging Face's names.
    pub fn new(
        shape: GptShape,
        epsilon: f32,
        vocab: Vec<String>,
        tensor: &mut Source,
    ) -> Result<Self, ModelError> {
        let GptShape {
            n_layer,
            n_embd: d,
            n_positions,
            vocab_size,
            ..
        } = shape;
        check_shape(&shape, &vocab)?;
        let wte = matrix(tensor, "wte.weight", vocab_size, d)?;
        let wpe = matrix(tensor, "wpe.weight", n_positions, d)?;
        let ln_f = norm(tensor, "ln_f", d, epsilon)?;
        let mut blocks = Vec::with_capacity(n_layer);
        for i in 0..n_layer {
            let name = |part: &str| format!("h.{i}.{part}");
            let c_attn = matrix(tensor, &name("attn.c_attn.weight"), d, 3 * d)?;
            let c_attn_b = vector(tensor, &name("attn.c_attn.bias"), 3 * d)?;
            let attention = Weights {
                w_q: c_attn.slice(s![.., 0..d]).to_owned(),
                w_k: c_attn.slice(s![.., d..2 * d]).to_owned(),
                w_v: c_attn.slice(s![.., 2 * d..3 * d]).to_owned(),
                w_o: matrix(tensor, &name("attn.c_proj.weight"), d, d)?,
                biases: Some(Biases {
                    q: c_attn_b.slice(s![0..d]).to_owned(),
                    k: c_attn_b.slice(s![d..2 * d]).to_owned(),
                    v: c_attn_b.slice(s![2 * d..3 * d]).to_owned(),
                    o: vector(tensor, &name("attn.c_proj.bias"), d)?,
                }),
            };
            blocks.push(Block {
                ln_1: norm(tensor, &name("ln_1"), d, epsilon)?,
                attention,
                ln_2: norm(tensor, &name("ln_2"), d, epsilon)?,
                mlp: Mlp::Gelu {
                    c_fc: (
                        matrix(tensor, &name("mlp.c_fc.weight"), d, shape.n_inner)?,
                        vector(tensor, &name("mlp.c_fc.bias"), shape.n_inner)?,
                    ),
                    c_proj: (
                        matrix(tensor, &name("mlp.c_proj.weight"), shape.n_inner, d)?,
                        vector(tensor, &name("mlp.c_proj.bias"), d)?,
                    ),
                },
            });
        }
        Ok(Self::assemble(
            shape,
            epsilon,
            vocab,
            wte,
            Some(wpe),
            blocks,
            ln_f,
        ))
    }

    /// A Llama from its parts, by Hugging Face's `LlamaForCausalLM` tensor names (PyTorch's
    /// `Linear` layout, [out, in], transposed here to the lab's x · W).
    pub fn llama(
        shape: GptShape,
        epsilon: f32,
        vocab: Vec<String>,
        tensor: &mut Source,
    ) -> Result<Self, ModelError> {
        let GptShape {
            n_layer,
            n_embd: d,
            n_inner,
            vocab_size,
            ..
        } = shape;
        check_shape(&shape, &vocab)?;
        let d_head = shape.d_head();
        if d_head % 2 == 1 {
            return Err(ModelError::Config(format!(
                "head_dim {d_head} is odd: RoPE turns pairs of dimensions"
            )));
        }
        let q_width = shape.n_head * d_head;
        let kv_width = shape.n_kv_head * d_head;
        let wte = matrix(tensor, "model.embed_tokens.weight", vocab_size, d)?;
        let rms = |tensor: &mut Source, name: &str| -> Result<Norm, ModelError> {
            Ok(Norm::rms(vector(tensor, name, d)?, epsilon))
        };
        // [out, in] in the file, [in, out] in the lab.
        let linear = |tensor: &mut Source, name: &str, out: usize, inp: usize| {
            matrix(tensor, name, out, inp)
                .map(|w| w.reversed_axes().as_standard_layout().to_owned())
        };
        let ln_f = rms(tensor, "model.norm.weight")?;
        let mut blocks = Vec::with_capacity(n_layer);
        for i in 0..n_layer {
            let name = |part: &str| format!("model.layers.{i}.{part}");
            blocks.push(Block {
                ln_1: rms(tensor, &name("input_layernorm.weight"))?,
                attention: Weights {
                    w_q: linear(tensor, &name("self_attn.q_proj.weight"), q_width, d)?,
                    w_k: linear(tensor, &name("self_attn.k_proj.weight"), kv_width, d)?,
                    w_v: linear(tensor, &name("self_attn.v_proj.weight"), kv_width, d)?,
                    w_o: linear(tensor, &name("self_attn.o_proj.weight"), d, q_width)?,
                    biases: None,
                },
                ln_2: rms(tensor, &name("post_attention_layernorm.weight"))?,
                mlp: Mlp::SwiGlu {
                    gate: linear(tensor, &name("mlp.gate_proj.weight"), n_inner, d)?,
                    up: linear(tensor, &name("mlp.up_proj.weight"), n_inner, d)?,
                    down: linear(tensor, &name("mlp.down_proj.weight"), d, n_inner)?,
                },
            });
        }
        Ok(Self::assemble(
            shape, epsilon, vocab, wte, None, blocks, ln_f,
        ))
    }

    fn assemble(
        shape: GptShape,
        epsilon: f32,
        vocab: Vec<String>,
        wte: Array2<f32>,
        wpe: Option<Array2<f32>>,
        blocks: Vec<Block>,
        ln_f: Norm,
    ) -> Self {
        let index = vocab
            .iter()
            .enumerate()
            .filter_map(|(id, token)| {
                let mut chars = token.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Some((c, id as u32)),
                    _ => None,
                }
            })
            .collect();
        Self {
            shape,
            epsilon,
            vocab,
            index,
            wte,
            wpe,
            blocks,
            ln_f,
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
        self.wte.len()
            + self.wpe.as_ref().map_or(0, Array2::len)
            + norm(&self.ln_f)
            + self
                .blocks
                .iter()
                .map(|b| {
                    norm(&b.ln_1) + norm(&b.ln_2) + weights(&b.attention) + b.mlp.parameter_count()
                })
                .sum::<usize>()
    }

    /// The text as the model reads it: full-width letters and digits as ASCII, runs of spaces and
    /// tabs as one space, at most two line breaks in a row (as in training); then one token per
    /// character, [`UNK`] for characters outside the vocabulary.
    pub fn tokenize(&self, text: &str) -> Vec<(String, u32)> {
        normalise(text)
            .chars()
            .map(|c| match self.index.get(&c) {
                Some(&id) => (c.to_string(), id),
                None => (c.to_string(), 0),
            })
            .collect()
    }

    /// Runs the model on `ids` (at most `n_positions`) with every layer's attention under `run`'s
    /// mask and temperature. Each layer's attention is traced without FlashAttention's steps
    /// (see [`GptForward::layer_trace`] for one layer with them).
    pub fn forward(
        &self,
        tokens: &[String],
        ids: &[u32],
        run: &GptRun,
    ) -> Result<GptForward, ConfigError> {
        let n = ids.len();
        if n == 0 {
            return Err(ConfigError::EmptyInput { field: "sentence" });
        }
        if n > self.shape.n_positions {
            return Err(ConfigError::TooManyTokens {
                field: "sentence",
                count: n,
                max: self.shape.n_positions,
            });
        }
        let d = self.shape.n_embd;
        let embeddings = Array2::from_shape_fn((n, d), |(i, j)| self.wte[[ids[i] as usize, j]]);
        // Llama adds no position vector: RoPE turns q and k inside attention.
        let positions = match &self.wpe {
            Some(wpe) => wpe.slice(s![0..n, ..]).to_owned(),
            None => Array2::zeros((n, d)),
        };
        let mut x = &embeddings + &positions;
        let mut layers = Vec::with_capacity(self.blocks.len());
        for (index, block) in self.blocks.iter().enumerate() {
            let residual_in = x.clone();
            let parts = (index == 0).then(|| (embeddings.clone(), positions.clone()));
            let config = self.layer_config(index, tokens, residual_in.clone(), parts, run)?;
            let attention = compute_trace_with(&config, FlashDetail::OutputOnly);
            // The lab's Pre-LN block: its output is x + Attn(LN₁(x)).
            let after_attention = attention.output.clone();
            let normed = block.ln_2.apply(after_attention.view());
            let mlp = block.mlp.apply(normed.view());
            x = &after_attention + &mlp;
            layers.push(GptLayer {
                residual_in,
                attention,
                after_attention,
                mlp,
                residual_out: x.clone(),
            });
        }
        let final_norm = self.ln_f.apply(x.view());
        Ok(GptForward {
            tokens: tokens.to_vec(),
            ids: ids.to_vec(),
            dropped: 0,
            embeddings,
            positions,
            layers,
            final_norm,
        })
    }

    /// Runs the model on `text` as it reads it: one token per character, and of a text longer
    /// than its context only the last `n_positions` characters (the window a model slides over
    /// a long text; [`GptForward::dropped`] says how many came before it). A custom mask given
    /// for the whole text is cut to the window, a padding mask's length moved with it.
    pub fn read(&self, text: &str, run: &GptRun) -> Result<GptForward, ConfigError> {
        let pairs = self.tokenize(text);
        let whole = pairs.len();
        let dropped = whole.saturating_sub(self.shape.n_positions);
        let (tokens, ids): (Vec<String>, Vec<u32>) = pairs.into_iter().skip(dropped).unzip();
        let mut run = run.clone();
        if dropped > 0 {
            run.mask = match run.mask {
                MaskSpec::Custom { allowed } if allowed.dim() == (whole, whole) => {
                    MaskSpec::Custom {
                        allowed: allowed.slice(s![dropped.., dropped..]).to_owned(),
                    }
                }
                MaskSpec::Padding { valid_len } => MaskSpec::Padding {
                    valid_len: valid_len.saturating_sub(dropped),
                },
                other => other,
            };
        }
        let mut forward = self.forward(&tokens, &ids, &run)?;
        forward.dropped = dropped;
        Ok(forward)
    }

    /// The next-token scores after `position` of `forward`: LN_f(x) · wteᵀ, [vocab_size]. Computed
    /// on demand (one row costs n_embd × vocab_size multiply-adds; every row at 128 characters
    /// would be most of a forward pass, and a view shows one position at a time).
    pub fn logits(&self, forward: &GptForward, position: usize) -> Array1<f32> {
        self.wte.dot(&forward.final_norm.row(position))
    }

    /// The next-token scores after every position, [seq_len, vocab_size].
    pub fn all_logits(&self, forward: &GptForward) -> Array2<f32> {
        forward.final_norm.dot(&self.wte.t())
    }

    /// The `k` most likely next tokens after `position`, most likely first.
    pub fn predictions(&self, forward: &GptForward, position: usize, k: usize) -> Vec<Prediction> {
        top_k(self.logits(forward, position).view(), k)
    }

    /// The attention of block `index` as one of the lab's Pre-LN blocks: input x (the residual
    /// stream; for the first block embeddings plus positions), LN₁ (or RMSNorm) with its learned
    /// γ and β, the block's weights and biases, its K/V heads, RoPE for Llama, the run's mask and
    /// temperature; its output x + Attn(LN₁(x)).
    fn layer_config(
        &self,
        index: usize,
        tokens: &[String],
        x: Array2<f32>,
        parts: Option<(Array2<f32>, Array2<f32>)>,
        run: &GptRun,
    ) -> Result<Config, ConfigError> {
        let block = &self.blocks[index];
        let mut shaping = run.shaping.clone();
        if self.shape.layout == Layout::Llama {
            shaping.position = Position::Rope {
                base: self.shape.rope_theta,
                pairing: Pairing::Half,
            };
        }
        Params {
            input: Input::Vectors {
                tokens: tokens.to_vec(),
                x,
                parts,
            },
            n_heads: self.shape.n_head,
            n_kv_heads: Some(self.shape.n_kv_head),
            d_k: Some(self.shape.d_head()),
            temperature: run.temperature,
            mask: run.mask.clone(),
            weights: Some(block.attention.clone()),
            block_rows: run.block.0,
            block_cols: run.block.1,
            layer_norm: LayerNormMode::Pre,
            norm: Some(block.ln_1.clone()),
            model_layer: Some(index),
            trace: true,
            shaping,
            ..Params::sentence("")
        }
        .validate()
    }
}

/// The tensor `name` of a model file, [rows, cols].
type Source<'a> = dyn FnMut(&str, &[usize]) -> Result<Vec<f32>, ModelError> + 'a;

fn matrix(
    tensor: &mut Source,
    name: &str,
    rows: usize,
    cols: usize,
) -> Result<Array2<f32>, ModelError> {
    let values = tensor(name, &[rows, cols])?;
    Array2::from_shape_vec((rows, cols), values).map_err(|e| ModelError::Format(e.to_string()))
}

fn vector(tensor: &mut Source, name: &str, len: usize) -> Result<Array1<f32>, ModelError> {
    Ok(Array1::from(tensor(name, &[len])?))
}

fn norm(tensor: &mut Source, prefix: &str, len: usize, epsilon: f32) -> Result<Norm, ModelError> {
    Ok(Norm {
        epsilon,
        affine: Some((
            vector(tensor, &format!("{prefix}.weight"), len)?,
            vector(tensor, &format!("{prefix}.bias"), len)?,
        )),
        rms: false,
    })
}

/// The vocabulary's length and the heads agree with the shape.
fn check_shape(shape: &GptShape, vocab: &[String]) -> Result<(), ModelError> {
    let GptShape {
        n_head,
        n_kv_head,
        n_embd: d,
        vocab_size,
        ..
    } = *shape;
    if vocab.len() != vocab_size {
        return Err(ModelError::Vocab(format!(
            "{} tokens, config.json says {vocab_size}",
            vocab.len()
        )));
    }
    if n_head == 0 || d % n_head != 0 {
        return Err(ModelError::Config(format!(
            "n_embd {d} is not a multiple of n_head {n_head}"
        )));
    }
    if n_kv_head == 0 || n_head % n_kv_head != 0 {
        return Err(ModelError::Config(format!(
            "{n_head} query heads cannot be shared evenly by {n_kv_head} K/V heads"
        )));
    }
    Ok(())
}

/// How to run the model: the lab's controls that act on every layer's attention.
#[derive(Debug, Clone, PartialEq)]
pub struct GptRun {
    /// Causal by default: GPT-2 was trained never to look ahead. Another mask lets a student see
    /// what happens when it does, or cannot look back.
    pub mask: MaskSpec,
    pub temperature: f64,
    /// FlashAttention's tile size; `None`: chosen from the input.
    pub block: (Option<usize>, Option<usize>),
    /// The score options (a soft-cap, QK-norm, sink logits) on every layer; its positions stay
    /// the learned absolute ones.
    pub shaping: Shaping,
}

impl Default for GptRun {
    fn default() -> Self {
        Self {
            mask: MaskSpec::Causal,
            temperature: 1.0,
            block: (None, None),
            shaping: Shaping::default(),
        }
    }
}

/// One block as it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct GptLayer {
    /// [seq_len, n_embd]: the residual stream entering the block.
    pub residual_in: Array2<f32>,
    /// The block's attention, as the lab traces a Pre-LN block: its input is residual_in, its
    /// `attention_input` LN₁(x), its `projected` Attn(LN₁(x)) (c_proj and its bias included),
    /// its `output` x + Attn(LN₁(x)).
    pub attention: Trace,
    /// x + Attn(LN₁(x))
    pub after_attention: Array2<f32>,
    /// MLP(LN₂(x)), [seq_len, n_embd]
    pub mlp: Array2<f32>,
    /// [seq_len, n_embd]: the residual stream leaving the block.
    pub residual_out: Array2<f32>,
}

/// One next token and its probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    pub id: u32,
    pub p: f32,
}

/// Every number of one forward pass.
#[derive(Debug, Clone, PartialEq)]
pub struct GptForward {
    pub tokens: Vec<String>,
    pub ids: Vec<u32>,
    /// The characters of the text before the ones read here (0 unless the text is longer than
    /// the model's context; see [`Gpt::read`]).
    pub dropped: usize,
    /// [seq_len, n_embd]: wte of each token.
    pub embeddings: Array2<f32>,
    /// [seq_len, n_embd]: wpe of each position.
    pub positions: Array2<f32>,
    pub layers: Vec<GptLayer>,
    /// [seq_len, n_embd]: the final LayerNorm of the residual stream, from which
    /// [`Gpt::logits`] scores the next token after each position.
    pub final_norm: Array2<f32>,
}

impl GptForward {
    /// Layer `layer`'s attention with FlashAttention's steps recorded (for the step-by-step view).
    pub fn layer_trace(&self, layer: usize) -> Trace {
        crate::trace::compute_trace(
            &self.layers[layer.min(self.layers.len() - 1)]
                .attention
                .config,
        )
    }
}

/// The `k` largest entries of `logits`, as softmax probabilities over all of them.
pub fn top_k(logits: ArrayView1<f32>, k: usize) -> Vec<Prediction> {
    let max = logits.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
    let sum: f64 = logits.iter().map(|&v| f64::from((v - max).exp())).sum();
    // One pass keeping the k best, most likely first (ties: the smaller id), instead of sorting
    // the whole vocabulary at every position.
    let mut best: Vec<usize> = Vec::with_capacity(k + 1);
    for (id, &v) in logits.iter().enumerate() {
        if best.len() == k && best.last().is_none_or(|&last| v <= logits[last]) {
            continue;
        }
        let at = best.partition_point(|&b| logits[b] >= v);
        best.insert(at, id);
        best.truncate(k);
    }
    best.into_iter()
        .map(|id| Prediction {
            id: id as u32,
            p: (f64::from((logits[id] - max).exp()) / sum) as f32,
        })
        .collect()
}

/// The next token to append after a position whose logits are `logits`: the most likely one when
/// `sampling` is 0 (greedy), otherwise one drawn from softmax(logits / `sampling`) over the whole
/// vocabulary, `draw` ∈ [0, 1) choosing where on the cumulative distribution. `<unk>` (id 0) is
/// never chosen: it would append nothing readable.
pub fn sample_next(logits: ArrayView1<f32>, sampling: f64, draw: f64) -> Option<u32> {
    let candidates = || logits.iter().enumerate().skip(1);
    let (best, &max) = candidates().max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))?;
    if sampling <= 0.0 || !sampling.is_finite() {
        return Some(best as u32);
    }
    let weights: Vec<(usize, f64)> = candidates()
        .map(|(id, &v)| (id, (f64::from(v - max) / sampling).exp()))
        .collect();
    let total: f64 = weights.iter().map(|w| w.1).sum();
    let mut left = draw.clamp(0.0, 1.0) * total;
    for &(id, w) in &weights {
        if left < w {
            return Some(id as u32);
        }
        left -= w;
    }
    Some(best as u32)
}

/// SiLU (swish), Llama's gate: x · σ(x) = x / (1 + e^(−x)).
pub fn silu(x: f32) -> f32 {
    x / (1.0 + crate::fastmath::exp(-x))
}

/// GELU, tanh approximation (GPT-2's `gelu_new`): ½x(1 + tanh u) with u = √(2/π)(x + 0.044715x³),
/// computed as x / (1 + e^(−2u)), the same function with one (vectorisable) exponential instead
/// of a tanh (the MLP's GELUs were a third of a forward pass in wasm, where libm's are software).
pub fn gelu(x: f32) -> f32 {
    const C: f32 = 0.797_884_6; // √(2/π)
    let u = C * (x + 0.044_715 * x * x * x);
    x / (1.0 + crate::fastmath::exp(-2.0 * u))
}

/// The text normalisation the model was trained with.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut newlines = 0;
    let mut space = false;
    for c in text.chars() {
        // Full-width letters and digits (Ａ, ０) as ASCII.
        let c = if ('\u{ff10}'..='\u{ff5a}').contains(&c) && c.is_alphanumeric() {
            char::from_u32(c as u32 - 0xfee0).unwrap_or(c)
        } else {
            c
        };
        match c {
            ' ' | '\t' | '\u{3000}' => space = true,
            _ => {
                if space {
                    out.push(' ');
                    space = false;
                }
                if c == '\n' {
                    newlines += 1;
                    if newlines > 2 {
                        continue;
                    }
                } else {
                    newlines = 0;
                }
                out.push(c);
            }
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// The share of a head's attention on the keys each role names, on this input, all measured on
/// one footing: over the same queries, each key of a query counted in one role only (the first
/// that names it, in the order of the fields), so that the five shares of a row sum to its
/// weight (1, or 0 for a row with every key masked).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HeadRoles {
    /// The share on the token just before the query (i − 1).
    pub previous: f32,
    /// On the tokens right after earlier occurrences of the query's own token.
    pub induction: f32,
    /// On earlier occurrences of the query's own token.
    pub same: f32,
    /// On the first token.
    pub first: f32,
    /// On every other key (the query itself, other earlier keys, later keys without a mask).
    pub other: f32,
    /// How many queries the shares are averaged over, and whether they are the queries whose
    /// token occurred before (where every role can show; all queries after the first when no
    /// token repeats).
    pub queries: usize,
    pub repeated_only: bool,
}

impl GptForward {
    /// [layers][heads] role shares on this input.
    pub fn head_roles(&self) -> Vec<Vec<HeadRoles>> {
        self.layers
            .iter()
            .map(|layer| {
                layer
                    .attention
                    .heads
                    .iter()
                    .map(|head| roles(head.weights.view(), &self.ids))
                    .collect()
            })
            .collect()
    }
}

/// Which role a key plays for query `i`, in the order of precedence: 0 previous, 1 induction,
/// 2 same, 3 first, 4 other.
fn role_of(ids: &[u32], i: usize, j: usize) -> usize {
    if j + 1 == i {
        0
    } else if j >= 1 && j < i && ids[j - 1] == ids[i] {
        1
    } else if j < i && ids[j] == ids[i] {
        2
    } else if j == 0 {
        3
    } else {
        4
    }
}

/// A head's [`HeadRoles`]: weights [n, n] of one head on tokens `ids`.
pub fn roles(weights: ArrayView2<f32>, ids: &[u32]) -> HeadRoles {
    let n = ids.len().min(weights.nrows());
    let repeated: Vec<usize> = (1..n).filter(|&i| ids[..i].contains(&ids[i])).collect();
    let (queries, repeated_only) = if repeated.is_empty() {
        ((1..n).collect::<Vec<_>>(), false)
    } else {
        (repeated, true)
    };
    let mut sums = [0.0f32; 5];
    for &i in &queries {
        for (j, &w) in weights.row(i).iter().enumerate().take(ids.len()) {
            sums[role_of(ids, i, j)] += w;
        }
    }
    let count = queries.len().max(1) as f32;
    let [previous, induction, same, first, other] = sums.map(|s| s / count);
    HeadRoles {
        previous,
        induction,
        same,
        first,
        other,
        queries: queries.len(),
        repeated_only,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn head_roles_are_shares_of_one_whole_on_one_footing() {
        // "abcab": the queries whose token came before are 3 (a) and 4 (b).
        let ids = [1u32, 2, 3, 1, 2];
        let n = ids.len();
        // A head that puts 0.6 on the induction target, 0.3 on the first token, 0.1 on itself.
        let mut weights = Array2::<f32>::zeros((n, n));
        for i in 0..n {
            weights[[i, i]] = 1.0;
        }
        weights
            .row_mut(3)
            .assign(&array![0.3f32, 0.6, 0.0, 0.1, 0.0]);
        weights
            .row_mut(4)
            .assign(&array![0.3f32, 0.0, 0.6, 0.1, 0.0]);
        let r = roles(weights.view(), &ids);
        assert_eq!((r.queries, r.repeated_only), (2, true));
        // Query 3 (a): key 1 follows the earlier a → induction; key 0 is an earlier a → same
        // (which comes before first). Query 4 (b): key 2 follows the earlier b → induction;
        // key 0 → first; key 3 is the previous token.
        assert!((r.induction - 0.6).abs() < 1e-6, "{r:?}");
        assert!((r.same - 0.15).abs() < 1e-6, "{r:?}");
        assert!((r.first - 0.15).abs() < 1e-6, "{r:?}");
        assert!((r.previous - 0.05).abs() < 1e-6, "{r:?}");
        assert!((r.other - 0.05).abs() < 1e-6, "{r:?}");
        let total = r.previous + r.induction + r.same + r.first + r.other;
        assert!((total - 1.0).abs() < 1e-6, "{total}");
        // Nothing repeats: every query after the first.
        let r = roles(weights.view(), &[1, 2, 3, 4, 5]);
        assert_eq!((r.queries, r.repeated_only), (4, false));
    }

    #[test]
    fn gelu_is_gpt2s_tanh_approximation() {
        for i in -2000..=2000 {
            let x = i as f32 / 100.0;
            let u = 0.797_884_6 * (x + 0.044_715 * x * x * x);
            let tanh_form = 0.5 * x * (1.0 + u.tanh());
            assert!(
                (gelu(x) - tanh_form).abs() <= 1e-6 * x.abs().max(1.0),
                "{x}"
            );
        }
        assert!(gelu(-100.0).abs() < 1e-30);
        assert_eq!(gelu(100.0), 100.0);
    }

    #[test]
    fn top_k_keeps_the_most_likely_first_and_ties_by_id() {
        let logits = array![1.0f32, 3.0, 2.0, 3.0, f32::NEG_INFINITY, 0.5];
        let ids: Vec<u32> = top_k(logits.view(), 3).iter().map(|p| p.id).collect();
        assert_eq!(ids, vec![1, 3, 2]);
        let all = top_k(logits.view(), 10);
        assert_eq!(all.len(), 6);
        let total: f32 = all.iter().map(|p| p.p).sum();
        assert!((total - 1.0).abs() < 1e-6);
        assert!(all.windows(2).all(|w| w[0].p >= w[1].p));
        assert!(top_k(logits.view(), 0).is_empty());
    }

    #[test]
    fn continuing_takes_the_most_likely_or_samples_the_whole_distribution() {
        // id 0 is <unk>: never chosen, even when it is the most likely.
        let logits = array![9.0f32, 2.0, 1.0, 0.0];
        assert_eq!(sample_next(logits.view(), 0.0, 0.99), Some(1), "greedy");
        // softmax([2, 1, 0]) = [0.665, 0.245, 0.090].
        assert_eq!(sample_next(logits.view(), 1.0, 0.1), Some(1));
        assert_eq!(sample_next(logits.view(), 1.0, 0.7), Some(2));
        assert_eq!(sample_next(logits.view(), 1.0, 0.95), Some(3));
        // A low sampling temperature sharpens: the same draw lands on the most likely.
        assert_eq!(sample_next(logits.view(), 0.2, 0.7), Some(1));
        // A high one flattens: it reaches the least likely sooner.
        assert_eq!(sample_next(logits.view(), 100.0, 0.7), Some(3));
        assert_eq!(
            sample_next(array![1.0f32].view(), 1.0, 0.5),
            None,
            "only <unk>: nothing"
        );
    }
}
