//! A model's parameters as a layout's loader gives them: its embeddings, its blocks (each with
//! the layout's own MLP) and its final norm.

use std::sync::Arc;

use ndarray::Array2;

use crate::models::stored::Stored;

use crate::math::linear::{LinearWeights, OutputGate};
use crate::math::norm::Norm;
use crate::math::scoring::QkGain;
use crate::math::weights::Weights;

/// One block's parameters: its two norms (LayerNorm or RMSNorm), its attention as the lab's
/// [`Weights`] (GPT-2's Q, K and V taken apart from c_attn; Llama's projections transposed to
/// the lab's x · W), its MLP.
#[derive(Debug, Clone, PartialEq)]
pub struct Block<M> {
    pub attention_norm: Norm,
    /// Shared with every layer config made from it (a forward pass copies no weights).
    pub attention: Arc<Weights>,
    /// Qwen3's QK-norm (its learned γ for q and k, and ε); `None` for the other layouts.
    pub qk_norm: Option<QkGain>,
    pub mlp_norm: Norm,
    pub mlp: M,
    /// Gemma's sandwich norms: on the attention's output and on the MLP's, each before it joins
    /// the residual stream; `None` for the other layouts.
    pub post_attention_norm: Option<Norm>,
    pub post_mlp_norm: Option<Norm>,
    /// A hybrid's Gated DeltaNet layer: its β, α and short convolution (its q, k, v in
    /// `attention`); `None`: softmax attention.
    pub linear: Option<Arc<LinearWeights>>,
    /// The gate on each head's output before W_O (Qwen3-Next's two kinds); `None`: none.
    pub gate: Option<Arc<OutputGate>>,
}

/// Everything a model holds but its numbers' description: what a loader reads from the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Parts<M> {
    /// [vocab_size, d_model], in its file's number type.
    pub token_embedding: Stored,
    /// [context, d_model]: learned positions; `None` when the layout adds none.
    pub position_embedding: Option<Array2<f32>>,
    pub blocks: Vec<Block<M>>,
    pub final_norm: Norm,
    /// [vocab_size, d_model]: the LM head when it is not the token embedding (an untied
    /// Llama); `None` when tied.
    pub lm_head: Option<Stored>,
}

impl<M> Parts<M> {
    /// The same parts with each block's MLP turned into another type.
    pub fn map_mlp<N>(self, f: impl Fn(M) -> N) -> Parts<N> {
        Parts {
            token_embedding: self.token_embedding,
            position_embedding: self.position_embedding,
            blocks: self
                .blocks
                .into_iter()
                .map(|b| Block {
                    attention_norm: b.attention_norm,
                    attention: b.attention,
                    qk_norm: b.qk_norm,
                    mlp_norm: b.mlp_norm,
                    mlp: f(b.mlp),
                    post_attention_norm: b.post_attention_norm,
                    post_mlp_norm: b.post_mlp_norm,
                    linear: b.linear,
                    gate: b.gate,
                })
                .collect(),
            final_norm: self.final_norm,
            lm_head: self.lm_head,
        }
    }
}
