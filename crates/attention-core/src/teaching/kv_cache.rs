//! The KV cache chapter: why generating needs only the new row. Under a causal mask no query
//! reads a key after it, so appending a token leaves every earlier row as it was; the new row
//! is its q against the K and V already computed (kept: the cache), a matrix-vector product.
//! The numbers: the largest weight any query gives a later key (0 when causal), the last row
//! recomputed from its q and the cached K and V against the full computation, the bytes cached
//! per token, and the work per generated token with and without the cache.

use crate::pipeline::trace::Trace;

use super::focus::Focus;

/// One text length's work for one generated token in one layer, in multiply-adds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepCost {
    pub n: usize,
    /// The new row's projections, its scores against n cached keys and its weighted sum.
    pub with_cache: u64,
    /// Every row's projections and every causal score and sum again.
    pub without_cache: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KvCacheExperiment {
    pub n: usize,
    pub head: usize,
    /// The last query, the one a generation step computes.
    pub query: usize,
    /// Whether every query reads only itself and earlier keys.
    pub causal: bool,
    /// The largest weight any query gives a key after it (over every head): 0 under a causal
    /// mask, so appending a token changes no earlier row.
    pub future_weight: f32,
    /// The last row of the head's output computed from its q alone against the cached K and V,
    /// and its largest difference from the full computation's (`None` when ALiBi, a soft-cap
    /// or sink logits shape the scores, which this plain recomputation leaves out).
    pub last_row_delta: Option<f32>,
    pub n_heads: usize,
    pub kv_heads: usize,
    pub d_k: usize,
    pub d_v: usize,
    /// What the cache keeps per token and layer in f32: kv_heads · (d_k + d_v) · 4.
    pub bytes_per_token: usize,
    pub costs: Vec<StepCost>,
}

/// The lengths the cost table shows.
pub const COST_LENGTHS: [usize; 5] = [16, 64, 256, 1024, 4096];

/// Multiply-adds for one generated token in one layer, with the cache and without.
pub fn step_cost(
    n: usize,
    d_model: usize,
    heads: usize,
    kv_heads: usize,
    d_k: usize,
    d_v: usize,
) -> StepCost {
    let row = (d_model * (heads * d_k + kv_heads * (d_k + d_v)) + heads * d_v * d_model) as u64;
    let per_pair = (heads * (d_k + d_v)) as u64;
    let n64 = n as u64;
    StepCost {
        n,
        with_cache: row + per_pair * n64,
        without_cache: row * n64 + per_pair * n64 * (n64 + 1) / 2,
    }
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> KvCacheExperiment {
    let config = &trace.config;
    let dims = config.dims();
    let head = focus.head(trace);
    let (n, m) = (config.seq_len(), config.key_len());
    let query = n.saturating_sub(1);
    let future_weight = trace
        .heads
        .iter()
        .flat_map(|h| {
            h.weights
                .indexed_iter()
                .filter(|((i, j), _)| j > i)
                .map(|(_, &w)| w)
                .collect::<Vec<_>>()
        })
        .fold(0.0f32, f32::max);
    let causal = (0..n).all(|i| (i + 1..m).all(|j| !trace.mask[[i, j]]));
    let shaping = config.shaping();
    let plain = shaping.softcap.is_none()
        && shaping.sink_logits.is_none()
        && !matches!(shaping.position, crate::math::scoring::Position::Alibi);
    let last_row_delta = (plain && n > 0 && !trace.is_summarised()).then(|| {
        let h = &trace.heads[head];
        let q = h.scored_q().row(query).to_owned();
        let keys = h.scored_k();
        let scale = config.scale();
        let visible: Vec<usize> = (0..m).filter(|&j| trace.mask[[query, j]]).collect();
        let scores: Vec<f64> = visible
            .iter()
            .map(|&j| f64::from(q.dot(&keys.row(j)) * scale))
            .collect();
        let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let exps: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
        let sum: f64 = exps.iter().sum();
        let mut row = vec![0.0f64; h.v.ncols()];
        for (&j, e) in visible.iter().zip(&exps) {
            for (out, &v) in row.iter_mut().zip(h.v.row(j)) {
                *out += e / sum * f64::from(v);
            }
        }
        row.iter()
            .zip(h.output.row(query))
            .fold(0.0f32, |d, (a, &b)| d.max((*a as f32 - b).abs()))
    });
    KvCacheExperiment {
        n,
        head,
        query,
        causal,
        future_weight,
        last_row_delta,
        n_heads: dims.n_heads,
        kv_heads: dims.n_kv_heads,
        d_k: dims.d_k,
        d_v: dims.d_v,
        bytes_per_token: crate::teaching::gqa::kv_cache_bytes(
            dims.n_kv_heads,
            dims.d_k,
            dims.d_v,
            4,
        ),
        costs: COST_LENGTHS
            .iter()
            .map(|&n| {
                step_cost(
                    n,
                    dims.d_model,
                    dims.n_heads,
                    dims.n_kv_heads,
                    dims.d_k,
                    dims.d_v,
                )
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use crate::Params;
    use crate::math::mask::MaskSpec;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};

    fn run(mask: MaskSpec) -> super::KvCacheExperiment {
        let t = trace(Params {
            d_model: Some(32),
            n_heads: 4,
            n_kv_heads: Some(2),
            mask,
            ..Params::sentence("the cat sat on the mat")
        });
        let Experiment::KvCache(e) = experiment(Chapter::KvCache, &t, &Focus::default()) else {
            panic!()
        };
        e
    }

    #[test]
    fn a_causal_row_reads_no_later_key_and_the_new_row_comes_from_the_cache() {
        let e = run(MaskSpec::Causal);
        assert!(e.causal);
        assert_eq!(e.future_weight, 0.0);
        assert!(e.last_row_delta.unwrap() < 1e-5, "{:?}", e.last_row_delta);
        assert_eq!(e.bytes_per_token, 2 * (e.d_k + e.d_v) * 4);
        let long = e.costs.last().unwrap();
        assert!(long.without_cache > 1000 * long.with_cache);
    }

    #[test]
    fn without_the_causal_mask_earlier_rows_read_later_keys() {
        let e = run(MaskSpec::None);
        assert!(!e.causal);
        assert!(e.future_weight > 0.0);
    }
}
