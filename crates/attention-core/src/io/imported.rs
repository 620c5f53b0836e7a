//! Attention computed from a user's own Q and K (and V), read from a file by
//! `api::import`: for every layer and head, the scores q·k / (√d · T), the lab's mask, the
//! softmax and, when V is given, the head's output — the same functions the lab's own trace uses
//! ([`crate::math::attention::attend`]) — and FlashAttention's output over the same numbers.

use std::ops::Range;

use ndarray::{Array2, Array4, ArrayView2, Axis};
use serde::{Deserialize, Serialize};

use crate::io::head_roles::{ImportedRoles, RowsAre, head_roles};
use crate::io::import::{ImportNotice, Imported, Tensors};
use crate::math::attention::attend;
use crate::math::flash::{FlashHead, flash_attention, replay_query_blocks};
use crate::math::mask::{Mask, MaskSpec};
use crate::math::scoring::{Pairing, Scoring, rope};
use crate::pipeline::config::{auto_block, checked_mask, checked_temperature};
use crate::pipeline::error::ConfigError;
use crate::pipeline::trace::max_abs_diff;

/// The score of vectors of `d` dimensions under `temperature`: q·k / (√d · T).
fn scoring(d: usize, temperature: f32) -> Scoring {
    Scoring::plain(1.0 / ((d as f32).sqrt() * temperature))
}

/// One head of imported vectors, computed.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedHead {
    /// [queries, keys] = q·kᵀ / (√d · T), before the mask.
    pub scores: Array2<f32>,
    /// [queries, keys], exactly 0 where masked.
    pub weights: Array2<f32>,
    /// [queries, d_v] = weights · V, when V was given.
    pub output: Option<Array2<f32>>,
    /// The same output by FlashAttention's tiles and online softmax.
    pub flash_output: Option<Array2<f32>>,
    pub fully_masked_rows: Vec<usize>,
}

/// Every layer's heads (`[layer][head]`) from q `[layers, heads, queries, d]`, k `[layers,
/// heads, keys, d]` and v `[layers, heads, keys, d_v]`, under `mask` and `temperature`, with
/// FlashAttention in `block` = (rows, columns) tiles.
pub fn attend_imported(
    q: &Array4<f32>,
    k: &Array4<f32>,
    v: Option<&Array4<f32>>,
    mask: &MaskSpec,
    temperature: f64,
    block: (usize, usize),
) -> Result<Vec<Vec<ImportedHead>>, ConfigError> {
    let (layers, heads, queries, d) = q.dim();
    let keys = k.dim().2;
    let mask = checked_mask(mask, queries, keys)?;
    let temperature = checked_temperature(temperature)?;
    let scoring = scoring(d, temperature);
    let block = (block.0.max(1), block.1.max(1));
    let empty = Array2::<f32>::zeros((keys, 0));
    Ok((0..layers)
        .map(|layer| {
            (0..heads)
                .map(|head| {
                    let pick = |a: &Array4<f32>| -> Array2<f32> {
                        a.index_axis(Axis(0), layer)
                            .index_axis(Axis(0), head)
                            .to_owned()
                    };
                    let (q, k) = (pick(q), pick(k));
                    let v = v.map(pick);
                    let v_view: ArrayView2<f32> = v.as_ref().map_or(empty.view(), |v| v.view());
                    let head = attend(q.view(), k.view(), v_view, &scoring, &mask);
                    let flash = v.as_ref().map(|v| {
                        flash_attention(q.view(), k.view(), v.view(), &scoring, &mask, block, false)
                            .output
                    });
                    ImportedHead {
                        scores: head.scores,
                        weights: head.weights,
                        output: v.is_some().then_some(head.output),
                        flash_output: flash,
                        fully_masked_rows: head.fully_masked_rows,
                    }
                })
                .collect()
        })
        .collect())
}

/// One head of an imported file as the lab shows it: the weights always; with Q and K also the
/// vectors, the scores and (given V) the outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownHead {
    pub q: Option<Array2<f32>>,
    pub k: Option<Array2<f32>>,
    pub v: Option<Array2<f32>>,
    /// [queries, keys] = q·kᵀ / (√d · T), before the mask (Q and K only).
    pub scores: Option<Array2<f32>>,
    /// [queries, keys]: the file's, or the softmax of the masked scores.
    pub weights: Array2<f32>,
    pub output: Option<Array2<f32>>,
    pub flash_output: Option<Array2<f32>>,
    pub fully_masked_rows: Vec<usize>,
}

