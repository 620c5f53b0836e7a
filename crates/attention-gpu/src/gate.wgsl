// Element by element on y: the output gate on softmax heads (each head output y, concat
// [seq_len, heads·d_v], times σ(x·W_g), before W_O), or a projection's bias added to each row of
// y ([rows, cols], the bias [cols]). One thread per number; the dispatch is two-dimensional so
// that long inputs fit WebGPU's 65 535 workgroups a dimension. Run by gpu/gate.rs.

struct GateParams {
    len: u32,
    row: u32,
    cols: u32,
    mode: u32,
}

// What is applied (`uniforms::gate_mode` in Rust).
const MODE_GATE: u32 = 0u;
const MODE_BIAS: u32 = 1u;

// Threads per workgroup: `gate::WORKGROUP` in Rust.
const WORKGROUP: u32 = 64u;

@group(0) @binding(0) var<uniform> p: GateParams;
// [seq_len, heads·d_v]: x·W_g (MODE_GATE); [cols]: the bias (MODE_BIAS).
@group(0) @binding(1) var<storage, read> gate: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(WORKGROUP, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    // `row` numbers per row of workgroups.
    let i = id.y * p.row + id.x;
    if (id.x >= p.row || i >= p.len) {
        return;
    }
    if (p.mode == MODE_BIAS) {
        y[i] = y[i] + gate[i % p.cols];
    } else {
        y[i] = y[i] / (1.0 + exp(-gate[i]));
    }
}
