//! Linear attention: a head that keeps a fixed-size state S (d_k × d_v) instead of every key and
//! value, so a token costs the same however long the text is.
//!
//! - [`LinearKind::Elu`] (Katharopoulos et al., 2020): φ(x) = elu(x) + 1 on q and k,
//!   S_t = S_{t−1} + φ(k_t) v_tᵀ, z_t = z_{t−1} + φ(k_t), o_t = S_tᵀ φ(q_t) / (z_t · φ(q_t)).
//! - [`LinearKind::Delta`] and [`LinearKind::GatedDelta`] (Yang et al., 2024–25; Qwen3-Next's
//!   Gated DeltaNet), as transformers' `torch_recurrent_gated_delta_rule` computes them: q and k
//!   L2-normalised, q then times 1/√d_k; per token a write strength β_t ∈ (0, 1) and (gated) a
//!   decay α_t ∈ (0, 1]:
//!   S ← α_t·S;  S ← S + k_t ⊗ β_t·(v_t − Sᵀk_t);  o_t = Sᵀq_t.
//!   The second step is the delta rule: what the state already says for k_t, Sᵀk_t, moves toward
//!   v_t by β_t, instead of v_t being piled on top.
//!
//! Each is computed three ways that must agree: token by token ([`recurrent`]), in chunks of c
//! tokens ([`chunked`]: within a chunk by matrix products, the WY form of
//! `torch_chunk_gated_delta_rule`; between chunks through the state), and as o = A·V with the
//! hidden attention matrix A ([`hidden_matrix`]): o_t is linear in the values, so a T × T
//! lower-triangular A exists. It is not a softmax: its rows need not sum to 1, and its entries
//! can be negative.

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, s};

/// Which linear attention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinearKind {
    /// φ = elu + 1, a running sum of φ(k) vᵀ normalised by φ(q)·Σφ(k).
    Elu,
    /// The delta rule, no decay (α = 1).
    Delta,
    /// The delta rule with a decay α_t per token (Gated DeltaNet).
    GatedDelta,
}

impl LinearKind {
    pub const ALL: [LinearKind; 3] = [Self::Elu, Self::Delta, Self::GatedDelta];

    /// Its name in a request.
    pub fn name(self) -> &'static str {
        match self {
            Self::Elu => "elu",
            Self::Delta => "delta",
            Self::GatedDelta => "gated_delta",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether it writes with the delta rule (β, and α when gated).
    pub fn is_delta(self) -> bool {
        self != Self::Elu
    }
}

/// The most tokens in one chunk.
pub const MAX_CHUNK: usize = 256;

/// The most tokens whose hidden matrix a trace holds whole (512 × 512 cells a head, as a softmax
/// head's before it is summarised).
pub const MAX_MATRIX_TOKENS: usize = 512;

/// The most numbers of a head's kept states (4 MiB of f32): a state of d_k × d_v after each of
/// at most [`MAX_STATES`] tokens, fewer when the state is large.
pub const MAX_STATE_NUMBERS: usize = 1 << 20;

/// How many of a `len`-token head's states a trace keeps: at most [`MAX_STATES`], and no more
/// than [`MAX_STATE_NUMBERS`] numbers.
pub fn states_kept(len: usize, d_k: usize, d_v: usize) -> usize {
    len.min(MAX_STATES)
        .min(MAX_STATE_NUMBERS / (d_k * d_v).max(1))
}

/// The most tokens whose every state a trace keeps (`"states"`).
pub const MAX_STATES: usize = 256;

/// ε of the L2 norm of q and k (as the FLA library and transformers have it).
pub const L2_EPSILON: f32 = 1e-6;

/// Added to elu's normaliser φ(q)·Σφ(k), which underflows to 0 when every entry of q is far
/// below zero (as the fast-transformers library does).
pub const ELU_EPSILON: f32 = 1e-6;

/// One head's inputs, each row a token.
#[derive(Debug, Clone, Copy)]
pub struct HeadInput<'a> {
    pub kind: LinearKind,
    /// [T, d_k], as projected (this module normalises, scales or maps them).
    pub q: ArrayView2<'a, f32>,
    pub k: ArrayView2<'a, f32>,
    /// [T, d_v]
    pub v: ArrayView2<'a, f32>,
    /// [T]: β_t (1 for [`LinearKind::Elu`], which has none).
    pub beta: ArrayView1<'a, f32>,
    /// [T]: log α_t (0 without a decay).
    pub log_alpha: ArrayView1<'a, f32>,
}

/// q and k as the state reads them: φ(q), φ(k) for elu; L2-normalised (q then ÷√d_k) for the
/// delta rule.
pub fn prepared(
    kind: LinearKind,
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
) -> (Array2<f32>, Array2<f32>) {
    match kind {
        LinearKind::Elu => (q.mapv(elu_plus_one), k.mapv(elu_plus_one)),
        LinearKind::Delta | LinearKind::GatedDelta => {
            let scale = 1.0 / (q.ncols() as f32).sqrt();
            let mut q = l2_normalised(q);
            q *= scale;
            (q, l2_normalised(k))
        }
    }
}

