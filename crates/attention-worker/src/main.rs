//! The simd128 build of Attention Lab's Web Worker (see the crate's documentation).

fn main() {
    attention_worker::start();
}
