//! The gqa chapter: what sharing K/V saves.

use crate::pipeline::trace::Trace;
use crate::teaching::multihead::attention_parameters;

#[derive(Debug, Clone, PartialEq)]
pub struct KvRow {
    pub kv_heads: usize,
    /// Parameters of W_K and W_V, and of the whole attention layer.
    pub kv_parameters: usize,
    pub parameters: usize,
    /// K and V per token and per layer in f16.
    pub cache_bytes_per_token: usize,
    pub current: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GqaExperiment {
    pub n_heads: usize,
    pub d_k: usize,
    pub d_v: usize,
    /// From multi-head (kv = h) to multi-query (kv = 1), each divisor of h.
    pub rows: Vec<KvRow>,
}

pub(super) fn run(trace: &Trace) -> GqaExperiment {
    let dims = trace.config.dims();
    let h = dims.n_heads;
    let rows = (1..=h)
        .rev()
        .filter(|&kv| h.is_multiple_of(kv))
        .map(|kv| KvRow {
            kv_heads: kv,
            kv_parameters: dims.d_model * kv * (dims.d_k + dims.d_v),
            parameters: attention_parameters(dims.d_model, h, kv, dims.d_k, dims.d_v),
            cache_bytes_per_token: kv_cache_bytes(kv, dims.d_k, dims.d_v, 2),
            current: kv == dims.n_kv_heads,
        })
        .collect();
    GqaExperiment {
        n_heads: h,
        d_k: dims.d_k,
        d_v: dims.d_v,
        rows,
    }
}

/// The bytes a KV cache holds per token and per layer: K and V of every K/V head, at
/// `bytes_per_number` each (2 for f16).
pub fn kv_cache_bytes(kv_heads: usize, d_k: usize, d_v: usize, bytes_per_number: usize) -> usize {
    kv_heads * (d_k + d_v) * bytes_per_number
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::Params;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};

    #[test]
    fn parameters_and_kv_cache_follow_the_shape() {
        // 8 heads of 64 over d_model 512: 4 · 512² parameters, as one head of 512 would have.
        assert_eq!(attention_parameters(512, 8, 8, 64, 64), 4 * 512 * 512);
        assert_eq!(attention_parameters(512, 1, 1, 512, 512), 4 * 512 * 512);
        // Multi-query: K and V shrink to one head.
        assert_eq!(
            attention_parameters(512, 8, 1, 64, 64),
            2 * 512 * 512 + 2 * 512 * 64
        );
        assert_eq!(kv_cache_bytes(8, 64, 64, 2), 2048);
        assert_eq!(kv_cache_bytes(1, 64, 64, 2), 256);
    }

    #[test]
    fn heads_cost_the_same_split_or_whole_and_sharing_kv_saves_cache() {
        let t = trace(Params {
            d_model: Some(64),
            n_heads: 4,
            ..Params::sentence("the cat sat on the mat")
        });
        let Experiment::Multihead(e) = experiment(Chapter::Multihead, &t, &Focus::default()) else {
            panic!()
        };
        assert_eq!(e.split_parameters, 4 * 64 * 64);
        assert_eq!(e.single_parameters, e.split_parameters);
        assert_eq!(e.distances[1][1], 0.0);
        assert!(e.mean_distance > 0.0 && e.mean_distance <= 1.0);
        let Experiment::Gqa(g) = experiment(Chapter::Gqa, &t, &Focus::default()) else {
            panic!()
        };
        let kvs: Vec<usize> = g.rows.iter().map(|r| r.kv_heads).collect();
        assert_eq!(kvs, vec![4, 2, 1]);
        assert_eq!(g.rows[0].cache_bytes_per_token, 4 * (16 + 16) * 2);
        assert_eq!(
            g.rows[2].cache_bytes_per_token * 4,
            g.rows[0].cache_bytes_per_token
        );
        assert!(g.rows[0].current);
    }
}
