//! What a request asks for, read: the core's parameters with the defaults filled in, the merge
//! of a change into the page's request, the trained model's run and the fields it fixes, a
//! lesson and its focus, and how many tokens the input has.

use ndarray::Array2;

use super::fields::Scope;
use super::request::{FIELDS, Request};
use super::request_types::{
    KnockoutRequest, LayerNormRequest, MaskRequest, ModelChoice, RequestError, WeightsRequest,
};
use crate::math::mask::MaskSpec;
use crate::math::scoring::{Position, Shaping};
use crate::math::weights::Weights;
use crate::models::{Layout, ModelRun, Shipped};
use crate::pipeline::config::{DEFAULT_N_HEADS, Input, LayerNormMode, Params, matrix_from_rows};
use crate::pipeline::error::ConfigError;
use crate::pipeline::knockout::{HeadKnockout, Knockout};
use crate::teaching::{Chapter, Focus, MAX_SHIFT};

impl Request {
    /// The core parameters this request asks for, with the defaults filled in.
    pub fn to_params(&self) -> Result<Params, RequestError> {
        let input = sequence_input(
            ("sentence", self.sentence.as_ref()),
            ("tokens", self.tokens.as_ref()),
            ("x", self.x.as_ref()),
        )?
        .ok_or(RequestError::Input {
            field: "sentence",
            message: "give the input as one of sentence, tokens or x",
        })?;
        let source = sequence_input(
            ("source_sentence", self.source_sentence.as_ref()),
            ("source_tokens", self.source_tokens.as_ref()),
            ("source_x", self.source_x.as_ref()),
        )?;
        let block = self.block.unwrap_or_default();
        // What reads softmax scores refuses linear heads (and a replay of tiles, the gate).
        let softmax_only = [
            ("explain", self.explain.is_some(), self.linear.is_some()),
            (
                "replay_block",
                self.replay_block.is_some(),
                self.linear.is_some() || self.output_gate == Some(true),
            ),
        ];
        for (field, asked, linear) in softmax_only {
            if asked && linear {
                return Err(RequestError::Config(ConfigError::NotWithLinear {
                    field,
                    why: "it takes softmax scores and FlashAttention's tiles apart; linear attention and the output gate have neither".into(),
                }));
            }
        }
        Ok(Params {
            input,
            source,
            d_model: self.d_model,
            n_heads: self.n_heads.unwrap_or(DEFAULT_N_HEADS),
            d_k: self.d_k,
            d_v: self.d_v,
            n_kv_heads: self.n_kv_heads,
            temperature: self.temperature.unwrap_or(1.0),
            seed: self.seed.unwrap_or(0),
            mask: self
                .mask
                .as_ref()
                .map(mask_spec)
                .transpose()?
                .unwrap_or_default(),
            weights: self
                .weights
                .as_ref()
                .map(weights)
                .transpose()?
                .map(std::sync::Arc::new),
            block_rows: block.rows,
            block_cols: block.cols,
            layer_norm: match self.layer_norm.unwrap_or_default() {
                LayerNormRequest::None => LayerNormMode::None,
                LayerNormRequest::Pre => LayerNormMode::Pre,
                LayerNormRequest::Post => LayerNormMode::Post,
            },
            norm: None,
            post_norm: None,
            model_layer: None,
            trace: self.trace.unwrap_or(true),
            shaping: self.shaping(),
            linear: self.linear.map(|l| l.spec()),
            output_gate: self.output_gate.unwrap_or(false),
            linear_weights: None,
            gate_weights: None,
        })
    }
}

impl Request {
    /// The score options this request asks for (positions, soft-cap, QK-norm, sink logits),
    /// unchecked: `Params::validate` checks them against the shape.
    pub fn shaping(&self) -> Shaping {
        let (position, offset) = self
            .position
            .map_or((Position::Absolute, 0), |p| p.position());
        Shaping {
            position,
            offset,
            softcap: self.softcap.map(|c| c as f32),
            qk_norm: self.qk_norm.unwrap_or(false),
            qk_gain: None,
            sink_logits: self
                .sink_logits
                .as_ref()
                .map(|s| s.iter().map(|&v| v as f32).collect()),
        }
    }
}

