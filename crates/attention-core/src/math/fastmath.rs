//! A fast, vectorisable e^x for the softmax, and log₂ x for entropies. `f32::exp` and
//! `f64::log2` are scalar libm calls natively and slow software routines in wasm32; softmax
//! spends most of its time in the one, a head's entropy in the other.

const LOG2_E: f32 = std::f32::consts::LOG2_E;
/// ln 2 split in two so that n·ln2 is subtracted without rounding error (Cody–Waite).
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// Adding 1.5·2²³ rounds an f32 to the nearest integer (ties to even), branch-free.
const ROUNDER: f32 = 12_582_912.0;
/// Below this, e^x is smaller than the smallest normal f32: the result is 0.
const MIN_ARG: f32 = -87.3;
/// Above this, 2ⁿ would need the exponent of infinity; e^88 ≈ 1.65·10³⁸ still fits.
const MAX_ARG: f32 = 88.0;

/// e^x with a relative error below 2·10⁻⁷ for x ∈ [−87.3, 88]; 0 below (including −∞),
/// and e^88 above. Only float and integer arithmetic, no branches or casts that saturate, so
/// loops over it vectorise. Cephes' `expf` polynomial after the range reduction x = n·ln2 + r,
/// |r| ≤ ln2/2, so e^x = 2ⁿ · e^r.
#[inline]
pub fn exp(x: f32) -> f32 {
    let clamped = x.clamp(MIN_ARG, MAX_ARG);
    let rounded = clamped * LOG2_E + ROUNDER;
    let n = rounded - ROUNDER;
    let r = clamped - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_2e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let e_r = p * r * r + r + 1.0;
    // `rounded` holds n in its low mantissa bits; 2ⁿ is n + 127 in the exponent field,
    // with n ∈ [−126, 127] after the clamp.
    let n_bits = rounded.to_bits().wrapping_sub(ROUNDER.to_bits());
    let two_n = f32::from_bits(n_bits.wrapping_add(127) << 23);
    if x < MIN_ARG { 0.0 } else { e_r * two_n }
}

/// The larger of two numbers, as one comparison. `f32::max` must skip NaN, which wasm's
/// `f32.max` does not do: in wasm it is a library call that no loop vectorises. For numbers
/// that are not NaN (scores, weights) this is the same.
#[inline(always)]
pub fn larger(a: f32, b: f32) -> f32 {
    if b > a { b } else { a }
}

/// The smaller of two numbers, as one comparison (see [`larger`]).
#[inline(always)]
pub fn smaller(a: f32, b: f32) -> f32 {
    if b < a { b } else { a }
}

/// √½: the mantissa m ∈ [½, 1) is folded to [√½, √2) so that ln m's series converges fast.
const SQRT_HALF: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// log₂ x for x > 0 within 3·10⁻⁷ plus two f32 steps of the result (for normal x; subnormals go to
/// `f32::log2`). Cephes' `logf` polynomial after x = 2ᵉ · m: branch-free for normal x, so loops
/// over it vectorise. 0 and negative x give −∞ and NaN, as `f32::log2` does.
#[inline]
pub fn log2(x: f32) -> f32 {
    if !(x >= f32::MIN_POSITIVE && x.is_finite()) {
        return x.log2();
    }
    log2_normal(x)
}

/// [`log2`] for a normal, finite x > 0 only (anything else gives a meaningless number), with no
/// branch at all: what a loop that vectorises calls, having clamped its x.
#[inline]
pub fn log2_normal(x: f32) -> f32 {
    let bits = x.to_bits();
    // x = 2^(e) · m with m ∈ [½, 1).
    let mut e = ((bits >> 23) & 0xff) as i32 - 126;
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f00_0000);
    let small = m < SQRT_HALF;
    e -= i32::from(small);
    let r = if small { m + m - 1.0 } else { m - 1.0 };
    let z = r * r;
    let mut p = 7.037_683_6e-2_f32;
    p = p * r - 1.151_461e-1;
    p = p * r + 1.167_699_9e-1;
    p = p * r - 1.242_014_1e-1;
    p = p * r + 1.424_932_3e-1;
    p = p * r - 1.666_805_8e-1;
    p = p * r + 2.000_071_4e-1;
    p = p * r - 2.499_999_4e-1;
    p = p * r + 3.333_333e-1;
    // ln(1 + r) = r − r²/2 + r³·p(r).
    let ln = r - 0.5 * z + p * r * z;
    ln * LOG2_E + e as f32
}

