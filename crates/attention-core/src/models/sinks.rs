//! The attention-sink measures of a model on a text, and the comparison of the two Llama twins
//! (trained on the same text, one with an output gate on every head: Qiu et al., 2025, "Gated Attention
//! for Large Language Models").
//!
//! A head whose softmax row must sum to 1 but has nothing worth reading parks its weight on the
//! first token (Xiao et al., 2023), and models grow a huge activation there to make it easy to
//! find (Sun et al., 2024). Three numbers tell whether a model did: each head's share of
//! attention on the first character, the residual stream's largest |value| beside its mean,
//! and what dropping the first characters from a rolling cache costs (StreamingLLM's test).

use crate::models::Model;
use crate::models::generate::Activation;
use crate::models::stream::{
    ShareReader, StreamError, StreamEval, StreamSpec, rolling, stream_ids,
};

/// A head that puts at least this share of its attention on the first character (over the
/// first context window) is a sink: a head spreading its weight evenly under the causal mask
/// puts (H(n) − 1)/(n − 1) there, about 0.011 over 512 characters and 0.020 over 256.
pub const SINK_SHARE: f32 = 0.3;

/// One model's sink measures on one text.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkReport {
    /// Mean next-character loss (nats) through a rolling cache that keeps the first
    /// `sink_tokens` characters.
    pub with_sinks: f32,
    /// The same cache without them.
    pub without_sinks: f32,
    /// [layers][heads]: the mean weight on the text's first character.
    pub first_token_share: Vec<Vec<f32>>,
    /// [layers]: the residual stream's largest |value| after each layer.
    pub largest_activation: Vec<Activation>,
}

/// Where a model's strongest pull toward the first character is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrongestHead {
    pub layer: usize,
    pub head: usize,
    pub share: f32,
}

impl SinkReport {
    /// The measures a whole stream evaluation holds.
    pub fn of_eval(eval: &StreamEval) -> Self {
        Self {
            with_sinks: eval.with_sinks.mean(),
            without_sinks: eval.without_sinks.mean(),
            first_token_share: eval.first_token_share.clone(),
            largest_activation: eval.largest_activation.clone(),
        }
    }

    /// What dropping the first characters costs: the loss without them minus the loss with them
    /// (nats; positive: the sinks help).
    pub fn drop_cost(&self) -> f32 {
        self.without_sinks - self.with_sinks
    }

    /// The head with the largest share on the first character.
    pub fn strongest(&self) -> StrongestHead {
        let mut best = StrongestHead {
            layer: 0,
            head: 0,
            share: 0.0,
        };
        for (layer, row) in self.first_token_share.iter().enumerate() {
            for (head, &share) in row.iter().enumerate() {
                if share > best.share {
                    best = StrongestHead { layer, head, share };
                }
            }
        }
        best
    }

    /// Whether some head is a sink ([`SINK_SHARE`]).
    pub fn has_sink(&self) -> bool {
        self.strongest().share >= SINK_SHARE
    }

    /// The largest |value| in the residual stream over every layer, and the layer (from 0)
    /// whose output holds it.
    pub fn largest(&self) -> Option<(usize, Activation)> {
        self.largest_activation
            .iter()
            .copied()
            .enumerate()
            .max_by(|(_, a), (_, b)| a.value.abs().total_cmp(&b.value.abs()))
    }
}

/// `model`'s sink measures on `text` under `spec`: both rolling runs and the first window's
/// share and activations (no recompute: [`crate::models::stream::stream_eval`] adds that).
pub fn sink_report(model: &Model, text: &str, spec: StreamSpec) -> Result<SinkReport, StreamError> {
    sink_report_over(model, text, spec, usize::MAX)
}

/// [`sink_report`] with the share and the activations read over at most `span` tokens: two
/// models of different contexts compared over the same characters (a share shrinks as the span
/// grows, whatever the model).
pub fn sink_report_over(
    model: &Model,
    text: &str,
    spec: StreamSpec,
    span: usize,
) -> Result<SinkReport, StreamError> {
    let ids = stream_ids(model, text, spec)?;
    let mean = |spec| rolling(model, &ids, spec).mean();
    let first = &ids[..ids.len().min(span.max(2))];
    let mut share = ShareReader::new(model, first);
    while share.read_next(model, first, usize::MAX) {}
    Ok(SinkReport {
        with_sinks: mean(spec),
        without_sinks: mean(StreamSpec {
            sink_tokens: 0,
            ..spec
        }),
        first_token_share: share.share(),
        largest_activation: share.largest(),
    })
}

/// What the twins show, the ungated one first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TwinVerdict {
    /// The ungated twin has a sink and the gated one none: the gate removed it.
    GateRemovesSink,
    /// Both have one.
    BothSink,
    /// Only the gated twin has one.
    OnlyGatedSinks,
    /// Neither formed one at this size and training.
    NeitherSinks,
}

pub fn twin_verdict(ungated: &SinkReport, gated: &SinkReport) -> TwinVerdict {
    match (ungated.has_sink(), gated.has_sink()) {
        (true, false) => TwinVerdict::GateRemovesSink,
        (true, true) => TwinVerdict::BothSink,
        (false, true) => TwinVerdict::OnlyGatedSinks,
        (false, false) => TwinVerdict::NeitherSinks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(share: f32, value: f32) -> SinkReport {
        let activation = |value| Activation {
            value,
            position: 0,
            dimension: 3,
            mean_abs: 0.5,
        };
        SinkReport {
            with_sinks: 2.0,
            without_sinks: 2.5,
            first_token_share: vec![vec![0.01, 0.02], vec![share, 0.05]],
            largest_activation: vec![activation(-value), activation(value / 2.0)],
        }
    }

    #[test]
    fn the_strongest_head_and_the_largest_value_are_found_by_magnitude() {
        let r = report(0.6, 40.0);
        assert_eq!(
            r.strongest(),
            StrongestHead {
                layer: 1,
                head: 0,
                share: 0.6
            }
        );
        assert_eq!(
            r.largest().map(|(l, a)| (l, a.value)),
            Some((0, -40.0)),
            "signed, largest |value|"
        );
        assert!((r.drop_cost() - 0.5).abs() < 1e-6);
        assert!(r.has_sink() && !report(0.29, 1.0).has_sink());
    }

    #[test]
    fn the_verdict_reads_both_twins() {
        let (sink, none) = (report(0.6, 1.0), report(0.1, 1.0));
        assert_eq!(twin_verdict(&sink, &none), TwinVerdict::GateRemovesSink);
        assert_eq!(twin_verdict(&sink, &sink), TwinVerdict::BothSink);
        assert_eq!(twin_verdict(&none, &sink), TwinVerdict::OnlyGatedSinks);
        assert_eq!(twin_verdict(&none, &none), TwinVerdict::NeitherSinks);
    }
}
