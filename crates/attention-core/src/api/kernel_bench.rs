//! The kernel measure's JSON: what `attentionLab.kernelBench` and the page's workers answer.

use crate::pipeline::kernel_case::{KernelCase, MAX_D, MAX_N};

/// Issue 24's kernel measure ([`crate::pipeline::kernel_case`]) as the page (`attentionLab.kernelBench`) and its
/// workers run it: `options` is
/// `{n, d, block, runs, mask, overview}` (defaults 1024, 64, 64, 10, `"none"`, false; runs
/// 1 … 50; mask `"none"` or `"causal"`), `now` a clock in milliseconds. Times the standard pass
/// and FlashAttention `runs` times each on the seeded case, and returns `{ok, n, d, block, mask,
/// flops, kernels, standard_ms: […], flash_ms: […], sample: […]}` — `sample` the standard pass's
/// first output values (at most 4096, row by row), so that two builds' numbers can be compared;
/// `flops` those of the two products without a mask — or `{ok: false, error}`. With `overview`,
/// also `overview_ms`: the pass a page's worker makes over a long head instead of the standard
/// one ([`KernelCase::overview`]), so that a unit's time can be split between its two passes.
pub fn kernel_bench(options: &serde_json::Value, now: &dyn Fn() -> f64) -> serde_json::Value {
    use serde_json::json;
    let number = |name: &str, default: u64| {
        options
            .get(name)
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(default) as usize
    };
    let (n, d, block, runs) = (
        number("n", 1024),
        number("d", 64),
        number("block", 64),
        number("runs", 10),
    );
    if !(1..=50).contains(&runs) || block == 0 {
        return json!({"ok": false, "error": "runs: 1 … 50; block: at least 1"});
    }
    let mask = options.get("mask").and_then(serde_json::Value::as_str);
    let causal = match mask {
        None | Some("none") => false,
        Some("causal") => true,
        Some(_) => return json!({"ok": false, "error": r#"mask: "none" or "causal""#}),
    };
    let Some(case) = KernelCase::new(n, d, 24) else {
        return json!({"ok": false, "error": format!("n: 1 … {MAX_N}, d: 1 … {MAX_D}")});
    };
    let case = if causal { case.causal() } else { case };
    let time = |f: &dyn Fn()| {
        (0..runs)
            .map(|_| {
                let start = now();
                f();
                now() - start
            })
            .collect::<Vec<f64>>()
    };
    let standard_ms = time(&|| {
        std::hint::black_box(case.standard());
    });
    let flash_ms = time(&|| {
        std::hint::black_box(case.flash(block));
    });
    let sample: Vec<f32> = case.standard().iter().take(SAMPLE).copied().collect();
    let mut result = json!({
        "ok": true, "n": n, "d": d, "block": block, "flops": case.flops(),
        "mask": if causal { "causal" } else { "none" },
        "kernels": crate::math::gemm::kernels(), "standard_ms": standard_ms, "flash_ms": flash_ms,
        "sample": sample,
    });
    if options.get("overview").and_then(serde_json::Value::as_bool) == Some(true) {
        result["overview_ms"] = time(&|| {
            std::hint::black_box(case.overview());
        })
        .into();
    }
    result
}

/// How many output values [`bench`] returns.
const SAMPLE: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::kernel_case::KernelCase;

    /// A clock that moves on by one millisecond each time it is read: every run takes 1 ms.
    fn ticking_clock() -> impl Fn() -> f64 {
        let clock = std::cell::Cell::new(0.0);
        move || {
            clock.set(clock.get() + 1.0);
            clock.get()
        }
    }

    #[test]
    fn the_harness_times_each_run_and_refuses_sizes_it_does_not_take() {
        let now = ticking_clock();
        let r = kernel_bench(&serde_json::json!({"n": 70, "d": 9, "runs": 2}), &now);
        assert_eq!(r["standard_ms"], serde_json::json!([1.0, 1.0]));
        assert_eq!(r["sample"].as_array().unwrap().len(), 70 * 9);
        let first = KernelCase::new(70, 9, 24).unwrap().standard()[[0, 0]];
        assert_eq!(r["sample"][0].as_f64().unwrap() as f32, first);
        let refused = kernel_bench(&serde_json::json!({"n": 0}), &now);
        assert_eq!(refused["ok"], false);
        assert_eq!(
            kernel_bench(&serde_json::json!({"runs": 51}), &now)["ok"],
            false
        );
        assert_eq!(r["mask"], "none");
        assert!(r.get("overview_ms").is_none());
    }

    #[test]
    fn a_causal_case_and_the_long_head_pass_are_measured_when_asked() {
        let now = ticking_clock();
        let options =
            serde_json::json!({"n": 40, "d": 8, "runs": 3, "mask": "causal", "overview": true});
        let r = kernel_bench(&options, &now);
        assert_eq!(r["mask"], "causal");
        assert_eq!(r["overview_ms"], serde_json::json!([1.0, 1.0, 1.0]));
        let causal = KernelCase::new(40, 8, 24).unwrap().causal().standard();
        // The first query sees only itself: its output is its own value row, unlike unmasked.
        assert_eq!(r["sample"][0].as_f64().unwrap() as f32, causal[[0, 0]]);
        assert_eq!(causal.row(0), KernelCase::new(40, 8, 24).unwrap().v.row(0));
        let refused = kernel_bench(&serde_json::json!({"mask": "window"}), &now);
        assert_eq!(refused["ok"], false);
        assert!(refused["error"].as_str().unwrap().contains("causal"));
    }
}
