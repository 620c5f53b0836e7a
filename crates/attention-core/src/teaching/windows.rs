//! The sliding windows chapter: what a causal window of radius r hides from each query, and what
//! k sink tokens keep (StreamingLLM). The selected query's weights under the full causal mask,
//! the window alone and the window with its sinks, from the head's own scores; and the cells each
//! mask computes.

use ndarray::Array1;

use crate::math::mask::{Mask, MaskSpec};
use crate::math::softmax::masked_softmax_row;
use crate::pipeline::trace::Trace;

use super::focus::Focus;

#[derive(Debug, Clone, PartialEq)]
pub struct WindowsExperiment {
    pub head: usize,
    pub query: usize,
    pub radius: usize,
    pub sink_tokens: usize,
    /// Cells computed by the causal mask, by the window, by the window with its sinks.
    pub causal_cells: usize,
    pub window_cells: usize,
    pub sink_cells: usize,
    /// Per query: the keys the window (with its sinks) hides that the causal mask shows.
    pub hidden_per_query: Vec<usize>,
    /// The selected query's weights over every key: causal, window, window with sinks.
    pub causal: Vec<f32>,
    pub window: Vec<f32>,
    pub with_sinks: Vec<f32>,
    /// The selected query's causal weight, in three parts that do not overlap and sum to 1: on
    /// the keys the window with its sinks hides, on the sink tokens, and on the other keys inside
    /// the window.
    pub hidden_mass: f32,
    pub sink_mass: f32,
    pub kept_mass: f32,
    /// Cross-attention has no order to slide along.
    pub cross: bool,
}

/// The radius and sink tokens the chapter uses: the lab's when its mask is sliding, else a window
/// of 3 keys back and 1 sink.
pub fn window_of(spec: &MaskSpec) -> (usize, usize) {
    match spec {
        MaskSpec::Sliding {
            radius,
            sink_tokens,
        } => (*radius, *sink_tokens),
        _ => (3, 1),
    }
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> WindowsExperiment {
    let config = &trace.config;
    let (head, query) = (focus.head(trace), focus.query(trace));
    let (n, m) = (config.seq_len(), config.key_len());
    let (radius, sink_tokens) = window_of(config.mask().spec());
    let sink_tokens = sink_tokens.min(m);
    let cross = config.source().is_some();
    let mask = |spec: MaskSpec| Mask::new_unchecked(spec, n, m);
    let causal = mask(MaskSpec::Causal);
    let window = mask(MaskSpec::Sliding {
        radius,
        sink_tokens: 0,
    });
    let sinks = mask(MaskSpec::Sliding {
        radius,
        sink_tokens,
    });
    let cells = |mask: &Mask| mask.to_matrix().iter().filter(|&&a| a).count();
    let hidden_per_query = (0..n)
        .map(|i| {
            (0..m)
                .filter(|&j| causal.allows(i, j) && !sinks.allows(i, j))
                .count()
        })
        .collect();
    // The head's scores before the mask, with its sink logit if it has one.
    let scores = trace.heads[head].scores.row(query);
    let sink = config.scoring(head).sink;
    let weights = |mask: &Mask| -> Vec<f32> {
        let mut out = Array1::zeros(m);
        masked_softmax_row(scores, &mask.row_keys(query, 0..m), sink, out.view_mut());
        out.to_vec()
    };
    let causal_weights = weights(&causal);
    let mass = |keep: &dyn Fn(usize) -> bool| -> f32 {
        (0..m)
            .filter(|&j| causal.allows(query, j) && keep(j))
            .map(|j| causal_weights[j])
            .sum()
    };
    let hidden_mass = mass(&|j| !sinks.allows(query, j));
    let sink_mass = mass(&|j| j < sink_tokens);
    let kept_mass = mass(&|j| j >= sink_tokens && sinks.allows(query, j));
    WindowsExperiment {
        head,
        query,
        radius,
        sink_tokens,
        causal_cells: cells(&causal),
        window_cells: cells(&window),
        sink_cells: cells(&sinks),
        hidden_per_query,
        window: weights(&window),
        with_sinks: weights(&sinks),
        causal: causal_weights,
        hidden_mass,
        sink_mass,
        kept_mass,
        cross,
    }
}

#[cfg(test)]
mod tests {
    use crate::Params;
    use crate::math::mask::MaskSpec;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};

    #[test]
    fn a_window_hides_the_far_keys_and_its_sinks_keep_the_first() {
        let t = trace(Params {
            mask: MaskSpec::Sliding {
                radius: 2,
                sink_tokens: 1,
            },
            ..Params::sentence("one two three four five six seven")
        });
        let focus = Focus {
            query: 6,
            ..Focus::default()
        };
        let Experiment::Windows(e) = experiment(Chapter::Windows, &t, &focus) else {
            panic!()
        };
        assert_eq!((e.radius, e.sink_tokens), (2, 1));
        assert_eq!(e.causal_cells, 28);
        // Rows 0..=2 see all they may; row i ≥ 3 sees 3 keys: 1 + 2 + 3 + 4·3.
        assert_eq!(e.window_cells, 18);
        // Plus key 0 for rows 3..=6.
        assert_eq!(e.sink_cells, 22);
        assert_eq!(e.hidden_per_query, vec![0, 0, 0, 0, 1, 2, 3]);
        // Query 6 sees keys 4, 5, 6 (and key 0 with its sink); everything else is 0.
        assert!(e.window[..4].iter().all(|&w| w == 0.0));
        assert!(e.with_sinks[0] > 0.0 && e.with_sinks[1..4].iter().all(|&w| w == 0.0));
        for row in [&e.causal, &e.window, &e.with_sinks] {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        // The sink is counted once: keys 1..=3 are hidden, key 0 is the sink, 4..=6 are kept.
        let hidden: f32 = e.causal[1..4].iter().sum();
        assert!((e.hidden_mass - hidden).abs() < 1e-6);
        assert!((e.sink_mass - e.causal[0]).abs() < 1e-6);
        assert!((e.hidden_mass + e.sink_mass + e.kept_mass - 1.0).abs() < 1e-5);
        // The window's weights are the causal ones renormalised over the keys it keeps.
        let kept: f32 = e.causal[4..].iter().sum();
        for j in 4..7 {
            assert!((e.window[j] - e.causal[j] / kept).abs() < 1e-5);
        }
    }
}