/// elu(x) + 1: x + 1 for x > 0, eˣ below; always positive.
pub fn elu_plus_one(x: f32) -> f32 {
    if x > 0.0 { x + 1.0 } else { x.exp() }
}

/// Each row divided by its length: x / √(Σx² + ε).
pub fn l2_normalised(x: ArrayView2<f32>) -> Array2<f32> {
    let mut out = x.to_owned();
    for mut row in out.rows_mut() {
        let inverse = 1.0 / (row.dot(&row) + L2_EPSILON).sqrt();
        row *= inverse;
    }
    out
}

/// σ(x) = 1 / (1 + e^(−x)).
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// log(1 + eˣ), without overflow.
pub fn softplus(x: f32) -> f32 {
    if x > 20.0 { x } else { x.exp().ln_1p() }
}

/// What a head computed token by token: its outputs, its last state and, for the first
/// [`MAX_STATES`] tokens when asked, the state after each.
#[derive(Debug, Clone, PartialEq)]
pub struct Recurrent {
    /// [T, d_v]
    pub output: Array2<f32>,
    /// [d_k, d_v]: S after the last token.
    pub state: Array2<f32>,
    /// S after each of the first tokens, as many as asked.
    pub states: Vec<Array2<f32>>,
}

/// The head token by token, keeping the state after each of the first `keep_states` tokens
/// ([`states_kept`]). q and k as [`prepared`] gives them.
pub fn recurrent(
    input: &HeadInput,
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    keep_states: usize,
) -> Recurrent {
    let (t_len, d_k, d_v) = (q.nrows(), q.ncols(), input.v.ncols());
    let mut state = Array2::<f32>::zeros((d_k, d_v));
    // elu's normaliser Σφ(k).
    let mut z = Array1::<f32>::zeros(d_k);
    let mut output = Array2::<f32>::zeros((t_len, d_v));
    let mut states = Vec::new();
    for t in 0..t_len {
        let (q_t, k_t, v_t) = (q.row(t), k.row(t), input.v.row(t));
        match input.kind {
            LinearKind::Elu => {
                outer_add(&mut state, k_t, v_t, 1.0);
                z += &k_t;
                let norm = z.dot(&q_t) + ELU_EPSILON;
                let mut o = state.t().dot(&q_t);
                o /= norm;
                output.row_mut(t).assign(&o);
            }
            LinearKind::Delta | LinearKind::GatedDelta => {
                let o = delta_step(
                    &mut state,
                    [q_t, k_t, v_t],
                    input.beta[t],
                    input.log_alpha[t],
                );
                output.row_mut(t).assign(&o);
            }
        }
        if t < keep_states {
            states.push(state.clone());
        }
    }
    Recurrent {
        output,
        state,
        states,
    }
}

/// One token of the (gated) delta rule on `state` [d_k, d_v]: S ← α S; S ← S + k ⊗ β (v − Sᵀk);
/// returns o = Sᵀq. q and k as [`prepared`] gives them (what a KV cache's decoding step runs).
pub fn delta_step(
    state: &mut Array2<f32>,
    [q, k, v]: [ArrayView1<f32>; 3],
    beta: f32,
    log_alpha: f32,
) -> Array1<f32> {
    *state *= log_alpha.exp();
    // What the state says for k, moved toward v by β.
    let said = state.t().dot(&k);
    let delta = (&v - &said) * beta;
    outer_add(state, k, delta.view(), 1.0);
    state.t().dot(&q)
}

/// state += scale · a ⊗ b.
fn outer_add(state: &mut Array2<f32>, a: ArrayView1<f32>, b: ArrayView1<f32>, scale: f32) {
    for (mut row, &a_i) in state.rows_mut().into_iter().zip(a) {
        row.scaled_add(scale * a_i, &b);
    }
}

/// The head in chunks of `chunk` tokens: each chunk's own tokens by matrix products, the chunks
/// before it through the state (for the delta rule, the WY form of
/// `torch_chunk_gated_delta_rule`). Its outputs and last state; equal to [`recurrent`]'s.
pub fn chunked(
    input: &HeadInput,
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    chunk: usize,
) -> (Array2<f32>, Array2<f32>) {
    let (t_len, d_k, d_v) = (q.nrows(), q.ncols(), input.v.ncols());
    let chunk = chunk.max(1);
    let mut state = Array2::<f32>::zeros((d_k, d_v));
    let mut z = Array1::<f32>::zeros(d_k);
    let mut output = Array2::<f32>::zeros((t_len, d_v));
    for start in (0..t_len).step_by(chunk) {
        let end = (start + chunk).min(t_len);
        let rows = s![start..end, ..];
        let (q_c, k_c, v_c) = (q.slice(rows), k.slice(rows), input.v.slice(rows));
        let out = match input.kind {
            LinearKind::Elu => elu_chunk(q_c, k_c, v_c, &mut state, &mut z),
            LinearKind::Delta | LinearKind::GatedDelta => delta_chunk(
                q_c,
                k_c,
                v_c,
                input.beta.slice(s![start..end]),
                input.log_alpha.slice(s![start..end]),
                &mut state,
            ),
        };
        output.slice_mut(rows).assign(&out);
    }
    (output, state)
}

