//! The matrices of the pipeline, as the views show them: where each comes from in a trace, its
//! axis labels, its colour scale, and how one of its cells was computed, with the actual numbers.
//! Pure functions of a trace: testable without a browser, and views never recompute attention.

use ndarray::{Array2, ArrayView1};

use super::colormap::Scale;
use super::heatmap::format_value;
use super::i18n::Lang;
use attention_core::{LayerNormMode, MaskSpec, Trace};

/// One matrix of the pipeline, in the order the computation produces them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// E [seq_len, d_model]: one vector per token.
    Embeddings,
    /// P [seq_len, d_model]: sinusoidal positions.
    Positions,
    /// X = E + P [seq_len, d_model].
    X,
    /// LN(X) under Pre-LN: what the queries are projected from.
    NormedX,
    /// Q of the selected head [seq_len, d_k].
    Q,
    /// K of the selected head's K/V group [key_len, d_k].
    K,
    /// V of the selected head's K/V group [key_len, d_v].
    V,
    /// QKᵀ [seq_len, key_len], before scaling.
    Dot,
    /// QKᵀ / (√d_k · T).
    Scaled,
    /// Scaled scores + M: −∞ where masked.
    Masked,
    /// softmax over each row.
    Weights,
    /// weights · V [seq_len, d_v].
    HeadOutput,
    /// All head outputs side by side [seq_len, n_heads·d_v].
    Concat,
    /// concat · W_O [seq_len, d_model].
    Projected,
    /// After the residual and LayerNorm [seq_len, d_model] (when LayerNorm is on).
    Output,
}

impl Stage {
    pub const ALL: [Stage; 15] = [
        Stage::Embeddings,
        Stage::Positions,
        Stage::X,
        Stage::NormedX,
        Stage::Q,
        Stage::K,
        Stage::V,
        Stage::Dot,
        Stage::Scaled,
        Stage::Masked,
        Stage::Weights,
        Stage::HeadOutput,
        Stage::Concat,
        Stage::Projected,
        Stage::Output,
    ];

