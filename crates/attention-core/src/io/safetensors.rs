//! safetensors, the one reader of the lab's own models and of users' files: an 8-byte
//! little-endian header length, a JSON header of {name: {dtype, shape, data_offsets}} (and
//! `__metadata__`), then the data. The `safetensors` crate checks the header, including offsets
//! that overlap, leave gaps or point past the end of the file; a tensor comes out as row-major
//! f32 from f32, f16, bf16 or f64.
//!
//! A user's attention file holds tensors `attention`, `q`, `k`, `v`, and its tokens as a JSON
//! list of strings in `__metadata__` under `"tokens"` (and `"key_tokens"`): [`read`].

use safetensors::tensor::Metadata;
use safetensors::{Dtype, SafeTensorError, SafeTensors};

use crate::io::found::{Found, ImportError, Raw, tokens_from_json};
use crate::io::half::{Half, bf16_to_f32, f16_to_f32};

const NAMES: [&str; 4] = ["attention", "q", "k", "v"];

/// A safetensors file, its header checked.
pub struct SafetensorsFile<'a> {
    tensors: SafeTensors<'a>,
    metadata: Metadata,
}

impl<'a> SafetensorsFile<'a> {
    /// The file in `bytes`, refused with the tensor whose entry does not fit when one does not.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ImportError> {
        let fail = |e| match e {
            SafeTensorError::TensorInvalidInfo | SafeTensorError::InvalidOffset(_) => {
                lying_tensor(bytes).unwrap_or_else(|| error(e))
            }
            e => error(e),
        };
        let (_, metadata) = SafeTensors::read_metadata(bytes).map_err(fail)?;
        let tensors = SafeTensors::deserialize(bytes).map_err(fail)?;
        Ok(Self { tensors, metadata })
    }

    /// The names of its tensors.
    pub fn names(&self) -> Vec<String> {
        self.tensors
            .names()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// A value of the header's `__metadata__`.
    pub fn metadata(&self, key: &str) -> Option<&str> {
        self.metadata
            .metadata()
            .as_ref()?
            .get(key)
            .map(String::as_str)
    }

    /// The tensor `name`: its shape and its numbers, row-major, as the file stores them (f32,
    /// or bf16 and f16 as their 16 bits; f64 as f32); `None` when the file has no such tensor.
    pub fn numbers(&self, name: &str) -> Option<Result<(Vec<usize>, Numbers), ImportError>> {
        let view = self.tensors.tensor(name).ok()?;
        let data = view.data();
        let bits = || -> Vec<u16> {
            data.chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .collect()
        };
        let numbers = match view.dtype() {
            Dtype::BF16 => Numbers::Half(bits(), Half::Bf16),
            Dtype::F16 => Numbers::Half(bits(), Half::F16),
            _ => match self.tensor(name)? {
                Ok(raw) => Numbers::F32(raw.values),
                Err(e) => return Some(Err(e)),
            },
        };
        Some(Ok((view.shape().to_vec(), numbers)))
    }

    /// The tensor `name`: its shape and its numbers, row-major, as f32; `None` when the file
    /// has no such tensor.
    pub fn tensor(&self, name: &str) -> Option<Result<Raw, ImportError>> {
        let view = self.tensors.tensor(name).ok()?;
        let data = view.data();
        let values: Vec<f32> = match view.dtype() {
            Dtype::F32 => data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            Dtype::F16 => data
                .chunks_exact(2)
                .map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
            Dtype::BF16 => data
                .chunks_exact(2)
                .map(|b| bf16_to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
            Dtype::F64 => data
                .chunks_exact(8)
                .map(|b| {
                    f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f32
                })
                .collect(),
            other => {
                return Some(Err(ImportError::Dtype {
                    tensor: name.into(),
                    dtype: format!("{other:?}"),
                    supported: "F32, F16 or BF16",
                }));
            }
        };
        let rounding = match view.dtype() {
            Dtype::BF16 => 0.5f32.powi(8),
            Dtype::F16 => 0.5f32.powi(11),
            _ => crate::io::found::F32_ROUNDING,
        };
        Some(Ok(Raw {
            shape: view.shape().to_vec(),
            values,
            rounding,
        }))
    }
}

/// A tensor's numbers as its file stores them.
#[derive(Debug, Clone, PartialEq)]
pub enum Numbers {
    F32(Vec<f32>),
    /// 16-bit numbers of one type, kept as their bits.
    Half(Vec<u16>, Half),
}

impl Numbers {
    /// How many numbers.
    pub fn len(&self) -> usize {
        match self {
            Self::F32(v) => v.len(),
            Self::Half(bits, _) => bits.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each number as f32, exactly.
    pub fn into_f32(self) -> Vec<f32> {
        match self {
            Self::F32(values) => values,
            Self::Half(bits, kind) => bits.into_iter().map(|b| kind.to_f32(b)).collect(),
        }
    }

    /// The first number that is not finite, as f32.
    pub fn first_not_finite(&self) -> Option<f32> {
        match self {
            Self::F32(values) => values.iter().copied().find(|v| !v.is_finite()),
            Self::Half(bits, kind) => bits
                .iter()
                .find(|&&b| !kind.is_finite(b))
                .map(|&b| kind.to_f32(b)),
        }
    }
}

/// A user's attention file: its tensors `attention`, `q`, `k`, `v` and its tokens.
pub(crate) fn read(bytes: &[u8]) -> Result<Found, ImportError> {
    let file = SafetensorsFile::parse(bytes)?;
    let mut found = Found::default();
    for key in ["tokens", "key_tokens"] {
        if let Some(text) = file.metadata(key) {
            let value: serde_json::Value =
                serde_json::from_str(text).map_err(|e| ImportError::Header {
                    tensor: format!("__metadata__.{key}"),
                    detail: format!("not a JSON list of strings: {e}"),
                })?;
            let tokens = tokens_from_json(&value, key)?;
            if key == "tokens" {
                found.tokens = Some(tokens);
            } else {
                found.key_tokens = Some(tokens);
            }
        }
    }
    for name in NAMES {
        if let Some(raw) = file.tensor(name) {
            found.tensors.push((name.into(), raw?));
        }
    }
    // Saved one per layer: stacked in [`Found::stack_layers`].
    for name in file.names() {
        if crate::io::found::per_layer(&name).is_some()
            && let Some(raw) = file.tensor(&name)
        {
            found.tensors.push((name, raw?));
        }
    }
    if found.tensors.is_empty() {
        let names = file.names();
        return Err(ImportError::Nothing {
            found: if names.is_empty() {
                "no tensors".into()
            } else {
                names.join(", ")
            },
        });
    }
    Ok(found)
}

/// The tensor whose header entry does not fit the file, named, with what does not fit.
fn lying_tensor(bytes: &[u8]) -> Option<ImportError> {
    let length = usize::try_from(u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?)).ok()?;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(bytes.get(8..8usize.checked_add(length)?)?).ok()?;
    let data = bytes.len() - 8 - length;
    let size = |dtype: &str| match dtype {
        "F64" | "I64" | "U64" => Some(8),
        "F32" | "I32" | "U32" => Some(4),
        "F16" | "BF16" | "I16" | "U16" => Some(2),
        "I8" | "U8" | "BOOL" => Some(1),
        _ => None,
    };
    header.iter().filter(|(name, _)| *name != "__metadata__").find_map(|(name, entry)| {
        let numbers = |key: &str| -> Option<Vec<usize>> {
            entry[key]
                .as_array()?
                .iter()
                .map(|v| v.as_u64().and_then(|v| usize::try_from(v).ok()))
                .collect()
        };
        let (shape, offsets) = (numbers("shape")?, numbers("data_offsets")?);
        let dtype = entry["dtype"].as_str()?;
        let [begin, end] = offsets[..] else {
            return None;
        };
        let needed = shape.iter().product::<usize>() * size(dtype)?;
        let detail = if end > data {
            format!("its data_offsets [{begin}, {end}] run past the end of the data ({data} bytes)")
        } else if end < begin || end - begin != needed {
            format!(
                "its data_offsets [{begin}, {end}] hold {} bytes; shape {shape:?} of {dtype} needs {needed}",
                end.saturating_sub(begin)
            )
        } else {
            return None;
        };
        Some(ImportError::Header {
            tensor: name.clone(),
            detail,
        })
    })
}

fn error(e: SafeTensorError) -> ImportError {
    match e {
        SafeTensorError::HeaderTooSmall | SafeTensorError::MetadataIncompleteBuffer => {
            ImportError::Truncated {
                detail: format!("safetensors: {e}"),
            }
        }
        SafeTensorError::InvalidOffset(name) => ImportError::Header {
            tensor: name,
            detail: "its data offsets do not fit the file (they overlap, leave a gap or run past its end)"
                .into(),
        },
        other => ImportError::Format {
            format: "safetensors",
            detail: other.to_string(),
        },
    }
}
