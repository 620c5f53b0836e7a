//! A computation cut into units is the same computation.

use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The page's workers send each unit of a computation as one flat buffer, and Q, K and V as
/// another: the page must read back exactly what was computed (cross-attention, GQA, every mask
/// and the score options among the shapes), refuse a buffer of another length or a unit the
/// config does not have rather than misread it, and assemble the parts, in any order, into
/// exactly the whole computation.
#[test]
fn units_round_trip_through_their_flat_buffers_and_assemble_into_the_whole() {
    use attention_core::pipeline::units::{Unit, UnitJob, UnitPart, projections_from_flat, units};
    use attention_core::{
        Backend, Computed, FlashDetail, compute_parts_with, compute_trace_with, trace_from,
    };
    for seed in 0..40 {
        let config = if seed % 2 == 0 {
            random_config(seed)
        } else {
            random_shaped_config(seed)
        };
        let heads = config.dims().n_heads;
        for summarise in [false, true] {
            let job = UnitJob::new(&config, summarise);
            let mut parts: Vec<UnitPart> = units(&config, summarise)
                .iter()
                .map(|unit| {
                    let part = job.compute(&config, unit);
                    let flat = part.to_flat();
                    assert_eq!(
                        UnitPart::from_flat(&config, &flat).as_ref(),
                        Some(&part),
                        "seed {seed}: {unit:?}"
                    );
                    let short = &flat[..flat.len() - 1];
                    assert_eq!(UnitPart::from_flat(&config, short), None, "seed {seed}");
                    let mut elsewhere = flat.clone();
                    elsewhere[1] = heads as f32; // a head the config does not have
                    assert_eq!(UnitPart::from_flat(&config, &elsewhere), None);
                    part
                })
                .collect();
            let flat = job.projections_to_flat();
            let projections = projections_from_flat(&config, &flat).expect("its own length");
            assert_eq!(projections_from_flat(&config, &flat[1..]), None);
            parts.reverse(); // the order they arrive in does not matter
            let whole = compute_parts_with(&config, summarise, &mut |_, _| {});
            let assembled =
                Computed::assemble(&config, 0..heads, projections.clone(), parts.clone());
            assert_eq!(assembled.as_ref(), Some(&whole), "seed {seed}");
            // A missing or a doubled part is refused.
            let mut missing = parts.clone();
            missing.pop();
            assert_eq!(
                Computed::assemble(&config, 0..heads, projections.clone(), missing),
                None
            );
            let mut doubled = parts.clone();
            doubled.push(parts[0].clone());
            assert_eq!(
                Computed::assemble(&config, 0..heads, projections.clone(), doubled),
                None
            );
            if summarise {
                assert!(whole.scores.is_empty() && whole.overviews.len() == heads);
                let summarised = trace_from(&config, whole, Backend::Cpu, FlashDetail::Steps);
                assert!(summarised.is_summarised());
                // Its n² mask matrix is built only when read, and then equals the mask's cells.
                assert!(!summarised.mask.is_built(), "seed {seed}");
                let (n, m) = summarised.mask.dim();
                assert!(summarised.mask.is_built());
                assert_eq!((n, m), (config.seq_len(), config.key_len()));
                for (i, j) in [
                    (0, 0),
                    (n - 1, m - 1),
                    (n / 2, m / 3),
                    (n - 1, 0),
                    (0, m - 1),
                ] {
                    assert_eq!(summarised.mask[[i, j]], summarised.mask.allows(i, j));
                    assert_eq!(summarised.mask[[i, j]], config.mask().allows(i, j));
                }
                let trace = compute_trace_with(&config, FlashDetail::OutputOnly);
                assert_close(
                    "summarised output",
                    summarised.output.view(),
                    trace.output.view(),
                    1e-6,
                    1e-5,
                );
            } else {
                let trace = trace_from(&config, whole, Backend::Cpu, FlashDetail::OutputOnly);
                assert_eq!(
                    trace,
                    compute_trace_with(&config, FlashDetail::OutputOnly),
                    "seed {seed}"
                );
                assert!(trace.flash.heads.iter().all(|h| h.steps.is_empty()));
            }
            // Every unit of a summarised head is a band: whole block rows and query blocks.
            let n = config.seq_len();
            for Unit { rows, .. } in units(&config, summarise) {
                assert!(rows.end <= n && !rows.is_empty());
                if summarise {
                    let step = attention_core::pipeline::overview::Overview::step(n);
                    assert_eq!(rows.start % step, 0, "seed {seed}");
                    assert_eq!(rows.start % config.block().0, 0, "seed {seed}");
                } else {
                    assert_eq!(rows, 0..n);
                }
            }
        }
    }
}