    /// A stable name, used in `data-testid="heatmap-{id}"`.
    pub fn id(self) -> &'static str {
        match self {
            Self::Embeddings => "embeddings",
            Self::Positions => "positions",
            Self::X => "x",
            Self::NormedX => "normed-x",
            Self::Q => "q",
            Self::K => "k",
            Self::V => "v",
            Self::Dot => "dot",
            Self::Scaled => "scaled",
            Self::Masked => "masked",
            Self::Weights => "weights",
            Self::HeadOutput => "head-output",
            Self::Concat => "concat",
            Self::Projected => "projected",
            Self::Output => "output",
        }
    }

    /// Whether this trace has the matrix (E and P need tokens; LN(X) needs Pre-LN; the final
    /// output differs from concat·W_O only with LayerNorm).
    pub fn is_shown(self, trace: &Trace) -> bool {
        match self {
            Self::Embeddings | Self::Positions => trace.config.target().parts.is_some(),
            Self::NormedX => trace.config.layer_norm() == LayerNormMode::Pre,
            Self::Output => trace.config.layer_norm() != LayerNormMode::None,
            _ => true,
        }
    }

    /// Whether the matrix belongs to one head (and changes with the head selector).
    pub fn is_per_head(self) -> bool {
        matches!(
            self,
            Self::Q
                | Self::K
                | Self::V
                | Self::Dot
                | Self::Scaled
                | Self::Masked
                | Self::Weights
                | Self::HeadOutput
        )
    }

    /// The matrix of `head` (clamped to the trace's heads). Masked cells of [`Stage::Masked`]
    /// are −∞.
    pub fn matrix(self, trace: &Trace, head: usize) -> Array2<f32> {
        let h = &trace.heads[head.min(trace.heads.len() - 1)];
        let config = &trace.config;
        match self {
            Self::Embeddings => config
                .target()
                .parts
                .as_ref()
                .map_or_else(|| config.target().x.clone(), |(e, _)| e.clone()),
            Self::Positions => config.target().parts.as_ref().map_or_else(
                || Array2::zeros(config.target().x.dim()),
                |(_, p)| p.clone(),
            ),
            Self::X => config.target().x.clone(),
            Self::NormedX => trace.attention_input.clone(),
            Self::Q => h.q.clone(),
            Self::K => h.k.clone(),
            Self::V => h.v.clone(),
            Self::Dot => {
                let scale = config.scale();
                h.scores.mapv(|s| s / scale)
            }
            Self::Scaled => h.scores.clone(),
            Self::Masked => {
                let mut masked = h.scores.clone();
                masked.zip_mut_with(&trace.mask, |s, &allowed| {
                    if !allowed {
                        *s = f32::NEG_INFINITY;
                    }
                });
                masked
            }
            Self::Weights => h.weights.clone(),
            Self::HeadOutput => h.output.clone(),
            Self::Concat => trace.concat.clone(),
            Self::Projected => trace.projected.clone(),
            Self::Output => trace.output.clone(),
        }
    }

    pub fn row_labels(self, trace: &Trace) -> Vec<String> {
        match self {
            Self::K | Self::V => trace.config.key_sequence().tokens.clone(),
            _ => trace.config.tokens().to_vec(),
        }
    }

    pub fn col_labels(self, trace: &Trace) -> Vec<String> {
        let dims = trace.config.dims();
        let numbered = |n: usize| (0..n).map(|i| i.to_string()).collect();
        match self {
            Self::Dot | Self::Scaled | Self::Masked | Self::Weights => {
                trace.config.key_sequence().tokens.clone()
            }
            Self::Q | Self::K => numbered(dims.d_k),
            Self::V | Self::HeadOutput => numbered(dims.d_v),
            Self::Concat => (0..dims.n_heads * dims.d_v)
                .map(|c| format!("h{}·{}", c / dims.d_v, c % dims.d_v))
                .collect(),
            _ => numbered(dims.d_model),
        }
    }

    /// Sequential from 0 for weights (which are ≥ 0); diverging around 0 for everything else.
    pub fn scale(self, values: &Array2<f32>) -> Scale {
        match self {
            Self::Weights => Scale::fit(values.iter().copied()),
            _ => {
                let limit = values
                    .iter()
                    .filter(|v| v.is_finite())
                    .fold(0.0f32, |m, v| m.max(v.abs()));
                Scale::Diverging { limit }
            }
        }
    }
}

/// What a tooltip says about one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellInfo {
    /// The cell's value as shown ("−∞" for a masked score).
    pub value: String,
    /// "row token → column token" or "token · dimension".
    pub position: String,
    /// How the value was computed, one line per step, with the actual numbers.
    pub lines: Vec<String>,
}

/// How many terms of a sum a tooltip spells out before "…".
const TERMS_SHOWN: usize = 4;

fn num(v: f32) -> String {
    if v == f32::NEG_INFINITY {
        "−∞".into()
    } else if v < 0.0 {
        format!("({})", format_value(v))
    } else {
        format_value(v)
    }
}

/// "a₁×b₁ + a₂×b₂ + … (n terms)": the first terms of a dot product.
fn terms(a: ArrayView1<f32>, b: ArrayView1<f32>, lang: Lang) -> String {
    let shown: Vec<String> = a
        .iter()
        .zip(&b)
        .take(TERMS_SHOWN)
        .map(|(x, y)| format!("{}×{}", num(*x), num(*y)))
        .collect();
    let mut text = shown.join(" + ");
    if a.len() > TERMS_SHOWN {
        text.push_str(&match lang {
            Lang::En => format!(" + … ({} terms)", a.len()),
            Lang::Zh => format!(" + …（共 {} 项）", a.len()),
        });
    }
    text
}

/// Why key `j` is hidden from query `i`, in words.
fn mask_reason(spec: &MaskSpec, i: usize, j: usize, lang: Lang) -> String {
    match (spec, lang) {
        (MaskSpec::Causal, Lang::En) => format!("causal mask: key {j} comes after query {i}"),
        (MaskSpec::Causal, Lang::Zh) => format!("因果掩码：键 {j} 位于查询 {i} 之后"),
        (MaskSpec::Padding { valid_len }, Lang::En) => {
            format!("padding mask: key {j} is at or after valid length {valid_len}")
        }
        (MaskSpec::Padding { valid_len }, Lang::Zh) => {
            format!("填充掩码：键 {j} 不在有效长度 {valid_len} 之内")
        }
        (MaskSpec::Window { radius }, Lang::En) => {
            format!("window mask: |{i} − {j}| is more than the radius {radius}")
        }
        (MaskSpec::Window { radius }, Lang::Zh) => {
            format!("滑动窗口掩码：|{i} − {j}| 超过半径 {radius}")
        }
        (_, Lang::En) => "custom mask: this cell is switched off".into(),
        (_, Lang::Zh) => "自定义掩码：这个格子被关闭了".into(),
    }
}

