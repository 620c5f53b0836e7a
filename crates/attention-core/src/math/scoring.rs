//! How the scores are made beyond the 2017 formula: the position scheme (absolute, none, RoPE,
//! ALiBi, each with an offset), QK-norm, soft-capping and sink logits. The order, exactly:
//!
//! 1. q and k of each head, after the projections: QK-norm (each row over its root mean square),
//!    then RoPE (pair p of the vector at position m turned by m·θ_p, θ_p = base^(−2p/d_k));
//! 2. z = q·k / √d_k, plus ALiBi's bias −m_h·|i − j|;
//! 3. z = c·tanh(z / c) with a soft-cap c;
//! 4. z = z / T;
//! 5. masked keys get −∞; softmax over the visible keys and the head's sink logit (divided by T
//!    as well), whose column is then dropped: a row's weights sum to less than 1.
//!
//! Without any of them a head's scores are q·k · 1/(√d_k · T), the 2017 formula, computed as
//! before to the bit.

use ndarray::{Array2, ArrayView2, ArrayViewMut2, s};

/// How RoPE pairs a head's d_k dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pairing {
    /// Dimension p with p + d_k/2 (GPT-NeoX, Hugging Face's Llama).
    #[default]
    Half,
    /// Dimension 2p with 2p + 1 (GPT-J, Meta's original Llama).
    Interleaved,
    /// RoPE on the first `r` dimensions only, "half" pairing among them (p with p + r/2); the
    /// rest pass unturned (Qwen3-Next, GLM: `partial_rotary_factor`).
    HalfOf(usize),
}

impl Pairing {
    pub fn name(self) -> &'static str {
        match self {
            Self::Half => "half",
            Self::Interleaved => "interleaved",
            Self::HalfOf(_) => "partial",
        }
    }

    /// How many of a head's `d_k` dimensions turn (all, or the first r).
    pub fn rotated(self, d_k: usize) -> usize {
        match self {
            Self::HalfOf(r) => r.min(d_k),
            Self::Half | Self::Interleaved => d_k,
        }
    }

    /// The two dimensions of pair `p` of the `r` that turn ([`Pairing::rotated`]).
    pub fn dims(self, p: usize, r: usize) -> (usize, usize) {
        match self {
            Self::Half | Self::HalfOf(_) => (p, p + r / 2),
            Self::Interleaved => (2 * p, 2 * p + 1),
        }
    }
}

/// Where position information enters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Position {
    /// A sentence's X = E + P, sines and cosines (the lab's 2017 default).
    #[default]
    Absolute,
    /// X = E: no position at all.
    None,
    /// Rotary positions: each head's q and k turned by their positions (never v).
    Rope { base: f64, pairing: Pairing },
    /// Attention with linear biases: −m_h·|i − j| added to each head's scores.
    Alibi,
}

impl Position {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Absolute => "absolute",
            Self::None => "none",
            Self::Rope { .. } => "rope",
            Self::Alibi => "alibi",
        }
    }
}

/// The score options of a computation (see the module's order).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Shaping {
    pub position: Position,
    /// Added to every query's and key's position: RoPE's and ALiBi's scores do not change.
    pub offset: usize,
    pub softcap: Option<f32>,
    pub qk_norm: bool,
    /// QK-norm's learned gains (Qwen3): with `qk_norm`, each head's q and k over its root mean
    /// square (with this ε) times γ; `None`: γ = 1, ε = 10⁻⁶.
    pub qk_gain: Option<QkGain>,
    /// One logit per head, joining each row's softmax as an extra column.
    pub sink_logits: Option<Vec<f32>>,
}

/// QK-norm's learned gains and ε, as a trained model (Qwen3) has them: γ [d_k] for q and for k.
#[derive(Debug, Clone, PartialEq)]
pub struct QkGain {
    pub q: Vec<f32>,
    pub k: Vec<f32>,
    pub epsilon: f32,
}

/// Which side of the scores a vector is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Query,
    Key,
}

/// ε of QK-norm's root mean square.
pub const QK_NORM_EPSILON: f32 = 1e-6;

impl Shaping {
    /// Whether q and k are changed before the scores (QK-norm or RoPE).
    pub fn prepares(&self) -> bool {
        self.qk_norm || matches!(self.position, Position::Rope { .. })
    }

    /// Whether anything differs from the 2017 scores.
    pub fn is_plain(&self) -> bool {
        !self.prepares()
            && self.softcap.is_none()
            && self.sink_logits.is_none()
            && self.position != Position::Alibi
    }

