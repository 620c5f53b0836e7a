//! A lesson's experiment as JSON: `{"lesson": "scaling", "experiment": {...}}`, with the cost
//! measurement when the caller timed one (the CLI does; the page draws its own). Heads count from
//! 1, as the page's head selector; tokens from 0, as its token chips and the trace's arrays.

use serde_json::{Value, json};

use crate::teaching::{BreakPoint, Breakdown};
use crate::teaching::{
    Chapter, ComplexityExperiment, CostMeasurement, CostPoint, CrossExperiment, CrossMatch,
    DeltaRuleExperiment, Experiment, FlashExperiment, GqaExperiment, HeadVariance, KeyMatch,
    KvCacheExperiment, KvRow, LayernormExperiment, MasksExperiment, MultiheadExperiment,
    PositionsExperiment, QkvExperiment, RepeatedToken, RowSaturation, ScalingExperiment,
    ScalingPoint, SoftmaxExperiment, SparseRow, StabilityExperiment, StepCost, StreamingExperiment,
    SweepSample, TamingExperiment, TokenNorms, TokenStats, TokensExperiment, VariantsExperiment,
    WindowsExperiment,
};

pub fn lesson_json(
    chapter: Chapter,
    experiment: &Experiment,
    cost: Option<&CostMeasurement>,
) -> Result<String, serde_json::Error> {
    let mut body = match experiment {
        Experiment::Tokens(v) => tokens_experiment(v),
        Experiment::Qkv(v) => qkv_experiment(v),
        Experiment::Scaling(v) => scaling_experiment(v),
        Experiment::Softmax(v) => softmax_experiment(v),
        Experiment::Masks(v) => masks_experiment(v),
        Experiment::Positions(v) => positions_experiment(v),
        Experiment::Windows(v) => windows_experiment(v),
        Experiment::Taming(v) => taming_experiment(v),
        Experiment::Multihead(v) => multihead_experiment(v),
        Experiment::Gqa(v) => gqa_experiment(v),
        Experiment::Cross(v) => cross_experiment(v),
        Experiment::Layernorm(v) => layernorm_experiment(v),
        Experiment::Stability(v) => stability_experiment(v),
        Experiment::Complexity(v) => complexity_experiment(v),
        Experiment::Flash(v) => flash_experiment(v),
        Experiment::KvCache(v) => kv_cache_experiment(v),
        Experiment::Streaming(v) => streaming_experiment(v),
        Experiment::Circuits(v) => circuits_experiment(v.as_ref()),
        Experiment::Variants(v) => variants_experiment(v),
        Experiment::DeltaRule(d) => delta_rule_experiment(d),
        Experiment::Hybrids(h) => hybrids_experiment(h),
        Experiment::Exercises => json!({}),
    };
    if let Value::Object(map) = &mut body {
        map.insert("chapter".into(), json!(chapter.id()));
    }
    let mut out = json!({"lesson": chapter.id(), "experiment": body});
    if let (Some(cost), Value::Object(map)) = (cost, &mut out) {
        map.insert("measured".into(), cost_measurement(cost));
    }
    serde_json::to_string(&out)
}

fn token_norms(v: &TokenNorms) -> Value {
    json!({
        "token": v.token,
        "embedding": v.embedding,
        "position": v.position,
        "x": v.x,
    })
}

fn repeated_token(v: &RepeatedToken) -> Value {
    json!({
        "token": v.token,
        "first": v.first,
        "second": v.second,
        "embedding_distance": v.embedding_distance,
        "x_distance": v.x_distance,
    })
}

fn tokens_experiment(v: &TokensExperiment) -> Value {
    json!({
        "d_model": v.d_model,
        "norms": v.norms.iter().map(token_norms).collect::<Vec<_>>(),
        "repeated": v.repeated.as_ref().map(repeated_token),
    })
}

fn key_match(v: &KeyMatch) -> Value {
    json!({
        "key": v.key,
        "token": v.token,
        "dot": v.dot,
        "allowed": v.allowed,
    })
}

fn qkv_experiment(v: &QkvExperiment) -> Value {
    json!({
        "head": v.head + 1,
        "query": v.query,
        "query_token": v.query_token,
        "d_k": v.d_k,
        "d_v": v.d_v,
        "query_norm": v.query_norm,
        "matches": v.matches.iter().map(key_match).collect::<Vec<_>>(),
    })
}

fn scaling_point(v: &ScalingPoint) -> Value {
    json!({
        "d_k": v.d_k,
        "raw_variance": v.raw_variance,
        "scaled_variance": v.scaled_variance,
        "raw_largest": v.raw_largest,
        "raw_gradient": v.raw_gradient,
        "scaled_largest": v.scaled_largest,
        "scaled_gradient": v.scaled_gradient,
    })
}

