// Masked, numerically stable softmax of each row of scores, one workgroup of 64 threads per row
// (and head). Run by gpu/softmax.rs.
//
// w_j = exp(s_j − max) / Σ exp(s_j − max) over the allowed keys; exactly 0 where masked; a row
// with every key masked is all zeros. The mask test is mask.wgsl's and the score shaping
// score.wgsl's, put in front of this file. With `shaped`, each scaled dot product first becomes
// its shaped score (bias, cap, ÷T), written back so that the trace reads it; a head's sink logit
// joins the maximum and the sum as one more column, and its weight is dropped.

struct SoftmaxParams {
    rows: u32,
    cols: u32,
    row_offset: u32,
    mask_kind: u32,
    valid_len: u32,
    radius: u32,
    shaped: u32,
    cap: f32,
    inv_t: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Threads per row: `softmax::WORKGROUP` in Rust.
const WORKGROUP: u32 = 64u;
// Below any real score (inputs are bounded so that |scores| < 1e30): "no allowed key yet".
const NONE: f32 = -3.0e38;

@group(0) @binding(0) var<uniform> p: SoftmaxParams;
@group(0) @binding(1) var<storage, read_write> scores: array<f32>;
@group(0) @binding(2) var<storage, read_write> weights: array<f32>;
@group(0) @binding(3) var<storage, read> custom: array<u32>;
@group(0) @binding(4) var<storage, read> heads: array<f32>;

var<workgroup> partial: array<f32, WORKGROUP>;

fn allowed(i: u32, j: u32) -> bool {
    return mask_allows(p.mask_kind, p.valid_len, p.radius, p.cols, i, j);
}

@compute @workgroup_size(WORKGROUP, 1, 1)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let local_row = group.x;
    let head = group.y;
    let i = p.row_offset + local_row;
    let base = (head * p.rows + local_row) * p.cols;
    let sink = heads[2u * head + 1u];

    // Each lane shapes the scores it will read again (the same j below): no barrier needed.
    if (p.shaped != 0u) {
        let slope = heads[2u * head];
        for (var j = lane; j < p.cols; j += WORKGROUP) {
            scores[base + j] = shape_score(scores[base + j], i, j, slope, p.cap, p.inv_t);
        }
    }

    // The row maximum over allowed keys.
    var m = NONE;
    for (var j = lane; j < p.cols; j += WORKGROUP) {
        if (allowed(i, j)) {
            m = max(m, scores[base + j]);
        }
    }
    partial[lane] = m;
    workgroupBarrier();
    for (var step = WORKGROUP / 2u; step > 0u; step /= 2u) {
        if (lane < step) {
            partial[lane] = max(partial[lane], partial[lane + step]);
        }
        workgroupBarrier();
    }
    let row_max = max(partial[0], sink);
    workgroupBarrier();

    // The sum of exp(s − max).
    var sum = 0.0;
    if (row_max > NONE) {
        for (var j = lane; j < p.cols; j += WORKGROUP) {
            if (allowed(i, j)) {
                sum += exp(scores[base + j] - row_max);
            }
        }
    }
    partial[lane] = sum;
    workgroupBarrier();
    for (var step = WORKGROUP / 2u; step > 0u; step /= 2u) {
        if (lane < step) {
            partial[lane] = partial[lane] + partial[lane + step];
        }
        workgroupBarrier();
    }
    var total = partial[0];
    if (sink > NO_SINK) {
        total += exp(sink - row_max);
    }

    for (var j = lane; j < p.cols; j += WORKGROUP) {
        var w = 0.0;
        if (row_max > NONE && total > 0.0 && allowed(i, j)) {
            w = exp(scores[base + j] - row_max) / total;
        }
        weights[base + j] = w;
    }
}
