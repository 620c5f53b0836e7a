//! A config's heads as linear attention ([`crate::math::linear`]) and its output gate: what each
//! backend path (the units, the outputs alone, the trace) computes for them, from the same
//! projections and attention input.

use ndarray::{Array1, Array2, ArrayView2};

use crate::math::attention::Projections;
use crate::math::linear::{
    HeadInput, LinearKind, ROWS_AT_ONCE, chunked, decays, hidden_matrix, hidden_rows_with,
    prepared, recurrent, states_kept,
};
use crate::pipeline::config::Config;

/// One linear head's outputs: token by token (the standard output), in chunks (in FlashAttention's
/// place: the other way to the same numbers), and its hidden matrix A when asked.
pub struct LinearOutputs {
    /// [T, d_v]
    pub output: Array2<f32>,
    /// [T, d_v]
    pub chunked: Array2<f32>,
    /// [T, T] (o = A·V), when asked.
    pub matrix: Option<Array2<f32>>,
}

/// What a linear head's trace holds besides its matrices: β and α per token, the last state and
/// every state up to [`crate::math::linear::MAX_STATES`] tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearHead {
    pub kind: LinearKind,
    /// [T]: β_t (1 for elu).
    pub beta: Array1<f32>,
    /// [T]: α_t (gated delta rule only).
    pub alpha: Option<Array1<f32>>,
    /// [d_k, d_v]: S after the last token.
    pub state: Array2<f32>,
    /// S after each of the first [`crate::math::linear::MAX_STATES`] tokens.
    pub states: Vec<Array2<f32>>,
    /// [T, d_v]: the chunked form's output.
    pub chunked: Array2<f32>,
}

/// Head `head` of `config` (linear) on its projections; `x` the attention input.
fn input<'a>(
    config: &Config,
    x: ArrayView2<f32>,
    projections: &'a Projections,
    head: usize,
    strips: &'a (Array1<f32>, Array1<f32>),
) -> Option<HeadInput<'a>> {
    let (spec, _) = config.linear()?;
    let (_, q, k, v) = projections.head(config.dims(), head);
    debug_assert_eq!(x.nrows(), q.nrows());
    Some(HeadInput {
        kind: spec.kind,
        q,
        k,
        v,
        beta: strips.0.view(),
        log_alpha: strips.1.view(),
    })
}

/// β and log α of head `head` (β = 1, α = 1 for elu).
fn strips(config: &Config, x: ArrayView2<f32>, head: usize) -> (Array1<f32>, Array1<f32>) {
    match config.linear() {
        Some((spec, weights)) if spec.kind.is_delta() => {
            weights.strips(x, head, spec.kind == LinearKind::GatedDelta)
        }
        _ => (Array1::ones(x.nrows()), Array1::zeros(x.nrows())),
    }
}

/// Head `head` computed as linear attention, `None` unless the config asks for it; with
/// `matrix`, its hidden matrix too.
pub fn linear_outputs(
    config: &Config,
    x: ArrayView2<f32>,
    projections: &Projections,
    head: usize,
    matrix: bool,
) -> Option<LinearOutputs> {
    let (spec, _) = config.linear()?;
    let strips = strips(config, x, head);
    let input = input(config, x, projections, head, &strips)?;
    let (q, k) = prepared(spec.kind, input.q, input.k);
    let run = recurrent(&input, q.view(), k.view(), 0);
    let (chunked, _) = chunked(&input, q.view(), k.view(), spec.chunk);
    Some(LinearOutputs {
        output: run.output,
        chunked,
        matrix: matrix.then(|| hidden_matrix(&input, q.view(), k.view())),
    })
}

/// The overview of head `head`'s hidden matrix A over the queries `rows` (whole blocks), computed
/// a row at a time: what a long input's views draw instead of A; `None` unless the config asks
/// for linear attention.
pub fn linear_overview(
    config: &Config,
    x: ArrayView2<f32>,
    projections: &Projections,
    head: usize,
    rows: std::ops::Range<usize>,
) -> Option<crate::pipeline::overview::Overview> {
    let (spec, _) = config.linear()?;
    let strips = strips(config, x, head);
    let input = input(config, x, projections, head, &strips)?;
    let (q, k) = prepared(spec.kind, input.q, input.k);
    let n = q.nrows();
    let alpha = decays(&input);
    // The rows come in order: computed [`ROWS_AT_ONCE`] at a time (from the band's first),
    // handed over one by one.
    let mut group = vec![0.0f32; ROWS_AT_ONCE * n];
    let mut group_first = usize::MAX;
    let end = rows.end;
    Some(crate::pipeline::overview::overview_of_rows(
        n,
        n,
        rows,
        |t, row| {
            if !(group_first..group_first.saturating_add(ROWS_AT_ONCE)).contains(&t) {
                group_first = t;
                let count = ROWS_AT_ONCE.min(end - t);
                hidden_rows_with(
                    &input,
                    &alpha,
                    q.view(),
                    k.view(),
                    t,
                    &mut group[..count * n],
                );
            }
            let j = t - group_first;
            row.copy_from_slice(&group[j * n..(j + 1) * n]);
        },
    ))
}

/// What a linear head's trace holds besides its matrices.
pub fn linear_head(
    config: &Config,
    x: ArrayView2<f32>,
    projections: &Projections,
    head: usize,
) -> Option<LinearHead> {
    let (spec, _) = config.linear()?;
    let strips = strips(config, x, head);
    let input = input(config, x, projections, head, &strips)?;
    let (q, k) = prepared(spec.kind, input.q, input.k);
    let kept = states_kept(q.nrows(), q.ncols(), input.v.ncols());
    let run = recurrent(&input, q.view(), k.view(), kept);
    let (chunked, _) = chunked(&input, q.view(), k.view(), spec.chunk);
    Some(LinearHead {
        kind: spec.kind,
        beta: strips.0.clone(),
        alpha: (spec.kind == LinearKind::GatedDelta).then(|| strips.1.mapv(f32::exp)),
        state: run.state,
        states: run.states,
        chunked,
    })
}

/// What head `head`'s `output` [T, d_v] is multiplied by before W_O, if the config has an
/// output gate: σ(x·W_g), or Gated DeltaNet's γ·SiLU(x·W_z) / rms(output).
pub fn head_gate(
    config: &Config,
    x: ArrayView2<f32>,
    head: usize,
    output: ArrayView2<f32>,
) -> Option<Array2<f32>> {
    config.output_gate().map(|g| g.factor(x, head, output))
}

/// Head `head`'s output gate over every query as the trace records it: what its output was
/// multiplied by (for Gated DeltaNet's normed gate, computed from the ungated output).
pub fn traced_gate(
    config: &Config,
    x: ArrayView2<f32>,
    projections: &Projections,
    head: usize,
) -> Option<Array2<f32>> {
    let ungated = match config.output_gate()? {
        crate::math::linear::OutputGate::Sigmoid(_) => {
            Array2::zeros((x.nrows(), config.dims().d_v))
        }
        crate::math::linear::OutputGate::NormSilu { .. } => {
            linear_outputs(config, x, projections, head, false)?.output
        }
    };
    head_gate(config, x, head, ungated.view())
}

/// `output` [rows, d_v] of head `head` for the queries `rows` times its gate, if any.
pub fn gated(
    config: &Config,
    x: ArrayView2<f32>,
    head: usize,
    rows: std::ops::Range<usize>,
    mut output: Array2<f32>,
) -> Array2<f32> {
    if let Some(g) = head_gate(config, x.slice(ndarray::s![rows, ..]), head, output.view()) {
        output *= &g;
    }
    output
}