/// A long head's bands, each computed alone (its queries only), stacked, are exactly the whole
/// head: the overview's blocks (whose means count the cells of the whole head's edge blocks),
/// every row's softmax numbers, the standard output and FlashAttention's, under every mask and
/// the score options (ALiBi's bias and the masks read each query's own index).
#[test]
fn bands_of_a_long_head_equal_the_whole_head() {
    use attention_core::pipeline::overview::Overview;
    use attention_core::pipeline::units::{Unit, UnitJob, UnitMatrices, units};
    let mut checked = 0;
    for seed in 0..12 {
        let mut params = random_shaped_params(seed);
        // Long enough for several bands of several block rows, under every kind of mask.
        let n = [200, 300, 449][seed as usize % 3]; // 1, 2 and 2 queries per block row
        params.input =
            attention_core::Input::Tokens((0..n).map(|i| format!("t{}", i % 7)).collect());
        params.source = None;
        params.block_rows = [None, Some(7), Some(64)][(seed / 3) as usize % 3];
        params.mask = match seed % 6 {
            0 => MaskSpec::None,
            1 => MaskSpec::Causal,
            2 => MaskSpec::Padding { valid_len: 200 },
            3 => MaskSpec::Window { radius: 9 },
            4 => MaskSpec::Sliding {
                radius: 17,
                sink_tokens: 3,
            },
            _ => MaskSpec::Custom {
                allowed: ndarray::Array2::from_shape_fn((n, n), |(i, j)| (i * 7 + j) % 5 != 0),
            },
        };
        let Ok(config) = params.validate() else {
            continue; // an odd d_k with RoPE, say
        };
        checked += 1;
        let bands = units(&config, true);
        let job = UnitJob::new(&config, true);
        let n = config.seq_len();
        // Two heads are enough (each head is computed alike), and keep the browser's debug build quick.
        for head in 0..config.dims().n_heads.min(2) {
            let whole = job.compute(&config, &Unit { head, rows: 0..n });
            let parts: Vec<_> = bands
                .iter()
                .filter(|u| u.head == head)
                .map(|u| job.compute(&config, u))
                .collect();
            assert!(parts.len() > 1, "seed {seed}: {} bands", parts.len());
            let overviews: Vec<Overview> = parts
                .iter()
                .map(|p| match &p.matrices {
                    UnitMatrices::Summarised(o) => (**o).clone(),
                    UnitMatrices::Full { .. } => panic!("a summarised unit"),
                })
                .collect();
            let UnitMatrices::Summarised(expected) = &whole.matrices else {
                panic!("a summarised unit");
            };
            assert_eq!(
                Overview::stack(&overviews).as_ref(),
                Some(&**expected),
                "seed {seed}"
            );
            let stack =
                |pick: fn(&attention_core::pipeline::units::UnitPart) -> &ndarray::Array2<f32>| {
                    let views: Vec<_> = parts.iter().map(|p| pick(p).view()).collect();
                    ndarray::concatenate(ndarray::Axis(0), &views).unwrap()
                };
            assert_eq!(stack(|p| &p.output), whole.output, "seed {seed}");
            assert_eq!(
                stack(|p| &p.flash_output),
                whole.flash_output,
                "seed {seed}"
            );
        }
    }
    assert!(checked >= 9, "only {checked} configs were valid");
}

/// A long input's linear head keeps no n² matrix: each band's overview of its hidden matrix A,
/// computed a row at a time, stacks into the whole head's, and its blocks are A's (the maxima and
/// means of the matrix the short path holds whole); the outputs are the whole head's.
#[test]
fn a_long_linear_heads_bands_summarise_its_hidden_matrix() {
    use attention_core::math::linear::{LinearKind, LinearSpec};
    use attention_core::pipeline::overview::Overview;
    use attention_core::pipeline::units::{Unit, UnitJob, UnitMatrices, units};
    for (seed, kind) in [LinearKind::Elu, LinearKind::Delta, LinearKind::GatedDelta]
        .into_iter()
        .enumerate()
    {
        let n = 600;
        let config = Params {
            input: attention_core::Input::Tokens((0..n).map(|i| format!("t{}", i % 11)).collect()),
            n_heads: 2,
            d_model: Some(16),
            seed: seed as u64,
            mask: MaskSpec::Causal,
            linear: Some(LinearSpec { kind, chunk: 16 }),
            // As the page asks for a long input: no n² trace.
            trace: false,
            ..Params::sentence("")
        }
        .validate()
        .unwrap();
        let bands = units(&config, true);
        let job = UnitJob::new(&config, true);
        let whole = job.compute(
            &config,
            &Unit {
                head: 1,
                rows: 0..n,
            },
        );
        let parts: Vec<_> = bands
            .iter()
            .filter(|u| u.head == 1)
            .map(|u| job.compute(&config, u))
            .collect();
        assert!(parts.len() > 1, "{kind:?}: {} bands", parts.len());
        let overview = |m: &UnitMatrices| match m {
            UnitMatrices::Summarised(o) => (**o).clone(),
            UnitMatrices::Full { .. } => panic!("{kind:?}: a long head held its A whole"),
        };
        let stacked = Overview::stack(
            &parts
                .iter()
                .map(|p| overview(&p.matrices))
                .collect::<Vec<_>>(),
        );
        let expected = overview(&whole.matrices);
        assert_eq!(stacked.as_ref(), Some(&expected), "{kind:?}");
        // Its blocks are A's, as the whole matrix gives them.
        let full = UnitJob::new(&config, false).compute(
            &config,
            &Unit {
                head: 1,
                rows: 0..n,
            },
        );
        let UnitMatrices::Full { weights: a, .. } = &full.matrices else {
            panic!("{kind:?}: a short path summarised");
        };
        let (rs, cs) = (expected.row_step, expected.col_step);
        for ((br, bc), &mean) in expected.weights_mean.indexed_iter() {
            let block = a.slice(ndarray::s![
                br * rs..((br + 1) * rs).min(n),
                bc * cs..((bc + 1) * cs).min(n)
            ]);
            let want = block.mean().unwrap();
            assert!(
                (mean - want).abs() <= 1e-6 + 1e-4 * want.abs(),
                "{kind:?} ({br}, {bc}): {mean} vs {want}"
            );
            // Signed: a block of negative entries has a negative maximum.
            let top = block.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
            let got = expected.weights_max[[br, bc]];
            assert!(
                (got - top).abs() <= 1e-6 + 1e-4 * top.abs(),
                "{kind:?} ({br}, {bc}): max {got} vs {top}"
            );
        }
        // The delta rule writes negative entries: some blocks hold nothing else.
        assert!(
            kind == LinearKind::Elu || expected.weights_max.iter().any(|&v| v < 0.0),
            "{kind:?}: no block below 0"
        );
        assert_eq!(whole.output, full.output, "{kind:?}");
    }
}
