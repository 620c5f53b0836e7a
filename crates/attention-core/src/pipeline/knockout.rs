//! Heads knocked out: a head's output replaced, before W_O, by zeros or by its mean over the
//! sentence, and everything after it (concat, W_O, the residual, the next layers) recomputed.
//! How a researcher asks what a head is for: what changes when it is gone.

use ndarray::{Array2, Axis, s};

// (Declared beside the trace, which remembers its knocked heads.)
pub use crate::pipeline::trace::Knockout;
use crate::pipeline::trace::{Trace, residual_and_norm};

/// One head of one layer switched off (layer and head from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadKnockout {
    pub layer: usize,
    pub head: usize,
    pub how: Knockout,
}

/// Checks `heads` against a model of `layers` × `heads_per_layer` heads: each one there, not
/// every head at once. The error names the first that is not, with the ranges.
pub fn check_knockouts(
    knockouts: &[HeadKnockout],
    layers: usize,
    heads_per_layer: usize,
) -> Result<(), crate::pipeline::error::ConfigError> {
    use crate::pipeline::error::ConfigError;
    for k in knockouts {
        if k.layer >= layers {
            return Err(ConfigError::AblateLayer {
                value: k.layer + 1,
                max: layers,
            });
        }
        if k.head >= heads_per_layer {
            return Err(ConfigError::AblateHead {
                value: k.head + 1,
                max: heads_per_layer,
            });
        }
    }
    let mut distinct: Vec<(usize, usize)> = knockouts.iter().map(|k| (k.layer, k.head)).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if layers * heads_per_layer > 0 && distinct.len() == layers * heads_per_layer {
        return Err(ConfigError::AblateAll {
            count: layers * heads_per_layer,
        });
    }
    Ok(())
}

/// `output` [seq_len, d_v] as `how` replaces it.
fn replaced(output: &Array2<f32>, how: Knockout) -> Array2<f32> {
    match how {
        Knockout::Zero => Array2::zeros(output.raw_dim()),
        Knockout::Mean => {
            let mean = output
                .mean_axis(Axis(0))
                .unwrap_or_else(|| ndarray::Array1::zeros(output.ncols()));
            let mut out = Array2::zeros(output.raw_dim());
            out.rows_mut()
                .into_iter()
                .for_each(|mut row| row.assign(&mean));
            out
        }
    }
}

impl Trace {
    /// Switches off `heads` (head index, how) of this trace: their outputs replaced (standard and
    /// FlashAttention's alike), then concat, concat · W_O and the output recomputed. Their
    /// weights stay what they were: the pattern is still there, nothing reads it.
    pub fn knock_out(&mut self, heads: &[(usize, Knockout)]) {
        if heads.is_empty() {
            return;
        }
        self.knocked.extend_from_slice(heads);
        let d_v = self.config.dims().d_v;
        for &(head, how) in heads {
            let Some(trace) = self.heads.get_mut(head) else {
                continue;
            };
            trace.output = replaced(&trace.output, how);
            let columns = s![.., head * d_v..(head + 1) * d_v];
            self.concat.slice_mut(columns).assign(&trace.output);
            if let Some(flash) = self.flash.heads.get_mut(head) {
                flash.output = replaced(&flash.output, how);
            }
        }
        let weights = self.config.weights();
        self.projected = weights.project_out(self.concat.view());
        self.output = residual_and_norm(&self.config, self.projected.clone());
        let flash_concat = ndarray::concatenate(
            Axis(1),
            &self
                .flash
                .heads
                .iter()
                .map(|h| h.output.view())
                .collect::<Vec<_>>(),
        )
        .unwrap_or_else(|_| self.concat.clone());
        self.flash.output =
            residual_and_norm(&self.config, weights.project_out(flash_concat.view()));
        self.flash.max_abs_diff =
            crate::pipeline::trace::max_abs_diff(self.output.view(), self.flash.output.view());
    }
}
