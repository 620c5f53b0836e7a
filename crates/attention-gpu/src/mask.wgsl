// The mask test, shared by softmax.wgsl and flash.wgsl: their Rust modules put this file in
// front of them. The kinds are numbered as `uniforms::mask_kind` in Rust (a naga reflection test
// compares them); the shader declares `custom`, one u32 per [query, key], queries counted from 0.

const MASK_NONE: u32 = 0u;
const MASK_CAUSAL: u32 = 1u;
const MASK_PADDING: u32 = 2u;
const MASK_WINDOW: u32 = 3u;
const MASK_CUSTOM: u32 = 4u;
// A causal sliding window of `radius` keys back, plus the first `valid_len` keys (sink tokens),
// never a key after the query.
const MASK_SLIDING: u32 = 5u;

fn mask_allows(kind: u32, valid_len: u32, radius: u32, keys: u32, i: u32, j: u32) -> bool {
    switch kind {
        case MASK_NONE: { return true; }
        case MASK_CAUSAL: { return j <= i; }
        case MASK_PADDING: { return j < valid_len; }
        case MASK_WINDOW: { return max(i, j) - min(i, j) <= radius; }
        case MASK_SLIDING: { return j <= i && (i - j <= radius || j < valid_len); }
        default: { return custom[i * keys + j] != 0u; }
    }
}
