//! The hybrids chapter: why 2025's open models (Qwen3-Next, Qwen3.5, Kimi Linear) stack three
//! layers of linear attention for each layer of softmax attention, and gate the softmax heads.
//!
//! Memory: a linear layer keeps one d_k × d_v state per head whatever the length; a softmax
//! layer caches a key and a value per token and K/V head. For a stack of [`HYBRID_LAYERS`] layers of the
//! learner's head shape, each mix of the two kinds holds a fixed part and a part that grows with
//! the text: the chart of bytes against length, and the length from which the 3 : 1 mix holds
//! less than an all-softmax stack. What the fixed state costs in recall is the delta-rule
//! chapter's experiment; the gate and the sink are the Llama twins' (`models::sinks`).

use crate::pipeline::trace::Trace;

/// The layers of the stack the chapter compares (one of Qwen3-Next's repeating groups).
pub const HYBRID_LAYERS: usize = 4;

/// The mixes compared: how many of the [`HYBRID_LAYERS`] are linear attention (all softmax, half and
/// half, three to one, all linear).
pub const HYBRID_MIXES: [usize; 4] = [0, 2, 3, 4];

/// The lengths the curves are drawn at: 1 to 65 536 tokens, doubling (the crossover of a small
/// head shape is a few tokens, of a large one thousands).
pub const HYBRID_LENGTHS: [u64; 17] = [
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
];

/// Bytes per number (f32, as the lab's caches hold them).
const BYTES: u64 = 4;

/// One mix of layers: what it holds whatever the length, and what each token adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HybridMix {
    pub linear_layers: usize,
    /// The linear layers' states: linear_layers · heads · d_k · d_v numbers (in u64: a large
    /// head shape's bytes pass 2³² in a 32-bit browser build).
    pub state_bytes: u64,
    /// The softmax layers' keys and values per token: softmax_layers · K/V heads · (d_k + d_v).
    pub bytes_per_token: u64,
}

impl HybridMix {
    pub fn bytes(&self, tokens: u64) -> u64 {
        self.state_bytes + self.bytes_per_token * tokens
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct HybridsExperiment {
    /// The learner's head shape: query heads, K/V heads, d_k, d_v.
    pub heads: usize,
    pub kv_heads: usize,
    pub d_k: usize,
    pub d_v: usize,
    /// In the order of [`HYBRID_MIXES`].
    pub mixes: Vec<HybridMix>,
    /// From how many tokens the 3 : 1 mix holds less than the all-softmax stack.
    pub crossover: u64,
    /// The learner's sentence length, marked on the chart.
    pub n: usize,
}

/// The mixes of [`HYBRID_MIXES`] for heads of this shape.
pub fn mixes(heads: usize, kv_heads: usize, d_k: usize, d_v: usize) -> Vec<HybridMix> {
    let wide = |n: usize| n as u64;
    HYBRID_MIXES
        .iter()
        .map(|&linear| HybridMix {
            linear_layers: linear,
            state_bytes: wide(linear) * wide(heads) * wide(d_k) * wide(d_v) * BYTES,
            bytes_per_token: wide(HYBRID_LAYERS - linear)
                * wide(kv_heads)
                * wide(d_k + d_v)
                * BYTES,
        })
        .collect()
}

pub(super) fn run(trace: &Trace) -> HybridsExperiment {
    let dims = trace.config.dims();
    let (heads, kv_heads, d_k, d_v) = (dims.n_heads, dims.n_kv_heads, dims.d_k, dims.d_v);
    let mixes = mixes(heads, kv_heads, d_k, d_v);
    let (softmax, hybrid) = (mixes[0], mixes[2]);
    // The first n with hybrid.bytes(n) < softmax.bytes(n).
    let saved = softmax.bytes_per_token - hybrid.bytes_per_token;
    let crossover = hybrid.state_bytes / saved.max(1) + 1;
    HybridsExperiment {
        heads,
        kv_heads,
        d_k,
        d_v,
        mixes,
        crossover,
        n: trace.config.seq_len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;
    use crate::teaching::focus::trace;

    #[test]
    fn the_three_to_one_stack_passes_below_all_softmax_where_its_states_are_paid_for() {
        let t = trace(Params {
            d_model: Some(64),
            n_heads: 4,
            n_kv_heads: Some(2),
            ..Params::sentence("the cat sat on the mat")
        });
        let e = run(&t);
        assert_eq!((e.heads, e.kv_heads, e.d_k, e.d_v, e.n), (4, 2, 16, 16, 6));
        let [softmax, half, hybrid, linear] = [e.mixes[0], e.mixes[1], e.mixes[2], e.mixes[3]];
        assert_eq!(softmax.state_bytes, 0);
        assert_eq!(softmax.bytes_per_token, 4 * 2 * 2 * 16 * 4);
        assert_eq!(hybrid.state_bytes, 3 * 4 * 16 * 16 * 4);
        assert_eq!(hybrid.bytes_per_token, softmax.bytes_per_token / 4);
        assert_eq!(linear.bytes_per_token, 0);
        assert_eq!(half.linear_layers, 2);
        let n = e.crossover;
        assert!(hybrid.bytes(n) < softmax.bytes(n));
        assert!(hybrid.bytes(n - 1) >= softmax.bytes(n - 1));
        // Far past it, the hybrid holds about a quarter of the softmax stack's memory.
        let far = 1u64 << 20;
        let ratio = hybrid.bytes(far) as f64 / softmax.bytes(far) as f64;
        assert!((ratio - 0.25).abs() < 0.01, "{ratio}");
        // The curves start before the crossover, so the chart shows the lines crossing.
        assert!(HYBRID_LENGTHS[0] < e.crossover);
    }

    #[test]
    fn a_large_head_shape_counts_past_four_gigabytes_without_wrapping() {
        // d_model 2048 in 4 heads of 512: 64 KiB a token for the all-softmax stack.
        let softmax = mixes(4, 4, 512, 512)[0];
        assert_eq!(softmax.bytes(65536), 65536 * 4 * 4 * 1024 * 4);
        assert!(softmax.bytes(65536) >= 1 << 32);
    }
}
