//! The selected head of a trace replayed as linear attention: the same sentence and the same
//! Q, K and V, the softmax replaced by a state (elu + 1, the delta rule, gated), with β and α
//! drawn from the trace's seed; or, when the trace's heads are linear attention (a hybrid's
//! Gated DeltaNet layer), that head's own numbers. What the page's "Linear attention" section draws: the hidden
//! matrix A beside the head's softmax weights, β and α per token, the state after each token,
//! and how far the chunked form is from the token-by-token one.

use ndarray::{Array1, Array2, ArrayView2};

use crate::math::linear::{
    HeadInput, LinearKind, LinearSpec, LinearWeights, chunked, hidden_matrix, prepared, recurrent,
};
use crate::pipeline::trace::Trace;

/// One head as linear attention.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearView {
    pub spec: LinearSpec,
    /// The trace's heads are linear attention themselves (a hybrid's Gated DeltaNet layer, a
    /// request's `linear`): these are its own numbers (its kind, β, α and convolution), and
    /// `softmax` is what a causal softmax would make of the same q and k.
    pub own: bool,
    /// [T, T]: o = A·V.
    pub matrix: Array2<f32>,
    /// [T, T]: the head's softmax weights on the same sentence (for a linear trace: a causal
    /// softmax of the same q and k, ÷ √d_k).
    pub softmax: Array2<f32>,
    /// [T]: β_t (1 for elu).
    pub beta: Array1<f32>,
    /// [T]: α_t (the gated delta rule only).
    pub alpha: Option<Array1<f32>>,
    /// The state S [d_k, d_v] after each of the first [`crate::math::linear::MAX_STATES`] tokens.
    pub states: Vec<Array2<f32>>,
    /// max |chunked − token by token| over the head's outputs.
    pub chunked_diff: f32,
    /// max |A·V − token by token|.
    pub matrix_diff: f32,
    /// Σ_j A_tj per row: 1 for elu (a weighted mean), anything for the delta rule.
    pub row_sums: Array1<f32>,
}

/// Head `head` of `trace` as linear attention of `spec`; `None` for a summarised trace (its
/// n² matrices are not kept), cross-attention (linear attention reads its own tokens) or a head
/// out of range.
pub fn linear_view(trace: &Trace, spec: LinearSpec, head: usize) -> Option<LinearView> {
    if trace.is_summarised() || trace.config.source().is_some() {
        return None;
    }
    let h = trace.heads.get(head)?;
    let dims = trace.config.dims();
    let x = trace.attention_input.view();
    // A linear trace's own kind and weights (its chunk as asked); else a replay with β and α
    // from the seed. Its q, k and v are the trace's (after a hybrid's convolution).
    let own = trace.config.linear();
    let seeded;
    let (spec, weights) = match own {
        Some((kind, weights)) => (
            LinearSpec {
                kind: kind.kind,
                chunk: spec.chunk,
            },
            weights,
        ),
        None => {
            seeded = LinearWeights::seeded(trace.config.seed(), dims.d_model, dims.n_heads);
            (spec, &seeded)
        }
    };
    let (beta, log_alpha) = if spec.kind.is_delta() {
        weights.strips(x, head, spec.kind == LinearKind::GatedDelta)
    } else {
        (Array1::ones(x.nrows()), Array1::zeros(x.nrows()))
    };
    let input = HeadInput {
        kind: spec.kind,
        q: h.q.view(),
        k: h.k.view(),
        v: h.v.view(),
        beta: beta.view(),
        log_alpha: log_alpha.view(),
    };
    let (q, k) = prepared(spec.kind, h.q.view(), h.k.view());
    let kept = crate::math::linear::states_kept(q.nrows(), q.ncols(), h.v.ncols());
    let run = recurrent(&input, q.view(), k.view(), kept);
    let (chunks, _) = chunked(&input, q.view(), k.view(), spec.chunk);
    let matrix = hidden_matrix(&input, q.view(), k.view());
    let worst = |a: &Array2<f32>, b: &Array2<f32>| {
        a.iter()
            .zip(b)
            .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()))
    };
    let chunked_diff = worst(&chunks, &run.output);
    let matrix_diff = worst(&matrix.dot(&h.v), &run.output);
    Some(LinearView {
        spec,
        own: own.is_some(),
        row_sums: matrix.sum_axis(ndarray::Axis(1)),
        softmax: match own {
            Some(_) => causal_softmax(h.q.view(), h.k.view()),
            None => h.weights.clone(),
        },
        matrix,
        alpha: (spec.kind == LinearKind::GatedDelta).then(|| log_alpha.mapv(f32::exp)),
        beta,
        states: run.states,
        chunked_diff,
        matrix_diff,
    })
}

