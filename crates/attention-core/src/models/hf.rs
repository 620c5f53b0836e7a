//! A Hugging Face model folder, as `save_pretrained` writes it and the Hub serves it:
//! `config.json`, `model.safetensors` (or `model.safetensors.index.json` and its shards),
//! `tokenizer.json`. Layouts: GPT-2 (`GPT2LMHeadModel`), Llama (`LlamaForCausalLM`), Mistral (its
//! sliding window), Qwen2 (biases on q, k, v), Qwen3 (QK-norm). Weights are read in their file's
//! dtype (f32, f16, bf16) and computed in f32. What the lab cannot run is refused naming the file
//! and the field or tensor.

use std::sync::Arc;

use crate::io::hf_folder::{
    self, CONFIG, EXPECTED, FolderFiles, INDEX, TOKENIZER, check_size, folder_parameters,
    weight_files,
};
use crate::io::model_files::ConfigJson;
use crate::io::safetensors::{ReadAt, SafetensorsHeader, header_bytes};
use crate::models::config::ModelConfig;
use crate::models::model::{Mlp, Model};
use crate::models::tensors::{ModelError, Numbers};
use crate::models::tokenizer::{TextTokenizer, Tokenizer};
use crate::models::{gemma, gpt2, llama, qwen3_next};

fn file_error(file: &str, message: impl Into<String>) -> ModelError {
    hf_folder::file_error(file, message).into()
}

/// What reads a `tokenizer.json`'s text into a tokenizer (or says why it cannot).
pub type MakeTokenizer<'a> = dyn Fn(&str) -> Result<Arc<dyn TextTokenizer>, String> + 'a;

/// A model from a folder's files (a map of name → bytes, [`hf_folder::read_folder`]'s files on
/// disk), named `name`, its `tokenizer.json` read by Hugging Face's `tokenizers`
/// ([`HfTokenizer`]).
#[cfg(feature = "hf")]
pub fn from_folder(name: &str, files: &dyn FolderFiles) -> Result<Model, ModelError> {
    from_folder_with(name, files, &|json| {
        let tokenizer = crate::models::tokenizer::HfTokenizer::parse(json)?;
        Ok(Arc::new(tokenizer) as Arc<dyn TextTokenizer>)
    })
}

