//! The streaming chapter: reading past the context with a rolling cache, and attention sinks.
//! A rolling cache keeps the last w tokens and the first k (StreamingLLM's sinks) however long
//! the text, where a full cache grows with it. Whether the first tokens matter depends on the
//! model: a head that parks its spare attention on the first token (a sink) loses its footing
//! when that token is evicted. The numbers, on the learner's trace: each head's mean weight on
//! the first key beside what spreading evenly would give it, and the positions each cache keeps.

use crate::pipeline::trace::Trace;

use super::windows::window_of;

#[derive(Debug, Clone, PartialEq)]
pub struct StreamingExperiment {
    pub n: usize,
    /// Per head: the mean weight on the first key over queries 1 … n − 1.
    pub first_share: Vec<f32>,
    /// The same mean if every query spread its weight evenly over the keys it sees.
    pub even_share: f32,
    /// The rolling cache: the last `window` tokens (the current one included) and the first
    /// `sink_tokens`, from the lab's sliding mask (radius + 1), else 64 and 4.
    pub window: usize,
    pub sink_tokens: usize,
    /// Per text length: positions a full cache keeps and a rolling one.
    pub kept: Vec<(usize, usize, usize)>,
}

/// The lengths the memory table shows.
pub const KEPT_LENGTHS: [usize; 4] = [256, 1024, 4096, 16384];

pub(super) fn run(trace: &Trace) -> StreamingExperiment {
    let config = &trace.config;
    let (n, m) = (config.seq_len(), config.key_len());
    let (window, sink_tokens) = match config.mask().spec() {
        spec @ crate::math::mask::MaskSpec::Sliding { .. } => {
            let (radius, sinks) = window_of(spec);
            (radius + 1, sinks)
        }
        _ => (64, 4),
    };
    let queries = 1..n;
    let count = queries.len().max(1) as f32;
    let first_share = if trace.is_summarised() || m == 0 {
        Vec::new()
    } else {
        trace
            .heads
            .iter()
            .map(|h| queries.clone().map(|i| h.weights[[i, 0]]).sum::<f32>() / count)
            .collect()
    };
    let even_share = queries
        .clone()
        .map(|i| {
            let seen = (0..m).filter(|&j| trace.mask[[i, j]]).count();
            if trace.mask[[i, 0]] && seen > 0 {
                1.0 / seen as f32
            } else {
                0.0
            }
        })
        .sum::<f32>()
        / count;
    StreamingExperiment {
        n,
        first_share,
        even_share,
        window,
        sink_tokens,
        kept: KEPT_LENGTHS
            .iter()
            .map(|&len| (len, len, len.min(window + sink_tokens)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use crate::Params;
    use crate::math::mask::MaskSpec;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};

    #[test]
    fn the_rolling_cache_stays_the_same_size_and_shares_are_weights() {
        let t = trace(Params {
            mask: MaskSpec::Sliding {
                radius: 7,
                sink_tokens: 2,
            },
            ..Params::sentence("the cat sat on the mat and the dog sat by it")
        });
        let Experiment::Streaming(e) = experiment(Chapter::Streaming, &t, &Focus::default()) else {
            panic!()
        };
        assert_eq!((e.window, e.sink_tokens), (8, 2));
        assert_eq!(e.kept[3], (16384, 16384, 10));
        assert_eq!(e.first_share.len(), t.heads.len());
        assert!(e.first_share.iter().all(|&s| (0.0..=1.0).contains(&s)));
        // Every query sees the first key (a sink): each spreads over at most 10 keys.
        assert!(e.even_share >= 0.1 - 1e-6 && e.even_share <= 1.0);
    }
}
