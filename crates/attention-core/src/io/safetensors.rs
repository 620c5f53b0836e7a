//! safetensors, the one reader of the lab's own models and of users' files: an 8-byte
//! little-endian header length, a JSON header of {name: {dtype, shape, data_offsets}} (and
//! `__metadata__`), then the data. The `safetensors` crate checks the header, including offsets
//! that overlap, leave gaps or point past the end of the file; a tensor comes out as row-major
//! f32 from f32, f16, bf16 or f64.
//!
//! A user's attention file holds tensors `attention`, `q`, `k`, `v`, and its tokens as a JSON
//! list of strings in `__metadata__` under `"tokens"` (and `"key_tokens"`): [`read`].

use safetensors::tensor::{Metadata, TensorInfo};
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

/// Bytes read by range from what need not be in memory whole: a slice, a file on disk, the
/// page's JavaScript `ArrayBuffer`. A model's weights are read through it one tensor at a time,
/// so that a weights file is never copied whole into the memory that holds the model.
pub trait ReadAt {
    /// The length in bytes.
    fn size(&self) -> u64;
    /// `out` filled with the bytes from `offset`; an error when they run past the end.
    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), String>;
}

impl ReadAt for &[u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), String> {
        let bytes = usize::try_from(offset)
            .ok()
            .and_then(|start| self.get(start..start.checked_add(out.len())?))
            .ok_or_else(|| format!("{} bytes at {offset} run past its end", out.len()))?;
        out.copy_from_slice(bytes);
        Ok(())
    }
}

impl ReadAt for Vec<u8> {
    fn size(&self) -> u64 {
        self.len() as u64
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), String> {
        (&self.as_slice()).read_at(offset, out)
    }
}

/// The longest header the lab reads (the `safetensors` crate's own limit).
pub const MAX_HEADER: u64 = 100_000_000;

/// A safetensors file's first bytes, its length and its JSON header, read from `file` (at most
/// [`MAX_HEADER`] bytes of header, whatever the file's length says).
pub fn header_bytes(file: &dyn ReadAt) -> Result<Vec<u8>, ImportError> {
    let short = || ImportError::Truncated {
        detail: "safetensors: shorter than its header".into(),
    };
    let mut len = [0u8; 8];
    file.read_at(0, &mut len).map_err(|_| short())?;
    let n = u64::from_le_bytes(len);
    if n > MAX_HEADER {
        return Err(ImportError::Format {
            format: "safetensors",
            detail: format!("a header of {n} bytes (at most {MAX_HEADER})"),
        });
    }
    let mut bytes = vec![0u8; 8 + n as usize];
    file.read_at(0, &mut bytes).map_err(|_| short())?;
    Ok(bytes)
}

/// A safetensors file by its header alone: where each tensor's bytes lie, checked against the
/// file's length as [`SafetensorsFile::parse`] checks a file held whole (offsets that overlap,
/// leave gaps or run past the end; sizes that disagree with shapes), so that each tensor can be
/// read by itself ([`SafetensorsHeader::numbers`]).
pub struct SafetensorsHeader {
    metadata: Metadata,
    /// Where the data begins: 8 + the header's length.
    data_start: u64,
}

impl SafetensorsHeader {
    /// The header in `header` ([`header_bytes`]) of a file of `size` bytes.
    pub fn parse(header: &[u8], size: u64) -> Result<Self, ImportError> {
        let json = header.get(8..).ok_or_else(|| ImportError::Truncated {
            detail: "safetensors: shorter than its header".into(),
        })?;
        let data_start = header.len() as u64;
        let data = size
            .checked_sub(data_start)
            .ok_or_else(|| ImportError::Truncated {
                detail: "safetensors: shorter than its header".into(),
            })?;
        let data_len = usize::try_from(data).map_err(|_| ImportError::Format {
            format: "safetensors",
            detail: format!("{size} bytes: more than this machine can address"),
        })?;
        // The crate's own reading checks offsets against shapes as it parses; a header it refuses
        // is named by its entry that does not fit, as a file held whole is.
        let metadata: Metadata = serde_json::from_slice(json).map_err(|e| {
            lying_entry(json, data_len).unwrap_or_else(|| ImportError::Format {
                format: "safetensors",
                detail: format!("its header: {e}"),
            })
        })?;
        let mut entries: Vec<(String, &TensorInfo)> = metadata.tensors().into_iter().collect();
        entries.sort_by_key(|(_, info)| info.data_offsets);
        let mut end = 0usize;
        for (name, info) in &entries {
            let (begin, stop) = info.data_offsets;
            let needed = info
                .shape
                .iter()
                .try_fold(1usize, |n, &d| n.checked_mul(d))
                .and_then(|n| n.checked_mul(info.dtype.bitsize()))
                .map(|bits| bits / 8);
            if begin != end || stop < begin || Some(stop - begin) != needed || stop > data_len {
                return Err(lying_entry(json, data_len).unwrap_or_else(|| ImportError::Header {
                    tensor: name.clone(),
                    detail: "its data offsets do not fit the file (they overlap, leave a gap or run past its end)".into(),
                }));
            }
            end = stop;
        }
        if end != data_len {
            return Err(ImportError::Truncated {
                detail: format!(
                    "safetensors: its tensors hold {end} bytes of data, the file {data_len}"
                ),
            });
        }
        Ok(Self {
            metadata,
            data_start,
        })
    }