/// The tooltip for cell (`row`, `col`) of `stage` for `head`.
pub fn explain(
    trace: &Trace,
    stage: Stage,
    head: usize,
    row: usize,
    col: usize,
    lang: Lang,
) -> CellInfo {
    let head = head.min(trace.heads.len() - 1);
    let h = &trace.heads[head];
    let config = &trace.config;
    let dims = config.dims();
    let value = stage.matrix(trace, head)[[row, col]];
    let rows = stage.row_labels(trace);
    let cols = stage.col_labels(trace);
    let (row_label, col_label) = (&rows[row], &cols[col]);
    let zh = lang == Lang::Zh;
    let keyed = matches!(
        stage,
        Stage::Dot | Stage::Scaled | Stage::Masked | Stage::Weights
    );
    let position = if keyed {
        if zh {
            format!("查询 {row}「{row_label}」→ 键 {col}「{col_label}」")
        } else {
            format!("query {row} “{row_label}” → key {col} “{col_label}”")
        }
    } else if zh {
        format!("词元 {row}「{row_label}」· 第 {col_label} 维")
    } else {
        format!("token {row} “{row_label}” · dimension {col_label}")
    };
    let head_col = |width: usize| head * width + col;
    let group_col = |width: usize| h.kv_group * width + col;
    let scale_text = format!(
        "√{} · {} = {}",
        dims.d_k,
        format_value(config.temperature()),
        format_value(1.0 / config.scale())
    );
    let allowed = keyed && trace.mask[[row, col]];
    let lines = match stage {
        Stage::Embeddings => vec![if zh {
            "词向量：由词元文本决定的固定随机向量，同一个词处处相同。".into()
        } else {
            "Embedding: a fixed random vector chosen by the token's text; the same word always gets the same one.".into()
        }],
        Stage::Positions => {
            let pair = col / 2 * 2;
            let f = if col.is_multiple_of(2) { "sin" } else { "cos" };
            vec![format!(
                "P[{row}, {col}] = {f}({row} / 10000^({pair}/{})) = {}",
                dims.d_model,
                format_value(value)
            )]
        }
        Stage::X => match &config.target().parts {
            Some((e, p)) => vec![format!(
                "x = E + P = {} + {} = {}",
                num(e[[row, col]]),
                num(p[[row, col]]),
                format_value(value)
            )],
            None => vec![if zh {
                "由调用者直接给出的输入。".into()
            } else {
                "Given directly by the caller.".into()
            }],
        },
        Stage::NormedX => {
            let x = config.target().x.row(row);
            let n = x.len() as f32;
            let mean = x.sum() / n;
            let variance = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
            vec![format!(
                "LN(x) = (x − μ) / √(σ² + ε) = ({} − {}) / √({} + 10⁻⁶) = {}",
                num(x[col]),
                num(mean),
                format_value(variance),
                format_value(value)
            )]
        }
        Stage::Q => {
            let w = config.weights().w_q.column(head_col(dims.d_k));
            vec![
                format!(
                    "q = x · W_Q[:, {}] = {}",
                    head_col(dims.d_k),
                    terms(trace.attention_input.row(row), w, lang)
                ),
                format!("= {}", format_value(value)),
            ]
        }
        Stage::K | Stage::V => {
            let (w, width, name) = if stage == Stage::K {
                (&config.weights().w_k, dims.d_k, "K")
            } else {
                (&config.weights().w_v, dims.d_v, "V")
            };
            let source = match config.source() {
                Some(source) => source.x.row(row),
                None => trace.attention_input.row(row),
            };
            vec![
                format!(
                    "{} = x · W_{name}[:, {}] = {}",
                    name.to_lowercase(),
                    group_col(width),
                    terms(source, w.column(group_col(width)), lang)
                ),
                format!("= {}", format_value(value)),
            ]
        }
        Stage::Dot => vec![
            format!(
                "q_{row} · k_{col} = {}",
                terms(h.q.row(row), h.k.row(col), lang)
            ),
            format!("= {}", format_value(value)),
        ],
        Stage::Scaled => vec![
            format!("s = q_{row} · k_{col} / (√d_k · T)"),
            format!(
                "= {} / ({scale_text}) = {}",
                num(h.scores[[row, col]] / config.scale()),
                format_value(value)
            ),
        ],
        Stage::Masked if allowed => vec![if zh {
            format!(
                "未被遮挡：{} + 0 = {}",
                num(h.scores[[row, col]]),
                format_value(value)
            )
        } else {
            format!(
                "allowed: {} + 0 = {}",
                num(h.scores[[row, col]]),
                format_value(value)
            )
        }],
        Stage::Masked => vec![
            mask_reason(config.mask().spec(), row, col, lang),
            if zh {
                format!(
                    "{} + (−∞) = −∞，它的权重将恰好为 0",
                    num(h.scores[[row, col]])
                )
            } else {
                format!(
                    "{} + (−∞) = −∞, so its weight will be exactly 0",
                    num(h.scores[[row, col]])
                )
            },
        ],
        Stage::Weights if h.fully_masked_rows.contains(&row) => vec![if zh {
            "这一行的所有键都被遮挡：整行权重为 0（不会出现 NaN）。".into()
        } else {
            "Every key of this row is masked: the whole row is 0 (never NaN).".into()
        }],
        Stage::Weights if !allowed => vec![
            mask_reason(config.mask().spec(), row, col, lang),
            if zh {
                "被遮挡的键权重恰好为 0。".into()
            } else {
                "A masked key's weight is exactly 0.".into()
            },
        ],
        Stage::Weights => {
            let scores = h.scores.row(row);
            let allowed_row = trace.mask.row(row);
            let allowed_scores = scores
                .iter()
                .zip(&allowed_row)
                .filter(|(_, a)| **a)
                .map(|(s, _)| *s);
            let max = allowed_scores.clone().fold(f32::NEG_INFINITY, f32::max);
            let sum: f32 = allowed_scores.map(|s| (s - max).exp()).sum();
            vec![
                format!("w = exp(s_{row},{col} − max_{row}) / Σ_j exp(s_{row},j − max_{row})"),
                format!(
                    "= exp({} − {}) / {} = {}",
                    num(h.scores[[row, col]]),
                    num(max),
                    format_value(sum),
                    format_value(value)
                ),
            ]
        }
        Stage::HeadOutput => vec![
            format!(
                "o = Σ_j w_{row},j · v_j[{col}] = {}",
                terms(h.weights.row(row), h.v.column(col), lang)
            ),
            format!("= {}", format_value(value)),
        ],
        Stage::Concat => {
            let (source_head, c) = (col / dims.d_v, col % dims.d_v);
            vec![if zh {
                format!(
                    "第 {source_head} 个头输出的第 {c} 列：{}",
                    format_value(value)
                )
            } else {
                format!(
                    "column {c} of head {source_head}'s output: {}",
                    format_value(value)
                )
            }]
        }
        Stage::Projected => vec![
            format!(
                "concat_{row} · W_O[:, {col}] = {}",
                terms(
                    trace.concat.row(row),
                    config.weights().w_o.column(col),
                    lang
                )
            ),
            format!("= {}", format_value(value)),
        ],
        Stage::Output => match config.layer_norm() {
            LayerNormMode::Pre => vec![format!(
                "x + MHA(LN(x)) = {} + {} = {}",
                num(config.target().x[[row, col]]),
                num(trace.projected[[row, col]]),
                format_value(value)
            )],
            _ => vec![format!(
                "LN(x + MHA(x)) = LN({} + {} …) = {}",
                num(config.target().x[[row, col]]),
                num(trace.projected[[row, col]]),
                format_value(value)
            )],
        },
    };
    CellInfo {
        value: num(value)
            .trim_matches(|c| c == '(' || c == ')')
            .to_string(),
        position,
        lines,
    }
}
