//! The core against an independent float64 numpy reference (tests/reference/attention.py):
//! every mask, temperatures, GQA/MQA, cross-attention, LayerNorm and uneven flash blocks.
//! Each case goes through the JSON API, as the CLI's input. Runs natively and in the browser.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use attention_core::api::parse_request;
use attention_core::compute_trace;
use ndarray::{Array2, ArrayView2};
use serde_json::Value;

const FIXTURES: &str = include_str!("fixtures/attention.json");
const ATOL: f32 = 1e-5;
const RTOL: f32 = 1e-5;

/// A JSON matrix; null (a masked score) becomes NaN.
fn matrix(value: &Value) -> Array2<f32> {
    let rows = value.as_array().expect("a matrix is an array of rows");
    let cols = rows.first().and_then(Value::as_array).map_or(0, Vec::len);
    Array2::from_shape_fn((rows.len(), cols), |(i, j)| {
        rows[i][j].as_f64().map_or(f32::NAN, |v| v as f32)
    })
}

/// Compares elementwise; NaN in `expected` (masked) is skipped.
fn check(case: &str, what: &str, actual: ArrayView2<f32>, expected: &Value) {
    let expected = matrix(expected);
    assert_eq!(actual.dim(), expected.dim(), "{case}: {what} shape");
    for ((i, j), &e) in expected.indexed_iter() {
        if e.is_nan() {
            continue;
        }
        let a = actual[[i, j]];
        assert!(
            (a - e).abs() <= ATOL + RTOL * e.abs(),
            "{case}: {what}[{i}][{j}] = {a}, reference {e} (|Δ| = {:e})",
            (a - e).abs()
        );
    }
}

#[test]
fn core_matches_the_numpy_reference() {
    let fixtures: Value = serde_json::from_str(FIXTURES).unwrap();
    let cases = fixtures["cases"].as_array().unwrap();
    assert!(cases.len() >= 20);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let request = parse_request(&case["request"].to_string()).unwrap();
        let config = request.to_params().unwrap().validate().unwrap();
        let trace = compute_trace(&config);
        let expected = &case["expected"];
        let expected_heads = expected["heads"].as_array().unwrap();
        assert_eq!(trace.heads.len(), expected_heads.len(), "{name}: heads");
        for (h, (head, reference)) in trace.heads.iter().zip(expected_heads).enumerate() {
            assert_eq!(
                head.kv_group as u64,
                reference["kv_group"].as_u64().unwrap(),
                "{name}: head {h} group"
            );
            check(name, &format!("head {h} q"), head.q.view(), &reference["q"]);
            check(name, &format!("head {h} k"), head.k.view(), &reference["k"]);
            check(name, &format!("head {h} v"), head.v.view(), &reference["v"]);
            check(
                name,
                &format!("head {h} scores"),
                head.scores.view(),
                &reference["scores"],
            );
            check(
                name,
                &format!("head {h} weights"),
                head.weights.view(),
                &reference["weights"],
            );
            check(
                name,
                &format!("head {h} output"),
                head.output.view(),
                &reference["output"],
            );
            check(
                name,
                &format!("head {h} flash"),
                trace.flash.heads[h].output.view(),
                &reference["output"],
            );
            let fully: Vec<usize> =
                serde_json::from_value(reference["fully_masked_rows"].clone()).unwrap();
            assert_eq!(
                head.fully_masked_rows, fully,
                "{name}: head {h} fully masked rows"
            );
            // Masked scores are exactly where the reference has null.
            for ((i, j), s) in matrix(&reference["scores"]).indexed_iter() {
                assert_eq!(trace.mask[[i, j]], !s.is_nan(), "{name}: mask [{i}][{j}]");
            }
        }
        check(name, "concat", trace.concat.view(), &expected["concat"]);
        check(name, "output", trace.output.view(), &expected["output"]);
        check(
            name,
            "flash output",
            trace.flash.output.view(),
            &expected["output"],
        );
    }
}