fn head_variance(v: &HeadVariance) -> Value {
    json!({
        "head": v.head + 1,
        "q_component_variance": v.q_component,
        "k_component_variance": v.k_component,
        "raw_variance": v.raw_variance,
        "scaled_variance": v.scaled_variance,
        "standardised_variance": v.standard_variance,
        "standardised_scaled_variance": v.standard_scaled_variance,
    })
}

fn row_saturation(v: &RowSaturation) -> Value {
    json!({
        "largest": v.largest,
        "entropy": v.entropy,
        "gradient": v.gradient,
    })
}

fn scaling_experiment(v: &ScalingExperiment) -> Value {
    json!({
        "d_k": v.d_k,
        "random": v.random.iter().map(scaling_point).collect::<Vec<_>>(),
        "heads": v.heads.iter().map(head_variance).collect::<Vec<_>>(),
        "range": v.range,
        "raw_histogram": v.raw_histogram,
        "scaled_histogram": v.scaled_histogram,
        "row_raw": row_saturation(&v.row_raw),
        "row_scaled": row_saturation(&v.row_scaled),
    })
}

fn sweep_sample(v: &SweepSample) -> Value {
    json!({
        "temperature": v.temperature,
        "largest": v.largest,
        "entropy": v.entropy,
    })
}

fn softmax_experiment(v: &SoftmaxExperiment) -> Value {
    json!({
        "head": v.head + 1,
        "query": v.query,
        "temperature": v.temperature,
        "current": sweep_sample(&v.current),
        "sweep": v.sweep.iter().map(sweep_sample).collect::<Vec<_>>(),
        "allowed": v.allowed,
        "uniform_entropy": v.uniform_entropy,
        "argmax_key": v.argmax_key,
        "argmax_token": v.argmax_token,
    })
}

fn masks_experiment(v: &MasksExperiment) -> Value {
    json!({
        "mask": v.mask,
        "query": v.query,
        "allowed_per_row": v.allowed_per_row,
        "fully_masked_rows": v.fully_masked_rows,
        "with_infinity": v.with_infinity,
        "with_large_negative": v.with_large_negative,
        "all_masked_infinity": v.all_masked_infinity,
        "all_masked_large_negative": v.all_masked_large_negative,
    })
}

fn positions_experiment(v: &PositionsExperiment) -> Value {
    json!({
        "head": v.head + 1,
        "query": v.query,
        "shift": v.shift,
        "kinds": v.kinds.iter().map(|k| json!({
            "kind": k.kind,
            "shift_change": k.shift_change,
            "top_key": k.top_key,
            "top_weight": k.top_weight,
        })).collect::<Vec<_>>(),
        "d_k": v.d_k,
        "pairing_change": v.pairing_change,
        "permuted_change": v.permuted_change,
        "permutation": v.permutation,
        "why_not": v.why_not,
    })
}

fn windows_experiment(v: &WindowsExperiment) -> Value {
    json!({
        "head": v.head + 1,
        "query": v.query,
        "radius": v.radius,
        "sink_tokens": v.sink_tokens,
        "causal_cells": v.causal_cells,
        "window_cells": v.window_cells,
        "sink_cells": v.sink_cells,
        "hidden_per_query": v.hidden_per_query,
        "causal": v.causal,
        "window": v.window,
        "with_sinks": v.with_sinks,
        "hidden_mass": v.hidden_mass,
        "sink_mass": v.sink_mass,
        "cross": v.cross,
    })
}

fn taming_experiment(v: &TamingExperiment) -> Value {
    json!({
        "head": v.head + 1,
        "query": v.query,
        "d_k": v.d_k,
        "bound": v.bound,
        "caps": v.caps.iter().map(|c| json!({
            "cap": c.cap,
            "largest": c.largest,
            "top_weight": c.top_weight,
            "entropy": c.entropy,
        })).collect::<Vec<_>>(),
        "qk_norm": v.qk_norm.iter().map(|r| json!({
            "head": r.head + 1,
            "raw": r.raw,
            "normed": r.normed,
            "raw_grown": r.raw_grown,
            "normed_grown": r.normed_grown,
        })).collect::<Vec<_>>(),
        "growth": crate::teaching::GROWTH,
        "row_max": v.row_max,
        "sinks": v.sinks.iter().map(|s| json!({
            "logit": s.logit,
            "kept": s.kept,
            "top_weight": s.top_weight,
        })).collect::<Vec<_>>(),
    })
}

