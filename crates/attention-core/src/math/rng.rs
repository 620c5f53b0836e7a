//! A portable pseudo-random generator and string hash.
//!
//! Only integer operations and IEEE-exact float conversions, so a seed gives bit-identical
//! numbers natively and in wasm32 (no platform `sin`/`ln` is involved).

/// SplitMix64 (Steele, Lea & Flood 2014): tiny, fast, and good enough for initialising weights.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 random bits.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [-bound, bound).
    pub fn next_symmetric(&mut self, bound: f64) -> f64 {
        (2.0 * self.next_unit() - 1.0) * bound
    }
}

/// FNV-1a, 64 bit: a stable hash of a string (std's hashers are not stable across versions).
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// Mixes a user seed with a stream name, so W_Q, W_K, … draw from independent streams.
pub fn stream_seed(seed: u64, stream: &str) -> u64 {
    SplitMix64::new(seed ^ fnv1a(stream)).next_u64()
}
