//! The matrix products' kernels against a plain loop.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The products' kernels (`attention_core::math::gemm`: register-tiled SIMD in wasm, ndarray's GEMM
/// natively) against a plain loop in f64, on shapes that leave remainders of every kernel block,
/// and FlashAttention on tiles read from the head's packed panels against the standard pass.
#[test]
fn the_products_kernels_equal_a_plain_loop_on_ragged_shapes() {
    use attention_core::math::attention::attend;
    use attention_core::math::flash::flash_attention;
    use attention_core::math::gemm::{matmul_nn, matmul_nt};
    use attention_core::pipeline::kernel_case::KernelCase;
    use ndarray::Array2;
    for (n, d, m) in [
        (1, 1, 1),
        (7, 5, 13),
        (33, 24, 70),
        (130, 64, 9),
        (65, 300, 31),
    ] {
        let a = KernelCase::new(n, d.min(256), 1).unwrap().q;
        let b = KernelCase::new(m, d.min(256), 2).unwrap().k;
        let d = d.min(256);
        let plain = Array2::from_shape_fn((n, m), |(i, j)| {
            (0..d)
                .map(|t| f64::from(a[[i, t]]) * f64::from(b[[j, t]]))
                .sum::<f64>() as f32
        });
        let mut scores = Array2::zeros((n, m));
        matmul_nt(1.0, a.view(), b.view(), 0.0, &mut scores.view_mut());
        assert_close("a·bᵀ", scores.view(), plain.view(), 1e-5, 1e-5);
        let mut product = Array2::zeros((n, d));
        matmul_nn(1.0, scores.view(), b.view(), 0.0, &mut product.view_mut());
        let plain = Array2::from_shape_fn((n, d), |(i, t)| {
            (0..m)
                .map(|j| f64::from(scores[[i, j]]) * f64::from(b[[j, t]]))
                .sum::<f64>() as f32
        });
        assert_close("a·b", product.view(), plain.view(), 1e-4, 1e-5);
    }
    let case = KernelCase::new(203, 24, 3).unwrap();
    let standard = attend(
        case.q.view(),
        case.k.view(),
        case.v.view(),
        &case.scoring,
        &case.mask,
    );
    for block in [(16, 16), (64, 64), (5, 8), (7, 3)] {
        let flash = flash_attention(
            case.q.view(),
            case.k.view(),
            case.v.view(),
            &case.scoring,
            &case.mask,
            block,
            false,
        );
        assert_close(
            "flash",
            flash.output.view(),
            standard.output.view(),
            1e-5,
            1e-5,
        );
    }
}

/// A layer's weights times its input (`linear`): one or two rows stream the weights, more go to
/// the packed kernels; either way a plain loop's product, on ragged widths, and a transposed
/// (not row-major) weight matrix takes the kernels' path.
#[test]
fn a_layers_weights_times_one_row_or_many_is_a_plain_loop() {
    use attention_core::math::gemm::{STREAMED_ROWS, linear};
    use attention_core::pipeline::kernel_case::KernelCase;
    use ndarray::Array2;
    // The shapes below take both paths.
    assert!((1..3).contains(&STREAMED_ROWS));
    for (rows, k, n) in [
        (1, 37, 70),
        (2, 64, 9),
        (3, 24, 33),
        (17, 130, 65),
        (1, 1, 1),
    ] {
        let x = KernelCase::new(rows, k, 5).unwrap().q;
        let w = KernelCase::new(k, n, 6).unwrap().q;
        let plain = Array2::from_shape_fn((rows, n), |(i, j)| {
            (0..k)
                .map(|t| f64::from(x[[i, t]]) * f64::from(w[[t, j]]))
                .sum::<f64>() as f32
        });
        assert_close(
            "x·w",
            linear(x.view(), w.view()).view(),
            plain.view(),
            1e-4,
            1e-5,
        );
        let wt = KernelCase::new(n, k, 6).unwrap().q;
        let plain_t = Array2::from_shape_fn((rows, n), |(i, j)| {
            (0..k)
                .map(|t| f64::from(x[[i, t]]) * f64::from(wt[[j, t]]))
                .sum::<f64>() as f32
        });
        let product = linear(x.view(), wt.t());
        assert_close("x·wᵀ", product.view(), plain_t.view(), 1e-4, 1e-5);
    }
}