    /// Each head's q (or k) as the scores read it: `x` [len, heads·d_k] with QK-norm and RoPE
    /// applied head by head, row r at position `first + r` (+ the offset). `None` when neither
    /// applies.
    pub fn prepare(
        &self,
        x: ArrayView2<f32>,
        d_k: usize,
        first: usize,
        side: Side,
    ) -> Option<Array2<f32>> {
        if !self.prepares() {
            return None;
        }
        let mut out = x.to_owned();
        let heads = out.ncols() / d_k.max(1);
        for h in 0..heads {
            let mut head = out.slice_mut(s![.., h * d_k..(h + 1) * d_k]);
            if self.qk_norm {
                match &self.qk_gain {
                    Some(gain) => {
                        let gamma = match side {
                            Side::Query => &gain.q,
                            Side::Key => &gain.k,
                        };
                        rms_norm_rows(head.view_mut(), gamma, gain.epsilon);
                    }
                    None => qk_norm(head.view_mut()),
                }
            }
            if let Position::Rope { base, pairing } = self.position {
                rope(head.view_mut(), base, pairing, first + self.offset);
            }
        }
        Some(out)
    }

    /// How head `head` of `n_heads` turns q·k into scores, at temperature `temperature`, with
    /// d_k dimensions.
    pub fn scoring(&self, head: usize, n_heads: usize, d_k: usize, temperature: f32) -> Scoring {
        let sqrt_d_k = (d_k as f32).sqrt();
        Scoring {
            scale: 1.0 / (sqrt_d_k * temperature),
            inv_sqrt_d_k: 1.0 / sqrt_d_k,
            inv_t: 1.0 / temperature,
            slope: (self.position == Position::Alibi).then(|| alibi_slope(head, n_heads)),
            cap: self.softcap,
            sink: self
                .sink_logits
                .as_ref()
                .and_then(|s| s.get(head))
                .map(|&s| s / temperature),
        }
    }
}

/// How one head turns a dot product q_i·k_j into the score softmax reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scoring {
    /// 1 / (√d_k · T): all there is to it without a bias or a cap.
    pub scale: f32,
    inv_sqrt_d_k: f32,
    inv_t: f32,
    /// ALiBi's slope m_h for this head.
    slope: Option<f32>,
    cap: Option<f32>,
    /// This head's sink logit, divided by T.
    pub sink: Option<f32>,
}

impl Scoring {
    /// The 2017 scores: q·k · `scale`.
    pub fn plain(scale: f32) -> Self {
        Self {
            scale,
            inv_sqrt_d_k: scale,
            inv_t: 1.0,
            slope: None,
            cap: None,
            sink: None,
        }
    }

    /// Whether each score needs its own indices (a bias) or a non-linear step (a cap).
    pub fn shapes(&self) -> bool {
        self.slope.is_some() || self.cap.is_some()
    }

    /// What the dot product is multiplied by before a bias or a cap: 1/√d_k when the score is
    /// shaped, the whole `scale` otherwise (how the GPU's product is scaled).
    pub fn dot_scale(&self) -> f32 {
        if self.shapes() {
            self.inv_sqrt_d_k
        } else {
            self.scale
        }
    }

    /// 1 / T.
    pub fn inv_t(&self) -> f32 {
        self.inv_t
    }

    /// The soft-cap c, if any.
    pub fn cap(&self) -> Option<f32> {
        self.cap
    }

    /// ALiBi's slope m_h, if any.
    pub fn slope(&self) -> Option<f32> {
        self.slope
    }

    /// ALiBi's bias of query `i` and key `j`: −m_h·|i − j| (0 without ALiBi).
    pub fn bias(&self, i: usize, j: usize) -> f32 {
        self.slope.map_or(0.0, |m| -m * i.abs_diff(j) as f32)
    }

    /// The score of query `i` and key `j` from their dot product.
    #[inline]
    pub fn score(&self, dot: f32, i: usize, j: usize) -> f32 {
        if !self.shapes() {
            return dot * self.scale;
        }
        let mut z = dot * self.inv_sqrt_d_k + self.bias(i, j);
        if let Some(c) = self.cap {
            z = c * (z / c).tanh();
        }
        z * self.inv_t
    }

    /// What the product QKᵀ is multiplied by as it is computed: the whole scale when the scores
    /// are not shaped (nothing is then left for [`Scoring::finish`] to do), 1 when they are.
    pub fn product_scale(&self) -> f32 {
        if self.shapes() { 1.0 } else { self.scale }
    }

    /// Turns dot products computed with [`Scoring::product_scale`] into scores, in place: a pass
    /// over them only when the scores are shaped (a bias, a cap).
    pub fn finish(&self, products: ArrayViewMut2<f32>, first_row: usize, first_col: usize) {
        if self.shapes() {
            self.apply(products, first_row, first_col);
        }
    }