fn multihead_experiment(v: &MultiheadExperiment) -> Value {
    json!({
        "n_heads": v.n_heads,
        "d_model": v.d_model,
        "distances": v.distances,
        "mean_distance": v.mean_distance,
        "split_parameters": v.split_parameters,
        "single_parameters": v.single_parameters,
        "current_parameters": v.current_parameters,
    })
}

fn kv_row(v: &KvRow) -> Value {
    json!({
        "kv_heads": v.kv_heads,
        "kv_parameters": v.kv_parameters,
        "parameters": v.parameters,
        "cache_bytes_per_token": v.cache_bytes_per_token,
        "current": v.current,
    })
}

fn gqa_experiment(v: &GqaExperiment) -> Value {
    json!({
        "n_heads": v.n_heads,
        "d_k": v.d_k,
        "d_v": v.d_v,
        "rows": v.rows.iter().map(kv_row).collect::<Vec<_>>(),
    })
}

fn step_cost(v: &StepCost) -> Value {
    json!({"n": v.n, "with_cache": v.with_cache, "without_cache": v.without_cache})
}

fn kv_cache_experiment(v: &KvCacheExperiment) -> Value {
    json!({
        "n": v.n,
        "head": v.head + 1,
        "query": v.query,
        "causal": v.causal,
        "future_weight": v.future_weight,
        "last_row_delta": v.last_row_delta,
        "n_heads": v.n_heads,
        "kv_heads": v.kv_heads,
        "d_k": v.d_k,
        "d_v": v.d_v,
        "bytes_per_token": v.bytes_per_token,
        "costs": v.costs.iter().map(step_cost).collect::<Vec<_>>(),
    })
}

fn streaming_experiment(v: &StreamingExperiment) -> Value {
    json!({
        "n": v.n,
        "first_share": v.first_share,
        "even_share": v.even_share,
        "window": v.window,
        "sink_tokens": v.sink_tokens,
        "kept": v.kept.iter().map(|&(n, full, rolling)| json!({"n": n, "full": full, "rolling": rolling})).collect::<Vec<_>>(),
    })
}

fn circuits_experiment(v: Option<&crate::teaching::CircuitsExperiment>) -> Value {
    let Some(v) = v else {
        return json!({"needs": "a trained model: add \"model\": \"trained\" or \"llama\""});
    };
    let head = |(l, h): (usize, usize)| format!("L{}.H{}", l + 1, h + 1);
    json!({
        "query": v.query,
        "earlier": v.earlier,
        "target": v.target,
        "previous_head": head(v.previous_head),
        "previous_share": v.previous_share,
        "induction_head": head(v.induction_head),
        "induction_weight": v.induction_weight,
        "score": v.score,
        "key_writers": v.key_writers.iter().map(|(n, x)| json!({"component": n, "part": x})).collect::<Vec<_>>(),
        "composition": v.composition,
        "strongest": {"head": v.strongest.0, "k": v.strongest.1},
        "baseline": v.baseline,
        "knocked_weight": v.knocked_weight,
        "predicted": {"token": v.predicted.0, "p": v.predicted.1},
        "predicted_knocked": {"token": v.predicted_knocked.0, "p": v.predicted_knocked.1},
        "copy_p": [v.copy_p.0, v.copy_p.1],
    })
}

fn cross_match(v: &CrossMatch) -> Value {
    json!({
        "query_token": v.query_token,
        "source_token": v.source_token,
        "weight": v.weight,
    })
}

fn cross_experiment(v: &CrossExperiment) -> Value {
    json!({
        "is_cross": v.is_cross,
        "queries": v.queries,
        "keys": v.keys,
        "head": v.head + 1,
        "best": v.best.iter().map(cross_match).collect::<Vec<_>>(),
    })
}

fn token_stats(v: &TokenStats) -> Value {
    json!({
        "token": v.token,
        "mean": v.mean,
        "std": v.std,
        "normed_mean": v.normed_mean,
        "normed_std": v.normed_std,
    })
}

fn layernorm_experiment(v: &LayernormExperiment) -> Value {
    json!({
        "tokens": v.tokens.iter().map(token_stats).collect::<Vec<_>>(),
        "depth": v.depth,
        "pre_ln": v.pre_ln,
        "post_ln": v.post_ln,
        "pre_ln_gradient": v.pre_ln_gradient,
        "post_ln_gradient": v.post_ln_gradient,
    })
}

