//! From a request's parameters to every intermediate: the checks into a [`config::Config`]
//! (tokens, embeddings, positions, weights), the [`trace::Trace`] of all heads with concat, W_O
//! and the residual, a long input's [`overview`]s, the [`units`] a page's workers compute, and
//! the one seeded head the kernel benchmarks time ([`kernel_case`]), heads knocked out
//! ([`knockout`]), and heads of linear attention with the output gate ([`linear_heads`]).

pub mod computed;
pub mod config;
pub mod embed;
pub mod error;
pub mod kernel_case;
pub mod knockout;
pub mod linear_heads;
pub mod overview;
pub mod roles;
pub mod tokenize;
pub mod trace;
pub mod units;