    /// Turns the dot products of queries `first_row..` and keys `first_col..` into scores, in
    /// place.
    pub fn apply(&self, mut dots: ArrayViewMut2<f32>, first_row: usize, first_col: usize) {
        if !self.shapes() {
            dots.mapv_inplace(|d| d * self.scale);
            return;
        }
        for (r, mut row) in dots.rows_mut().into_iter().enumerate() {
            for (c, d) in row.iter_mut().enumerate() {
                *d = self.score(*d, first_row + r, first_col + c);
            }
        }
    }
}

/// ALiBi's slope for head `head` of `n_heads`, as the paper's reference computes it: for a power
/// of two H, 2^(−8/H), 2^(−16/H), …; otherwise the slopes of the nearest lower power of two P,
/// then every other slope of 2P heads (6 heads: 1/4, 1/16, 1/64, 1/256, 1/2, 1/8).
pub fn alibi_slope(head: usize, n_heads: usize) -> f32 {
    alibi_slopes(n_heads).get(head).copied().unwrap_or(0.0)
}

/// Every head's ALiBi slope (see [`alibi_slope`]).
pub fn alibi_slopes(n_heads: usize) -> Vec<f32> {
    let power = |n: usize| -> Vec<f64> {
        let start = 2f64.powf(-8.0 / n as f64);
        (1..=n).map(|i| start.powi(i as i32)).collect()
    };
    if n_heads == 0 {
        return Vec::new();
    }
    let lower = 1usize << (usize::BITS - 1 - n_heads.leading_zeros());
    let mut slopes = power(lower);
    if lower < n_heads {
        slopes.extend(
            power(2 * lower)
                .into_iter()
                .step_by(2)
                .take(n_heads - lower),
        );
    }
    slopes.into_iter().map(|m| m as f32).collect()
}

/// Each row over its root mean square (ε = 10⁻⁶), in place.
pub fn qk_norm(mut x: ArrayViewMut2<f32>) {
    for mut row in x.rows_mut() {
        let n = row.len().max(1) as f32;
        let mean_square = row.iter().map(|v| v * v).sum::<f32>() / n;
        let inverse = 1.0 / (mean_square + QK_NORM_EPSILON).sqrt();
        row.mapv_inplace(|v| v * inverse);
    }
}

/// Each row over its root mean square (with ε) times γ, in place: an RMSNorm per head.
pub fn rms_norm_rows(mut x: ArrayViewMut2<f32>, gamma: &[f32], epsilon: f32) {
    for mut row in x.rows_mut() {
        let n = row.len().max(1) as f32;
        let mean_square = row.iter().map(|v| v * v).sum::<f32>() / n;
        let inverse = 1.0 / (mean_square + epsilon).sqrt();
        for (v, g) in row.iter_mut().zip(gamma) {
            *v *= inverse * g;
        }
    }
}

/// RoPE's angles as a table: for rows `0..rows` at positions `first + r`, each pair p's
/// (cos, sin) of position · base^(−2p/d_k), computed in f64 as [`rope`] computes them: [rows,
/// d_k/2, 2] row-major (what the GPU's shader reads).
pub fn rope_table(base: f64, d_k: usize, first: usize, rows: usize) -> Vec<f32> {
    let pairs = d_k / 2;
    let mut table = Vec::with_capacity(rows * pairs * 2);
    for r in 0..rows {
        let position = (first + r) as f64;
        for p in 0..pairs {
            let theta = base.powf(-2.0 * p as f64 / d_k as f64);
            let (sin, cos) = (position * theta).sin_cos();
            table.extend([cos as f32, sin as f32]);
        }
    }
    table
}

/// RoPE in place: row r of `x` [len, d_k] sits at position `first + r`; its pair p (of the
/// `pairing`) turns by the angle position · base^(−2p/d_k). d_k is even (checked).
pub fn rope(mut x: ArrayViewMut2<f32>, base: f64, pairing: Pairing, first: usize) {
    // The dimensions that turn: a partial rotation's frequencies are those of an r-wide head.
    let d_k = pairing.rotated(x.ncols());
    let pairs = d_k / 2;
    let thetas: Vec<f64> = (0..pairs)
        .map(|p| base.powf(-2.0 * p as f64 / d_k as f64))
        .collect();
    for (r, mut row) in x.rows_mut().into_iter().enumerate() {
        let position = (first + r) as f64;
        for (p, &theta) in thetas.iter().enumerate() {
            let (a, b) = pairing.dims(p, d_k);
            let (sin, cos) = (position * theta).sin_cos();
            let (x1, x2) = (f64::from(row[a]), f64::from(row[b]));
            row[a] = (x1 * cos - x2 * sin) as f32;
            row[b] = (x1 * sin + x2 * cos) as f32;
        }
    }
}