type Given<'a, T> = (&'static str, Option<&'a T>);

/// One of the three ways to give a sequence; `tokens` may also label the rows of a given `x`
/// (one token per row).
fn sequence_input(
    sentence: Given<String>,
    tokens: Given<Vec<String>>,
    x: Given<Vec<Vec<f64>>>,
) -> Result<Option<Input>, RequestError> {
    if let (None, Some(tokens), Some(rows)) = (sentence.1, tokens.1, x.1) {
        return Ok(Some(Input::Vectors {
            tokens: tokens.clone(),
            x: float_matrix(x.0, rows)?,
            parts: None,
        }));
    }
    let given = [sentence.1.is_some(), tokens.1.is_some(), x.1.is_some()];
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(RequestError::Input {
            field: sentence.0,
            message: "give only one of the sentence, its tokens, or its x (tokens may label the rows of an x)",
        });
    }
    if let Some(text) = sentence.1 {
        return Ok(Some(Input::Sentence(text.clone())));
    }
    if let Some(tokens) = tokens.1 {
        return Ok(Some(Input::Tokens(tokens.clone())));
    }
    x.1.map(|rows| Ok(Input::X(float_matrix(x.0, rows)?)))
        .transpose()
}

fn float_matrix(field: &'static str, rows: &[Vec<f64>]) -> Result<Array2<f32>, RequestError> {
    Ok(matrix_from_rows(field, rows)?.mapv(|v| v as f32))
}

fn weights(request: &WeightsRequest) -> Result<Weights, RequestError> {
    Ok(Weights {
        w_q: float_matrix("weights.w_q", &request.w_q)?,
        w_k: float_matrix("weights.w_k", &request.w_k)?,
        w_v: float_matrix("weights.w_v", &request.w_v)?,
        w_o: float_matrix("weights.w_o", &request.w_o)?,
        biases: None,
    })
}

pub(crate) fn mask_spec(request: &MaskRequest) -> Result<MaskSpec, RequestError> {
    Ok(match request {
        MaskRequest::None => MaskSpec::None,
        MaskRequest::Causal => MaskSpec::Causal,
        MaskRequest::Padding { valid_len } => MaskSpec::Padding {
            valid_len: *valid_len,
        },
        MaskRequest::Window { radius } => MaskSpec::Window { radius: *radius },
        MaskRequest::Sliding {
            radius,
            sink_tokens,
        } => MaskSpec::Sliding {
            radius: *radius,
            sink_tokens: *sink_tokens,
        },
        MaskRequest::Custom { allowed } => MaskSpec::Custom {
            allowed: matrix_from_rows("mask.allowed", allowed)?,
        },
    })
}

impl Request {
    /// This request with every field `update` gives replaced, of the fields the page keeps
    /// ([`Scope::Lab`]). Giving one form of a sequence (sentence, tokens or x) drops the other
    /// forms, so the update wins.
    pub fn merged(&self, update: &Request) -> Request {
        let mut merged = self.clone();
        let given_in = |group: &str| {
            FIELDS
                .iter()
                .any(|f| f.group == Some(group) && update.is_given(f.name))
        };
        for field in FIELDS.iter().filter(|f| f.scope == Scope::Lab) {
            let take = match field.group {
                Some(group) => given_in(group),
                None => update.is_given(field.name),
            };
            if take {
                merged.take_field(update, field.name);
            }
        }
        merged
    }

    /// [`Request::merged`], then the fields in `cleared` put back to their defaults (left out).
    pub fn merged_clearing(&self, update: &Request, cleared: &[&str]) -> Request {
        let mut merged = self.merged(update);
        for name in cleared {
            let _ = merged.set_field_json(name, serde_json::Value::Null);
        }
        merged
    }
}

/// The fields the page keeps ([`Scope::Lab`]) that an update (JSON, as `set()` takes it) gives
/// as null: `set({linear: null})` puts linear attention back to the softmax, as leaving the
/// field out of a fresh request would. Anything but an object names none.
pub fn nulled_fields(json: &str) -> Vec<&'static str> {
    let Ok(serde_json::Value::Object(object)) = serde_json::from_str::<serde_json::Value>(json)
    else {
        return Vec::new();
    };
    FIELDS
        .iter()
        .filter(|f| f.scope == Scope::Lab && object.get(f.name).is_some_and(|v| v.is_null()))
        .map(|f| f.name)
        .collect()
}

