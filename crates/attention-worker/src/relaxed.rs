//! The relaxed-SIMD build of Attention Lab's Web Worker: the same code as `attention-worker`,
//! built with the feature `relaxed-simd` (Cargo builds it only then). The page loads it only
//! where the browser validates relaxed SIMD.

fn main() {
    attention_worker::start();
}
