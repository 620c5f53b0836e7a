// q and k as the scores read them: each head's row divided by its root mean square and times
// the gains γ (QK-norm: γ = 1 and ε = 1e-6, or a trained model's γ [d_k] and ε), then turned by RoPE, pair p by the angle of its position. One thread per row and head.
// Run by gpu/prepare.rs, once for Q and once for K; never for V.
//
// `angles` holds (cos, sin) per row and pair, computed in f64 by the core's `rope_table` (how
// Hugging Face's Llama keeps its cos/sin cache); pairs are (p, p + r/2) or, interleaved,
// (2p, 2p + 1), among the first r = `rotated` dimensions (d_k, or fewer for a partial rotation,
// as Qwen3-Next's: the dimensions past r pass unturned).

struct PrepareParams {
    rows: u32,
    heads: u32,
    d_k: u32,
    qk_norm: u32,
    rope: u32,
    interleaved: u32,
    rotated: u32,
    epsilon: f32,
}

// Rows per workgroup: `prepare::WORKGROUP` in Rust.
const WORKGROUP: u32 = 64u;

@group(0) @binding(0) var<uniform> p: PrepareParams;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> angles: array<f32>;
// [d_k]: QK-norm's gains γ (ones unless a trained model's).
@group(0) @binding(3) var<storage, read> gain: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(WORKGROUP, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let r = id.x;
    let head = id.y;
    if (r >= p.rows) {
        return;
    }
    let base = (r * p.heads + head) * p.d_k;
    var inverse = 1.0;
    if (p.qk_norm != 0u) {
        var sum = 0.0;
        for (var d = 0u; d < p.d_k; d++) {
            sum += x[base + d] * x[base + d];
        }
        inverse = 1.0 / sqrt(sum / f32(p.d_k) + p.epsilon);
    }
    // Each dimension normed (or as it is), before any turn.
    for (var d = 0u; d < p.d_k; d++) {
        var v = x[base + d];
        if (p.qk_norm != 0u) {
            v = v * (inverse * gain[d]);
        }
        y[base + d] = v;
    }
    if (p.rope == 0u) {
        return;
    }
    let pairs = p.rotated / 2u;
    for (var pair = 0u; pair < pairs; pair++) {
        var a = pair;
        var b = pair + pairs;
        if (p.interleaved != 0u) {
            a = 2u * pair;
            b = a + 1u;
        }
        let t = (r * pairs + pair) * 2u;
        let cos_a = angles[t];
        let sin_a = angles[t + 1u];
        let x1 = y[base + a];
        let x2 = y[base + b];
        y[base + a] = x1 * cos_a - x2 * sin_a;
        y[base + b] = x1 * sin_a + x2 * cos_a;
    }
}
