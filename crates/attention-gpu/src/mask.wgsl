// The mask test, shared by softmax.wgsl and flash.wgsl: their Rust modules put this file in
// front of them. Kinds: 0 none, 1 causal, 2 padding, 3 window, 4 custom (the shader declares
// `custom`, one u32 per [query, key], queries counted from 0).

fn mask_allows(kind: u32, valid_len: u32, radius: u32, keys: u32, i: u32, j: u32) -> bool {
    switch kind {
        case 0u: { return true; }
        case 1u: { return j <= i; }
        case 2u: { return j < valid_len; }
        case 3u: { return max(i, j) - min(i, j) <= radius; }
        default: { return custom[i * keys + j] != 0u; }
    }
}