/// One chunk of elu linear attention: the chunk's causal φ(q)φ(k)ᵀ and the state before it.
fn elu_chunk(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    state: &mut Array2<f32>,
    z: &mut Array1<f32>,
) -> Array2<f32> {
    let n = q.nrows();
    let mut scores = q.dot(&k.t());
    causal(&mut scores, 0);
    let mut out = q.dot(state) + scores.dot(&v);
    let norms = q.dot(z) + scores.sum_axis(Axis(1)) + ELU_EPSILON;
    for (mut row, norm) in out.rows_mut().into_iter().zip(norms) {
        row /= norm;
    }
    *state += &k.t().dot(&v);
    *z += &k.sum_axis(Axis(0));
    debug_assert_eq!(out.nrows(), n);
    out
}

/// Zeroes every entry above the diagonal shifted by `offset` (0: keeps the diagonal; 1: keeps
/// only what is strictly below it).
fn causal(m: &mut Array2<f32>, offset: usize) {
    for (i, mut row) in m.rows_mut().into_iter().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            if j + offset > i {
                *x = 0.0;
            }
        }
    }
}

/// One chunk of the (gated) delta rule in the WY form: with g the chunk's running sum of log α,
/// Γ_ij = e^(g_i − g_j) (i ≥ j), T = (I + strictly-lower(diag(β) K Kᵀ ⊙ Γ))⁻¹, the chunk's
/// values U = T·diag(β)·V and its keys' decayed weights W = T·diag(β e^g)·K; then
/// V' = U − W·S, O = (Q ⊙ e^g)·S + lower(Q Kᵀ ⊙ Γ)·V', and
/// S ← e^(g_last)·S + (K ⊙ e^(g_last − g))ᵀ·V'.
fn delta_chunk(
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    v: ArrayView2<f32>,
    beta: ArrayView1<f32>,
    log_alpha: ArrayView1<f32>,
    state: &mut Array2<f32>,
) -> Array2<f32> {
    let n = q.nrows();
    let mut g = Array1::<f32>::zeros(n);
    let mut sum = 0.0f32;
    for (g_i, &a) in g.iter_mut().zip(log_alpha) {
        sum += a;
        *g_i = sum;
    }
    let decay = Array2::from_shape_fn(
        (n, n),
        |(i, j)| {
            if i >= j { (g[i] - g[j]).exp() } else { 0.0 }
        },
    );
    let mut k_beta = k.to_owned();
    let mut v_beta = v.to_owned();
    for ((mut kr, mut vr), &b) in k_beta
        .rows_mut()
        .into_iter()
        .zip(v_beta.rows_mut())
        .zip(beta)
    {
        kr *= b;
        vr *= b;
    }
    // −strictly-lower(diag(β) K Kᵀ ⊙ Γ), then inverted row by row as transformers does.
    let mut t = -(k_beta.dot(&k.t()) * &decay);
    causal(&mut t, 1);
    for i in 1..n {
        let row = t.slice(s![i, ..i]).to_owned();
        let add = row.dot(&t.slice(s![..i, ..i]));
        t.slice_mut(s![i, ..i]).scaled_add(1.0, &add);
    }
    for i in 0..n {
        t[[i, i]] += 1.0;
    }
    let u = t.dot(&v_beta);
    let mut k_decayed = k_beta.clone();
    for (mut row, &g_i) in k_decayed.rows_mut().into_iter().zip(&g) {
        row *= g_i.exp();
    }
    let w = t.dot(&k_decayed);
    let v_new = &u - &w.dot(state);
    let mut inner = q.dot(&k.t()) * &decay;
    causal(&mut inner, 0);
    let mut q_decayed = q.to_owned();
    for (mut row, &g_i) in q_decayed.rows_mut().into_iter().zip(&g) {
        row *= g_i.exp();
    }
    let out = q_decayed.dot(state) + inner.dot(&v_new);
    let last = g[n - 1];
    let mut k_rest = k.to_owned();
    for (mut row, &g_i) in k_rest.rows_mut().into_iter().zip(&g) {
        row *= (last - g_i).exp();
    }
    *state *= last.exp();
    *state += &k_rest.t().dot(&v_new);
    out
}