/// out = [`exp`](x − shift) for each x of `xs`; returns Σ out, accumulated in f64. The softmax's
/// inner loop: in wasm, eight elements a pass in two vectors of four lanes, with SIMD
/// instructions written out (the compiler leaves the scalar loop unvectorised there, at about
/// 10 ns an element), the two added in f32 before the f64 sum (one rounding of a pair: a
/// relative 6·10⁻⁸ at most); elsewhere the loop over [`exp`], which the compiler vectorises.
pub fn exp_shifted(xs: &[f32], shift: f32, out: &mut [f32]) -> f64 {
    assert_eq!(xs.len(), out.len(), "exp_shifted: one output per input");
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        // SAFETY (with relaxed SIMD): the module of that build loads only where the browser
        // validates relaxed SIMD, so its instructions run only there.
        #[allow(unused_unsafe)]
        unsafe {
            simd::exp_shifted(xs, shift, out)
        }
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        // Two loops: the exponentials vectorise on their own, then the sum in f64 lanes.
        for (o, &x) in out.iter_mut().zip(xs) {
            *o = exp(x - shift);
        }
        let mut lanes = [0.0f64; 4];
        let chunks = out.chunks_exact(4);
        let rest: f64 = chunks.remainder().iter().map(|&v| f64::from(v)).sum();
        for chunk in chunks {
            for (lane, &v) in lanes.iter_mut().zip(chunk) {
                *lane += f64::from(v);
            }
        }
        lanes.iter().sum::<f64>() + rest
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use super::*;
    use core::arch::wasm32::*;

    /// [`exp`]'s constants in four lanes, made once before a loop. Written as constants in the
    /// loop, each is a `v128.const` there, which V8 builds anew on every pass (several
    /// instructions each: the loop ran at 2.3 ns an element, half of it making constants); made
    /// from numbers the compiler cannot see through ([`std::hint::black_box`]), they are values
    /// computed once and held in registers.
    struct Constants {
        max_arg: v128,
        min_arg: v128,
        log2_e: v128,
        rounder: v128,
        minus_ln2_hi: v128,
        minus_ln2_lo: v128,
        poly: [v128; 6],
        one: v128,
        rounder_bits: v128,
        bias: v128,
    }

    impl Constants {
        #[inline(always)]
        fn new() -> Self {
            let splat = |x: f32| f32x4_splat(std::hint::black_box(x));
            Self {
                max_arg: splat(MAX_ARG),
                min_arg: splat(MIN_ARG),
                log2_e: splat(LOG2_E),
                rounder: splat(ROUNDER),
                minus_ln2_hi: splat(-LN2_HI),
                minus_ln2_lo: splat(-LN2_LO),
                poly: [
                    splat(1.987_569_2e-4),
                    splat(1.398_199_9e-3),
                    splat(8.333_452e-3),
                    splat(4.166_579_6e-2),
                    splat(1.666_666_5e-1),
                    splat(0.5),
                ],
                one: splat(1.0),
                rounder_bits: i32x4_splat(std::hint::black_box(ROUNDER.to_bits() as i32)),
                bias: i32x4_splat(std::hint::black_box(127)),
            }
        }
    }

    /// a · b + c: with relaxed SIMD (the crate feature `relaxed-simd`, the worker's second
    /// build), one fused multiply-add where the machine has one; otherwise a product and a sum.
    #[cfg(feature = "relaxed-simd")]
    #[target_feature(enable = "relaxed-simd")]
    #[inline]
    fn madd(a: v128, b: v128, c: v128) -> v128 {
        f32x4_relaxed_madd(a, b, c)
    }

    #[cfg(not(feature = "relaxed-simd"))]
    #[inline(always)]
    fn madd(a: v128, b: v128, c: v128) -> v128 {
        f32x4_add(f32x4_mul(a, b), c)
    }

    /// [`exp`] on four lanes: without relaxed SIMD the same operations in the same order, so the
    /// same results; with it, each product and sum fused where the machine can (within an ulp
    /// or two of those results).
    #[cfg_attr(feature = "relaxed-simd", target_feature(enable = "relaxed-simd"))]
    #[inline]
    fn exp4(x: v128, c: &Constants) -> v128 {
        // pmin/pmax: x when x is NaN, as the scalar clamp leaves it.
        let clamped = f32x4_pmax(f32x4_pmin(x, c.max_arg), c.min_arg);
        let rounded = madd(clamped, c.log2_e, c.rounder);
        let n = f32x4_sub(rounded, c.rounder);
        let r = madd(n, c.minus_ln2_lo, madd(n, c.minus_ln2_hi, clamped));
        let mut p = c.poly[0];
        for &coefficient in &c.poly[1..] {
            p = madd(p, r, coefficient);
        }
        let e_r = f32x4_add(madd(f32x4_mul(p, r), r, r), c.one);
        let n_bits = i32x4_sub(rounded, c.rounder_bits);
        let two_n = i32x4_shl(i32x4_add(n_bits, c.bias), 23);
        let value = f32x4_mul(e_r, two_n);
        // Below MIN_ARG (and −∞): 0.
        v128_andnot(value, f32x4_lt(x, c.min_arg))
    }

    #[cfg_attr(feature = "relaxed-simd", target_feature(enable = "relaxed-simd"))]
    pub fn exp_shifted(xs: &[f32], shift: f32, out: &mut [f32]) -> f64 {
        let constants = Constants::new();
        let (mut low, mut high) = (f64x2_splat(0.0), f64x2_splat(0.0));
        let shift4 = f32x4_splat(shift);
        let mut chunks = out.chunks_exact_mut(8);
        let mut inputs = xs.chunks_exact(8);
        for (out, xs) in (&mut chunks).zip(&mut inputs) {
            // SAFETY: both chunks hold exactly eight f32.
            unsafe {
                let (xs, out) = (xs.as_ptr(), out.as_mut_ptr());
                let a = exp4(f32x4_sub(v128_load(xs.cast()), shift4), &constants);
                let b = exp4(f32x4_sub(v128_load(xs.add(4).cast()), shift4), &constants);
                v128_store(out.cast(), a);
                v128_store(out.add(4).cast(), b);
                let e = f32x4_add(a, b);
                low = f64x2_add(low, f64x2_promote_low_f32x4(e));
                high = f64x2_add(
                    high,
                    f64x2_promote_low_f32x4(i32x4_shuffle::<2, 3, 0, 1>(e, e)),
                );
            }
        }
        let sums = f64x2_add(low, high);
        let mut sum = f64x2_extract_lane::<0>(sums) + f64x2_extract_lane::<1>(sums);
        let mut quads = chunks.into_remainder().chunks_exact_mut(4);
        let mut quad_inputs = inputs.remainder().chunks_exact(4);
        for (out, xs) in (&mut quads).zip(&mut quad_inputs) {
            // SAFETY: both chunks hold exactly four f32.
            unsafe {
                let e = exp4(f32x4_sub(v128_load(xs.as_ptr().cast()), shift4), &constants);
                v128_store(out.as_mut_ptr().cast(), e);
                for lane in [
                    f32x4_extract_lane::<0>(e),
                    f32x4_extract_lane::<1>(e),
                    f32x4_extract_lane::<2>(e),
                    f32x4_extract_lane::<3>(e),
                ] {
                    sum += f64::from(lane);
                }
            }
        }
        for (o, &x) in quads
            .into_remainder()
            .iter_mut()
            .zip(quad_inputs.remainder())
        {
            *o = exp(x - shift);
            sum += f64::from(*o);
        }
        sum
    }
}
