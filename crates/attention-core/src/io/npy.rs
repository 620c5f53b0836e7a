//! NumPy's formats: `.npy` (one array: a magic string, a header that is a Python dict literal
//! with `descr`, `fortran_order` and `shape`, then the data) and `.npz` (a zip of `.npy` files,
//! stored or deflated, as `np.savez` and `np.savez_compressed` write them).
//!
//! The header is read here rather than with a Python-literal parser crate: the three keys NumPy
//! writes are all it holds, and the parser crates bring a grammar engine into the page's wasm.

use std::io::Read;

use crate::io::found::{Found, ImportError, Raw};
use crate::io::half::f16_to_f32;

const MAGIC: &[u8] = b"\x93NUMPY";
const FLOATS: &str = "float32, float16 or float64";

/// One `.npy` array: the attention weights. One of more than `budget` numbers is refused from
/// its header, before a value is read.
pub(crate) fn read_npy(bytes: &[u8], budget: usize) -> Result<Found, ImportError> {
    let mut found = Found::default();
    match parse("attention", bytes, Some(budget))? {
        Array::Numbers(raw) => found.tensors.push(("attention".into(), raw)),
        Array::Strings(_) => {
            return Err(ImportError::Dtype {
                tensor: "attention".into(),
                dtype: "a string array".into(),
                supported: FLOATS,
            });
        }
    }
    Ok(found)
}

/// The arrays of an `.npz`: `attention`, `q`, `k`, `v`, `tokens`, `key_tokens`.
/// An entry is inflated only up to what `budget` numbers could take as f64 (plus a header): a
/// small file that inflates to gigabytes is refused, not unpacked.
pub(crate) fn read_npz(bytes: &[u8], budget: usize) -> Result<Found, ImportError> {
    let limit = budget.saturating_mul(8).saturating_add(1 << 20);
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| ImportError::Format {
            format: "npz (zip)",
            detail: e.to_string(),
        })?;
    let mut found = Found::default();
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).map_err(|e| ImportError::Format {
            format: "npz (zip)",
            detail: e.to_string(),
        })?;
        let Some(name) = entry.name().strip_suffix(".npy").map(str::to_string) else {
            found.others.push(entry.name().to_string());
            continue;
        };
        if !["attention", "q", "k", "v", "tokens", "key_tokens"].contains(&name.as_str())
            && crate::io::found::per_layer(&name).is_none()
        {
            found.others.push(name);
            continue;
        }
        let declared = usize::try_from(entry.size()).unwrap_or(usize::MAX);
        let mut data = Vec::with_capacity(declared.min(limit).min(16 << 20));
        (&mut entry)
            .take(limit as u64 + 1)
            .read_to_end(&mut data)
            .map_err(|e| ImportError::Truncated {
                detail: format!("{name}.npy in the npz: {e}"),
            })?;
        if data.len() > limit {
            return Err(ImportError::OverBudget {
                numbers: declared / 4,
                budget,
            });
        }
        match (name.as_str(), parse(&name, &data, None)?) {
            ("tokens", Array::Strings(t)) => found.tokens = Some(t),
            ("key_tokens", Array::Strings(t)) => found.key_tokens = Some(t),
            ("tokens" | "key_tokens", Array::Numbers(_)) => {
                return Err(ImportError::Dtype {
                    tensor: name,
                    dtype: "numbers".into(),
                    supported: "a string array: np.array(tokens, dtype=str)",
                });
            }
            (_, Array::Numbers(raw)) => found.tensors.push((name, raw)),
            (_, Array::Strings(_)) => {
                return Err(ImportError::Dtype {
                    tensor: name,
                    dtype: "a string array".into(),
                    supported: FLOATS,
                });
            }
        }
    }
    Ok(found)
}

enum Array {
    Numbers(Raw),
    Strings(Vec<String>),
}

/// An element type NumPy writes: its kind, size in bytes and byte order.
struct Descr {
    kind: char,
    size: usize,
    big_endian: bool,
    text: String,
}

