// C = alpha · A · B (or A · Bᵀ), batched, on strided views of larger matrices: one kernel for the
// Q/K/V projections, the scores of every head (QKᵀ · scale), weights · V written into the concat
// layout, and the output projection. Run by gpu/matmul.rs.
//
// Batch z reads A at a_offset + (z / a_group) · a_batch, and likewise B and C; a group size > 1
// lets several query heads share one K/V head (grouped-query attention).
// Tiles of 16 × 16 are staged in workgroup memory.

struct MatmulParams {
    m: u32,
    n: u32,
    k: u32,
    b_transposed: u32,
    a_offset: u32,
    a_stride: u32,
    a_batch: u32,
    a_group: u32,
    b_offset: u32,
    b_stride: u32,
    b_batch: u32,
    b_group: u32,
    c_offset: u32,
    c_stride: u32,
    c_batch: u32,
    c_group: u32,
    alpha: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// The side of the tiles in workgroup memory: `matmul::TILE` in Rust.
const TILE: u32 = 16u;

@group(0) @binding(0) var<uniform> p: MatmulParams;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> tile_a: array<array<f32, TILE>, TILE>;
var<workgroup> tile_b: array<array<f32, TILE>, TILE>;

@compute @workgroup_size(TILE, TILE, 1)
fn main(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_id) local: vec3<u32>,
) {
    let row = group.y * TILE + local.y;
    let col = group.x * TILE + local.x;
    let z = group.z;
    let a_base = p.a_offset + (z / p.a_group) * p.a_batch;
    let b_base = p.b_offset + (z / p.b_group) * p.b_batch;
    let c_base = p.c_offset + (z / p.c_group) * p.c_batch;

    var sum = 0.0;
    let tiles = (p.k + TILE - 1u) / TILE;
    for (var t = 0u; t < tiles; t++) {
        // A[row, t·TILE + local.x]
        let a_col = t * TILE + local.x;
        var a_value = 0.0;
        if (row < p.m && a_col < p.k) {
            a_value = a[a_base + row * p.a_stride + a_col];
        }
        tile_a[local.y][local.x] = a_value;
        // B[t·TILE + local.y, col], stored transposed (as N × K) when asked.
        let b_row = t * TILE + local.y;
        var b_value = 0.0;
        if (b_row < p.k && col < p.n) {
            if (p.b_transposed == 1u) {
                b_value = b[b_base + col * p.b_stride + b_row];
            } else {
                b_value = b[b_base + b_row * p.b_stride + col];
            }
        }
        tile_b[local.y][local.x] = b_value;
        workgroupBarrier();
        for (var i = 0u; i < TILE; i++) {
            sum += tile_a[local.y][i] * tile_b[i][local.x];
        }
        workgroupBarrier();
    }
    if (row < p.m && col < p.n) {
        c[c_base + row * p.c_stride + col] = p.alpha * sum;
    }
}