/// A model from a folder's files, named `name`, its `tokenizer.json` read by `tokenizer` (the
/// page's tokenizer module; natively [`from_folder`]). Nothing but the files is read; the
/// weights' headers are checked against [`hf_folder::MAX_PARAMETERS`] before any tensor is, and
/// each tensor is then read by itself, so no weights file is ever held whole.
pub fn from_folder_with(
    name: &str,
    files: &dyn FolderFiles,
    tokenizer: &MakeTokenizer,
) -> Result<Model, ModelError> {
    let text = |file: &str| -> Result<String, ModelError> {
        let bytes = files
            .whole(file)
            .ok_or_else(|| file_error(file, format!("missing: {EXPECTED}")))??;
        String::from_utf8(bytes).map_err(|_| file_error(file, "not UTF-8 text"))
    };
    let json = ConfigJson::parse(&text(CONFIG)?).map_err(|e| file_error(CONFIG, e))?;
    let config = layout_config(&json)?;
    if !files.has(TOKENIZER) {
        let other = ["tokenizer.model", "vocab.txt", "vocab.json", "merges.txt"]
            .into_iter()
            .find(|f| files.has(f));
        return Err(match other {
            Some(other) => file_error(
                TOKENIZER,
                format!(
                    "missing: the lab reads a fast tokenizer's tokenizer.json, not {other} (save it with a PreTrainedTokenizerFast, or convert it with transformers' AutoTokenizer)"
                ),
            ),
            None => file_error(TOKENIZER, format!("missing: {EXPECTED}")),
        });
    }
    let tokenizer = tokenizer(&text(TOKENIZER)?).map_err(|e| file_error(TOKENIZER, e))?;
    let index = match files.has(INDEX) {
        true => Some(text(INDEX)?),
        false => None,
    };
    let shards = weight_files(&|f| files.has(f), index.as_deref())?;
    check_size(folder_parameters(files, &shards)?)?;
    let mut parsed: Vec<(&str, &dyn ReadAt, SafetensorsHeader)> = Vec::new();
    for shard in &shards {
        let Some(file) = files.file(shard) else {
            return Err(file_error(shard, format!("missing: {EXPECTED}")));
        };
        let header = header_bytes(file)
            .and_then(|bytes| SafetensorsHeader::parse(&bytes, file.size()))
            .map_err(|e| file_error(shard, e.to_string()))?;
        parsed.push((shard.as_str(), file, header));
    }
    // GPT-2's names are `h.0.…` on the Hub and `transformer.h.0.…` from save_pretrained.
    let prefixes: &[&str] = if config.model_type == "gpt2" {
        &["", "transformer."]
    } else {
        &[""]
    };
    let mut tensor = |name: &str, shape: &[usize]| -> Result<Numbers, ModelError> {
        for prefix in prefixes {
            let full = format!("{prefix}{name}");
            for (file, bytes, header) in &parsed {
                let Some(raw) = header.numbers(*bytes, &full) else {
                    continue;
                };
                let (found, numbers) = raw.map_err(|e| file_error(file, e.to_string()))?;
                if found != shape {
                    return Err(ModelError::Shape {
                        name: full,
                        expected: shape.to_vec(),
                        found,
                    });
                }
                if let Some(bad) = numbers.first_not_finite() {
                    return Err(file_error(
                        file,
                        format!("{full} holds {bad}: the lab computes only finite weights"),
                    ));
                }
                return Ok(numbers);
            }
        }
        Err(ModelError::Missing(name.to_string()))
    };
    let mut vocab = tokenizer.vocab();
    if vocab.len() > config.vocab_size {
        return Err(file_error(
            TOKENIZER,
            format!(
                "{} tokens, more than config.json's vocab_size {}",
                vocab.len(),
                config.vocab_size
            ),
        ));
    }
    // Embedding rows past the tokenizer's last id (padding to a round size) read as unused.
    vocab.extend((vocab.len()..config.vocab_size).map(|id| format!("<id {id}>")));
    let tied = json
        .bool("tie_word_embeddings")
        .unwrap_or(config.model_type == "gpt2" || config.is_gemma());
    let parts = if config.model_type == "gpt2" {
        gpt2::load(&config, &vocab, &mut tensor)?.map_mlp(Mlp::Gelu)
    } else if config.model_type == qwen3_next::MODEL_TYPE {
        qwen3_next::load(&config, &vocab, tied, &mut tensor)?.map_mlp(Mlp::SwiGlu)
    } else {
        llama::load(&config, &vocab, tied, &mut tensor)?.map_mlp(Mlp::SwiGlu)
    };
    let mut model = Model::assemble(config, vocab, parts);
    model.tokenizer = Tokenizer::Hf(tokenizer);
    model.name = name.to_string();
    Ok(model)
}

/// The layout's numbers from `config.json`, by its `model_type`.
fn layout_config(json: &ConfigJson) -> Result<ModelConfig, ModelError> {
    let config = match json.str("model_type") {
        Some("gpt2") => gpt2::config(json),
        Some(t) if llama::MODEL_TYPES.contains(&t) => llama::config(json),
        Some(t) if gemma::MODEL_TYPES.contains(&t) => gemma::config(json),
        Some(qwen3_next::MODEL_TYPE) => qwen3_next::config(json),
        Some(other) => Err(ModelError::Config(format!(
            "model_type {other:?}: the lab runs \"gpt2\", \"llama\", \"mistral\", \"qwen2\", \"qwen3\", \"qwen3_next\", \"gemma2\" and \"gemma3_text\" (decoder-only language models)"
        ))),
        None => Err(ModelError::Config(
            "no model_type: the lab reads it to know the layout".into(),
        )),
    }?;
    if let Some(first) = json.first_str("architectures")
        && !(first.ends_with("ForCausalLM") || first.ends_with("LMHeadModel"))
    {
        return Err(ModelError::Config(format!(
            "architectures {first:?}: the lab runs language models (…ForCausalLM, GPT2LMHeadModel)"
        )));
    }
    Ok(config)
}