/// The hidden attention matrix A [T, T] with o = A·V: row t holds what each earlier value
/// weighs in o_t. elu: φ(q_t)·φ(k_s) / (φ(q_t)·Σ_{r≤t} φ(k_r)). Delta rule: with
/// M_j = α_j (I − β_j k_j k_jᵀ), A_ts = β_s k_sᵀ M_{s+1} ⋯ M_t q_t (each M symmetric), computed
/// from t back to 0 by carrying r = M_{s+1} ⋯ M_t q_t.
pub fn hidden_matrix(input: &HeadInput, q: ArrayView2<f32>, k: ArrayView2<f32>) -> Array2<f32> {
    let t_len = q.nrows();
    let mut a = Array2::<f32>::zeros((t_len, t_len));
    let alpha = decays(input);
    let mut buffer = vec![0.0f32; ROWS_AT_ONCE * t_len];
    for first in (0..t_len).step_by(ROWS_AT_ONCE) {
        let count = ROWS_AT_ONCE.min(t_len - first);
        hidden_rows_with(input, &alpha, q, k, first, &mut buffer[..count * t_len]);
        for (j, row) in buffer.chunks(t_len).take(count).enumerate() {
            a.row_mut(first + j).assign(&ndarray::ArrayView1::from(row));
        }
    }
    a
}

/// How many rows of A [`hidden_rows_with`] computes together.
pub const ROWS_AT_ONCE: usize = 4;

/// Rows `first`, `first + 1`, … of the hidden matrix A ([`hidden_matrix`]), as many as `out`
/// holds rows of T numbers (at most [`ROWS_AT_ONCE`]), each equal to [`hidden_row_with`]'s to
/// the bit (the same operations in the same order) and written whole (0 past its diagonal).
///
/// The rows go side by side, one per lane of a four-wide vector: each step of a delta-rule row
/// waits on its last (a dot product, then an update of r), so one row alone leaves the
/// processor waiting and cannot use its SIMD lanes, while four rows fill them: component i of
/// the four rows' r is one vector, a key's component is splat across it. elu + 1's rows are
/// plain dot products, taken four rows at a time the same way.
pub fn hidden_rows_with(
    input: &HeadInput,
    alpha: &[f32],
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    first: usize,
    out: &mut [f32],
) {
    let t_len = q.nrows();
    out.fill(0.0);
    let count = (out.len() / t_len.max(1)).min(ROWS_AT_ONCE);
    if count == 0 {
        return;
    }
    let d = k.ncols();
    let keys = k.as_standard_layout();
    let keys = keys.as_slice().unwrap_or(&[]);
    // Component i of the rows' vectors (r, or φ(q_t)): lane j is row first + j's.
    let mut r = vec![F4::splat(0.0); d];
    for (i, lanes) in r.iter_mut().enumerate() {
        let mut values = [0.0f32; ROWS_AT_ONCE];
        for (j, value) in values.iter_mut().enumerate().take(count) {
            *value = q[[first + j, i]];
        }
        *lanes = F4::from_array(values);
    }
    let last = first + count - 1;
    if input.kind == LinearKind::Elu {
        // Each row's normaliser, from the keys' running sum (the same additions in the same
        // order as `hidden_row_with`'s).
        let mut z = Array1::<f32>::zeros(d);
        let mut norm = [1.0f32; ROWS_AT_ONCE];
        for t in 0..=last {
            z += &k.row(t);
            if t >= first {
                norm[t - first] =
                    dot4(&contiguous(&z.view()), &contiguous(&q.row(t))) + ELU_EPSILON;
            }
        }
        for s_ in 0..=last {
            let dots = dot4_lanes(&keys[s_ * d..(s_ + 1) * d], &r).to_array();
            for j in 0..count {
                if s_ <= first + j {
                    out[j * t_len + s_] = dots[j] / norm[j];
                }
            }
        }
        return;
    }
    let beta = &input.beta;
    // A lane walks back from its row's diagonal until its r has decayed away (or key 0); a lane
    // that has not started keeps q_t, one that has stopped holds zeros.
    let mut walking = [false; ROWS_AT_ONCE];
    let mut stopped = [false; ROWS_AT_ONCE];
    stopped[count..].fill(true);
    let mut mask = F4Mask::from_bools(walking);
    for s_ in (0..=last).rev() {
        let k_s = &keys[s_ * d..(s_ + 1) * d];
        if s_ >= first && s_ - first < count {
            walking[s_ - first] = true;
            mask = F4Mask::from_bools(walking);
        }
        let written = F4::splat(beta[s_]).mul(dot4_lanes(k_s, &r));
        let values = written.to_array();
        for j in 0..count {
            if walking[j] {
                out[j * t_len + s_] = values[j];
            }
        }
        // As in `hidden_row_with`: a row whose r has decayed below 10⁻³⁰ stops (its entries
        // left are 0, as the buffer already holds).
        if s_ % 64 == 0 {
            let tiny = r
                .iter()
                .fold(F4Mask::from_bools([true; ROWS_AT_ONCE]), |all, lanes| {
                    all.and(lanes.abs_below(1e-30))
                })
                .to_bools();
            let mut changed = false;
            for j in 0..count {
                if walking[j] && tiny[j] {
                    (walking[j], stopped[j], changed) = (false, true, true);
                }
            }
            if changed {
                mask = F4Mask::from_bools(walking);
                let keep = F4Mask::from_bools(std::array::from_fn(|j| !stopped[j] || j >= count));
                for lanes in r.iter_mut() {
                    *lanes = F4::select(keep, *lanes, F4::splat(0.0));
                }
            }
        }
        // r ← M_s r = α_s (r − β_s k_s (k_s·r)) in the lanes that walk.
        let a = F4::splat(alpha[s_]);
        if walking == [true; ROWS_AT_ONCE] {
            for (lanes, &k) in r.iter_mut().zip(k_s) {
                *lanes = lanes.sub(written.mul(F4::splat(k))).mul(a);
            }
        } else {
            for (lanes, &k) in r.iter_mut().zip(k_s) {
                let next = lanes.sub(written.mul(F4::splat(k))).mul(a);
                *lanes = F4::select(mask, next, *lanes);
            }
        }
        if s_ <= first && stopped.iter().all(|&s| s) {
            break;
        }
    }
}

