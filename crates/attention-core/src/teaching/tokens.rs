//! The tokens chapter: E + P = X.

use crate::pipeline::trace::Trace;

use super::focus::{distance, norm};

#[derive(Debug, Clone, PartialEq)]
pub struct TokenNorms {
    pub token: String,
    /// |E_i|, |P_i|, |X_i| (E and P absent when X was given directly)
    pub embedding: Option<f64>,
    pub position: Option<f64>,
    pub x: f64,
}

/// The same token at two places: identical embeddings, different X (the positions differ).
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatedToken {
    pub token: String,
    pub first: usize,
    pub second: usize,
    /// |E_first − E_second|: 0, one vector per token.
    pub embedding_distance: f64,
    /// |X_first − X_second|: the position makes them differ.
    pub x_distance: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TokensExperiment {
    pub d_model: usize,
    pub norms: Vec<TokenNorms>,
    pub repeated: Option<RepeatedToken>,
}

pub(super) fn run(trace: &Trace) -> TokensExperiment {
    let config = &trace.config;
    let parts = config.target().parts.as_ref();
    let x = config.x();
    let norms = config
        .tokens()
        .iter()
        .enumerate()
        .map(|(i, token)| TokenNorms {
            token: token.clone(),
            embedding: parts.map(|(e, _)| norm(e.row(i))),
            position: parts.map(|(_, p)| norm(p.row(i))),
            x: norm(x.row(i)),
        })
        .collect();
    let tokens = config.tokens();
    let repeated = (0..tokens.len())
        .flat_map(|i| (i + 1..tokens.len()).map(move |j| (i, j)))
        .find(|&(i, j)| tokens[i] == tokens[j])
        .map(|(i, j)| RepeatedToken {
            token: tokens[i].clone(),
            first: i,
            second: j,
            embedding_distance: parts.map_or(0.0, |(e, _)| distance(e.row(i), e.row(j))),
            x_distance: distance(x.row(i), x.row(j)),
        });
    TokensExperiment {
        d_model: config.dims().d_model,
        norms,
        repeated,
    }
}

#[cfg(test)]
mod tests {

    use crate::Params;
    use crate::teaching::focus::trace;
    use crate::teaching::{Chapter, Experiment, Focus, experiment};

    #[test]
    fn the_same_word_twice_has_one_embedding_and_two_xs() {
        let t = trace(Params::sentence("the cat saw the dog"));
        let Experiment::Tokens(e) = experiment(Chapter::Tokens, &t, &Focus::default()) else {
            panic!()
        };
        let r = e.repeated.unwrap();
        assert_eq!((r.first, r.second, r.token.as_str()), (0, 3, "the"));
        assert_eq!(r.embedding_distance, 0.0);
        assert!(r.x_distance > 0.1);
    }
}
