// Fused FlashAttention: never writes the seq_len × key_len matrix. Run by gpu/flash.rs.
//
// A workgroup takes QUERIES_PER_WORKGROUP queries of one head; each thread walks its query's row of key tiles
// (block_cols keys each) with the online softmax: a running maximum m and sum l, and the output
// row as accumulator, rescaled by exp(m_old − m_new) whenever the maximum grows. A tile the mask
// hides entirely for the thread's query block (block_rows queries) is skipped without reading K
// or V, as the CPU version does. At the end the row is divided by l (or left at 0 when every key
// is masked). The mask test is mask.wgsl's and the score shaping score.wgsl's, put in front of
// this file: with `shaped`, each score gets its bias and cap from its indices; a head's sink
// logit is the online softmax's start (m = sink, l = 1), a column every row holds.

struct FlashParams {
    seq_len: u32,
    key_len: u32,
    d_k: u32,
    d_v: u32,
    q_stride: u32,
    k_stride: u32,
    v_stride: u32,
    o_stride: u32,
    group: u32,
    block_rows: u32,
    block_cols: u32,
    mask_kind: u32,
    valid_len: u32,
    radius: u32,
    scale: f32,
    shaped: u32,
    cap: f32,
    inv_t: f32,
    _pad0: u32,
}

const NONE: f32 = -3.0e38;
// One query per thread: `flash::QUERIES_PER_WORKGROUP` in Rust.
const QUERIES_PER_WORKGROUP: u32 = 64u;

@group(0) @binding(0) var<uniform> p: FlashParams;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> k: array<f32>;
@group(0) @binding(3) var<storage, read> v: array<f32>;
@group(0) @binding(4) var<storage, read_write> o: array<f32>;
@group(0) @binding(5) var<storage, read> custom: array<u32>;
@group(0) @binding(6) var<storage, read> heads: array<f32>;

fn allowed(i: u32, j: u32) -> bool {
    return mask_allows(p.mask_kind, p.valid_len, p.radius, p.key_len, i, j);
}

// Does the mask hide every cell of queries [r0, r1) × keys [c0, c1)?
fn tile_hidden(r0: u32, r1: u32, c0: u32, c1: u32) -> bool {
    switch p.mask_kind {
        case MASK_NONE: { return false; }
        case MASK_CAUSAL: { return c0 > r1 - 1u; }
        case MASK_PADDING: { return c0 >= p.valid_len; }
        case MASK_WINDOW: {
            var gap = 0u;
            if (c0 > r1 - 1u) { gap = c0 - (r1 - 1u); }
            if (r0 > c1 - 1u) { gap = r0 - (c1 - 1u); }
            return gap > p.radius;
        }
        case MASK_SLIDING: {
            if (c0 < p.valid_len && c0 <= r1 - 1u) { return false; }
            var before = 0u;
            if (r0 > p.radius) { before = r0 - p.radius; }
            return c0 > r1 - 1u || c1 - 1u < before;
        }
        default: {
            for (var i = r0; i < r1; i++) {
                for (var j = c0; j < c1; j++) {
                    if (custom[i * p.key_len + j] != 0u) { return false; }
                }
            }
            return true;
        }
    }
}

fn score(q_base: u32, k_base: u32, i: u32, j: u32, slope: f32) -> f32 {
    var s = 0.0;
    for (var d = 0u; d < p.d_k; d++) {
        s += q[q_base + d] * k[k_base + d];
    }
    if (p.shaped != 0u) {
        return shape_score(s * p.scale, i, j, slope, p.cap, p.inv_t);
    }
    return s * p.scale;
}

@compute @workgroup_size(QUERIES_PER_WORKGROUP, 1, 1)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(workgroup_id) group: vec3<u32>,
) {
    let i = id.x;
    let head = group.y;
    if (i >= p.seq_len) {
        return;
    }
    let kv = head / p.group;
    let q_base = i * p.q_stride + head * p.d_k;
    let o_base = i * p.o_stride + head * p.d_v;
    let r0 = (i / p.block_rows) * p.block_rows;
    let r1 = min(r0 + p.block_rows, p.seq_len);

    for (var d = 0u; d < p.d_v; d++) {
        o[o_base + d] = 0.0;
    }
    let slope = heads[2u * head];
    let sink = heads[2u * head + 1u];
    var m = NONE;
    var l = 0.0;
    if (sink > NO_SINK) {
        m = sink;
        l = 1.0;
    }
    for (var c0 = 0u; c0 < p.key_len; c0 += p.block_cols) {
        let c1 = min(c0 + p.block_cols, p.key_len);
        if (tile_hidden(r0, r1, c0, c1)) {
            continue;
        }
        var tile_max = NONE;
        for (var j = c0; j < c1; j++) {
            if (allowed(i, j)) {
                tile_max = max(tile_max, score(q_base, j * p.k_stride + kv * p.d_k, i, j, slope));
            }
        }
        if (tile_max <= NONE) {
            continue;
        }
        let m_new = max(m, tile_max);
        var rescale = 0.0;
        if (m > NONE) {
            rescale = exp(m - m_new);
        }
        l = l * rescale;
        for (var d = 0u; d < p.d_v; d++) {
            o[o_base + d] = o[o_base + d] * rescale;
        }
        for (var j = c0; j < c1; j++) {
            if (allowed(i, j)) {
                let weight = exp(score(q_base, j * p.k_stride + kv * p.d_k, i, j, slope) - m_new);
                l += weight;
                let v_base = j * p.v_stride + kv * p.d_v;
                for (var d = 0u; d < p.d_v; d++) {
                    o[o_base + d] += weight * v[v_base + d];
                }
            }
        }
        m = m_new;
    }
    if (l > 0.0) {
        let inverse = 1.0 / l;
        for (var d = 0u; d < p.d_v; d++) {
            o[o_base + d] = o[o_base + d] * inverse;
        }
    }
}