/// [`dot4`] of `a` with each lane of `lanes` (component i of four vectors side by side): the
/// same products and sums in the same order, four at once.
#[inline]
fn dot4_lanes(a: &[f32], lanes: &[F4]) -> F4 {
    let mut acc = [F4::splat(0.0); 4];
    let whole = a.len() / 4 * 4;
    for (x, y) in a[..whole]
        .chunks_exact(4)
        .zip(lanes[..whole].chunks_exact(4))
    {
        for c in 0..4 {
            acc[c] = acc[c].add(F4::splat(x[c]).mul(y[c]));
        }
    }
    let mut rest = F4::splat(0.0);
    for (&x, &y) in a[whole..].iter().zip(&lanes[whole..]) {
        rest = rest.add(F4::splat(x).mul(y));
    }
    acc[0].add(acc[1]).add(acc[2].add(acc[3])).add(rest)
}

use lanes::{F4, F4Mask};

/// Four f32 lanes for [`hidden_rows_with`]: wasm's 128-bit vectors where the build has simd128
/// (the compiler did not vectorise the lanes written as arrays there: 111 ms against 90 for the
/// scalar rows), plain arrays elsewhere. Only IEEE additions, multiplications and comparisons
/// (never a fused multiply-add), so a lane computes exactly what one row alone computes.
mod lanes {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    mod imp {
        use core::arch::wasm32::*;

        #[derive(Clone, Copy)]
        pub struct F4(v128);
        #[derive(Clone, Copy)]
        pub struct F4Mask(v128);

        impl F4 {
            #[inline(always)]
            pub fn splat(x: f32) -> Self {
                F4(f32x4_splat(x))
            }
            #[inline(always)]
            pub fn from_array(a: [f32; 4]) -> Self {
                F4(f32x4(a[0], a[1], a[2], a[3]))
            }
            #[inline(always)]
            pub fn to_array(self) -> [f32; 4] {
                [
                    f32x4_extract_lane::<0>(self.0),
                    f32x4_extract_lane::<1>(self.0),
                    f32x4_extract_lane::<2>(self.0),
                    f32x4_extract_lane::<3>(self.0),
                ]
            }
            #[inline(always)]
            pub fn add(self, other: Self) -> Self {
                F4(f32x4_add(self.0, other.0))
            }
            #[inline(always)]
            pub fn sub(self, other: Self) -> Self {
                F4(f32x4_sub(self.0, other.0))
            }
            #[inline(always)]
            pub fn mul(self, other: Self) -> Self {
                F4(f32x4_mul(self.0, other.0))
            }
            /// `yes`'s lanes where `mask` is set, `no`'s elsewhere.
            #[inline(always)]
            pub fn select(mask: F4Mask, yes: Self, no: Self) -> Self {
                F4(v128_bitselect(yes.0, no.0, mask.0))
            }
            #[inline(always)]
            pub fn abs_below(self, bound: f32) -> F4Mask {
                F4Mask(f32x4_lt(f32x4_abs(self.0), f32x4_splat(bound)))
            }
        }

