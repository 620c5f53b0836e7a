//! What cannot be explained, each refusal naming the field, the value and the range.

/// Why a cell, a logit or a composition cannot be taken apart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    #[error("{field}: {value} is outside the model's {what} (1 to {max})")]
    Counted {
        field: &'static str,
        what: &'static str,
        value: usize,
        max: usize,
    },
    #[error("{field}: position {value} is outside the sentence (0 to {last})")]
    Position {
        field: &'static str,
        value: usize,
        last: usize,
    },
    #[error("{field}: {message}")]
    Other {
        field: &'static str,
        message: String,
    },
}

/// `value` counted from 1, checked against `1..=max`; the index from 0.
pub(crate) fn counted(
    field: &'static str,
    what: &'static str,
    value: usize,
    max: usize,
) -> Result<usize, ExplainError> {
    if value == 0 || value > max {
        return Err(ExplainError::Counted {
            field,
            what,
            value,
            max,
        });
    }
    Ok(value - 1)
}

/// `value` counted from 0, checked against `0..len`.
pub(crate) fn position(
    field: &'static str,
    value: usize,
    len: usize,
) -> Result<usize, ExplainError> {
    if value >= len {
        return Err(ExplainError::Position {
            field,
            value,
            last: len.saturating_sub(1),
        });
    }
    Ok(value)
}
