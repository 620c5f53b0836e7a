//! Attention itself, one head at a time: the mask (which keys each query may see), how q·k
//! becomes a score (positions, soft-caps, QK-norm, sink logits), the softmax and its exponential,
//! the matrix products, standard attention and FlashAttention's tiles with the online softmax,
//! linear attention's state (elu, the delta rule, gated) token by token, in chunks and as its
//! hidden matrix, the norms, and the seeded random numbers every weight is drawn from. Knows nothing of a
//! request, a trace or a model.

pub mod attention;
pub mod fastmath;
pub mod flash;
pub mod gemm;
pub mod linear;
pub mod mask;
pub mod norm;
pub mod rng;
pub mod scoring;
pub mod softmax;
pub mod weights;
