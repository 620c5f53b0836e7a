//! How a model is run (the lab's controls that act on every layer's attention), and every number
//! of one forward pass.

use ndarray::Array2;

use crate::math::mask::MaskSpec;
use crate::math::scoring::Shaping;
use crate::pipeline::knockout::HeadKnockout;
use crate::pipeline::roles::{HeadRoles, roles};
use crate::pipeline::trace::Trace;

/// How to run the model: the lab's controls that act on every layer's attention.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRun {
    /// Causal by default: the models were trained never to look ahead. Another mask lets a student see
    /// what happens when it does, or cannot look back.
    pub mask: MaskSpec,
    pub temperature: f64,
    /// FlashAttention's tile size; `None`: chosen from the input.
    pub block: (Option<usize>, Option<usize>),
    /// The score options (a soft-cap, QK-norm, sink logits) on every layer; its positions stay
    /// the learned absolute ones.
    pub shaping: Shaping,
    /// Heads switched off, each layer's output recomputed without them (empty: none).
    pub ablate: Vec<HeadKnockout>,
}

impl Default for ModelRun {
    fn default() -> Self {
        Self {
            mask: MaskSpec::Causal,
            temperature: 1.0,
            block: (None, None),
            shaping: Shaping::default(),
            ablate: Vec::new(),
        }
    }
}

impl ModelRun {
    /// This run on the last tokens of a text of `whole` tokens, `dropped` before them (the
    /// window [`crate::models::Model::read`] reads): a custom mask given for the whole text cut to
    /// the window, a padding mask's length moved with it.
    pub fn windowed(&self, whole: usize, dropped: usize) -> Self {
        let mut run = self.clone();
        if dropped > 0 {
            run.mask = match run.mask {
                MaskSpec::Custom { allowed } if allowed.dim() == (whole, whole) => {
                    MaskSpec::Custom {
                        allowed: allowed.slice(ndarray::s![dropped.., dropped..]).to_owned(),
                    }
                }
                MaskSpec::Padding { valid_len } => MaskSpec::Padding {
                    valid_len: valid_len.saturating_sub(dropped),
                },
                other => other,
            };
        }
        run
    }
}

/// One block as it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct ForwardLayer {
    /// [seq_len, d_model]: the residual stream entering the block.
    pub residual_in: Array2<f32>,
    /// The block's attention, as the lab traces a Pre-LN block: its input is residual_in, its
    /// `attention_input` LN₁(x), its `projected` Attn(LN₁(x)) (c_proj and its bias included),
    /// its `output` x + Attn(LN₁(x)).
    pub attention: Trace,
    /// x + Attn(LN₁(x))
    pub after_attention: Array2<f32>,
    /// MLP(LN₂(x)), [seq_len, d_model]
    pub mlp: Array2<f32>,
    /// [seq_len, d_model]: the residual stream leaving the block.
    pub residual_out: Array2<f32>,
}

/// Every number of one forward pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Forward {
    pub tokens: Vec<String>,
    pub ids: Vec<u32>,
    /// The characters of the text before the ones read here (0 unless the text is longer than
    /// the model's context; see [`crate::models::Model::read`]).
    pub dropped: usize,
    /// [seq_len, d_model]: token_embedding of each token.
    pub embeddings: Array2<f32>,
    /// [seq_len, d_model]: position_embedding of each position.
    pub positions: Array2<f32>,
    pub layers: Vec<ForwardLayer>,
    /// [seq_len, d_model]: the final LayerNorm of the residual stream, from which
    /// [`crate::models::Model::logits`] scores the next token after each position.
    pub final_norm: Array2<f32>,
    /// The heads this pass ran with knocked out (empty: none).
    pub knocked: Vec<HeadKnockout>,
    /// [`Forward::head_roles`], measured once for every view that asks.
    pub roles: Kept<Vec<Vec<HeadRoles>>>,
}

