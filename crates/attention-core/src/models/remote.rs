//! A model run in another thread (the page's model worker) and shown in this one. The worker
//! holds its own copy of the model and runs [`Model::forward_work`]: the forward pass, keeping
//! what cost a matrix product in each layer — its attention's [`Computed`] (Q, K, V, every
//! head's scores and weights, both outputs) and its MLP's output — sent as one flat buffer
//! ([`ForwardWork::to_flat`]). The page's [`Model::forward_from`] puts the same [`Forward`]
//! together from it, deriving everything else exactly as the forward pass does, in a fraction
//! of its arithmetic (no projection and no MLP is computed again).
//!
//! [`Model::forward_work`]: crate::models::Model::forward_work
//! [`Model::forward_from`]: crate::models::Model::forward_from
//! [`Forward`]: crate::models::Forward

use ndarray::Array2;

use crate::models::forward::{ForwardLayer, ModelRun};
use crate::pipeline::computed::Computed;
use crate::pipeline::config::Config;
use crate::pipeline::trace::{Backend, Trace};

/// One layer's work: its attention as computed before the trace is derived, the backend that
/// computed it (named in the layer's trace), and its MLP's output, [seq_len, d_model].
#[derive(Debug, Clone, PartialEq)]
pub struct LayerWork {
    pub computed: Computed,
    pub backend: Backend,
    pub mlp: Array2<f32>,
}

/// Every layer's work of one forward pass.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ForwardWork {
    pub layers: Vec<LayerWork>,
}

/// Where the forward pass takes each layer's work from: computed here (and kept, when asked),
/// or given.
pub(crate) enum LayerSource<'a> {
    Here(Option<&'a mut Vec<LayerWork>>),
    Given(std::vec::IntoIter<LayerWork>),
    /// The next block's attention computed by another backend (a GPU), its MLP here; the
    /// backend named in its trace.
    Attention(
        Option<Box<(Computed, Backend)>>,
        Option<&'a mut Vec<LayerWork>>,
    ),
}

impl LayerSource<'_> {
    /// Whether a block's work computed here is kept.
    pub(crate) fn keeps(&self) -> bool {
        matches!(self, Self::Here(Some(_)) | Self::Attention(_, Some(_)))
    }

    /// Where a block's work is kept, when it is.
    pub(crate) fn record(&mut self) -> Option<&mut Vec<LayerWork>> {
        match self {
            Self::Here(Some(record)) | Self::Attention(_, Some(record)) => Some(&mut **record),
            _ => None,
        }
    }
}

/// A forward pass part of the way through: the residual stream after the blocks run so far.
pub(crate) struct Pass {
    pub tokens: Vec<String>,
    pub ids: Vec<u32>,
    pub run: ModelRun,
    pub embeddings: Array2<f32>,
    pub positions: Array2<f32>,
    /// The residual stream leaving the last block run.
    pub x: Array2<f32>,
    pub layers: Vec<ForwardLayer>,
}

/// `Model::forward_work` a block at a time (`Model::begin_work`, `work_layer`,
/// `finish_work`): the model's worker runs one block per turn of its event loop, so
/// that a newer request read between two blocks can replace a pass no longer wanted, and the
/// worker can wait while the page is busy.
pub struct LayeredWork {
    pub(crate) pass: Pass,
    pub(crate) kept: Vec<LayerWork>,
    /// A block whose attention has run and whose MLP runs a slice of its hidden units at a time
    /// (`Model::work_piece`).
    pub(crate) open: Option<OpenLayer>,
    /// The multiply-adds of MLP a piece takes (`models::model::PIECE_MACS`).
    pub(crate) piece_macs: usize,
}

impl LayeredWork {
    /// How many blocks have run.
    pub fn layers_done(&self) -> usize {
        self.pass.layers.len()
    }

    /// Whether a block's MLP is part of the way through (`Model::work_piece` goes on with it).
    pub fn mid_block(&self) -> bool {
        self.open.is_some()
    }

    /// The same work with pieces of about `macs` multiply-adds of MLP (at least one slice of
    /// 256 hidden units; the tests' small models are cut into pieces with a small one).
    pub fn with_piece_macs(mut self, macs: usize) -> Self {
        self.piece_macs = macs.max(1);
        self
    }
}

/// A block whose attention has run: its trace, and its MLP's output once known (given, or
/// summed over slices of its hidden units: `pieces`).
pub(crate) struct OpenLayer {
    pub index: usize,
    pub residual_in: Array2<f32>,
    pub attention: Trace,
    pub after_attention: Array2<f32>,
    /// The attention's work and backend, when the pass keeps its work.
    pub kept: Option<(Computed, Backend)>,
    /// The MLP's output, when it came computed.
    pub mlp: Option<Array2<f32>>,
    pub pieces: Option<MlpPieces>,
}

/// An MLP computed a slice of its hidden units at a time: its normed input, the sum so far of
/// the slices' outputs, the next hidden unit, and how many a slice takes.
pub(crate) struct MlpPieces {
    pub normed: Array2<f32>,
    pub out: Array2<f32>,
    pub next: usize,
    pub width: usize,
}

