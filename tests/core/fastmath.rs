//! The vectorised exponential and logarithm against libm.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn fast_exp_matches_libm() {
    use attention_core::math::fastmath::exp;
    let mut worst = 0.0f64;
    let mut x = -87.0f32;
    while x <= 88.0 {
        let reference = f64::from(x).exp();
        let relative = ((f64::from(exp(x)) - reference) / reference).abs();
        worst = worst.max(relative);
        x += 0.001_7;
    }
    assert!(worst < 3e-7, "worst relative error {worst:e}");
    println!("fast exp: worst relative error {worst:e}");
    assert_eq!(exp(0.0), 1.0);
    assert_eq!(exp(f32::NEG_INFINITY), 0.0);
    assert_eq!(exp(-100.0), 0.0);
    assert!(exp(1e6).is_finite());
}

/// The softmax's loop (in wasm, SIMD written out: eight lanes at a time, then four, then one)
/// gives exactly the scalar exp of each element, whatever the length, and their sum.
#[test]
fn exp_shifted_is_the_scalar_exp_element_by_element() {
    use attention_core::math::fastmath::{exp, exp_shifted};
    for len in (0..=21).chain([64, 4093]) {
        let xs: Vec<f32> = (0..len)
            .map(|i| match i % 7 {
                0 => f32::NEG_INFINITY,
                1 => -90.0,
                _ => -((i * 37 % 101) as f32) / 7.0,
            })
            .collect();
        let mut out = vec![f32::NAN; len];
        let sum = exp_shifted(&xs, 0.25, &mut out);
        for (i, (&o, &x)) in out.iter().zip(&xs).enumerate() {
            assert_eq!(
                o.to_bits(),
                exp(x - 0.25).to_bits(),
                "len {len}, element {i}"
            );
        }
        let reference: f64 = out.iter().map(|&v| f64::from(v)).sum();
        assert!(
            (sum - reference).abs() <= 1e-7 * reference.max(1e-30),
            "len {len}: sum {sum} against {reference}"
        );
    }
}

#[test]
fn fast_log2_matches_libm() {
    use attention_core::math::fastmath::log2;
    let mut worst = 0.0f64;
    // Every binade of the normal floats, 3 000 points in each of [2⁻¹²⁶, 2¹²⁸).
    let mut x = f32::MIN_POSITIVE;
    while x.is_finite() {
        for i in 0..3_000 {
            let v = x * (1.0 + i as f32 / 3_000.0);
            // Within 3·10⁻⁷, plus two f32 steps of the result where it is large.
            let reference = f64::from(v).log2();
            let error = (f64::from(log2(v)) - reference).abs();
            worst = worst.max(error / (3e-7 + 2.0 * f64::from(f32::EPSILON) * reference.abs()));
        }
        x *= 2.0;
    }
    assert!(worst < 1.0, "worst error {worst} of the bound");
    println!("fast log2: worst error {worst:.2} of the bound");
    assert_eq!(log2(1.0), 0.0);
    assert_eq!(log2(0.5), -1.0);
    assert_eq!(log2(1024.0), 10.0);
    assert_eq!(log2(0.0), f32::NEG_INFINITY);
    assert!(log2(-1.0).is_nan() && log2(f32::NAN).is_nan());
    assert_eq!(log2(f32::INFINITY), f32::INFINITY);
    assert!((log2(1e-40) - 1e-40f32.log2()).abs() < 1e-5, "subnormals");
}
