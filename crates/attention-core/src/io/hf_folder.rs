//! A Hugging Face model folder's files as the lab reads them, before any tensor is: which
//! weights files hold the model (`model.safetensors`, or the shards `model.safetensors.index.json`
//! names), how many numbers they hold (from their headers alone), whether a `tokenizer.json` is
//! byte-level, and a folder on disk read in that order. `models::hf` builds the model.

use serde_json::Value;

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
        "the model needs about {needed} GB of the page's memory ({files} GB of weights files while they are read, then {kept} GB held as it is computed); a page's WebAssembly memory holds 4 GB: save the model in bf16 (torch_dtype=torch.bfloat16), open a smaller one, or run it with the command line (\"model\": {{\"path\": …}})"
    )]
    PageMemory {
        needed: String,
        files: String,
        kept: String,
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

/// The bytes a weights file's numbers take once a model holds them, from its header alone: the
/// token embedding, the LM head and the MLPs' matrices in the file's own type (2 bytes for bf16
/// and f16: `models::stored`), everything else in f32.
pub fn header_kept_bytes(file: &str, header: &[u8]) -> Result<Option<u64>, FolderError> {
    let Some(tensors) = header_tensors(file, header)? else {
        return Ok(None);
    };
    Ok(Some(
        tensors
            .iter()
            .map(|(name, dtype, count)| {
                let half = matches!(dtype.as_str(), "BF16" | "F16");
                *count as u64
                    * if half && kept_in_file_type(name) {
                        2
                    } else {
                        4
                    }
            })
            .sum(),
    ))
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
/// GiB for everything else): its weights files while they are read, then the model held.
pub const PAGE_MEMORY: u64 = (4 << 30) - (1 << 28);

/// Refuses a model the page's memory cannot hold: `files` bytes of weights files read, and the
/// model's numbers held (`kept`, [`header_kept_bytes`]) beside them while it is built.
pub fn check_page_memory(files: u64, kept: u64) -> Result<(), FolderError> {
    let needed = files.saturating_add(kept);
    if needed > PAGE_MEMORY {
        let gb = |b: u64| format!("{:.1}", b as f64 / 1e9);
        return Err(FolderError::PageMemory {
            needed: gb(needed),
            files: gb(files),
            kept: gb(kept),
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
    if len > 100_000_000 {
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

/// A folder on disk, read as [`from_folder`] wants it: its JSON files, and its weights files
/// after their headers (read first, each alone) show the model within [`MAX_PARAMETERS`].
#[cfg(not(target_arch = "wasm32"))]
pub fn read_folder(
    path: &std::path::Path,
) -> Result<std::collections::BTreeMap<String, Vec<u8>>, FolderError> {
    use std::io::Read;
    let shown = path.display().to_string();
    let entries = std::fs::read_dir(path)
        .map_err(|e| file_error(&shown, format!("cannot read the folder: {e}")))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut files = std::collections::BTreeMap::new();
    let read = |name: &str| {
        std::fs::read(path.join(name)).map_err(|e| file_error(name, format!("cannot read it: {e}")))
    };
    // Small files whole; other formats are named by their presence only.
    for name in &names {
        if name.ends_with(".json") {
            files.insert(name.clone(), read(name)?);
        } else if !name.ends_with(".safetensors") {
            files.insert(name.clone(), Vec::new());
        }
    }
    if !files.contains_key(CONFIG) {
        return Err(file_error(
            CONFIG,
            format!("missing from {shown}: {EXPECTED}"),
        ));
    }
    let index = files
        .get(INDEX)
        .map(|b| String::from_utf8_lossy(b).into_owned());
    let shards = weight_files(&|f| names.iter().any(|n| n == f), index.as_deref())?;
    let mut parameters = 0usize;
    for shard in &shards {
        let mut file = std::fs::File::open(path.join(shard))
            .map_err(|e| file_error(shard, format!("cannot read it: {e}")))?;
        let mut len = [0u8; 8];
        file.read_exact(&mut len)
            .map_err(|_| file_error(shard, "not safetensors: shorter than its header"))?;
        let header_len = u64::from_le_bytes(len).min(100_000_001) as usize;
        let mut header = len.to_vec();
        header.resize(8 + header_len, 0);
        file.read_exact(&mut header[8..])
            .map_err(|_| file_error(shard, "not safetensors: shorter than its header"))?;
        let count = header_parameters(shard, &header)?
            .ok_or_else(|| file_error(shard, "not safetensors: shorter than its header"))?;
        parameters = parameters.saturating_add(count);
    }
    check_size(parameters)?;
    for shard in &shards {
        files.insert(shard.clone(), read(shard)?);
    }
    Ok(files)
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