fn stability_experiment(v: &StabilityExperiment) -> Value {
    json!({
        "head": v.head + 1,
        "query": v.query,
        "scores": v.scores,
        "factor": v.factor,
        "shift": v.shift,
        "largest": v.largest,
        "naive_f32": v.naive_f32,
        "naive_f16": v.naive_f16,
        "stable_f16": v.stable_f16,
        "failure_f32": v.failure_f32.map(Breakdown::name),
        "failure_f16": v.failure_f16.map(Breakdown::name),
        "break_f32": v.break_f32.as_ref().map(break_point),
        "break_f16": v.break_f16.as_ref().map(break_point),
        "hottest_query": v.hottest_query,
        "hottest_score": v.hottest_score,
        "f16_abs_error": v.f16_abs_error,
        "f16_rel_error": v.f16_rel_error,
    })
}

fn break_point(v: &BreakPoint) -> Value {
    json!({
        "factor": v.factor,
        "kind": v.kind.name(),
        "exponent": v.exponent,
        "sum_first": v.sum_first,
    })
}

fn complexity_experiment(v: &ComplexityExperiment) -> Value {
    json!({
        "n": v.n,
        "d_model": v.d_model,
        "cells": v.cells,
        "multiply_adds": v.multiply_adds,
        "standard_bytes": v.standard_bytes,
        "flash_bytes": v.flash_bytes,
        "attention_path": v.attention_path,
        "recurrent_path": v.recurrent_path,
    })
}

fn cost_point(v: &CostPoint) -> Value {
    json!({
        "n": v.n,
        "standard_ms": v.standard_ms,
        "flash_ms": v.flash_ms,
    })
}

fn cost_measurement(v: &CostMeasurement) -> Value {
    json!({
        "d_k": v.d_k,
        "points": v.points.iter().map(cost_point).collect::<Vec<_>>(),
        "standard_slope": v.standard_slope,
        "flash_slope": v.flash_slope,
    })
}

fn flash_experiment(v: &FlashExperiment) -> Value {
    json!({
        "n": v.n,
        "keys": v.keys,
        "block_rows": v.block_rows,
        "block_cols": v.block_cols,
        "tiles": v.tiles,
        "skipped_tiles": v.skipped_tiles,
        "standard_cells": v.standard_cells,
        "tile_cells": v.tile_cells,
        "max_abs_diff": v.max_abs_diff,
    })
}

fn sparse_row(v: &SparseRow) -> Value {
    json!({
        "pattern": v.pattern,
        "stride": v.stride,
        "cells": v.cells,
        "mask": v.mask,
    })
}

fn delta_rule_experiment(d: &DeltaRuleExperiment) -> Value {
    json!({
        "d_k": d.d_k,
        "d_v": d.d_v,
        "pairs": d.pairs,
        "recall_error": {
            "linear": d.additive,
            "delta": d.delta,
            "gated_delta": d.gated,
            "delta_newest": d.delta_newest,
            "delta_recent": d.delta_recent,
            "gated_delta_recent": d.gated_recent,
        },
        "alpha": crate::teaching::RECALL_ALPHA,
        "head": d.head + 1,
        "chunked_vs_recurrent": d.chunk_diffs.as_ref().map(|diffs| {
            diffs
                .iter()
                .map(|&(chunk, diff)| json!({"chunk": chunk, "max_abs_diff": diff}))
                .collect::<Vec<_>>()
        }),
    })
}

fn hybrids_experiment(h: &crate::teaching::HybridsExperiment) -> Value {
    json!({
        "heads": h.heads,
        "kv_heads": h.kv_heads,
        "d_k": h.d_k,
        "d_v": h.d_v,
        "layers": crate::teaching::HYBRID_LAYERS,
        "mixes": h.mixes.iter().map(|m| json!({
            "linear_layers": m.linear_layers,
            "softmax_layers": crate::teaching::HYBRID_LAYERS - m.linear_layers,
            "state_bytes": m.state_bytes,
            "bytes_per_token": m.bytes_per_token,
            "bytes": crate::teaching::HYBRID_LENGTHS.iter().map(|&n| json!({"tokens": n, "bytes": m.bytes(n)})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "crossover_tokens": h.crossover,
        "n": h.n,
    })
}

fn variants_experiment(v: &VariantsExperiment) -> Value {
    json!({
        "n": v.n,
        "causal_cells": v.causal_cells,
        "n_sqrt_n": v.n_sqrt_n,
        "sparse": v.sparse.iter().map(sparse_row).collect::<Vec<_>>(),
        "head": v.head + 1,
        "linear_max_diff": v.linear_max_diff,
        "linear_mean_diff": v.linear_mean_diff,
        "linear_cost": v.linear_cost,
        "softmax_cost": v.softmax_cost,
    })
}
