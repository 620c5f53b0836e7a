//! A model's tensors as a layout's loader reads them, by name and checked shape, and why a
//! model's files are refused.

use ndarray::{Array1, Array2};

pub use crate::io::safetensors::Numbers;
use crate::models::stored::Stored;

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

/// The tensor `name` of a model file, of the shape given, as the file stores its numbers.
pub type Source<'a> = dyn FnMut(&str, &[usize]) -> Result<Numbers, ModelError> + 'a;

/// The tensor `name`, [rows, cols], in f32.
pub(crate) fn matrix(
    tensor: &mut Source,
    name: &str,
    rows: usize,
    cols: usize,
) -> Result<Array2<f32>, ModelError> {
    let values = tensor(name, &[rows, cols])?.into_f32();
    Array2::from_shape_vec((rows, cols), values).map_err(|e| ModelError::Format(e.to_string()))
}

/// The tensor `name`, [rows, cols], kept in its file's number type.
pub(crate) fn stored(
    tensor: &mut Source,
    name: &str,
    rows: usize,
    cols: usize,
) -> Result<Stored, ModelError> {
    let wrong = || ModelError::Format(format!("{name}: not {rows} × {cols} numbers"));
    match tensor(name, &[rows, cols])? {
        Numbers::F32(values) => Array2::from_shape_vec((rows, cols), values)
            .map(Stored::F32)
            .map_err(|_| wrong()),
        Numbers::Half(bits, kind) => Stored::half(bits, rows, cols, kind).ok_or_else(wrong),
    }
}

/// The tensor `name`, [len].
pub(crate) fn vector(
    tensor: &mut Source,
    name: &str,
    len: usize,
) -> Result<Array1<f32>, ModelError> {
    Ok(Array1::from(tensor(name, &[len])?.into_f32()))
}
