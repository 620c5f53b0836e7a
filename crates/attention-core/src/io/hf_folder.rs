//! A Hugging Face model folder's files as the lab reads them, before any tensor is: which
//! weights files hold the model (`model.safetensors`, or the shards `model.safetensors.index.json`
//! names), how many numbers they hold (from their headers alone), whether a `tokenizer.json` is
//! byte-level, and a folder on disk read in that order. `models::hf` builds the model.

use serde_json::Value;

use crate::io::safetensors::{MAX_HEADER, ReadAt, header_bytes};

/// Why a folder cannot be opened: a file missing or not what it should be, or a model over the
/// size the lab opens.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FolderError {
    #[error("{file}: {message}")]
    File { file: String, message: String },
    #[error(
        "the model has {parameters} parameters; the lab opens at most {max} (1 B), read from the weights' headers before anything else"
    )]
    TooLarge { parameters: usize, max: usize },
    #[error(
        "the model needs about {needed} GB of the page's memory ({kept} GB held as it is computed, and {reading} GB more while its largest tensor is read); a page's WebAssembly memory holds 4 GB: save the model in bf16 (torch_dtype=torch.bfloat16), open a smaller one, or run it with the command line (\"model\": {{\"path\": …}})"
    )]
    PageMemory {
        needed: String,
        kept: String,
        reading: String,
    },
}

/// A file's error.
pub fn file_error(file: &str, message: impl Into<String>) -> FolderError {
    FolderError::File {
        file: file.to_string(),
        message: message.into(),
    }
}

/// The most parameters the lab opens (1 B: 2 GB in bf16, 4 GB once computed in f32).
pub const MAX_PARAMETERS: usize = 1_000_000_000;

/// The single weights file, the index of a sharded one, the tokenizer, the config.
pub const WEIGHTS: &str = "model.safetensors";
pub const INDEX: &str = "model.safetensors.index.json";
pub const TOKENIZER: &str = "tokenizer.json";
pub const CONFIG: &str = "config.json";

/// What a folder must hold, said when something is missing.
pub const EXPECTED: &str = "a Hugging Face model folder holds config.json, model.safetensors (or model.safetensors.index.json and its shards) and tokenizer.json";

/// The weights files a folder's model is in, in order: the shards its index names (each
/// required), or `model.safetensors`. `has` says whether the folder has a file.
pub fn weight_files(
    has: &dyn Fn(&str) -> bool,
    index: Option<&str>,
) -> Result<Vec<String>, FolderError> {
    if let Some(text) = index {
        let json: Value =
            serde_json::from_str(text).map_err(|e| file_error(INDEX, format!("not JSON: {e}")))?;
        let map = json
            .get("weight_map")
            .and_then(Value::as_object)
            .ok_or_else(|| file_error(INDEX, "no \"weight_map\" of tensor → shard"))?;
        let mut shards: Vec<String> = Vec::new();
        for shard in map.values() {
            let shard = shard
                .as_str()
                .ok_or_else(|| file_error(INDEX, "a shard's name is not a string"))?;
            if !shards.iter().any(|s| s == shard) {
                shards.push(shard.to_string());
            }
        }
        shards.sort();
        let missing: Vec<&String> = shards.iter().filter(|s| !has(s)).collect();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
            return Err(file_error(
                names[0],
                format!(
                    "missing: {INDEX} lists {} shards, {} of them not in the folder ({})",
                    shards.len(),
                    names.len(),
                    names.join(", ")
                ),
            ));
        }
        return Ok(shards);
    }
    if has(WEIGHTS) {
        return Ok(vec![WEIGHTS.to_string()]);
    }
    if has("pytorch_model.bin") {
        return Err(file_error(
            "pytorch_model.bin",
            "the lab reads safetensors; save the model with save_pretrained(…, safe_serialization=True)",
        ));
    }
    Err(file_error(WEIGHTS, format!("missing: {EXPECTED}")))
}