/// Reads one `.npy` array; with a `budget`, one of more numbers is refused from its header.
fn parse(name: &str, bytes: &[u8], budget: Option<usize>) -> Result<Array, ImportError> {
    let header_error = |detail: &str| ImportError::Header {
        tensor: name.to_string(),
        detail: detail.to_string(),
    };
    if bytes.len() < 10 {
        return Err(if MAGIC.starts_with(bytes) {
            ImportError::Truncated {
                detail: format!("{name}: the .npy header is cut off"),
            }
        } else {
            ImportError::Format {
                format: ".npy",
                detail: format!("{name}: no NumPy magic string"),
            }
        });
    }
    if &bytes[..6] != MAGIC {
        return Err(ImportError::Format {
            format: ".npy",
            detail: format!("{name}: no NumPy magic string"),
        });
    }
    let (length, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 => {
            let b = bytes.get(8..12).ok_or_else(|| ImportError::Truncated {
                detail: format!("{name}: the .npy header is cut off"),
            })?;
            (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12)
        }
        v => return Err(header_error(&format!(".npy format version {v} is unknown"))),
    };
    let header = bytes
        .get(start..start + length)
        .ok_or_else(|| ImportError::Truncated {
            detail: format!("{name}: the .npy header says {length} bytes; the file is shorter"),
        })?;
    let header = std::str::from_utf8(header).map_err(|_| header_error("the header is not text"))?;
    let descr = value_after(header, "descr")
        .and_then(quoted)
        .ok_or_else(|| header_error("the header has no 'descr'"))?;
    let fortran = match value_after(header, "fortran_order") {
        Some(v) if v.starts_with("True") => true,
        Some(v) if v.starts_with("False") => false,
        _ => return Err(header_error("the header has no 'fortran_order'")),
    };
    let shape = value_after(header, "shape")
        .and_then(tuple)
        .ok_or_else(|| header_error("the header has no readable 'shape'"))?;
    let descr = descr_of(&descr).ok_or_else(|| ImportError::Dtype {
        tensor: name.to_string(),
        dtype: descr.clone(),
        supported: FLOATS,
    })?;
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| header_error("its shape is too large"))?;
    if let Some(budget) = budget.filter(|&budget| count > budget) {
        return Err(ImportError::OverBudget {
            numbers: count,
            budget,
        });
    }
    let data = &bytes[start + length..];
    let needed = count
        .checked_mul(descr.size)
        .ok_or_else(|| header_error("its shape is too large"))?;
    if data.len() < needed {
        return Err(ImportError::Truncated {
            detail: format!(
                "{name}: shape {shape:?} of {} needs {needed} bytes of data, the file has {}",
                descr.text,
                data.len()
            ),
        });
    }
    let data = &data[..needed];
    let big = descr.big_endian;
    match (descr.kind, descr.size) {
        ('f', 2 | 4 | 8) => {
            // One loop per width, so that the common one (little-endian f32) is a plain copy.
            let mut values: Vec<f32> = match (descr.size, big) {
                (4, false) => data
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
                (4, true) => data
                    .chunks_exact(4)
                    .map(|c| f32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
                (2, _) => data
                    .chunks_exact(2)
                    .map(|c| f16_to_f32(u16::from_le_bytes(word(c, big))))
                    .collect(),
                _ => data
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes(word(c, big)) as f32)
                    .collect(),
            };
            if fortran && shape.len() > 1 {
                values = to_row_major(&values, &shape);
            }
            let rounding = if descr.size == 2 {
                0.5f32.powi(11)
            } else {
                crate::io::found::F32_ROUNDING
            };
            Ok(Array::Numbers(Raw {
                shape,
                values,
                rounding,
            }))
        }
        ('U', _) | ('S', _) => {
            if shape.len() != 1 {
                return Err(header_error(&format!(
                    "a list of tokens must have one dimension, not {shape:?}"
                )));
            }
            let width = if descr.kind == 'U' { 4 } else { 1 };
            let strings = data
                .chunks_exact(descr.size.max(1))
                .enumerate()
                .map(|(i, chunk)| {
                    let text: Option<String> = if descr.kind == 'U' {
                        chunk
                            .chunks_exact(width)
                            .map(|c| u32::from_le_bytes(word(c, big)))
                            .take_while(|&c| c != 0)
                            .map(char::from_u32)
                            .collect()
                    } else {
                        let end = chunk.iter().position(|&b| b == 0).unwrap_or(chunk.len());
                        String::from_utf8(chunk[..end].to_vec()).ok()
                    };
                    text.ok_or_else(|| header_error(&format!("entry {i} is not valid text")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Array::Strings(strings))
        }
        _ => Err(ImportError::Dtype {
            tensor: name.to_string(),
            dtype: descr.text,
            supported: FLOATS,
        }),
    }
}

/// `chunk` (exactly N bytes) in little-endian order.
fn word<const N: usize>(chunk: &[u8], big_endian: bool) -> [u8; N] {
    let mut bytes = [0u8; N];
    bytes.copy_from_slice(chunk);
    if big_endian {
        bytes.reverse();
    }
    bytes
}

/// The text after `'key':` in the header dict.
fn value_after<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let at = header
        .find(&format!("'{key}'"))
        .or_else(|| header.find(&format!("\"{key}\"")))?;
    let rest = &header[at + key.len() + 2..];
    Some(rest.trim_start().strip_prefix(':')?.trim_start())
}

/// A quoted Python string at the start of `text`.
fn quoted(text: &str) -> Option<String> {
    let quote = text.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let rest = &text[1..];
    Some(rest[..rest.find(quote)?].to_string())
}

/// A tuple of whole numbers at the start of `text`: `()`, `(5,)`, `(2, 3)`.
fn tuple(text: &str) -> Option<Vec<usize>> {
    let inner = text.strip_prefix('(')?;
    let inner = &inner[..inner.find(')')?];
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse().ok())
        .collect()
}

/// `<f4`, `>f8`, `<U12`, `|S5` …; `None` for what is not a simple element type.
fn descr_of(text: &str) -> Option<Descr> {
    let mut chars = text.chars();
    let order = chars.next()?;
    let big_endian = match order {
        '<' | '|' | '=' => false,
        '>' => true,
        _ => return None,
    };
    let kind = chars.next()?;
    let count: usize = chars.as_str().parse().ok()?;
    let size = if kind == 'U' {
        count.checked_mul(4)?
    } else {
        count
    };
    Some(Descr {
        kind,
        size,
        big_endian,
        text: text.to_string(),
    })
}

/// Column-major values of `shape` in row-major order.
fn to_row_major(values: &[f32], shape: &[usize]) -> Vec<f32> {
    use ndarray::{ArrayD, IxDyn, ShapeBuilder};
    ArrayD::from_shape_vec(IxDyn(shape).f(), values.to_vec())
        .map(|a| a.as_standard_layout().iter().copied().collect())
        .unwrap_or_else(|_| values.to_vec())
}
