// Linear attention in chunks, one workgroup per head: the chunks one after another (each reads
// the state the chunks before it left), the tokens of a chunk together by matrix products, never
// a dispatch per token. As the core's `math::linear::chunked` computes it:
//
// - elu + 1: out_i = (φq_i·S + Σ_{j≤i} (φq_i·φk_j) v_j) / (φq_i·z + Σ_{j≤i} φq_i·φk_j), then
//   S += Σ_j φk_j ⊗ v_j and z += Σ_j φk_j;
// - the (gated) delta rule in the WY form of transformers' `torch_chunk_gated_delta_rule`: q and
//   k L2-normalised (q ÷ √d_k), β = σ(x·w_β), log α = −a·softplus(x·w_α + dt_bias) (gated), g
//   their running sum within the chunk; T = (I + strictly-lower(diag(β) K Kᵀ ⊙ e^(g_i − g_j)))⁻¹
//   row by row; U = T·diag(β)·V, W = T·diag(β e^g)·K; V' = U − W·S;
//   out = (Q ⊙ e^g)·S + lower(Q Kᵀ ⊙ e^(g_i − g_j))·V'; S ← e^(g_last)·S + (K ⊙ e^(g_last − g))ᵀ·V'.
//
// With the output gate each output is multiplied by σ(x·W_g). Run by gpu/linear.rs; the state
// and the chunk's numbers live in `work`, one stretch per head.