/// How many numbers a safetensors file holds, from its header alone (`header` is the file's
/// first bytes: 8 of length, then at least the JSON header); `None` when more bytes are needed.
pub fn header_parameters(file: &str, header: &[u8]) -> Result<Option<usize>, FolderError> {
    Ok(header_tensors(file, header)?.map(|t| t.iter().map(|(_, _, n)| n).sum()))
}

/// What a weights file's numbers take in the memory of a model built from it, from its header
/// alone ([`header_held`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Held {
    /// Once held: the token embedding, the LM head and the MLPs' matrices in the file's own type
    /// (2 bytes for bf16 and f16: `models::stored`), everything else in f32.
    pub kept: u64,
    /// The most one tensor needs beside what is already held while it is read and put in the
    /// lab's layout: a copy in the file's type, then in f32 and transposed (a matrix computed in
    /// f32), or its transposed copy (an MLP's, kept in its type); nothing more for an embedding,
    /// read straight into what is kept.
    pub reading: u64,
}

impl Held {
    /// Two files' (or a folder's): their numbers held together, read one tensor at a time.
    pub fn and(self, other: Held) -> Held {
        Held {
            kept: self.kept.saturating_add(other.kept),
            reading: self.reading.max(other.reading),
        }
    }
}

/// [`Held`] of a weights file, from its header alone; `None` when more bytes are needed.
pub fn header_held(file: &str, header: &[u8]) -> Result<Option<Held>, FolderError> {
    let Some(tensors) = header_tensors(file, header)? else {
        return Ok(None);
    };
    let mut held = Held::default();
    for (name, dtype, count) in &tensors {
        let count = *count as u64;
        let size = match dtype.as_str() {
            "BF16" | "F16" => 2,
            "F64" => 8,
            _ => 4,
        };
        let (kept, reading) = if size == 2 && kept_in_file_type(name) {
            let embedding = ["wte.weight", "embed_tokens.weight", "lm_head.weight"]
                .iter()
                .any(|end| name.ends_with(end));
            (2 * count, if embedding { 0 } else { 2 * count })
        } else {
            (4 * count, count * (size + 4))
        };
        held = held.and(Held { kept, reading });
    }
    Ok(Some(held))
}

/// Whether the loaders keep tensor `name` in its file's number type (`models::gpt2` and
/// `models::llama`: their token embedding, LM head and MLP matrices; tested against
/// `Model::bytes`).
fn kept_in_file_type(name: &str) -> bool {
    [
        "wte.weight",
        "mlp.c_fc.weight",
        "mlp.c_proj.weight",
        "embed_tokens.weight",
        "lm_head.weight",
        "mlp.gate_proj.weight",
        "mlp.up_proj.weight",
        "mlp.down_proj.weight",
    ]
    .iter()
    .any(|end| name.ends_with(end))
}

/// The most bytes a model may need in the page's WebAssembly memory (4 GiB, less a quarter of a
/// GiB for everything else). Its weights files stay outside it (JavaScript's memory), read a
/// tensor at a time.
pub const PAGE_MEMORY: u64 = (4 << 30) - (1 << 28);

/// Refuses a model the page's memory cannot hold ([`Held`]: its numbers held, and its largest
/// tensor read beside them).
pub fn check_page_memory(held: Held) -> Result<(), FolderError> {
    let needed = held.kept.saturating_add(held.reading);
    if needed > PAGE_MEMORY {
        let gb = |b: u64| format!("{:.1}", b as f64 / 1e9);
        return Err(FolderError::PageMemory {
            needed: gb(needed),
            kept: gb(held.kept),
            reading: gb(held.reading),
        });
    }
    Ok(())
}

/// A tensor of a safetensors header: its name, its dtype as the header spells it, and how many
/// numbers it holds.
type HeaderTensor = (String, String, usize);

