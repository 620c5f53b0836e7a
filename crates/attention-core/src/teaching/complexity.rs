//! The complexity chapter: O(n²), measured.

use ndarray::Array2;

use crate::math::attention::attend_output;
use crate::math::flash::flash_attention;
use crate::math::mask::Mask;
use crate::math::rng::SplitMix64;
use crate::math::scoring::Scoring;
use crate::pipeline::trace::Trace;
use crate::teaching::stats;

#[derive(Debug, Clone, PartialEq)]
pub struct ComplexityExperiment {
    pub n: usize,
    pub d_model: usize,
    /// Score cells of every head, and the multiply-adds of QKᵀ and weights · V.
    pub cells: usize,
    pub multiply_adds: usize,
    /// Score bytes held at once in f32: standard (n × n per head) against flash (one tile).
    pub standard_bytes: usize,
    pub flash_bytes: usize,
    /// Steps between the first and the last token: 1 for attention, n − 1 for a recurrent net.
    pub attention_path: usize,
    pub recurrent_path: usize,
}

pub(super) fn run(trace: &Trace) -> ComplexityExperiment {
    let dims = trace.config.dims();
    let (n, m) = (trace.config.seq_len(), trace.config.key_len());
    let (rows, cols) = trace.config.block();
    let cells = dims.n_heads * n * m;
    ComplexityExperiment {
        n,
        d_model: dims.d_model,
        cells,
        multiply_adds: cells * (dims.d_k + dims.d_v),
        standard_bytes: n * m * 4,
        flash_bytes: rows * cols * 4,
        attention_path: 1,
        recurrent_path: n.saturating_sub(1),
    }
}

/// One size of the timing experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct CostPoint {
    pub n: usize,
    pub standard_ms: f64,
    pub flash_ms: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CostMeasurement {
    pub d_k: usize,
    pub points: Vec<CostPoint>,
    /// The fitted slope of log time against log n over the sizes from 256 (2 for O(n²)).
    pub standard_slope: f64,
    pub flash_slope: f64,
}

/// The shortest batch of runs the cost measurement times: 50 ticks of the coarsest page clock.
const BATCH_MS: f64 = 5.0;

/// Times one head of standard attention (rows in chunks, as the lab's untraced path) and of
/// FlashAttention (16 × 16 tiles, no steps recorded) on random Q, K, V of d_k 32 for each n in
/// `sizes`; `clock` gives milliseconds (performance.now in the page, Instant natively). Runs are
/// timed in batches of at least 5 ms (a small n takes less than a coarse clock's tick); each
/// size is timed at least twice and for at least 20 ms, and the best batch's time per run kept.
pub fn measure_cost(sizes: &[usize], clock: &dyn Fn() -> f64) -> CostMeasurement {
    let d_k = 32;
    let points: Vec<CostPoint> = sizes
        .iter()
        .map(|&n| {
            let mut rng = SplitMix64::new(n as u64);
            let mut draw =
                || Array2::from_shape_simple_fn((n, d_k), || stats::normal(&mut rng) as f32);
            let (q, k, v) = (draw(), draw(), draw());
            let mask = Mask::unmasked(n, n);
            let scale = 1.0 / (d_k as f32).sqrt();
            let time = |f: &dyn Fn()| {
                // A page's clock can tick in steps of 0.1 ms, longer than a small n takes: run
                // batches long enough to read (at least BATCH_MS), then keep the best batch.
                let mut repeats = 1usize;
                let first = loop {
                    let t0 = clock();
                    for _ in 0..repeats {
                        f();
                    }
                    let elapsed = clock() - t0;
                    if elapsed >= BATCH_MS || repeats >= 1 << 20 {
                        break elapsed / repeats as f64;
                    }
                    repeats *= if elapsed > 0.0 {
                        ((BATCH_MS / elapsed).ceil() as usize).clamp(2, 64)
                    } else {
                        64
                    };
                };
                let started = clock();
                let mut best = first;
                let mut batches = 1;
                while batches < 2 || (clock() - started < 20.0 && batches < 50) {
                    let t0 = clock();
                    for _ in 0..repeats {
                        f();
                    }
                    best = best.min((clock() - t0) / repeats as f64);
                    batches += 1;
                }
                best
            };
            let standard_ms = time(&|| {
                std::hint::black_box(attend_output(
                    q.view(),
                    k.view(),
                    v.view(),
                    &Scoring::plain(scale),
                    &mask,
                ));
            });
            let flash_ms = time(&|| {
                std::hint::black_box(flash_attention(
                    q.view(),
                    k.view(),
                    v.view(),
                    &Scoring::plain(scale),
                    &mask,
                    (16, 16),
                    false,
                ));
            });
            CostPoint {
                n,
                standard_ms,
                flash_ms,
            }
        })
        .collect();
    let fit = |f: fn(&CostPoint) -> f64| {
        let large: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.n >= 256)
            .map(|p| (p.n as f64, f(p)))
            .collect();
        if large.len() >= 2 {
            log_log_slope(&large)
        } else {
            log_log_slope(
                &points
                    .iter()
                    .map(|p| (p.n as f64, f(p)))
                    .collect::<Vec<_>>(),
            )
        }
    };
    CostMeasurement {
        d_k,
        standard_slope: fit(|p| p.standard_ms),
        flash_slope: fit(|p| p.flash_ms),
        points,
    }
}

/// The slope of log(y) against log(x) by least squares: 2 for something that grows as n².
pub fn log_log_slope(points: &[(f64, f64)]) -> f64 {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    let n = logs.len() as f64;
    let (mx, my) = (
        logs.iter().map(|p| p.0).sum::<f64>() / n,
        logs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let cov: f64 = logs.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let var: f64 = logs.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    cov / var
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn the_log_log_slope_of_n_squared_is_two() {
        let points: Vec<(f64, f64)> = [64.0, 128.0, 256.0, 512.0]
            .iter()
            .map(|&n: &f64| (n, 3.0 * n * n))
            .collect();
        assert!(close(log_log_slope(&points), 2.0, 1e-12));
    }

    #[test]
    fn measured_cost_grows_with_n() {
        let started = std::time::Instant::now();
        let clock = move || started.elapsed().as_secs_f64() * 1000.0;
        let m = measure_cost(&[32, 64, 128], &clock);
        assert_eq!(m.points.len(), 3);
        assert!(
            m.points
                .iter()
                .all(|p| p.standard_ms >= 0.0 && p.flash_ms >= 0.0)
        );
        assert!(m.points[2].standard_ms > m.points[0].standard_ms);
    }

    /// In a page without cross-origin isolation performance.now() ticks every 0.1 ms: a single
    /// run at n = 64 read as 0 ms, and the chart (log axes) started at n = 128.
    #[test]
    fn a_coarse_clock_still_times_the_smallest_size() {
        let started = std::time::Instant::now();
        let clock = move || (started.elapsed().as_secs_f64() * 1e4).floor() / 10.0;
        let m = measure_cost(&[16, 64], &clock);
        for p in &m.points {
            assert!(p.standard_ms > 0.0 && p.flash_ms > 0.0, "{p:?}");
            assert!(
                p.standard_ms < 100.0,
                "a time per run, not per batch: {p:?}"
            );
        }
    }
}