/// Row `row` of head `head`'s hidden matrix A [key_len] of a trace with linear heads (its own
/// β and α; zeros past the row), computed afresh: a long input's trace keeps only A's overview.
/// `None` for a trace without linear heads or a row out of range.
pub fn hidden_row_of(trace: &Trace, head: usize, row: usize) -> Option<Array1<f32>> {
    let (own, _) = trace.config.linear()?;
    let (h, l) = (trace.heads.get(head)?, trace.linear.get(head)?);
    if row >= h.q.nrows() {
        return None;
    }
    let log_alpha = l
        .alpha
        .as_ref()
        .map_or_else(|| Array1::zeros(l.beta.len()), |a| a.mapv(f32::ln));
    let input = HeadInput {
        kind: own.kind,
        q: h.q.view(),
        k: h.k.view(),
        v: h.v.view(),
        beta: l.beta.view(),
        log_alpha: log_alpha.view(),
    };
    let (q, k) = prepared(own.kind, h.q.view(), h.k.view());
    let mut out = Array1::zeros(h.k.nrows());
    crate::math::linear::hidden_row(&input, q.view(), k.view(), row, out.view_mut());
    Some(out)
}

/// softmax(q·kᵀ / √d_k) with each query seeing itself and the keys before it.
fn causal_softmax(q: ArrayView2<f32>, k: ArrayView2<f32>) -> Array2<f32> {
    let scale = 1.0 / (q.ncols().max(1) as f32).sqrt();
    let mut weights = q.dot(&k.t()) * scale;
    for (i, mut row) in weights.rows_mut().into_iter().enumerate() {
        let top = row
            .iter()
            .take(i + 1)
            .fold(f32::NEG_INFINITY, |m, &v| m.max(v));
        let mut sum = 0.0;
        for (j, w) in row.iter_mut().enumerate() {
            *w = if j <= i { (*w - top).exp() } else { 0.0 };
            sum += *w;
        }
        row /= sum;
    }
    weights
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::linear::DEFAULT_CHUNK;
    use crate::pipeline::config::Params;
    use crate::pipeline::trace::compute_trace;

    #[test]
    fn a_head_replayed_as_linear_attention_is_one_computation_three_ways() {
        let config = Params {
            n_heads: 2,
            ..Params::sentence("the cat sat on the mat because it was tired")
        }
        .validate()
        .unwrap_or_else(|e| panic!("{e}"));
        let trace = compute_trace(&config);
        for kind in LinearKind::ALL {
            let spec = LinearSpec {
                kind,
                chunk: DEFAULT_CHUNK,
            };
            let view = linear_view(&trace, spec, 1).unwrap_or_else(|| panic!("{kind:?}"));
            assert!(
                view.chunked_diff < 1e-5 && view.matrix_diff < 1e-5,
                "{kind:?}"
            );
            assert_eq!(view.states.len(), trace.config.seq_len());
            assert_eq!(view.softmax, trace.heads[1].weights);
            assert_eq!(view.alpha.is_some(), kind == LinearKind::GatedDelta);
            if kind == LinearKind::Elu {
                assert!(view.row_sums.iter().all(|s| (s - 1.0).abs() < 1e-5));
            }
        }
        assert!(
            linear_view(
                &trace,
                LinearSpec {
                    kind: LinearKind::Delta,
                    chunk: 4
                },
                2
            )
            .is_none()
        );
    }

    #[test]
    fn a_linear_traces_softmax_is_the_causal_softmax_of_its_own_q_and_k() {
        let sentence = "the cat sat on the mat because it was tired";
        let spec = LinearSpec {
            kind: LinearKind::Delta,
            chunk: 4,
        };
        let run = |linear: Option<LinearSpec>| {
            let config = Params {
                n_heads: 2,
                mask: crate::math::mask::MaskSpec::Causal,
                linear,
                ..Params::sentence(sentence)
            }
            .validate()
            .unwrap_or_else(|e| panic!("{e}"));
            compute_trace(&config)
        };
        let (linear, softmax) = (run(Some(spec)), run(None));
        let view = linear_view(&linear, spec, 1).unwrap_or_else(|| panic!("no view"));
        assert!(view.own);
        assert_eq!(view.spec.kind, LinearKind::Delta);
        let worst = view
            .softmax
            .iter()
            .zip(&softmax.heads[1].weights)
            .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
        assert!(worst < 1e-6, "{worst}");
        assert!(view.chunked_diff < 1e-5 && view.matrix_diff < 1e-5);
    }

    #[test]
    fn a_row_of_a_recomputed_from_the_trace_is_the_traced_row() {
        let config = Params {
            n_heads: 2,
            mask: crate::math::mask::MaskSpec::Causal,
            linear: Some(LinearSpec {
                kind: LinearKind::GatedDelta,
                chunk: 4,
            }),
            ..Params::sentence("the cat sat on the mat because it was tired")
        }
        .validate()
        .unwrap_or_else(|e| panic!("{e}"));
        let trace = compute_trace(&config);
        for row in 0..trace.config.seq_len() {
            let got = hidden_row_of(&trace, 1, row).unwrap_or_else(|| panic!("row {row}"));
            let want = trace.heads[1].weights.row(row);
            let worst = got
                .iter()
                .zip(want)
                .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
            assert!(worst < 1e-6, "row {row}: {worst}");
        }
        assert!(hidden_row_of(&trace, 1, 99).is_none());
    }
}