        impl F4Mask {
            #[inline(always)]
            pub fn from_bools(b: [bool; 4]) -> Self {
                F4Mask(i32x4(
                    -i32::from(b[0]),
                    -i32::from(b[1]),
                    -i32::from(b[2]),
                    -i32::from(b[3]),
                ))
            }
            #[inline(always)]
            pub fn and(self, other: Self) -> Self {
                F4Mask(v128_and(self.0, other.0))
            }
            #[inline(always)]
            pub fn to_bools(self) -> [bool; 4] {
                [
                    i32x4_extract_lane::<0>(self.0) != 0,
                    i32x4_extract_lane::<1>(self.0) != 0,
                    i32x4_extract_lane::<2>(self.0) != 0,
                    i32x4_extract_lane::<3>(self.0) != 0,
                ]
            }
        }
    }

    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    mod imp {
        #[derive(Clone, Copy)]
        pub struct F4([f32; 4]);
        /// All ones in a lane that is set (a bitwise select, which the compiler vectorises).
        #[derive(Clone, Copy)]
        pub struct F4Mask([u32; 4]);

        impl F4 {
            #[inline(always)]
            pub fn splat(x: f32) -> Self {
                F4([x; 4])
            }
            #[inline(always)]
            pub fn from_array(a: [f32; 4]) -> Self {
                F4(a)
            }
            #[inline(always)]
            pub fn to_array(self) -> [f32; 4] {
                self.0
            }
            #[inline(always)]
            pub fn add(self, other: Self) -> Self {
                F4(std::array::from_fn(|j| self.0[j] + other.0[j]))
            }
            #[inline(always)]
            pub fn sub(self, other: Self) -> Self {
                F4(std::array::from_fn(|j| self.0[j] - other.0[j]))
            }
            #[inline(always)]
            pub fn mul(self, other: Self) -> Self {
                F4(std::array::from_fn(|j| self.0[j] * other.0[j]))
            }
            /// `yes`'s lanes where `mask` is set, `no`'s elsewhere.
            #[inline(always)]
            pub fn select(mask: F4Mask, yes: Self, no: Self) -> Self {
                F4(std::array::from_fn(|j| {
                    f32::from_bits(
                        (yes.0[j].to_bits() & mask.0[j]) | (no.0[j].to_bits() & !mask.0[j]),
                    )
                }))
            }
            #[inline(always)]
            pub fn abs_below(self, bound: f32) -> F4Mask {
                F4Mask(std::array::from_fn(|j| {
                    if self.0[j].abs() < bound { u32::MAX } else { 0 }
                }))
            }
        }

        impl F4Mask {
            #[inline(always)]
            pub fn from_bools(b: [bool; 4]) -> Self {
                F4Mask(std::array::from_fn(|j| if b[j] { u32::MAX } else { 0 }))
            }
            #[inline(always)]
            pub fn and(self, other: Self) -> Self {
                F4Mask(std::array::from_fn(|j| self.0[j] & other.0[j]))
            }
            #[inline(always)]
            pub fn to_bools(self) -> [bool; 4] {
                self.0.map(|m| m != 0)
            }
        }
    }

    pub use imp::{F4, F4Mask};
}

/// Row `t` of the hidden matrix A ([`hidden_matrix`]) written into `row` (its first t + 1
/// entries; the rest are left as they are): O(t · d_k), so a long head's A is summarised a row
/// at a time, never held whole.
pub fn hidden_row(
    input: &HeadInput,
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    t: usize,
    row: ndarray::ArrayViewMut1<f32>,
) {
    let alpha = decays(input);
    hidden_row_with(input, &alpha, q, k, t, row);
}

/// Row `t` of elu + 1's A, its first t + 1 entries: φ(q_t)·φ(k_s) / (φ(q_t)·z + ε), `z` the sum
/// of the keys up to t.
fn elu_row(
    z: &Array1<f32>,
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    t: usize,
    mut row: ndarray::ArrayViewMut1<f32>,
) {
    // The products and sums of [`dot4`], as [`hidden_rows_with`] takes them four rows at once.
    let q_t = q.row(t);
    let q_t = contiguous(&q_t);
    let norm = dot4(&contiguous(&z.view()), &q_t) + ELU_EPSILON;
    for (entry, k_s) in row.iter_mut().zip(k.rows()) {
        *entry = dot4(&contiguous(&k_s), &q_t) / norm;
    }
}

/// A vector's numbers as one slice: borrowed when they lie in order, copied otherwise.
fn contiguous<'a>(v: &'a ndarray::ArrayView1<f32>) -> std::borrow::Cow<'a, [f32]> {
    match v.as_slice() {
        Some(slice) => std::borrow::Cow::Borrowed(slice),
        None => std::borrow::Cow::Owned(v.to_vec()),
    }
}

/// Σ a_i·b_i in four running sums (then added pairwise): an order the compiler may vectorise.
fn dot4(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 4];
    let (ac, bc) = (a.chunks_exact(4), b.chunks_exact(4));
    // Summed from +0 in order, as [`dot4_lanes`] sums it.
    let mut rest = 0.0f32;
    for (x, y) in ac.remainder().iter().zip(bc.remainder()) {
        rest += x * y;
    }
    for (x, y) in ac.zip(bc) {
        for lane in 0..4 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + rest
}

/// α_s = exp(log α_s) of every token, once (a matrix's rows all use them).
pub fn decays(input: &HeadInput) -> Vec<f32> {
    input.log_alpha.iter().map(|&l| l.exp()).collect()
}

