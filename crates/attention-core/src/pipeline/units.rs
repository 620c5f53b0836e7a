//! A computation cut into units for the page's Web Workers: a unit is one head, or, for a
//! summarised head (a long input, [`crate::pipeline::overview::summarises`]), a band of its queries: about a
//! quarter of them, a whole number of the overview's block rows and of FlashAttention's query
//! blocks, so that a band's numbers are exactly those rows of the whole computation.
//!
//! The page hands units to whichever worker is free (a worker that shares its processor with the
//! page's own work takes fewer), and a worker reads its messages between units, so a newer edit
//! stops it within a unit rather than a head. Each unit's result ([`UnitPart`]) travels as one
//! flat buffer of numbers; [`Computed::assemble`] puts the parts of every head back together.

use std::ops::Range;
use std::sync::OnceLock;

use ndarray::{Array2, s};

use crate::math::attention::{Projections, ScoredQk, attend};
use crate::math::flash::{flash_attention, flash_attention_rows};
use crate::pipeline::computed::{Computed, attention_input, project};
use crate::pipeline::config::Config;
use crate::pipeline::linear_heads::{LinearOutputs, gated, linear_outputs, linear_overview};
use crate::pipeline::overview::{Overview, attend_overview_rows, overview_of_rows};

/// About this many bands per summarised head.
const BANDS: usize = 4;

/// A head, and the queries of it a unit computes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Unit {
    pub head: usize,
    pub rows: Range<usize>,
}

/// Every unit of `config`, head by head and band by band: with `summarise`, each head's queries
/// in bands; otherwise one unit per head (its n² matrices are whole).
pub fn units(config: &Config, summarise: bool) -> Vec<Unit> {
    let n = config.seq_len();
    let band = if summarise {
        band_rows(config)
    } else {
        n.max(1)
    };
    (0..config.dims().n_heads)
        .flat_map(|head| {
            (0..n).step_by(band).map(move |start| Unit {
                head,
                rows: start..(start + band).min(n),
            })
        })
        .collect()
}

/// Queries per band: about n / [`BANDS`], rounded up to whole overview block rows and whole
/// FlashAttention query blocks.
fn band_rows(config: &Config) -> usize {
    let n = config.seq_len();
    let align = lcm(Overview::step(n), config.block().0.max(1));
    n.div_ceil(BANDS).div_ceil(align).max(1) * align
}

fn lcm(a: usize, b: usize) -> usize {
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    a / gcd(a, b) * b
}

/// One unit's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitPart {
    pub unit: Unit,
    /// [rows, d_v]: the standard pass's head output for the unit's queries.
    pub output: Array2<f32>,
    /// [rows, d_v]: FlashAttention's.
    pub flash_output: Array2<f32>,
    /// A whole head's scores and weights [seq_len, key_len] (not summarised), or the overview of
    /// the unit's block rows (summarised).
    pub matrices: UnitMatrices,
}

#[derive(Debug, Clone, PartialEq)]
pub enum UnitMatrices {
    Full {
        scores: Array2<f32>,
        weights: Array2<f32>,
    },
    Summarised(Box<Overview>),
}

/// What every unit of one request reads: Q, K and V of every head (and as the scores read
/// them), computed once per worker.
pub struct UnitJob {
    summarise: bool,
    /// What Q, K and V were projected from (linear attention's β and α, and the output gate,
    /// read it too).
    x: Array2<f32>,
    projections: Projections,
    scored: ScoredQk,
    /// A summarised linear head's outputs, computed for its first band and kept for the others
    /// (its cost is the whole head's whichever band asks, about a tenth of a band's).
    linear: Vec<OnceLock<Option<LinearOutputs>>>,
}

impl UnitJob {
    pub fn new(config: &Config, summarise: bool) -> Self {
        let x = attention_input(config);
        let projections = project(config, x.view());
        let scored = ScoredQk::new(&projections, config.shaping(), config.dims().d_k);
        Self {
            summarise,
            x,
            projections,
            scored,
            linear: (0..config.dims().n_heads)
                .map(|_| OnceLock::new())
                .collect(),
        }
    }

    /// Q, K and V of every head, as [`projections_from_flat`] reads them back.
    pub fn projections_to_flat(&self) -> Vec<f32> {
        let p = &self.projections;
        let mut flat = Vec::with_capacity(p.q.len() + p.k.len() + p.v.len());
        for matrix in [&p.q, &p.k, &p.v] {
            flat.extend(matrix.iter());
        }
        flat
    }

    pub fn into_projections(self) -> Projections {
        self.projections
    }

