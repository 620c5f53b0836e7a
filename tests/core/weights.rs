//! Seeded weights, the same bits everywhere.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The same seed must give the same bits natively and in the browser: this checksum was computed
/// natively, and this test also runs under wasm-bindgen-test.
#[test]
fn seeded_weights_are_bit_identical_everywhere() {
    let dims = Dims {
        d_model: 8,
        n_heads: 2,
        n_kv_heads: 1,
        d_k: 4,
        d_v: 3,
    };
    let weights = Weights::xavier(42, &dims);
    let checksum = [&weights.w_q, &weights.w_k, &weights.w_v, &weights.w_o]
        .iter()
        .flat_map(|m| m.iter())
        .fold(0u64, |hash, v| {
            (hash ^ u64::from(v.to_bits())).wrapping_mul(0x100_0000_01B3)
        });
    assert_eq!(checksum, WEIGHTS_CHECKSUM, "weights for seed 42 changed");
    assert_eq!(
        weights,
        Weights::xavier(42, &dims),
        "same seed, same weights"
    );
    assert_ne!(
        weights,
        Weights::xavier(43, &dims),
        "another seed, other weights"
    );
}

const WEIGHTS_CHECKSUM: u64 = 12_427_391_076_719_514_113;