    /// How many numbers each tensor holds, by name.
    pub fn counts(&self) -> Vec<(String, usize)> {
        self.metadata
            .tensors()
            .into_iter()
            .map(|(name, info)| (name, info.shape.iter().product()))
            .collect()
    }

    /// The tensor `name` read from `file` (whose header this is): its shape and its numbers,
    /// row-major, as the file stores them (f32, or bf16 and f16 as their 16 bits; f64 as f32),
    /// read a megabyte at a time; `None` when the file has no such tensor.
    pub fn numbers(
        &self,
        file: &dyn ReadAt,
        name: &str,
    ) -> Option<Result<(Vec<usize>, Numbers), ImportError>> {
        let info = self.metadata.info(name)?;
        let (begin, end) = info.data_offsets;
        let offset = self.data_start + begin as u64;
        let bytes = end - begin;
        let numbers = match info.dtype {
            Dtype::BF16 | Dtype::F16 => {
                let mut bits = Vec::with_capacity(bytes / 2);
                let read = read_chunks(file, offset, bytes, |chunk| {
                    bits.extend(
                        chunk
                            .chunks_exact(2)
                            .map(|b| u16::from_le_bytes([b[0], b[1]])),
                    );
                });
                let kind = if info.dtype == Dtype::BF16 {
                    Half::Bf16
                } else {
                    Half::F16
                };
                read.map(|()| Numbers::Half(bits, kind))
            }
            Dtype::F32 => {
                let mut values = Vec::with_capacity(bytes / 4);
                let read = read_chunks(file, offset, bytes, |chunk| {
                    values.extend(
                        chunk
                            .chunks_exact(4)
                            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                    );
                });
                read.map(|()| Numbers::F32(values))
            }
            Dtype::F64 => {
                let mut values = Vec::with_capacity(bytes / 8);
                let read = read_chunks(file, offset, bytes, |chunk| {
                    values.extend(chunk.chunks_exact(8).map(|b| {
                        f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f32
                    }));
                });
                read.map(|()| Numbers::F32(values))
            }
            other => {
                return Some(Err(ImportError::Dtype {
                    tensor: name.into(),
                    dtype: format!("{other:?}"),
                    supported: "F32, F16 or BF16",
                }));
            }
        };
        Some(
            numbers
                .map(|n| (info.shape.clone(), n))
                .map_err(|detail| ImportError::Truncated {
                    detail: format!("{name}: {detail}"),
                }),
        )
    }
}

/// `bytes` bytes of `file` from `offset`, given to `each` a megabyte at a time (a whole
/// number of 8-byte numbers each).
fn read_chunks(
    file: &dyn ReadAt,
    offset: u64,
    bytes: usize,
    mut each: impl FnMut(&[u8]),
) -> Result<(), String> {
    const CHUNK: usize = 1 << 20;
    let mut buffer = vec![0u8; CHUNK.min(bytes)];
    let mut done = 0usize;
    while done < bytes {
        let len = CHUNK.min(bytes - done);
        file.read_at(offset + done as u64, &mut buffer[..len])?;
        each(&buffer[..len]);
        done += len;
    }
    Ok(())
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
    let json = bytes.get(8..8usize.checked_add(length)?)?;
    lying_entry(json, bytes.len() - 8 - length)
}

/// The entry of the JSON header `json` that does not fit `data` bytes of data, named.
fn lying_entry(json: &[u8], data: usize) -> Option<ImportError> {
    let header: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(json).ok()?;
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
