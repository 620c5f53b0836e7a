//! The qkv chapter: what a query matches.

use crate::pipeline::trace::Trace;

use super::focus::{Focus, norm};

#[derive(Debug, Clone, PartialEq)]
pub struct KeyMatch {
    pub key: usize,
    pub token: String,
    /// q · k, before scaling
    pub dot: f64,
    pub allowed: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QkvExperiment {
    pub head: usize,
    pub query: usize,
    pub query_token: String,
    pub d_k: usize,
    pub d_v: usize,
    /// |q|, and each key's q · k, most similar first.
    pub query_norm: f64,
    pub matches: Vec<KeyMatch>,
}

pub(super) fn run(trace: &Trace, focus: &Focus) -> QkvExperiment {
    let (h, i) = (focus.head(trace), focus.query(trace));
    let head = &trace.heads[h];
    let keys = trace.config.key_sequence();
    let q = head.q.row(i);
    let mut matches: Vec<KeyMatch> = head
        .k
        .outer_iter()
        .enumerate()
        .map(|(j, k)| KeyMatch {
            key: j,
            token: keys.tokens[j].clone(),
            dot: f64::from(q.dot(&k)),
            allowed: trace.mask[[i, j]],
        })
        .collect();
    matches.sort_by(|a, b| b.dot.total_cmp(&a.dot).then(a.key.cmp(&b.key)));
    QkvExperiment {
        head: h,
        query: i,
        query_token: trace.config.tokens()[i].clone(),
        d_k: head.q.ncols(),
        d_v: head.v.ncols(),
        query_norm: norm(q),
        matches,
    }
}
