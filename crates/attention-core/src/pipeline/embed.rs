//! Token embeddings and sinusoidal positional encodings: X = E + P, shape [seq_len, d_model].

use ndarray::Array2;

use crate::math::rng::{SplitMix64, fnv1a};

/// √3: a uniform draw in [-√3, √3) has variance 1, like the N(0, 1) rows of a trained table.
const UNIT_VARIANCE_BOUND: f64 = 1.732_050_807_568_877_2;

/// E: [seq_len, d_model]. Each token gets a vector that depends only on its text (case-folded),
/// so "The" and "the" share a vector everywhere in a sentence and on every run and platform.
pub fn token_embeddings(tokens: &[String], d_model: usize) -> Array2<f32> {
    let mut embeddings = Array2::zeros((tokens.len(), d_model));
    for (row, token) in embeddings.rows_mut().into_iter().zip(tokens) {
        let mut rng = SplitMix64::new(fnv1a(&token.to_lowercase()));
        for value in row {
            *value = rng.next_symmetric(UNIT_VARIANCE_BOUND) as f32;
        }
    }
    embeddings
}

/// P: [seq_len, d_model], the encoding of "Attention Is All You Need":
/// P[pos, 2i] = sin(pos / 10000^(2i/d_model)), P[pos, 2i+1] = cos(pos / 10000^(2i/d_model)).
pub fn positional_encoding(seq_len: usize, d_model: usize) -> Array2<f32> {
    positional_encoding_from(0, seq_len, d_model)
}

/// [`positional_encoding`] for positions `first`, `first + 1`, … (a position offset).
pub fn positional_encoding_from(first: usize, seq_len: usize, d_model: usize) -> Array2<f32> {
    // 1 / 10000^(2i/d_model), once per sin/cos pair rather than once per element.
    let frequencies: Vec<f64> = (0..d_model)
        .map(|dim| {
            10_000_f64
                .powf((dim / 2 * 2) as f64 / d_model as f64)
                .recip()
        })
        .collect();
    Array2::from_shape_fn((seq_len, d_model), |(row, dim)| {
        let angle = (first + row) as f64 * frequencies[dim];
        if dim % 2 == 0 {
            angle.sin() as f32
        } else {
            angle.cos() as f32
        }
    })
}