/// [`hidden_row`] with the decays α ([`decays`]) computed once for every row.
pub fn hidden_row_with(
    input: &HeadInput,
    alpha: &[f32],
    q: ArrayView2<f32>,
    k: ArrayView2<f32>,
    t: usize,
    mut row: ndarray::ArrayViewMut1<f32>,
) {
    match input.kind {
        LinearKind::Elu => {
            // The normaliser φ(q_t)·Σ_{r≤t} φ(k_r), the keys added in order (as the token-by-token
            // form and `hidden_rows_with` add them).
            let mut z = Array1::<f32>::zeros(k.ncols());
            for r in 0..=t {
                z += &k.row(r);
            }
            elu_row(&z, q, k, t, row.slice_mut(s![..=t]));
        }
        LinearKind::Delta | LinearKind::GatedDelta => {
            // Plain slices: a head is a few dozen numbers wide, and a long input's overview runs
            // this T²/2 times.
            let mut r = q.row(t).to_vec();
            let beta = &input.beta;
            for s_ in (0..=t).rev() {
                // A row of the prepared (contiguous) keys as a slice: a dot product in four
                // lanes, which the compiler turns into SIMD.
                let row_view = k.row(s_);
                let copied;
                let k_s: &[f32] = match row_view.as_slice() {
                    Some(slice) => slice,
                    None => {
                        copied = row_view.to_vec();
                        &copied
                    }
                };
                let written = beta[s_] * dot4(k_s, &r);
                row[s_] = written;
                // With a decay, r shrinks toward 0 as it goes back (each M has norm ≤ 1: |k| = 1,
                // 0 ≤ β ≤ 1, α ≤ 1): once every component is below 10⁻³⁰, every entry left is
                // below √d_k · 10⁻³⁰, and going on in subnormal numbers would only be slow.
                // They are written as 0.
                if s_ % 64 == 0 && r.iter().all(|x| x.abs() < 1e-30) {
                    row.slice_mut(s![..s_]).fill(0.0);
                    break;
                }
                // r ← M_s r = α_s (r − β_s k_s (k_s·r)).
                let a = alpha[s_];
                for (x, &k) in r.iter_mut().zip(k_s) {
                    *x = (*x - written * k) * a;
                }
            }
        }
    }
}

/// Floating-point operations of the chunked delta rule on `len` tokens (multiply-adds counted
/// as two): per chunk of c, the products K Kᵀ, Q Kᵀ, U, W and the within-chunk output
/// (2c²(3d_k + 2d_v)), T's inverse row by row (about 2c³/3), and W·S, Q·S and the state's update
/// (6c·d_k·d_v).
pub fn chunked_flops(len: usize, d_k: usize, d_v: usize, chunk: usize) -> f64 {
    let (d_k, d_v) = (d_k as f64, d_v as f64);
    let mut total = 0.0;
    for start in (0..len).step_by(chunk.max(1)) {
        let c = (len - start).min(chunk.max(1)) as f64;
        total +=
            2.0 * c * c * (3.0 * d_k + 2.0 * d_v) + 2.0 * c * c * c / 3.0 + 6.0 * c * d_k * d_v;
    }
    total
}

/// Floating-point operations of the delta rule token by token: per token Sᵀk, the outer product,
/// Sᵀq (2·d_k·d_v each) and the decay (d_k·d_v).
pub fn recurrent_flops(len: usize, d_k: usize, d_v: usize) -> f64 {
    7.0 * (len * d_k * d_v) as f64
}

/// Linear attention as a computation asks for it: which, and the chunk of its chunked form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinearSpec {
    pub kind: LinearKind,
    /// Tokens per chunk, 1 to [`MAX_CHUNK`].
    pub chunk: usize,
}

/// The chunk when a request names none (Qwen3-Next's).
pub const DEFAULT_CHUNK: usize = 64;

/// The per-head numbers the delta rule reads besides q, k and v: β_t = σ(x_t·w_β[:, h]) and
/// α_t = exp(−exp(A_log[h])·softplus(x_t·w_α[:, h] + dt_bias[h])), as Qwen3-Next's Gated DeltaNet
/// has them (its `in_proj_ba`, `A_log`, `dt_bias`).
#[derive(Debug, Clone, PartialEq)]
pub struct LinearWeights {
    /// [d_model, n_heads]
    pub w_beta: Array2<f32>,
    /// [d_model, n_heads]
    pub w_alpha: Array2<f32>,
    /// [n_heads]
    pub a_log: Array1<f32>,
    /// [n_heads]
    pub dt_bias: Array1<f32>,
    /// Gated DeltaNet's short convolution (a trained model's; `None` for the lab's own heads):
    /// [channels, taps] over the projections' columns Q, then K, then V, each channel's last
    /// `taps` rows weighted (the last tap on the row itself), then SiLU ([`short_conv`]).
    pub conv: Option<Array2<f32>>,
}

