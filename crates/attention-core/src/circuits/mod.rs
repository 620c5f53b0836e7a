//! Why a head attends: the residual stream as the exact sum of what wrote it, a score taken apart
//! into those parts on the query's side and the key's, each part's direct effect on a logit, and
//! how strongly heads compose (Elhage et al., 2021, "A Mathematical Framework for Transformer
//! Circuits"). Written once for every model the lab runs: random weights (a [`crate::Config`]'s
//! trace) and a trained model of any layout (its [`crate::models::Forward`]).
//!
//! - [`components`]: the residual stream entering a layer, one named part per writer;
//! - [`frozen`]: a norm linearised at its actual input (its scale frozen, its centring linear);
//! - [`explain`]: a score as Σ over query-side part a and key-side part b of their product;
//! - [`logit`]: each part's direct contribution to the logit of a character;
//! - [`composition`]: Q-, K- and V-composition between every earlier and later head, from the
//!   weights, with a random baseline, and measured on the sentence.
//!
//! Heads switched off are [`crate::pipeline::knockout`]'s: a forward pass run with them is read
//! here like any other.

pub mod components;
pub mod composition;
pub mod error;
pub mod explain;
pub mod frozen;
pub mod logit;

pub use components::Components;
pub use error::ExplainError;
pub use explain::{Explanation, explain_cell, explain_row};