/// What a mean view of a file averages over ([`crate::io::imported_views`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mean {
    /// Each layer's heads: one "head" per layer.
    Heads,
    /// Each head over the layers: one "layer" of every head.
    Layers,
}

impl Mean {
    pub fn name(self) -> &'static str {
        match self {
            Mean::Heads => "heads",
            Mean::Layers => "layers",
        }
    }
}

/// An imported file, computed where it brings Q and K: every layer's heads, ready to show.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedRun {
    pub tokens: Vec<String>,
    /// The keys' tokens when they are not the queries' (cross-attention).
    pub key_tokens: Option<Vec<String>>,
    /// `[layer][head]`.
    pub layers: Vec<Vec<ShownHead>>,
    /// Whether the weights were computed here from Q and K (not read as they are).
    pub from_vectors: bool,
    /// The largest |standard − FlashAttention| over every output, when V came.
    pub max_flash_diff: Option<f32>,
    /// What the weights were computed under, when they were computed here from Q and K.
    pub computed_under: Option<ComputedUnder>,
    /// RoPE's (base, pairing, first position), when Q and K were turned by it here.
    pub rope: Option<(f64, Pairing, usize)>,
    pub notices: Vec<ImportNotice>,
    /// What each "head" is the mean of, in a mean view ([`ImportedRun::averaged`]).
    pub mean: Option<Mean>,
}

/// The rules an imported file's Q and K were computed under: what FlashAttention's tile player
/// needs to replay a head's tiles.
#[derive(Debug, Clone, PartialEq)]
pub struct ComputedUnder {
    pub mask: Mask,
    pub scoring: Scoring,
    /// FlashAttention's tiles, (rows, columns).
    pub block: (usize, usize),
}

/// What the lab applies to a file's Q and K: its mask, temperature and FlashAttention tiles.
/// Weights read as they are take none of them.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportSettings {
    pub mask: MaskSpec,
    pub temperature: f64,
    /// (rows, columns); each side's automatic size when `None`.
    pub block: (Option<usize>, Option<usize>),
    /// Q and K given before RoPE: (base, pairing, the first row's position). Query i and key j
    /// are turned by positions first + i and first + j, as the model would turn them, before
    /// the scores. `None`: as given (after RoPE, or a model without it).
    pub rope: Option<(f64, Pairing, usize)>,
}

impl Default for ImportSettings {
    fn default() -> Self {
        Self {
            mask: MaskSpec::None,
            temperature: 1.0,
            block: (None, None),
            rope: None,
        }
    }
}

/// Every head of `x` [layers, heads, rows, d] turned by RoPE, row r at position `first + r`.
fn turned(x: &Array4<f32>, base: f64, pairing: Pairing, first: usize) -> Array4<f32> {
    let mut x = x.clone();
    for mut layer in x.outer_iter_mut() {
        for head in layer.outer_iter_mut() {
            rope(head, base, pairing, first);
        }
    }
    x
}

