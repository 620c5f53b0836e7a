//! How one cell of a matrix was computed, with the actual numbers: what the tooltip and the
//! live region say. Pure: a function of a trace, tested without a browser.

use ndarray::ArrayView1;

use super::format::{format_value, operand as num};
use super::stages::{Stage, score_weight, weights_row};
use crate::ui::i18n::Lang;
use attention_core::pipeline::overview::Reduction;
use attention_core::{LayerNormMode, MaskSpec, Trace};

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
        text.push_str(&(lang.text().explain.more_terms)(a.len()));
    }
    text
}

/// " + b (0.123)" for a projection's bias, if it has one.
fn bias_term(bias: Option<f32>) -> String {
    bias.map_or(String::new(), |b| format!(" + b ({})", format_value(b)))
}

/// Why key `j` is hidden from query `i`, in words.
pub fn mask_reason(spec: &MaskSpec, i: usize, j: usize, lang: Lang) -> String {
    let masks = &lang.text().masks;
    match spec {
        MaskSpec::Causal => (masks.why_causal)(i, j),
        MaskSpec::Padding { valid_len } => (masks.why_padding)(j, *valid_len),
        MaskSpec::Window { radius } => (masks.why_window)(i, j, *radius),
        MaskSpec::Sliding {
            radius,
            sink_tokens,
        } => (masks.why_sliding)(i, j, *radius, *sink_tokens),
        MaskSpec::None | MaskSpec::Custom { .. } => masks.why_custom.into(),
    }
}