impl Request {
    /// Whether this request asks for a trained model (either shipped one, or a folder's).
    pub fn is_trained(&self) -> bool {
        self.model
            .as_ref()
            .is_some_and(|m| *m != ModelChoice::Random)
    }

    /// The layout of the shipped model this request asks for, if any.
    pub fn trained_layout(&self) -> Option<Layout> {
        self.model.as_ref().and_then(ModelChoice::layout)
    }

    /// The shipped model this request asks for, if any.
    pub fn shipped_model(&self) -> Option<Shipped> {
        self.model.as_ref().and_then(ModelChoice::shipped)
    }

    /// The trained model's run: the text, and the controls that act on it (mask, temperature,
    /// tiles). Settings the model fixes are refused, naming the first one given.
    pub fn trained_run(&self) -> Result<(String, ModelRun), RequestError> {
        if let Some(field) = self.fixed_by_model() {
            return Err(RequestError::FixedByModel { field });
        }
        let sentence = self.sentence.clone().ok_or(RequestError::Input {
            field: "sentence",
            message: "the trained model reads a sentence",
        })?;
        let block = self.block.unwrap_or_default();
        let mask = self.mask.as_ref().map(mask_spec).transpose()?;
        Ok((
            sentence,
            ModelRun {
                mask: mask.unwrap_or(MaskSpec::Causal),
                temperature: self.temperature.unwrap_or(1.0),
                block: (block.rows, block.cols),
                shaping: self.shaping(),
                ablate: self.knockouts()?,
            },
        ))
    }

    /// The heads `ablate` switches off, from 0 (their ranges are the model's to check); an
    /// empty list is refused (it switches nothing off: leave the field out).
    pub fn knockouts(&self) -> Result<Vec<HeadKnockout>, RequestError> {
        let Some(asked) = &self.ablate else {
            return Ok(Vec::new());
        };
        if asked.is_empty() {
            return Err(RequestError::Input {
                field: "ablate",
                message: "an empty list switches no head off; name a head or leave the field out",
            });
        }
        asked
            .iter()
            .map(|a| {
                if a.layer == 0 || a.head == 0 {
                    return Err(RequestError::Input {
                        field: "ablate",
                        message: "layers and heads are counted from 1",
                    });
                }
                Ok(HeadKnockout {
                    layer: a.layer - 1,
                    head: a.head - 1,
                    how: match a.how {
                        KnockoutRequest::Zero => Knockout::Zero,
                        KnockoutRequest::Mean => Knockout::Mean,
                    },
                })
            })
            .collect()
    }

    /// Switches off, in `trace` (random weights: one layer), the heads `ablate` names: the CLI's
    /// and the page's one way, after the trace is computed.
    pub fn knock_out(&self, trace: &mut crate::Trace) -> Result<(), RequestError> {
        let knockouts = self.knockouts()?;
        if knockouts.is_empty() {
            return Ok(());
        }
        crate::pipeline::knockout::check_knockouts(&knockouts, 1, trace.heads.len())?;
        let heads: Vec<_> = knockouts.iter().map(|k| (k.head, k.how)).collect();
        trace.knock_out(&heads);
        Ok(())
    }