impl LinearWeights {
    /// Drawn from `seed`, each from its own stream (the other weights do not change): w_β and
    /// w_α Xavier-uniform; A = exp(A_log) uniform in [0.05, 1] (so α stays between about 0.25
    /// and 0.95 on the lab's inputs: a decay one can watch); dt_bias 1, as transformers starts it.
    pub fn seeded(seed: u64, d_model: usize, heads: usize) -> Self {
        let mut rng =
            crate::math::rng::SplitMix64::new(crate::math::rng::stream_seed(seed, "a_log"));
        Self {
            w_beta: crate::math::weights::xavier_uniform(seed, "w_beta", d_model, heads),
            w_alpha: crate::math::weights::xavier_uniform(seed, "w_alpha", d_model, heads),
            a_log: Array1::from_shape_simple_fn(heads, || {
                (0.05 + 0.95 * rng.next_unit() as f32).ln()
            }),
            dt_bias: Array1::ones(heads),
            conv: None,
        }
    }

    /// β and log α of head `head` for the rows of `x` [T, d_model] (`gated`: else α = 1).
    pub fn strips(
        &self,
        x: ArrayView2<f32>,
        head: usize,
        gated: bool,
    ) -> (Array1<f32>, Array1<f32>) {
        let beta = x.dot(&self.w_beta.column(head)).mapv(sigmoid);
        let log_alpha = if gated {
            let a = self.a_log[head].exp();
            let bias = self.dt_bias[head];
            x.dot(&self.w_alpha.column(head))
                .mapv(|z| -a * softplus(z + bias))
        } else {
            Array1::zeros(x.nrows())
        };
        (beta, log_alpha)
    }
}

/// A causal depthwise convolution then SiLU over the rows of `x` [T, channels] (`w` [channels,
/// taps]): out[t, c] = SiLU(Σ_j w[c, j] · x[t − (taps − 1) + j, c]), rows before the first
/// counted as zeros. Gated DeltaNet runs it on q, k and v before the delta rule (transformers'
/// `conv1d` with `padding = taps − 1`, cut to the first T rows).
pub fn short_conv(x: ArrayView2<f32>, w: ArrayView2<f32>) -> Array2<f32> {
    let (t_len, channels) = x.dim();
    let taps = w.ncols();
    Array2::from_shape_fn((t_len, channels), |(t, c)| {
        let mut sum = 0.0f32;
        for j in 0..taps {
            if let Some(row) = (t + j + 1).checked_sub(taps) {
                sum += w[[c, j]] * x[[row, c]];
            }
        }
        silu(sum)
    })
}

fn silu(z: f32) -> f32 {
    z / (1.0 + (-z).exp())
}

/// What multiplies each head's output before W_O.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputGate {
    /// σ(x·W_g), W_g [d_model, n_heads·d_v] (Qiu et al., 2025; Qwen3-Next's full attention).
    Sigmoid(Array2<f32>),
    /// Gated DeltaNet's: the head's output over its root mean square, times γ [d_v] and
    /// SiLU(x·W_z) (W_z [d_model, n_heads·d_v]; Qwen3-Next's `RMSNormGated`).
    NormSilu {
        w_z: Array2<f32>,
        gamma: Array1<f32>,
        epsilon: f32,
    },
}

impl OutputGate {
    /// W_g of a sigmoid gate; `None` for the normed one.
    pub fn sigmoid(&self) -> Option<&Array2<f32>> {
        match self {
            Self::Sigmoid(w) => Some(w),
            Self::NormSilu { .. } => None,
        }
    }

    /// What head `head`'s `output` [T, d_v] (its queries the rows of `x` [T, d_model]) is
    /// multiplied by, element-wise: σ(x·W_g), or γ·SiLU(x·W_z) / rms(output row).
    pub fn factor(&self, x: ArrayView2<f32>, head: usize, output: ArrayView2<f32>) -> Array2<f32> {
        let d_v = output.ncols();
        match self {
            Self::Sigmoid(w) => gate(x, w, head, d_v),
            Self::NormSilu {
                w_z,
                gamma,
                epsilon,
            } => {
                let z = x.dot(&w_z.slice(s![.., head * d_v..(head + 1) * d_v]));
                let mut factor = z.mapv(silu);
                for (mut row, out) in factor.rows_mut().into_iter().zip(output.rows()) {
                    let mean_square = out.mapv(|v| v * v).sum() / d_v.max(1) as f32;
                    let inverse = 1.0 / (mean_square + epsilon).sqrt();
                    for (f, &g) in row.iter_mut().zip(gamma) {
                        *f *= g * inverse;
                    }
                }
                factor
            }
        }
    }
}

/// The output gate σ(x·W_g) of head `head` (`w_gate` [d_model, n_heads·d_v]): [T, d_v], each
/// head output multiplied by it element-wise before W_O (Qiu et al., 2025).
pub fn gate(x: ArrayView2<f32>, w_gate: &Array2<f32>, head: usize, d_v: usize) -> Array2<f32> {
    x.dot(&w_gate.slice(s![.., head * d_v..(head + 1) * d_v]))
        .mapv(sigmoid)
}