/// Each tensor of a safetensors header; `None` when more bytes are needed.
fn header_tensors(file: &str, header: &[u8]) -> Result<Option<Vec<HeaderTensor>>, FolderError> {
    let Some(len) = header.get(..8) else {
        return Ok(None);
    };
    let mut le = [0u8; 8];
    le.copy_from_slice(len);
    let len = usize::try_from(u64::from_le_bytes(le))
        .map_err(|_| file_error(file, "its header's length does not fit in memory"))?;
    if len as u64 > MAX_HEADER {
        return Err(file_error(
            file,
            format!("not safetensors: a header of {len} bytes"),
        ));
    }
    let Some(json) = header.get(8..8 + len) else {
        return Ok(None);
    };
    let json: Value = serde_json::from_slice(json).map_err(|e| {
        file_error(
            file,
            format!("not safetensors: its header is not JSON ({e})"),
        )
    })?;
    let fields = json
        .as_object()
        .ok_or_else(|| file_error(file, "not safetensors: its header is not a JSON object"))?;
    let mut tensors = Vec::new();
    for (name, entry) in fields {
        if name == "__metadata__" {
            continue;
        }
        let shape = entry
            .get("shape")
            .and_then(Value::as_array)
            .ok_or_else(|| file_error(file, format!("{name}: no shape")))?;
        let count = shape.iter().try_fold(1usize, |n, d| {
            d.as_u64()
                .and_then(|d| usize::try_from(d).ok())
                .and_then(|d| n.checked_mul(d))
        });
        let count =
            count.ok_or_else(|| file_error(file, format!("{name}: a shape too large to hold")))?;
        let dtype = entry
            .get("dtype")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        tensors.push((name.clone(), dtype, count));
    }
    let total = tensors
        .iter()
        .try_fold(0usize, |t, (_, _, n)| t.checked_add(*n));
    if total.is_none() {
        return Err(file_error(file, "its shapes hold too many numbers"));
    }
    Ok(Some(tensors))
}

/// Refuses a model over [`MAX_PARAMETERS`], with the number.
pub fn check_size(parameters: usize) -> Result<(), FolderError> {
    if parameters > MAX_PARAMETERS {
        return Err(FolderError::TooLarge {
            parameters,
            max: MAX_PARAMETERS,
        });
    }
    Ok(())
}

/// A model folder's files as `models::hf::from_folder_with` reads them: the small ones whole,
/// the weights one tensor at a time ([`ReadAt`]), so that no weights file need be held whole
/// beside the model it makes (in the page, a 1 B model's 2 GB of bf16 would not fit twice).
pub trait FolderFiles {
    /// The file `name`, if the folder has it.
    fn file(&self, name: &str) -> Option<&dyn ReadAt>;

    /// Whether the folder has `name`.
    fn has(&self, name: &str) -> bool {
        self.file(name).is_some()
    }

    /// The whole of a small file (a config, a tokenizer, an index); refused past 1 GB.
    fn whole(&self, name: &str) -> Option<Result<Vec<u8>, FolderError>> {
        let file = self.file(name)?;
        let size = file.size();
        if size > 1 << 30 {
            return Some(Err(file_error(
                name,
                format!("{size} bytes: too large for a JSON file the lab reads whole"),
            )));
        }
        let mut bytes = vec![0u8; size as usize];
        Some(
            file.read_at(0, &mut bytes)
                .map(|()| bytes)
                .map_err(|e| file_error(name, format!("cannot read it: {e}"))),
        )
    }
}

impl<T: ReadAt> FolderFiles for std::collections::BTreeMap<String, T> {
    fn file(&self, name: &str) -> Option<&dyn ReadAt> {
        self.get(name).map(|f| f as &dyn ReadAt)
    }
}