/// Shows `imported`: its weights as they are, or every head computed from its Q and K (and V)
/// under `settings`.
pub fn run_imported(
    imported: &Imported,
    settings: &ImportSettings,
) -> Result<ImportedRun, ConfigError> {
    let (layers, from_vectors, max_flash_diff, computed_under) = match &imported.tensors {
        Tensors::Attention(a) => {
            let layers = a
                .outer_iter()
                .map(|layer| {
                    layer
                        .outer_iter()
                        .map(|w| ShownHead {
                            q: None,
                            k: None,
                            v: None,
                            scores: None,
                            weights: w.to_owned(),
                            output: None,
                            flash_output: None,
                            fully_masked_rows: Vec::new(),
                        })
                        .collect()
                })
                .collect();
            (layers, false, None, None)
        }
        Tensors::Vectors { q, k, v } => {
            // Before RoPE: turned here, so that the scores (and the q and k shown) are the ones
            // the model's attention read.
            let rotated = match settings.rope {
                Some((base, pairing, first)) => {
                    let d = q.dim().3;
                    if d % 2 != 0 {
                        return Err(ConfigError::RopeNeedsEvenDk { d_k: d });
                    }
                    if !(base > 1.0 && base.is_finite()) {
                        return Err(ConfigError::BadRopeBase { base });
                    }
                    Some((
                        turned(q, base, pairing, first),
                        turned(k, base, pairing, first),
                    ))
                }
                None => None,
            };
            let (q, k) = rotated.as_ref().map_or((q, k), |(q, k)| (q, k));
            let block = (
                settings
                    .block
                    .0
                    .unwrap_or_else(|| auto_block(imported.tensors.queries())),
                settings
                    .block
                    .1
                    .unwrap_or_else(|| auto_block(imported.tensors.keys())),
            );
            let computed = attend_imported(
                q,
                k,
                v.as_ref(),
                &settings.mask,
                settings.temperature,
                block,
            )?;
            let pick = |a: &Array4<f32>, layer: usize, head: usize| {
                a.index_axis(Axis(0), layer)
                    .index_axis(Axis(0), head)
                    .to_owned()
            };
            let mut diff: Option<f32> = None;
            let layers = computed
                .into_iter()
                .enumerate()
                .map(|(l, heads)| {
                    heads
                        .into_iter()
                        .enumerate()
                        .map(|(h, head)| {
                            if let (Some(o), Some(f)) = (&head.output, &head.flash_output) {
                                let d = max_abs_diff(o.view(), f.view());
                                diff = Some(diff.map_or(d, |m| m.max(d)));
                            }
                            ShownHead {
                                q: Some(pick(q, l, h)),
                                k: Some(pick(k, l, h)),
                                v: v.as_ref().map(|v| pick(v, l, h)),
                                scores: Some(head.scores),
                                weights: head.weights,
                                output: head.output,
                                flash_output: head.flash_output,
                                fully_masked_rows: head.fully_masked_rows,
                            }
                        })
                        .collect()
                })
                .collect();
            let (queries, keys) = (imported.tensors.queries(), imported.tensors.keys());
            let under = ComputedUnder {
                mask: checked_mask(&settings.mask, queries, keys)?,
                scoring: scoring(q.dim().3, checked_temperature(settings.temperature)?),
                block: (block.0.max(1), block.1.max(1)),
            };
            (layers, true, diff, Some(under))
        }
    };
    Ok(ImportedRun {
        tokens: imported.tokens.clone(),
        key_tokens: imported.key_tokens.clone(),
        layers,
        from_vectors,
        max_flash_diff,
        rope: settings.rope.filter(|_| from_vectors),
        computed_under,
        notices: imported.notices.clone(),
        mean: None,
    })
}

impl ImportedRun {
    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }

    pub fn head_count(&self) -> usize {
        self.layers.first().map_or(0, Vec::len)
    }

    /// FlashAttention's pass over head (`layer`, `head`) with every tile step of query blocks
    /// `query_blocks`, as the tile player replays it: `None` unless the file brought Q, K and V.
    pub fn flash_replay(
        &self,
        layer: usize,
        head: usize,
        query_blocks: Range<usize>,
    ) -> Option<FlashHead> {
        let under = self.computed_under.as_ref()?;
        let shown = self.head(layer, head);
        let (q, k, v) = (shown.q.as_ref()?, shown.k.as_ref()?, shown.v.as_ref()?);
        Some(replay_query_blocks(
            q.view(),
            k.view(),
            v.view(),
            &under.scoring,
            &under.mask,
            under.block,
            query_blocks,
        ))
    }

    /// The keys' tokens: their own, or the queries'.
    pub fn keys(&self) -> &[String] {
        self.key_tokens.as_deref().unwrap_or(&self.tokens)
    }

    /// The head at (`layer`, `head`), each clamped to what the file has.
    pub fn head(&self, layer: usize, head: usize) -> &ShownHead {
        let layer = &self.layers[layer.min(self.layers.len() - 1)];
        &layer[head.min(layer.len() - 1)]
    }

    /// What the shown numbers are: weights, weights whose rows may sum to less than 1, or
    /// not weights (scores, logits).
    pub fn rows_are(&self) -> RowsAre {
        RowsAre::of(self.layers.iter().enumerate().flat_map(|(l, heads)| {
            heads
                .iter()
                .enumerate()
                .map(move |(h, head)| (l, h, head.weights.view()))
        }))
    }

    /// `[layer][head]` roles ([`head_roles`]): each the mean weight on its keys over the queries
    /// that can show it; none where the numbers are not weights.
    pub fn roles(&self) -> Vec<Vec<ImportedRoles>> {
        let are_weights = self.rows_are().are_weights();
        self.layers
            .iter()
            .map(|layer| {
                layer
                    .iter()
                    .map(|head| {
                        head_roles(
                            head.weights.view(),
                            &self.tokens,
                            self.key_tokens.as_deref(),
                            are_weights,
                        )
                    })
                    .collect()
            })
            .collect()
    }
}
