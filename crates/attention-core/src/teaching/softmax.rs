//! The softmax chapter: temperature.

use ndarray::{Array1, ArrayView1};

use crate::teaching::stats::{entropy, softmax};

use crate::pipeline::trace::Trace;

use super::focus::{Focus, allowed_dots, decimal};

#[derive(Debug, Clone, PartialEq)]
pub struct SweepSample {
    pub temperature: f64,
    pub largest: f64,
    pub entropy: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SoftmaxExperiment {
    pub head: usize,
    pub query: usize,
    /// The current temperature, marked on the curves, and the row's largest weight and entropy
    /// there.
    pub temperature: f64,
    pub current: SweepSample,
    /// From T = 0.05 to 10, log-spaced.
    pub sweep: Vec<SweepSample>,
    /// The keys the row may attend to: the entropy of the uniform limit is ln(allowed).
    pub allowed: usize,
    pub uniform_entropy: f64,
    /// The key with the largest score: the arg-max limit puts all weight there.
    pub argmax_key: Option<usize>,
    pub argmax_token: Option<String>,
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> SoftmaxExperiment {
    let (h, i) = (focus.head(trace), focus.query(trace));
    let d_k = trace.heads[h].q.ncols() as f64;
    let row: Array1<f32> = allowed_dots(trace, h, i).mapv(|d| (f64::from(d) / d_k.sqrt()) as f32);
    let sample = |p: SweepPoint| SweepSample {
        temperature: p.temperature,
        largest: p.largest,
        entropy: p.entropy,
    };
    // The temperature as the learner typed it (0.3), not the f32 it is stored as widened to
    // f64 (0.30000001192092896): through its shortest decimal text.
    let t = decimal(trace.config.temperature());
    let allowed: Vec<usize> = (0..trace.config.key_len())
        .filter(|&j| trace.mask[[i, j]])
        .collect();
    let argmax = row
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
        .map(|(at, _)| allowed[at]);
    let (sweep, current) = if row.is_empty() {
        (
            Vec::new(),
            SweepSample {
                temperature: t,
                largest: 0.0,
                entropy: 0.0,
            },
        )
    } else {
        (
            temperature_sweep(row.view(), 0.05, 10.0, 41)
                .into_iter()
                .map(sample)
                .collect(),
            sample(temperature_sweep(row.view(), t, t, 1)[0]),
        )
    };
    SoftmaxExperiment {
        head: h,
        query: i,
        temperature: t,
        current,
        sweep,
        allowed: allowed.len(),
        uniform_entropy: (allowed.len().max(1) as f64).ln(),
        argmax_key: argmax,
        argmax_token: argmax.map(|j| trace.config.key_sequence().tokens[j].clone()),
    }
}

/// One point of a temperature sweep: the largest weight and the entropy of the row at `t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SweepPoint {
    pub temperature: f64,
    pub largest: f64,
    pub entropy: f64,
}

/// The row's largest weight and entropy at `points` temperatures, log-spaced from `low` to
/// `high`, for the scaled scores `scores` (already divided by √d_k at T = 1).
pub fn temperature_sweep(
    scores: ArrayView1<f32>,
    low: f64,
    high: f64,
    points: usize,
) -> Vec<SweepPoint> {
    (0..points)
        .map(|i| {
            let f = i as f64 / (points.max(2) - 1) as f64;
            let t = low * (high / low).powf(f);
            let w = softmax(scores, t);
            SweepPoint {
                temperature: t,
                largest: w.iter().cloned().fold(0.0, f64::max),
                entropy: entropy(&w),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::Params;
    use crate::math::mask::MaskSpec;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};
    use ndarray::array;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn the_temperature_sweep_runs_from_arg_max_to_uniform() {
        let scores = array![2.0f32, 1.0, 0.0, -1.0];
        let sweep = temperature_sweep(scores.view(), 0.05, 10.0, 25);
        assert_eq!(sweep.len(), 25);
        assert!(
            close(sweep[0].temperature, 0.05, 1e-12) && close(sweep[24].temperature, 10.0, 1e-9)
        );
        assert!(sweep[0].largest > 0.999_99, "cold: arg-max");
        assert!(
            close(sweep[24].entropy, 4f64.ln(), 0.02),
            "hot: close to uniform"
        );
        assert!(
            sweep.windows(2).all(|w| w[1].entropy >= w[0].entropy),
            "entropy grows with T"
        );
        // Hand-worked: softmax([2, 1, 0, −1]) at T = 1.
        let w = softmax(scores.view(), 1.0);
        let e: Vec<f64> = [2.0f64, 1.0, 0.0, -1.0].iter().map(|s| s.exp()).collect();
        let sum: f64 = e.iter().sum();
        assert!(w.iter().zip(&e).all(|(a, b)| close(*a, b / sum, 1e-12)));
    }

    #[test]
    fn the_temperature_reaches_the_learner_as_typed() {
        for (typed, shown) in [(0.3, "0.3"), (0.2, "0.2"), (0.07, "0.07"), (1.0, "1")] {
            let t = trace(Params {
                temperature: typed,
                ..Params::sentence("the cat sat")
            });
            let Experiment::Softmax(e) = experiment(Chapter::Softmax, &t, &Focus::default()) else {
                panic!()
            };
            assert_eq!(e.temperature.to_string(), shown);
            assert_eq!(e.current.temperature.to_string(), shown);
        }
    }

    #[test]
    fn temperature_sweeps_from_argmax_to_uniform() {
        let t = trace(Params {
            mask: MaskSpec::Causal,
            ..Params::sentence("the cat sat on the mat")
        });
        let focus = Focus {
            query: 4,
            ..Focus::default()
        };
        let Experiment::Softmax(e) = experiment(Chapter::Softmax, &t, &focus) else {
            panic!()
        };
        assert_eq!(e.allowed, 5);
        assert!((e.uniform_entropy - 5f64.ln()).abs() < 1e-12);
        let (first, last) = (&e.sweep[0], e.sweep.last().unwrap());
        assert!((first.temperature - 0.05).abs() < 1e-12 && (last.temperature - 10.0).abs() < 1e-9);
        assert!(first.largest > last.largest && first.entropy < last.entropy);
        assert!(last.entropy > 0.95 * e.uniform_entropy);
        assert!(e.argmax_key.unwrap() <= 4);
        // The current point is the row the lab shows.
        let shown = t.heads[0]
            .weights
            .row(4)
            .iter()
            .cloned()
            .fold(0.0f32, f32::max);
        assert!((e.current.largest - f64::from(shown)).abs() < 1e-5);
    }
}