/// A file on disk, read by range (opened at its first read: a folder's other files are never
/// opened).
#[cfg(not(target_arch = "wasm32"))]
pub struct DiskFile {
    path: std::path::PathBuf,
    file: std::sync::Mutex<Option<std::fs::File>>,
    size: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl ReadAt for DiskFile {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> Result<(), String> {
        use std::io::{Read, Seek, SeekFrom};
        let mut opened = self
            .file
            .lock()
            .map_err(|_| "the file's reader failed".to_string())?;
        if opened.is_none() {
            *opened = Some(std::fs::File::open(&self.path).map_err(|e| e.to_string())?);
        }
        let Some(file) = opened.as_mut() else {
            return Err("the file could not be opened".into());
        };
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(out))
            .map_err(|e| e.to_string())
    }
}

/// A folder on disk, its files found (each read by range, as [`FolderFiles`]), after checking
/// that it has a `config.json` and the weights files its index names, and that their headers
/// (read first, each alone) show the model within [`MAX_PARAMETERS`].
#[cfg(not(target_arch = "wasm32"))]
pub fn read_folder(
    path: &std::path::Path,
) -> Result<std::collections::BTreeMap<String, DiskFile>, FolderError> {
    let shown = path.display().to_string();
    let entries = std::fs::read_dir(path)
        .map_err(|e| file_error(&shown, format!("cannot read the folder: {e}")))?;
    let mut files = std::collections::BTreeMap::new();
    for entry in entries.filter_map(Result::ok) {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !entry.path().is_file() {
            continue;
        }
        let size = entry
            .metadata()
            .map_err(|e| file_error(&name, format!("cannot read it: {e}")))?
            .len();
        files.insert(
            name,
            DiskFile {
                path: entry.path(),
                file: std::sync::Mutex::new(None),
                size,
            },
        );
    }
    if !files.has(CONFIG) {
        return Err(file_error(
            CONFIG,
            format!("missing from {shown}: {EXPECTED}"),
        ));
    }
    let index = match files.whole(INDEX) {
        Some(bytes) => Some(String::from_utf8_lossy(&bytes?).into_owned()),
        None => None,
    };
    let shards = weight_files(&|f| files.has(f), index.as_deref())?;
    check_size(folder_parameters(&files, &shards)?)?;
    Ok(files)
}

/// How many numbers the weights files `shards` of `files` hold, from their headers alone.
pub fn folder_parameters(files: &dyn FolderFiles, shards: &[String]) -> Result<usize, FolderError> {
    let mut parameters = 0usize;
    for shard in shards {
        let file = files
            .file(shard)
            .ok_or_else(|| file_error(shard, format!("missing: {EXPECTED}")))?;
        let header = header_bytes(file).map_err(|e| file_error(shard, e.to_string()))?;
        let count = header_parameters(shard, &header)?
            .ok_or_else(|| file_error(shard, "not safetensors: shorter than its header"))?;
        parameters = parameters.saturating_add(count);
    }
    Ok(parameters)
}

/// Whether `tokenizer.json`'s pieces are byte-level (its decoder or pre-tokenizer is
/// `ByteLevel`, as GPT-2's, Llama 3's and Qwen's); refused when it is not a `tokenizers` file.
pub fn tokenizer_is_byte_level(text: &str) -> Result<bool, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if json.get("model").is_none() {
        return Err("not a tokenizers file (no \"model\"); the lab reads tokenizer.json, not tokenizer.model or vocab.txt".into());
    }
    Ok(json.get("decoder").is_some_and(names_byte_level)
        || json.get("pre_tokenizer").is_some_and(names_byte_level))
}

/// Whether a decoder or pre-tokenizer (or a sequence holding one) is byte-level.
fn names_byte_level(value: &Value) -> bool {
    match value {
        Value::Object(fields) => {
            fields.get("type").and_then(Value::as_str) == Some("ByteLevel")
                || fields.values().any(names_byte_level)
        }
        Value::Array(items) => items.iter().any(names_byte_level),
        _ => false,
    }
}