struct LinearParams {
    seq_len: u32,
    heads: u32,
    group: u32,
    d_k: u32,
    d_v: u32,
    chunk: u32,
    kind: u32,
    gated: u32,
    q_stride: u32,
    k_stride: u32,
    v_stride: u32,
    o_stride: u32,
    work_stride: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Threads per head: `linear::WORKGROUP` in Rust.
const WORKGROUP: u32 = 64u;
const L2_EPSILON: f32 = 1e-6;
// Added to elu's normaliser: `linear::ELU_EPSILON` in the core.
const ELU_EPSILON: f32 = 1e-6;
// The kinds: `linear::KIND_*` in Rust.
const KIND_ELU: u32 = 0u;
const KIND_DELTA: u32 = 1u;
const KIND_GATED_DELTA: u32 = 2u;

@group(0) @binding(0) var<uniform> p: LinearParams;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> k: array<f32>;
@group(0) @binding(3) var<storage, read> v: array<f32>;
// [seq_len, 2·heads]: x·w_β then x·w_α per head; then a = exp(A_log) and dt_bias per head.
@group(0) @binding(4) var<storage, read> strips: array<f32>;
// [seq_len, heads·d_v]: x·W_g (read only with the gate).
@group(0) @binding(5) var<storage, read> gate: array<f32>;
@group(0) @binding(6) var<storage, read_write> work: array<f32>;
// [seq_len, heads·d_v]
@group(0) @binding(7) var<storage, read_write> out: array<f32>;

fn sigmoid(x: f32) -> f32 {
    return 1.0 / (1.0 + exp(-x));
}

fn softplus(x: f32) -> f32 {
    if (x > 20.0) {
        return x;
    }
    return log(1.0 + exp(x));
}

fn elu_plus_one(x: f32) -> f32 {
    if (x > 0.0) {
        return x + 1.0;
    }
    return exp(x);
}

@compute @workgroup_size(WORKGROUP, 1, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let h = wg.x;
    let kv = h / p.group;
    let dk = p.d_k;
    let dv = p.d_v;
    let c = p.chunk;
    let n = p.seq_len;
    let hs = p.heads;
    // This head's stretch of `work`.
    let s_at = h * p.work_stride;
    let z_at = s_at + dk * dv;
    let qn_at = z_at + dk;
    let kn_at = qn_at + c * dk;
    let g_at = kn_at + c * dk;
    let b_at = g_at + c;
    let t_at = b_at + c;
    let row_at = t_at + c * c;
    let u_at = row_at + c;
    let w_at = u_at + c * dv;
    let a_h = strips[n * 2u * hs + h];
    let dt = strips[n * 2u * hs + hs + h];

    for (var e = lid; e < dk * dv + dk; e += WORKGROUP) {
        work[s_at + e] = 0.0;
    }
    storageBarrier();

    for (var start = 0u; start < n; start += c) {
        let len = min(c, n - start);
        // The chunk's q and k as the state reads them, β and log α.
        for (var i = lid; i < len; i += WORKGROUP) {
            let t = start + i;
            let qb = t * p.q_stride + h * dk;
            let kb = t * p.k_stride + kv * dk;
            if (p.kind == KIND_ELU) {
                for (var d = 0u; d < dk; d++) {
                    work[qn_at + i * dk + d] = elu_plus_one(q[qb + d]);
                    work[kn_at + i * dk + d] = elu_plus_one(k[kb + d]);
                }
                work[b_at + i] = 1.0;
                work[g_at + i] = 0.0;
            } else {
                var sq = 0.0;
                var sk = 0.0;
                for (var d = 0u; d < dk; d++) {
                    sq += q[qb + d] * q[qb + d];
                    sk += k[kb + d] * k[kb + d];
                }
                let iq = inverseSqrt(sq + L2_EPSILON) / sqrt(f32(dk));
                let ik = inverseSqrt(sk + L2_EPSILON);
                for (var d = 0u; d < dk; d++) {
                    work[qn_at + i * dk + d] = q[qb + d] * iq;
                    work[kn_at + i * dk + d] = k[kb + d] * ik;
                }
                work[b_at + i] = sigmoid(strips[t * 2u * hs + h]);
                var log_alpha = 0.0;
                if (p.kind == KIND_GATED_DELTA) {
                    log_alpha = -a_h * softplus(strips[t * 2u * hs + hs + h] + dt);
                }
                work[g_at + i] = log_alpha;
            }
        }
        storageBarrier();
        if (lid == 0u) {
            var acc = 0.0;
            for (var i = 0u; i < len; i++) {
                acc += work[g_at + i];
                work[g_at + i] = acc;
            }
        }
        storageBarrier();

        if (p.kind == KIND_ELU) {
            // φ(q_i)·φ(k_j) for j ≤ i, once, in T's place (elu has no T).
            for (var e = lid; e < len * len; e += WORKGROUP) {
                let i = e / len;
                let j = e % len;
                var dot = 0.0;
                if (j <= i) {
                    for (var r = 0u; r < dk; r++) {
                        dot += work[qn_at + i * dk + r] * work[kn_at + j * dk + r];
                    }
                }
                work[t_at + i * c + j] = dot;
            }
            storageBarrier();
            for (var e = lid; e < len * dv; e += WORKGROUP) {
                let i = e / dv;
                let d = e % dv;
                var num = 0.0;
                var den = 0.0;
                for (var r = 0u; r < dk; r++) {
                    let qr = work[qn_at + i * dk + r];
                    num += qr * work[s_at + r * dv + d];
                    den += qr * work[z_at + r];
                }
                for (var j = 0u; j <= i; j++) {
                    let w = work[t_at + i * c + j];
                    num += w * v[(start + j) * p.v_stride + kv * dv + d];
                    den += w;
                }
                var o = num / (den + ELU_EPSILON);
                if (p.gated != 0u) {
                    o *= sigmoid(gate[(start + i) * p.o_stride + h * dv + d]);
                }
                out[(start + i) * p.o_stride + h * dv + d] = o;
            }
            storageBarrier();
            for (var e = lid; e < dk * dv; e += WORKGROUP) {
                let r = e / dv;
                let d = e % dv;
                var acc = work[s_at + e];
                for (var j = 0u; j < len; j++) {
                    acc += work[kn_at + j * dk + r] * v[(start + j) * p.v_stride + kv * dv + d];
                }
                work[s_at + e] = acc;
            }
            for (var r = lid; r < dk; r += WORKGROUP) {
                var acc = work[z_at + r];
                for (var j = 0u; j < len; j++) {
                    acc += work[kn_at + j * dk + r];
                }
                work[z_at + r] = acc;
            }
            storageBarrier();
        } else {
            // −strictly-lower(diag(β) K Kᵀ ⊙ e^(g_i − g_j)).
            for (var e = lid; e < len * len; e += WORKGROUP) {
                let i = e / len;
                let j = e % len;
                var value = 0.0;
                if (j < i) {
                    var dot = 0.0;
                    for (var r = 0u; r < dk; r++) {
                        dot += work[kn_at + i * dk + r] * work[kn_at + j * dk + r];
                    }
                    value = -work[b_at + i] * dot * exp(work[g_at + i] - work[g_at + j]);
                }
                work[t_at + i * c + j] = value;
            }
            storageBarrier();
            // Its inverse, row by row: row i += row i · (the rows above it).
            for (var i = 1u; i < len; i++) {
                for (var j = lid; j < i; j += WORKGROUP) {
                    work[row_at + j] = work[t_at + i * c + j];
                }
                storageBarrier();
                for (var j = lid; j < i; j += WORKGROUP) {
                    var acc = work[row_at + j];
                    for (var m = j + 1u; m < i; m++) {
                        acc += work[row_at + m] * work[t_at + m * c + j];
                    }
                    work[t_at + i * c + j] = acc;
                }
                storageBarrier();
            }
            for (var i = lid; i < len; i += WORKGROUP) {
                work[t_at + i * c + i] = 1.0;
            }
            storageBarrier();
            // U = T·diag(β)·V and W = T·diag(β e^g)·K.
            for (var e = lid; e < len * dv; e += WORKGROUP) {
                let i = e / dv;
                let d = e % dv;
                var acc = 0.0;
                for (var j = 0u; j <= i; j++) {
                    acc += work[t_at + i * c + j] * work[b_at + j]
                        * v[(start + j) * p.v_stride + kv * dv + d];
                }
                work[u_at + i * dv + d] = acc;
            }
            for (var e = lid; e < len * dk; e += WORKGROUP) {
                let i = e / dk;
                let d = e % dk;
                var acc = 0.0;
                for (var j = 0u; j <= i; j++) {
                    acc += work[t_at + i * c + j] * work[b_at + j] * exp(work[g_at + j])
                        * work[kn_at + j * dk + d];
                }
                work[w_at + i * dk + d] = acc;
            }
            storageBarrier();
            // lower(Q Kᵀ ⊙ e^(g_i − g_j)), once, in T's place (U and W no longer need T).
            for (var e = lid; e < len * len; e += WORKGROUP) {
                let i = e / len;
                let j = e % len;
                var value = 0.0;
                if (j <= i) {
                    for (var r = 0u; r < dk; r++) {
                        value += work[qn_at + i * dk + r] * work[kn_at + j * dk + r];
                    }
                    value *= exp(work[g_at + i] - work[g_at + j]);
                }
                work[t_at + i * c + j] = value;
            }
            // V' = U − W·S, in U's place.
            for (var e = lid; e < len * dv; e += WORKGROUP) {
                let i = e / dv;
                let d = e % dv;
                var acc = work[u_at + e];
                for (var r = 0u; r < dk; r++) {
                    acc -= work[w_at + i * dk + r] * work[s_at + r * dv + d];
                }
                work[u_at + e] = acc;
            }
            storageBarrier();
            for (var e = lid; e < len * dv; e += WORKGROUP) {
                let i = e / dv;
                let d = e % dv;
                let gi = work[g_at + i];
                var acc = 0.0;
                for (var r = 0u; r < dk; r++) {
                    acc += work[qn_at + i * dk + r] * work[s_at + r * dv + d];
                }
                acc *= exp(gi);
                for (var j = 0u; j <= i; j++) {
                    acc += work[t_at + i * c + j] * work[u_at + j * dv + d];
                }
                if (p.gated != 0u) {
                    acc *= sigmoid(gate[(start + i) * p.o_stride + h * dv + d]);
                }
                out[(start + i) * p.o_stride + h * dv + d] = acc;
            }
            storageBarrier();
            let last = work[g_at + len - 1u];
            for (var e = lid; e < dk * dv; e += WORKGROUP) {
                let r = e / dv;
                let d = e % dv;
                var acc = exp(last) * work[s_at + e];
                for (var j = 0u; j < len; j++) {
                    acc += work[kn_at + j * dk + r] * exp(last - work[g_at + j])
                        * work[u_at + j * dv + d];
                }
                work[s_at + e] = acc;
            }
            storageBarrier();
        }
    }
}