    /// The numbers of `unit` (one of [`units`] of the same config): its head's outputs for the
    /// unit's queries times the head's output gate, if the config has one.
    pub fn compute(&self, config: &Config, unit: &Unit) -> UnitPart {
        let mut part = self.compute_ungated(config, unit);
        let x = self.x.view();
        part.output = gated(config, x, unit.head, unit.rows.clone(), part.output);
        part.flash_output = gated(config, x, unit.head, unit.rows.clone(), part.flash_output);
        part
    }

    fn compute_ungated(&self, config: &Config, unit: &Unit) -> UnitPart {
        // Linear attention: the head whole (its cost is linear), its hidden matrix for both of
        // the views' matrices, its chunked form in FlashAttention's place.
        // A long input's A is summarised a row at a time (its unit's rows only), never held.
        let whole = !self.summarise;
        let outputs = || linear_outputs(config, self.x.view(), &self.projections, unit.head, whole);
        let kept;
        let computed;
        let linear = match self.linear.get(unit.head) {
            Some(cell) if self.summarise => {
                kept = cell.get_or_init(outputs);
                kept.as_ref()
            }
            _ => {
                computed = outputs();
                computed.as_ref()
            }
        };
        if let Some(linear) = linear {
            let rows = s![unit.rows.clone(), ..];
            let matrices = match &linear.matrix {
                Some(matrix) => UnitMatrices::Full {
                    scores: matrix.clone(),
                    weights: matrix.clone(),
                },
                None => UnitMatrices::Summarised(Box::new(
                    linear_overview(
                        config,
                        self.x.view(),
                        &self.projections,
                        unit.head,
                        unit.rows.clone(),
                    )
                    .unwrap_or_else(|| {
                        overview_of_rows(
                            config.seq_len(),
                            config.key_len(),
                            unit.rows.clone(),
                            |_, _| {},
                        )
                    }),
                )),
            };
            return UnitPart {
                unit: unit.clone(),
                output: linear.output.slice(rows).to_owned(),
                flash_output: linear.chunked.slice(rows).to_owned(),
                matrices,
            };
        }
        let (dims, mask) = (*config.dims(), config.mask());
        let p = &self.projections;
        let (group, _, _, v) = p.head(&dims, unit.head);
        let (q, k) = (
            self.scored.q(p, &dims, unit.head),
            self.scored.k(p, &dims, group),
        );
        let scoring = config.scoring(unit.head);
        if self.summarise {
            let (output, overview) =
                attend_overview_rows(q, k, v, &scoring, mask, unit.rows.clone());
            let flash_output =
                flash_attention_rows(q, k, v, &scoring, mask, config.block(), unit.rows.clone());
            UnitPart {
                unit: unit.clone(),
                output,
                flash_output,
                matrices: UnitMatrices::Summarised(Box::new(overview)),
            }
        } else {
            let standard = attend(q, k, v, &scoring, mask);
            let flash = flash_attention(q, k, v, &scoring, mask, config.block(), false);
            let rows = s![unit.rows.clone(), ..];
            UnitPart {
                unit: unit.clone(),
                output: standard.output.slice(rows).to_owned(),
                flash_output: flash.output.slice(rows).to_owned(),
                matrices: UnitMatrices::Full {
                    scores: standard.scores,
                    weights: standard.weights,
                },
            }
        }
    }
}

/// Q, K and V from [`UnitJob::projections_to_flat`] for `config`; `None` for another length.
pub fn projections_from_flat(config: &Config, flat: &[f32]) -> Option<Projections> {
    let d = config.dims();
    let (n, m) = (config.seq_len(), config.key_len());
    let shapes = [
        (n, d.n_heads * d.d_k),
        (m, d.n_kv_heads * d.d_k),
        (m, d.n_kv_heads * d.d_v),
    ];
    let mut matrices = read_matrices(flat, &shapes)?.into_iter();
    Some(Projections {
        q: matrices.next()?,
        k: matrices.next()?,
        v: matrices.next()?,
    })
}

/// `flat` cut into matrices of `shapes`, row-major, one after the other; `None` unless the
/// lengths add up exactly.
fn read_matrices(flat: &[f32], shapes: &[(usize, usize)]) -> Option<Vec<Array2<f32>>> {
    if flat.len() != shapes.iter().map(|(r, c)| r * c).sum::<usize>() {
        return None;
    }
    let mut rest = flat;
    shapes
        .iter()
        .map(|&(rows, cols)| {
            let (head, tail) = rest.split_at(rows * cols);
            rest = tail;
            Array2::from_shape_vec((rows, cols), head.to_vec()).ok()
        })
        .collect()
}

