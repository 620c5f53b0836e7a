//! The trained models: decoder-only Transformers run forward with every intermediate kept, one
//! file per layout as Hugging Face's `modeling_<layout>.py` and candle-transformers do it, the
//! forward pass shared. Tokens are characters.
//!
//! - [`gpt2`]: learned positions, LayerNorm, a GELU MLP, biases;
//! - [`llama`]: RoPE, RMSNorm, a SwiGLU MLP, grouped-query attention, no biases;
//! - [`gemma`]: Llama's tensors with Gemma 2's and 3's additions (sandwich norms, soft-caps,
//!   sliding layers among full ones, a GELU gate);
//! - [`qwen3_next`]: the hybrid: Gated DeltaNet layers (linear attention with the delta rule)
//!   among gated full-attention ones, RoPE on part of each head;
//! - [`model`]: the parameters of either and the forward pass, whose every layer's attention is
//!   the lab's own traced attention ([`crate::compute_trace`]), so the views, the tooltips and
//!   FlashAttention work on a trained model's heads exactly as on random ones;
//! - [`layout`] says what differs (where positions enter, which norm, whether keys can be cached
//!   before their rotation), [`config`] the numbers every layout has;
//! - [`forward`], [`sampling`], [`text`]: a run's settings and numbers, choosing the next token,
//!   the characters;
//! - [`remote`]: a forward pass computed in another thread (the page's model worker) and put
//!   together where it is shown;
//! - [`generate`] (one character at a time, with a KV cache or without) and [`stream`] (a text
//!   past the context through a rolling cache).

pub mod config;
pub mod forward;
pub mod gemma;
pub mod generate;
pub mod gpt2;
pub mod hf;
pub mod layout;
pub mod llama;
pub mod model;
pub mod parts;
pub mod qwen3_next;
pub mod remote;
pub mod sampling;
pub mod sinks;
pub mod stored;
pub mod stream;
pub mod tensors;
pub mod text;
pub mod tokenizer;

pub use config::ModelConfig;
pub use forward::{Forward, ForwardLayer, ModelRun};
pub use layout::{Layout, Shipped};
pub use model::{Mlp, Model};
pub use parts::{Block, Parts};
pub use sampling::{Prediction, sample_next, top_k};
pub use tensors::ModelError;
pub use text::{UNK, normalise};
pub use tokenizer::Tokenizer;
