//! The UI's pure logic: what each view shows, computed from a trace, and every rule behind the
//! controls, the links and the choice of backend. No leptos, web-sys, js-sys or wasm-bindgen here
//! (`tests/architecture.rs` checks it), so all of it is tested natively.

pub mod backend;
pub mod circuit;
pub mod colormap;
mod colormap_data;
pub mod controls;
pub mod element;
pub mod explain;
pub mod fab;
pub mod fit;
pub mod flash_frame_views;
pub mod flash_frames;
pub mod flash_views;
pub mod format;
pub mod head_lines;
pub mod imported;
pub mod lesson;
pub mod line_chart;
pub mod linear;
pub mod link;
pub mod matrix;
pub mod memory_chart;
pub mod motion;
pub mod notice;
pub mod roles;
pub mod sections;
pub mod shaping;
pub mod stage_text;
pub mod stages;
pub mod strip_keys;
pub mod theme;
pub mod why;

use std::sync::Arc;

use attention_core::Trace;

/// A token as a label shows it: the trained model's one-character tokens include spaces and line
/// breaks, which would be blank; they are drawn as ␣ and ⏎ (and a tab as ⇥).
pub fn visible(token: &str) -> String {
    match token {
        " " => "␣".into(),
        "\n" => "⏎".into(),
        "\t" => "⇥".into(),
        other => other.into(),
    }
}

/// Every token of a sequence as a label shows it.
pub fn visible_all(tokens: &[String]) -> Vec<String> {
    tokens.iter().map(|t| visible(t)).collect()
}

/// A computed trace, compared by identity: the UI never diffs matrices to see a change.
#[derive(Debug, Clone)]
pub struct TraceRef(pub Arc<Trace>);

impl TraceRef {
    pub fn new(trace: Trace) -> Self {
        Self(Arc::new(trace))
    }
}

impl TraceRef {
    /// The trace with every head's FlashAttention steps: this one if it has them, else computed
    /// again with them (the page traces FlashAttention's output only, and replays the steps of
    /// the head being viewed; an export gives the CLI's whole shape), its knocked-out heads
    /// switched off again.
    pub fn with_flash_steps(&self) -> Trace {
        if self.0.flash.heads.iter().any(|h| !h.steps.is_empty()) {
            (*self.0).clone()
        } else {
            let mut trace = attention_core::compute_trace(&self.0.config);
            trace.knock_out(&self.0.knocked);
            trace
        }
    }
}

impl TraceRef {
    /// The trace as the CLI prints it, for `trace()` and the download: every intermediate with
    /// FlashAttention's steps; for a summarised trace (a long input, whose n² matrices the page
    /// never holds) the outputs only, as the CLI prints them with `"trace": false`.
    pub fn to_json(&self) -> serde_json::Result<String> {
        let trace = &self.0;
        if trace.is_summarised() {
            return attention_core::api::outputs_json(&attention_core::Outputs {
                tokens: trace.config.tokens().to_vec(),
                output: trace.output.clone(),
                flash_output: trace.flash.output.clone(),
                max_abs_diff: trace.flash.max_abs_diff,
                backend: trace.backend.clone(),
            });
        }
        attention_core::api::trace_json(&self.with_flash_steps())
    }
}

impl PartialEq for TraceRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