/// Something measured from a pass on first asking and kept with it: not part of what the pass
/// is (two passes with the same numbers are equal whether or not either was asked).
#[derive(Debug, Clone, Default)]
pub struct Kept<T>(std::sync::OnceLock<T>);

impl<T> PartialEq for Kept<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Forward {
    /// Layer `layer`'s attention with FlashAttention's steps recorded (for the step-by-step view).
    pub fn layer_trace(&self, layer: usize) -> Trace {
        let layer = layer.min(self.layers.len() - 1);
        let mut trace = self.layers[layer].attention.clone();
        trace.record_flash_steps();
        trace
    }
}

impl Forward {
    /// [layers][heads] role shares on this input (measured on first asking, then kept).
    pub fn head_roles(&self) -> Vec<Vec<HeadRoles>> {
        self.roles
            .0
            .get_or_init(|| {
                self.layers
                    .iter()
                    .map(|layer| {
                        // A linear layer's A is not a distribution: no shares, no role.
                        let linear = layer.attention.config.linear().is_some();
                        layer
                            .attention
                            .heads
                            .iter()
                            .map(|head| {
                                if linear {
                                    HeadRoles::default()
                                } else {
                                    roles(head.weights.view(), &self.ids)
                                }
                            })
                            .collect()
                    })
                    .collect()
            })
            .clone()
    }
}

/// How a model treats a string typed twice, the classic probe of induction heads (Olsson et al.,
/// 2022): in the second copy, the weight each head gives the key right after the earlier
/// occurrence of the query's own token, and how often the model's likeliest next token is the
/// one the first copy says comes next.
#[derive(Debug, Clone, PartialEq)]
pub struct Repetition {
    /// [layers][heads]: the mean weight on the earlier occurrence's successor, over the queries
    /// of the second copy.
    pub induction: Vec<Vec<f32>>,
    /// The share of the second copy's positions (its last excepted) whose top prediction is the
    /// next token of the string.
    pub copied: f32,
}

impl Forward {
    /// The probe on a forward pass over `period` tokens followed by the same `period` tokens
    /// (`logits`: the model's next-token scores at every position). `None` unless the text is
    /// exactly a string of `period ≥ 2` tokens typed twice.
    pub fn repetition(&self, period: usize, logits: &Array2<f32>) -> Option<Repetition> {
        let n = self.ids.len();
        if period < 2 || n != 2 * period || self.ids[..period] != self.ids[period..] {
            return None;
        }
        let queries = period..n;
        let induction = self
            .layers
            .iter()
            .map(|layer| {
                // A hybrid's linear layer has no weights to copy with (its A is not one).
                let linear = layer.attention.config.linear().is_some();
                layer
                    .attention
                    .heads
                    .iter()
                    .map(|head| {
                        if linear {
                            return 0.0;
                        }
                        queries
                            .clone()
                            .map(|i| head.weights[[i, i - period + 1]])
                            .sum::<f32>()
                            / period as f32
                    })
                    .collect()
            })
            .collect();
        let hits = (period..n - 1)
            .filter(|&i| {
                let row = logits.row(i);
                let best = (0..row.len()).max_by(|&a, &b| row[a].total_cmp(&row[b]));
                best == Some(self.ids[i + 1] as usize)
            })
            .count();
        Some(Repetition {
            induction,
            copied: hits as f32 / (period - 1) as f32,
        })
    }
}

/// The heads of `layer` in `knocked`, each once (the first entry for a head counts), as
/// [`Trace::knock_out`] takes them.
pub fn knocked_in(
    knocked: &[HeadKnockout],
    layer: usize,
) -> Vec<(usize, crate::pipeline::knockout::Knockout)> {
    let mut heads: Vec<(usize, crate::pipeline::knockout::Knockout)> = Vec::new();
    for k in knocked.iter().filter(|k| k.layer == layer) {
        if !heads.iter().any(|&(h, _)| h == k.head) {
            heads.push((k.head, k.how));
        }
    }
    heads
}