/// The tooltip for block (`row`, `col`) of a keyed stage's overview for `head`: the queries and
/// keys it spans, its largest value and mean, and how to zoom in.
pub fn explain_block(
    trace: &Trace,
    stage: Stage,
    head: usize,
    row: usize,
    col: usize,
    lang: Lang,
) -> CellInfo {
    let head = head.min(trace.heads.len() - 1);
    let max = stage.matrix_reduced(trace, head, Reduction::Max)[[row, col]];
    let mean = stage.matrix_reduced(trace, head, Reduction::Mean)[[row, col]];
    let overview = &trace.overviews[head];
    let (n, m) = (trace.config.seq_len(), trace.config.key_len());
    let (r0, c0) = (row * overview.row_step, col * overview.col_step);
    let (r1, c1) = (
        (r0 + overview.row_step).min(n),
        (c0 + overview.col_step).min(m),
    );
    let words = &lang.text().overview;
    // A block with every cell masked is −∞ (format_value says so).
    let (max, mean) = (format_value(max), format_value(mean));
    CellInfo {
        position: (words.block_position)(r0, r1 - 1, c0, c1 - 1),
        lines: vec![
            (words.block_values)(&max, &mean, (r1 - r0) * (c1 - c0)),
            words.block_zoom.to_string(),
        ],
        value: max,
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
    let value = stage.value(trace, head, row, col);
    // The scaled score of this cell, for the keyed stages (read, or recomputed under an overview).
    let score = || score_weight(trace, head, row, col).0;
    let rows = stage.row_labels(trace);
    let cols = stage.col_labels(trace);
    let (row_label, col_label) = (&rows[row], &cols[col]);
    let words = &lang.text().explain;
    let keyed = stage.is_keyed();
    let position = if keyed {
        (words.query_key)(row, row_label, col, col_label)
    } else {
        (words.token_dimension)(row, row_label, col_label)
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
        Stage::Embeddings if config.model_layer().is_some() => {
            vec![lang.text().model.learned_embedding.into()]
        }
        Stage::Embeddings => vec![words.embedding.into()],
        Stage::Positions if config.model_layer().is_some() && config.norm().rms => {
            vec![lang.text().model.llama_positions.into()]
        }
        Stage::Positions if config.model_layer().is_some() => {
            vec![lang.text().model.learned_position.into()]
        }
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
            None if config.model_layer().is_some() => {
                vec![lang.text().model.residual_stream.into()]
            }
            None => vec![words.given_x.into()],
        },
        Stage::NormedX if config.norm().rms => {
            let x = config.target().x.row(row);
            let mean_square = x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32;
            let norm = config.norm();
            let gamma = norm.affine.as_ref().map_or(1.0, |(g, _)| g[col]);
            vec![format!(
                "RMSNorm(x) = γ · x / √(mean(x²) + ε) = {} · {} / √({} + {}) = {}",
                num(gamma),
                num(x[col]),
                format_value(mean_square),
                format_value(norm.epsilon),
                format_value(value)
            )]
        }
        Stage::NormedX => {
            let x = config.target().x.row(row);
            let n = x.len() as f32;
            let mean = x.sum() / n;
            let variance = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
            let norm = config.norm();
            let normed = format!(
                "({} − {}) / √({} + {})",
                num(x[col]),
                num(mean),
                format_value(variance),
                format_value(norm.epsilon)
            );
            vec![match &norm.affine {
                // A trained model's LayerNorm scales and shifts by its learned γ and β.
                Some((gamma, beta)) => format!(
                    "LN(x) = γ · {normed} + β = {} · {normed} + {} = {}",
                    num(gamma[col]),
                    num(beta[col]),
                    format_value(value)
                ),
                None => format!(
                    "LN(x) = (x − μ) / √(σ² + ε) = {normed} = {}",
                    format_value(value)
                ),
            }]
        }
        Stage::Q => 'q: {
            let w = config.weights().w_q.column(head_col(dims.d_k));
            if let Some(lines) = convolved(trace, row, w, value, lang) {
                break 'q lines;
            }
            vec![
                format!(
                    "q = x · W_Q[:, {}]{} = {}",
                    head_col(dims.d_k),
                    bias_term(
                        config
                            .weights()
                            .biases
                            .as_ref()
                            .map(|b| b.q[head_col(dims.d_k)])
                    ),
                    terms(trace.attention_input.row(row), w, lang)
                ),
                format!("= {}", format_value(value)),
            ]
        }
        Stage::K | Stage::V => 'kv: {
            let (w, width, name) = if stage == Stage::K {
                (&config.weights().w_k, dims.d_k, "K")
            } else {
                (&config.weights().w_v, dims.d_v, "V")
            };
            let source = match config.source() {
                Some(source) => source.x.row(row),
                None => trace.attention_input.row(row),
            };
            if let Some(lines) = convolved(trace, row, w.column(group_col(width)), value, lang) {
                break 'kv lines;
            }
            let bias = config.weights().biases.as_ref().map(|b| {
                if stage == Stage::K {
                    b.k[group_col(width)]
                } else {
                    b.v[group_col(width)]
                }
            });
            vec![
                format!(
                    "{} = x · W_{name}[:, {}]{} = {}",
                    name.to_lowercase(),
                    group_col(width),
                    bias_term(bias),
                    terms(source, w.column(group_col(width)), lang)
                ),
                format!("= {}", format_value(value)),
            ]
        }
        // q and k as the scores read them (after QK-norm and RoPE, when those apply).
        Stage::Dot => vec![
            format!(
                "q_{row} · k_{col} = {}",
                terms(h.scored_q().row(row), h.scored_k().row(col), lang)
            ),
            format!("= {}", format_value(value)),
        ],
        Stage::Scaled if config.scoring(head).shapes() => {
            // The order of the scoring module: ÷ √d_k, + ALiBi's bias, soft-cap, ÷ T.
            let scoring = config.scoring(head);
            let dot = h.scored_q().row(row).dot(&h.scored_k().row(col));
            let sqrt_d_k = (dims.d_k as f32).sqrt();
            let mut z = dot / sqrt_d_k + scoring.bias(row, col);
            let mut lines = vec![format!(
                "z = q_{row} · k_{col} / √{} {} = {}",
                dims.d_k,
                if scoring.bias(row, col) != 0.0 {
                    format!("+ ({})", format_value(scoring.bias(row, col)))
                } else {
                    String::new()
                },
                format_value(z)
            )];
            if let Some(c) = config.shaping().softcap {
                z = c * (z / c).tanh();
                lines.push(format!(
                    "{} · tanh(z / {}) = {}",
                    format_value(c),
                    format_value(c),
                    format_value(z)
                ));
            }
            lines.push(format!(
                "s = z / T = z / {} = {}",
                format_value(config.temperature()),
                format_value(value)
            ));
            lines
        }
        Stage::Scaled => vec![
            format!("s = q_{row} · k_{col} / (√d_k · T)"),
            format!(
                "= {} / ({scale_text}) = {}",
                num(score() / config.scale()),
                format_value(value)
            ),
        ],
        Stage::Masked if allowed => vec![(words.allowed)(&num(score()), &format_value(value))],
        Stage::Masked => vec![
            mask_reason(config.mask().spec(), row, col, lang),
            (words.masked_score)(&num(score())),
        ],
        Stage::Weights if config.linear().is_some() => {
            vec![(lang.text().linear.weight_cell)(
                row,
                col,
                &format_value(value),
            )]
        }
        Stage::Weights if h.fully_masked_rows.contains(&row) => {
            vec![words.row_fully_masked.into()]
        }
        Stage::Weights if !allowed => vec![
            mask_reason(config.mask().spec(), row, col, lang),
            words.masked_weight.into(),
        ],
        Stage::Weights => {
            let (max, sum) = match trace.overviews.get(head) {
                // The row's softmax numbers, kept with the overview.
                Some(o) => (o.row_max[row], 1.0 / o.row_inverse[row]),
                None => {
                    let allowed_scores = h
                        .scores
                        .row(row)
                        .iter()
                        .zip(&trace.mask.row(row))
                        .filter(|(_, a)| **a)
                        .map(|(s, _)| *s)
                        .collect::<Vec<_>>();
                    // A sink logit is one more column of the row's softmax.
                    let sink = config.scoring(head).sink;
                    let max = allowed_scores
                        .iter()
                        .copied()
                        .chain(sink)
                        .fold(f32::NEG_INFINITY, f32::max);
                    (
                        max,
                        allowed_scores
                            .iter()
                            .chain(sink.as_ref())
                            .map(|s| (s - max).exp())
                            .sum(),
                    )
                }
            };
            let sum_over = if config.scoring(head).sink.is_some() {
                format!("(Σ_j exp(s_{row},j − max_{row}) + exp(sink − max_{row}))")
            } else {
                format!("Σ_j exp(s_{row},j − max_{row})")
            };
            vec![
                format!("w = exp(s_{row},{col} − max_{row}) / {sum_over}"),
                format!(
                    "= exp({} − {}) / {} = {}",
                    num(score()),
                    num(max),
                    format_value(sum),
                    format_value(value)
                ),
            ]
        }
        Stage::HeadOutput => {
            // A linear layer's weights are its hidden matrix A; a gated head's output is the
            // sum times its gate.
            let w = if config.linear().is_some() { "A" } else { "w" };
            let row_weights = weights_row(trace, head, row);
            let mut lines = vec![format!(
                "o = Σ_j {w}_{row},j · v_j[{col}] = {}",
                terms(row_weights.view(), h.v.column(col), lang)
            )];
            match trace.gates.get(head).and_then(|g| g.get((row, col))) {
                Some(&gate) => {
                    let sum = row_weights.dot(&h.v.column(col));
                    lines.push(format!("= {}", format_value(sum)));
                    lines.push((words.output_gate)(
                        &format_value(gate),
                        &format_value(value),
                    ));
                }
                None => lines.push(format!("= {}", format_value(value))),
            }
            lines
        }
        Stage::Concat => {
            let (source_head, c) = (col / dims.d_v, col % dims.d_v);
            vec![(words.concat_column)(c, source_head, &format_value(value))]
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
            // Gemma's sandwich: the projected output is normed before it joins x.
            LayerNormMode::Pre if config.post_norm().is_some() => vec![format!(
                "x + Norm(MHA(LN(x))) = {} + {} = {}",
                num(config.target().x[[row, col]]),
                num(value - config.target().x[[row, col]]),
                format_value(value)
            )],
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

/// A hybrid's linear layer: q, k or v is the projection x · W passed through the model's short
/// convolution and SiLU. The projection's terms, its value, then the value shown.
fn convolved(
    trace: &Trace,
    row: usize,
    w: ArrayView1<f32>,
    value: f32,
    lang: Lang,
) -> Option<Vec<String>> {
    let taps = trace
        .config
        .linear()
        .and_then(|(_, weights)| weights.conv.as_ref())?
        .ncols();
    let x = trace.attention_input.row(row);
    Some(vec![
        format!("x · W = {}", terms(x, w, lang)),
        format!("= {}", format_value(x.dot(&w))),
        (lang.text().explain.convolved)(taps.saturating_sub(1), &format_value(value)),
    ])
}