/// The angle RoPE turns pair `p` by at `position`: position · base^(−2p/d_k).
pub fn rope_angle(position: usize, p: usize, d_k: usize, base: f64) -> f64 {
    position as f64 * base.powf(-2.0 * p as f64 / d_k as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn alibi_slopes_follow_the_papers_reference() {
        let powers = |v: Vec<f32>| v.iter().map(|m| -m.log2()).collect::<Vec<_>>();
        assert_eq!(
            powers(alibi_slopes(8)),
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
        );
        assert_eq!(powers(alibi_slopes(4)), vec![2.0, 4.0, 6.0, 8.0]);
        assert_eq!(powers(alibi_slopes(6)), vec![2.0, 4.0, 6.0, 8.0, 1.0, 3.0]);
        assert_eq!(powers(alibi_slopes(1)), vec![8.0]);
        assert_eq!(powers(alibi_slopes(3)), vec![4.0, 8.0, 2.0]);
        assert_eq!(alibi_slopes(12).len(), 12);
    }

    #[test]
    fn rope_keeps_norms_turns_nothing_at_position_zero_and_pairs_as_asked() {
        let x = array![[0.3f32, -1.2, 0.7, 2.0], [1.0, 0.5, -0.25, 0.125]];
        for pairing in [Pairing::Half, Pairing::Interleaved] {
            let mut turned = x.clone();
            rope(turned.view_mut(), 10000.0, pairing, 0);
            // Row 0 at position 0: unchanged; row 1 turned, its norm kept.
            assert_eq!(turned.row(0), x.row(0));
            let norm = |r: ndarray::ArrayView1<f32>| r.dot(&r).sqrt();
            assert!((norm(turned.row(1)) - norm(x.row(1))).abs() < 1e-6);
            assert_ne!(turned.row(1), x.row(1));
        }
        // Half pairs 0 with 2; interleaved pairs 0 with 1: at position 1 with base 1 (θ = 1),
        // pair 0 turns by one radian in both, differently placed.
        let e = array![[0.0f32, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]];
        let mut half = e.clone();
        rope(half.view_mut(), 1.0, Pairing::Half, 0);
        let mut inter = e.clone();
        rope(inter.view_mut(), 1.0, Pairing::Interleaved, 0);
        assert!((half[[1, 2]] - 1f32.sin()).abs() < 1e-6 && half[[1, 1]] == 0.0);
        assert!((inter[[1, 1]] - 1f32.sin()).abs() < 1e-6 && inter[[1, 2]] == 0.0);
    }

    #[test]
    fn a_plain_scoring_is_the_2017_formula_and_a_capped_one_stays_below_its_cap() {
        let plain = Shaping::default().scoring(0, 2, 16, 0.5);
        assert!(!plain.shapes());
        assert_eq!(plain.score(3.0, 0, 5), 3.0 / (4.0 * 0.5));
        let capped = Shaping {
            softcap: Some(2.0),
            ..Shaping::default()
        }
        .scoring(0, 2, 16, 1.0);
        // |c·tanh(z / c)| < c; in f32 tanh rounds to 1 for a huge z: ≤ c there.
        for dot in [-30.0, -10.0, 0.0, 3.0, 20.0] {
            assert!(capped.score(dot, 0, 0).abs() < 2.0);
        }
        for dot in [-1e6, 1e6] {
            assert!(capped.score(dot, 0, 0).abs() <= 2.0);
        }
        let alibi = Shaping {
            position: Position::Alibi,
            ..Shaping::default()
        }
        .scoring(1, 2, 16, 1.0);
        // Head 2 of 2: slope 2^−8; query 7, key 3: −4 · 2^−8.
        assert!((alibi.score(0.0, 7, 3) + 4.0 / 256.0).abs() < 1e-9);
        assert_eq!(alibi.bias(3, 7), alibi.bias(7, 3));
    }

    #[test]
    fn qk_norm_gives_rows_of_unit_root_mean_square() {
        let mut x = array![[3.0f32, 4.0], [0.0, 0.0], [-1.0, 1.0]];
        qk_norm(x.view_mut());
        for row in x.rows() {
            let rms = (row.dot(&row) / 2.0).sqrt();
            assert!(rms < 1.0 + 1e-5, "{rms}");
        }
        assert!((x[[0, 0]] - 3.0 / 12.5f32.sqrt()).abs() < 1e-5);
    }
}
