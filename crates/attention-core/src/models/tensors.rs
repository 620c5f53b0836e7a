//! A model's tensors as a layout's loader reads them, by name and checked shape, and why a
//! model's files are refused.

use ndarray::{Array1, Array2};

/// What can be wrong with a model's files.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("the model file is not safetensors: {0}")]
    Format(String),
    #[error("the model file lacks {0}")]
    Missing(String),
    #[error("{name}: expected shape {expected:?}, found {found:?}")]
    Shape {
        name: String,
        expected: Vec<usize>,
        found: Vec<usize>,
    },
    #[error("config.json: {0}")]
    Config(String),
    #[error("vocab.json: {0}")]
    Vocab(String),
    /// A file of a model folder: missing, unreadable, or not what it should be; or the model
    /// too large.
    #[error(transparent)]
    Folder(#[from] crate::io::hf_folder::FolderError),
}

/// The tensor `name` of a model file, [rows, cols].
pub type Source<'a> = dyn FnMut(&str, &[usize]) -> Result<Vec<f32>, ModelError> + 'a;

/// The tensor `name`, [rows, cols].
pub(crate) fn matrix(
    tensor: &mut Source,
    name: &str,
    rows: usize,
    cols: usize,
) -> Result<Array2<f32>, ModelError> {
    let values = tensor(name, &[rows, cols])?;
    Array2::from_shape_vec((rows, cols), values).map_err(|e| ModelError::Format(e.to_string()))
}

/// The tensor `name`, [len].
pub(crate) fn vector(
    tensor: &mut Source,
    name: &str,
    len: usize,
) -> Result<Array1<f32>, ModelError> {
    Ok(Array1::from(tensor(name, &[len])?))
}