/// Whether every matrix of an attention's [`Computed`] has the shape `config`'s layer gives it
/// (a full trace: no overview).
pub(crate) fn attention_fits(c: &Computed, config: &Config) -> bool {
    let d = config.dims();
    let (n, m) = (config.seq_len(), config.key_len());
    let square =
        |list: &[Array2<f32>]| list.len() == d.n_heads && list.iter().all(|s| s.dim() == (n, m));
    c.q.dim() == (n, d.n_heads * d.d_k)
        && c.k.dim() == (m, d.n_kv_heads * d.d_k)
        && c.v.dim() == (m, d.n_kv_heads * d.d_v)
        && square(&c.scores)
        && square(&c.weights)
        && c.overviews.is_empty()
        && c.concat.dim() == (n, d.n_heads * d.d_v)
        && c.flash_concat.dim() == (n, d.n_heads * d.d_v)
        && c.projected.dim() == (n, d.d_model)
        && c.flash_projected.dim() == (n, d.d_model)
}

impl LayerWork {
    /// Whether every matrix has the shape `config`'s layer gives it (a full trace: no overview).
    pub fn fits(&self, config: &Config) -> bool {
        attention_fits(&self.computed, config)
            && self.mlp.dim() == (config.seq_len(), config.dims().d_model)
    }

    fn matrices(&self) -> Vec<&Array2<f32>> {
        let c = &self.computed;
        let mut all = vec![&c.q, &c.k, &c.v];
        all.extend(&c.scores);
        all.extend(&c.weights);
        all.extend([
            &c.concat,
            &c.projected,
            &c.flash_concat,
            &c.flash_projected,
            &self.mlp,
        ]);
        all
    }
}

impl ForwardWork {
    /// One buffer: the number of layers; then per layer its number of heads, its backend (0
    /// the CPU, 1 a GPU) and its matrices (Q, K, V, each head's scores, each head's weights, the
    /// concatenated outputs, their projection, FlashAttention's two, the MLP's output), each as
    /// rows, columns and its numbers row-major. A GPU's name does not travel in numbers: the
    /// reader gives it ([`ForwardWork::from_flat`]).
    pub fn to_flat(&self) -> Vec<f32> {
        let size: usize = self
            .layers
            .iter()
            .flat_map(LayerWork::matrices)
            .map(|m| m.len() + 2)
            .sum();
        let mut flat = Vec::with_capacity(1 + 3 * self.layers.len() + size);
        flat.push(self.layers.len() as f32);
        for layer in &self.layers {
            flat.push(layer.computed.scores.len() as f32);
            flat.push(match layer.backend {
                Backend::Cpu => 0.0,
                Backend::Gpu { .. } => 1.0,
            });
            for matrix in layer.matrices() {
                let (rows, cols) = matrix.dim();
                flat.extend([rows as f32, cols as f32]);
                match matrix.as_slice() {
                    Some(numbers) => flat.extend_from_slice(numbers),
                    None => flat.extend(matrix.iter()),
                }
            }
        }
        flat
    }

    /// The inverse of [`ForwardWork::to_flat`], a GPU's layers named `adapter`; `None` for a
    /// buffer of another form.
    pub fn from_flat(flat: &[f32], adapter: &str) -> Option<Self> {
        let mut rest = flat;
        let layers = take_count(&mut rest)?;
        let mut read = Vec::with_capacity(layers.min(1024));
        for _ in 0..layers {
            let heads = take_count(&mut rest)?;
            let backend = match take_count(&mut rest)? {
                0 => Backend::Cpu,
                1 => Backend::Gpu {
                    adapter: adapter.to_string(),
                },
                _ => return None,
            };
            let mut matrix = || take_matrix(&mut rest);
            let (q, k, v) = (matrix()?, matrix()?, matrix()?);
            let scores = (0..heads).map(|_| matrix()).collect::<Option<Vec<_>>>()?;
            let weights = (0..heads).map(|_| matrix()).collect::<Option<Vec<_>>>()?;
            let (concat, projected) = (matrix()?, matrix()?);
            let (flash_concat, flash_projected, mlp) = (matrix()?, matrix()?, matrix()?);
            read.push(LayerWork {
                computed: Computed {
                    q,
                    k,
                    v,
                    scores,
                    weights,
                    overviews: Vec::new(),
                    concat,
                    projected,
                    flash_concat,
                    flash_projected,
                },
                backend,
                mlp,
            });
        }
        rest.is_empty().then_some(Self { layers: read })
    }
}

fn take_count(rest: &mut &[f32]) -> Option<usize> {
    let (&x, tail) = rest.split_first()?;
    *rest = tail;
    (x >= 0.0 && x.fract() == 0.0 && x < 16_777_216.0).then_some(x as usize)
}

fn take_matrix(rest: &mut &[f32]) -> Option<Array2<f32>> {
    let rows = take_count(rest)?;
    let cols = take_count(rest)?;
    let len = rows.checked_mul(cols)?;
    if rest.len() < len {
        return None;
    }
    let (numbers, tail) = rest.split_at(len);
    *rest = tail;
    Array2::from_shape_vec((rows, cols), numbers.to_vec()).ok()
}