/// The header of a part's flat buffer: summarised (1) or not (0), head, first row, end row.
const HEADER: usize = 4;

impl UnitPart {
    /// The header, then every matrix, row-major, one after the other (the output and the flash
    /// output; then the scores and the weights, or the overview's six block matrices, its rows'
    /// maxima and inverse sums, and its largest |score|): how a worker sends one unit in one
    /// transferable buffer. The shapes follow from the config and the header.
    pub fn to_flat(&self) -> Vec<f32> {
        let summarised = matches!(self.matrices, UnitMatrices::Summarised(_));
        let mut flat = vec![
            if summarised { 1.0 } else { 0.0 },
            self.unit.head as f32,
            self.unit.rows.start as f32,
            self.unit.rows.end as f32,
        ];
        flat.extend(self.output.iter());
        flat.extend(self.flash_output.iter());
        match &self.matrices {
            UnitMatrices::Full { scores, weights } => {
                flat.extend(scores.iter());
                flat.extend(weights.iter());
            }
            UnitMatrices::Summarised(overview) => {
                for matrix in overview.matrices() {
                    flat.extend(matrix.iter());
                }
                flat.extend(&overview.row_max);
                flat.extend(&overview.row_inverse);
                flat.push(overview.abs_max);
            }
        }
        flat
    }

    /// The inverse of [`UnitPart::to_flat`] for `config`; `None` for a head or rows the config
    /// does not have, or another length.
    pub fn from_flat(config: &Config, flat: &[f32]) -> Option<Self> {
        let header = flat.get(..HEADER)?;
        let whole = |x: f32| (x >= 0.0 && x.fract() == 0.0).then_some(x as usize);
        let summarised = header[0] == 1.0;
        let head = whole(header[1])?;
        let rows = whole(header[2])?..whole(header[3])?;
        let d = config.dims();
        let (n, m) = (config.seq_len(), config.key_len());
        if head >= d.n_heads || rows.is_empty() || rows.end > n {
            return None;
        }
        let (row_step, col_step) = (Overview::step(n), Overview::step(m));
        let out = (rows.len(), d.d_v);
        let mut shapes = vec![out, out];
        if summarised {
            if !rows.start.is_multiple_of(row_step) {
                return None;
            }
            let blocks = (
                rows.end.div_ceil(row_step) - rows.start / row_step,
                m.div_ceil(col_step),
            );
            shapes.extend([blocks; Overview::MATRICES]);
            shapes.extend([(rows.len(), 1), (rows.len(), 1), (1, 1)]);
        } else {
            shapes.extend([(n, m), (n, m)]);
        }
        let mut matrices = read_matrices(&flat[HEADER..], &shapes)?.into_iter();
        let mut next = || matrices.next();
        let (output, flash_output) = (next()?, next()?);
        let matrices = if summarised {
            UnitMatrices::Summarised(Box::new(Overview {
                row_step,
                col_step,
                scores_max: next()?,
                scores_mean: next()?,
                masked_max: next()?,
                masked_mean: next()?,
                weights_max: next()?,
                weights_mean: next()?,
                row_max: next()?.into_raw_vec_and_offset().0,
                row_inverse: next()?.into_raw_vec_and_offset().0,
                abs_max: next()?[[0, 0]],
            }))
        } else {
            UnitMatrices::Full {
                scores: next()?,
                weights: next()?,
            }
        };
        Some(Self {
            unit: Unit { head, rows },
            output,
            flash_output,
            matrices,
        })
    }
}

