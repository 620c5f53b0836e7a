//! Attention computed from a user's own Q and K (and V), read from a file by
//! `api::import`: for every layer and head, the scores q·k / (√d · T), the lab's mask, the
//! softmax and, when V is given, the head's output — the same functions the lab's own trace uses
//! ([`crate::attention::attend`]) — and FlashAttention's output over the same numbers.

use ndarray::{Array2, Array4, ArrayView2, Axis};

use crate::attention::attend;
use crate::config::{checked_mask, checked_temperature};
use crate::error::ConfigError;
use crate::flash::flash_attention;
use crate::mask::MaskSpec;
use crate::scoring::Scoring;

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
    let scoring = Scoring::plain(1.0 / ((d as f32).sqrt() * temperature));
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