    /// The lesson asked for, if any, with its focus (from 0) and the trained model's layer (from
    /// 0).
    pub fn lesson(&self) -> Result<Option<(Chapter, Focus, usize)>, RequestError> {
        let Some(id) = &self.lesson else {
            if self.focus.is_some() {
                return Err(RequestError::Input {
                    field: "focus",
                    message: "a focus needs a lesson",
                });
            }
            return Ok(None);
        };
        let chapter = Chapter::from_id(id).ok_or(RequestError::Input {
            field: "lesson",
            message: "unknown chapter; one of tokens, qkv, scaling, softmax, masks, positions, \
                      windows, multihead, gqa, cross, layernorm, stability, taming, complexity, \
                      flash, kv-cache, streaming, circuits, variants, delta-rule, hybrids, \
                      exercises",
        })?;
        let focus = self.focus.unwrap_or_default();
        let counted = |value: Option<usize>, field: &'static str| match value {
            None => Ok(0),
            Some(0) => Err(RequestError::Input {
                field,
                message: "counts from 1, as the page does",
            }),
            Some(n) => Ok(n - 1),
        };
        let factor = focus.factor.unwrap_or(1.0);
        if !(factor.is_finite() && factor > 0.0) {
            return Err(RequestError::Input {
                field: "focus.factor",
                message: "must be a number above 0",
            });
        }
        let shift = focus.shift.unwrap_or(0.0);
        if !(shift.is_finite() && shift.abs() <= MAX_SHIFT) {
            return Err(RequestError::Input {
                field: "focus.shift",
                message: "must be a number from -100 to 100",
            });
        }
        Ok(Some((
            chapter,
            Focus {
                head: counted(focus.head, "focus.head")?,
                // Tokens count from 0, as the page's chips and the trace's arrays do; by default
                // the last one (it sees the most keys under a causal mask).
                query: focus.query.unwrap_or(usize::MAX),
                factor,
                shift,
            },
            counted(focus.layer, "focus.layer")?,
        )))
    }

    /// The first setting given here that the trained model fixes (its shape, its weights, its
    /// LayerNorm, a second sentence), if any: for the model this request asks for (GPT-2's
    /// rules when it names none).
    pub fn fixed_by_model(&self) -> Option<&'static str> {
        self.fixed_by(self.shipped_model().unwrap_or(Shipped::Gpt2))
    }

    /// The first setting given here that the shipped model `model` fixes, if any.
    pub fn fixed_by(&self, model: Shipped) -> Option<&'static str> {
        FIELDS
            .iter()
            .filter(|f| self.is_given(f.name))
            .find(|f| f.fixed_by(&self.field_json(f.name), model))
            .map(|f| f.name)
    }

    /// The number of query and key tokens this request describes, where they can be told
    /// without computing (`None` for a sequence that would not validate).
    pub fn lengths(&self) -> (Option<usize>, Option<usize>) {
        if self.is_trained() {
            // The trained model reads one character per token, and one sentence.
            let n = self
                .sentence
                .as_deref()
                .map(|s| crate::models::normalise(s).chars().count())
                .filter(|&n| n > 0);
            return (n, n);
        }
        let length =
            |sentence: &Option<String>, tokens: &Option<Vec<String>>, x: &Option<Vec<Vec<f64>>>| {
                match (sentence, tokens, x) {
                    (Some(text), _, _) => token_count(text),
                    (None, Some(tokens), _) => Some(tokens.len()),
                    (None, None, Some(x)) => Some(x.len()),
                    (None, None, None) => None,
                }
            };
        let queries = length(&self.sentence, &self.tokens, &self.x);
        let has_source = self.source_sentence.is_some()
            || self.source_tokens.is_some()
            || self.source_x.is_some();
        let keys = if has_source {
            length(&self.source_sentence, &self.source_tokens, &self.source_x)
        } else {
            queries
        };
        (queries, keys)
    }
}

/// How many tokens `text` has (`None` for none, or more than the lab takes). The page asks this
/// of the same sentence from several places after each keystroke (which engine, which job,
/// which note), and tokenising 4096 words costs milliseconds: the last answer is kept.
fn token_count(text: &str) -> Option<usize> {
    use crate::pipeline::config::MAX_TOKENS;
    use crate::pipeline::tokenize::{Tokens, tokenize};
    use std::cell::RefCell;
    thread_local! {
        static LAST: RefCell<Option<(String, Option<usize>)>> = const { RefCell::new(None) };
    }
    if let Some(count) = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|(sentence, _)| sentence == text)
            .map(|&(_, count)| count)
    }) {
        return count;
    }
    let count = match tokenize(text, MAX_TOKENS) {
        Tokens::Fit(tokens) if !tokens.is_empty() => Some(tokens.len()),
        _ => None,
    };
    LAST.with_borrow_mut(|last| *last = Some((text.to_owned(), count)));
    count
}