impl Computed {
    /// The parts of every unit of the heads `heads` (in any order) and the projections, as one:
    /// each head's matrices (its bands' overviews stacked), the head outputs side by side, and,
    /// when `heads` is every head, both projections through W_O (else those two are empty).
    /// `None` unless the parts cover each of these heads' queries exactly once.
    pub fn assemble(
        config: &Config,
        heads: Range<usize>,
        projections: Projections,
        mut parts: Vec<UnitPart>,
    ) -> Option<Self> {
        let d = *config.dims();
        let n = config.seq_len();
        parts.sort_by_key(|p| (p.unit.head, p.unit.rows.start));
        let mut concat = Array2::zeros((n, heads.len() * d.d_v));
        let mut flash_concat = Array2::zeros((n, heads.len() * d.d_v));
        let (mut scores, mut weights, mut overviews) = (Vec::new(), Vec::new(), Vec::new());
        let mut parts = parts.into_iter().peekable();
        for (column, head) in heads.clone().enumerate() {
            let mut bands = Vec::new();
            let mut covered = 0;
            while let Some(part) = parts.next_if(|p| p.unit.head == head) {
                if part.unit.rows.start != covered {
                    return None;
                }
                covered = part.unit.rows.end;
                let (rows, cols) = (part.unit.rows.clone(), column * d.d_v..(column + 1) * d.d_v);
                concat
                    .slice_mut(s![rows.clone(), cols.clone()])
                    .assign(&part.output);
                flash_concat
                    .slice_mut(s![rows, cols])
                    .assign(&part.flash_output);
                match part.matrices {
                    UnitMatrices::Full {
                        scores: s,
                        weights: w,
                    } => {
                        scores.push(s);
                        weights.push(w);
                    }
                    UnitMatrices::Summarised(overview) => bands.push(*overview),
                }
            }
            if covered != n {
                return None;
            }
            if !bands.is_empty() {
                overviews.push(Overview::stack(&bands)?);
            }
        }
        if parts.next().is_some() {
            return None; // A part of a head outside `heads`.
        }
        let (projected, flash_projected) = if heads.len() == d.n_heads {
            let w = config.weights();
            (
                w.project_out(concat.view()),
                w.project_out(flash_concat.view()),
            )
        } else {
            (Array2::zeros((0, 0)), Array2::zeros((0, 0)))
        };
        Some(Self {
            q: projections.q,
            k: projections.k,
            v: projections.v,
            scores,
            weights,
            overviews,
            concat,
            projected,
            flash_concat,
            flash_projected,
        })
    }
}

/// What [`trace_from`] needs, computed on the CPU: the projections, each head's scores and
/// weights, and both outputs (FlashAttention's without its steps). The page's workers compute
/// it unit by unit ([`crate::pipeline::units`]) and the page assembles their parts ([`Computed::assemble`]).
pub fn compute_parts(config: &Config) -> Computed {
    compute_parts_with(config, false, &mut |_, _| {})
}

/// [`compute_parts`], calling `progress(heads_done, heads)` after each unit; with `summarise`,
/// each head's scores and weights are kept as an [`Overview`] only (no n² matrix is held).
pub fn compute_parts_with(
    config: &Config,
    summarise: bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Computed {
    compute_part(config, summarise, 0..config.dims().n_heads, progress)
}

/// [`compute_parts_with`] for the heads in `heads` only. Its `concat` and `flash_concat` hold
/// these heads' columns; `projected` and `flash_projected` are empty unless `heads` is every head.
pub fn compute_part(
    config: &Config,
    summarise: bool,
    heads: Range<usize>,
    progress: &mut dyn FnMut(usize, usize),
) -> Computed {
    let mut job = PartJob::new(config, summarise, heads);
    while job.step(config) {
        progress(job.done(), job.heads());
    }
    job.finish(config)
}

/// [`compute_part`] one unit at a time ([`crate::pipeline::units`]: a head, or a band of a long head's
/// queries), so that its caller can stop between units. Every call must pass the config the job
/// was made from.
pub struct PartJob {
    heads: Range<usize>,
    units: Vec<Unit>,
    job: UnitJob,
    parts: Vec<UnitPart>,
}

impl PartJob {
    /// The projections computed; no unit yet.
    pub fn new(config: &Config, summarise: bool, heads: Range<usize>) -> Self {
        let units = units(config, summarise)
            .into_iter()
            .filter(|u| heads.contains(&u.head))
            .collect();
        Self {
            heads,
            units,
            job: UnitJob::new(config, summarise),
            parts: Vec::new(),
        }
    }

    /// Heads computed so far (every unit of them), and in all.
    pub fn done(&self) -> usize {
        // Units come head by head: the heads before the next unit's are done.
        match self.units.get(self.parts.len()) {
            Some(next) => next.head - self.heads.start,
            None => self.heads.len(),
        }
    }

    pub fn heads(&self) -> usize {
        self.heads.len()
    }

    /// Computes the next unit; `false` when every unit was computed already.
    pub fn step(&mut self, config: &Config) -> bool {
        let Some(unit) = self.units.get(self.parts.len()) else {
            return false;
        };
        self.parts.push(self.job.compute(config, unit));
        true
    }

    /// The part, with the heads computed (all of them once `step` has returned `false`).
    #[expect(
        clippy::expect_used,
        reason = "the job's own units of these heads, each computed from this config, cover every query once"
    )]
    pub fn finish(self, config: &Config) -> Computed {
        Computed::assemble(
            config,
            self.heads.clone(),
            self.job.into_projections(),
            self.parts,
        )
        .expect("every unit of these heads, computed from this config")
    }
}
