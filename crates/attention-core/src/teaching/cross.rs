//! The cross chapter: queries from one sentence, keys and values from another.

use crate::pipeline::trace::Trace;

use super::focus::Focus;

#[derive(Debug, Clone, PartialEq)]
pub struct CrossMatch {
    pub query_token: String,
    /// The source token it weighs most, and that weight.
    pub source_token: String,
    pub weight: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CrossExperiment {
    /// False in self-attention: the chapter offers a second sentence.
    pub is_cross: bool,
    pub queries: usize,
    pub keys: usize,
    pub head: usize,
    pub best: Vec<CrossMatch>,
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> CrossExperiment {
    let h = focus.head(trace);
    let keys = trace.config.key_sequence();
    let best = trace.heads[h]
        .weights
        .outer_iter()
        .zip(trace.config.tokens())
        .map(|(row, token)| {
            let (j, &w) = row
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
                .unwrap_or((0, &0.0));
            CrossMatch {
                query_token: token.clone(),
                source_token: keys.tokens.get(j).cloned().unwrap_or_default(),
                weight: f64::from(w),
            }
        })
        .collect();
    CrossExperiment {
        is_cross: trace.config.source().is_some(),
        queries: trace.config.seq_len(),
        keys: trace.config.key_len(),
        head: h,
        best,
    }
}
