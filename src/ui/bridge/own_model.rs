//! A user's own model in the page: `attentionLab.load({model: {files, name?}})`, and the files
//! "Open a model" picks or a folder dropped on the page. The files are a Hugging Face folder's
//! (`config.json`, `model.safetensors` or the index and its shards, `tokenizer.json`), each a
//! string, an ArrayBuffer, a typed array or a Blob (a picked `File`). A weights Blob is read by its
//! header first, and nothing more of any file is read until the headers show the model within
//! the size the lab opens. The files stay in JavaScript's memory, and the model is built from
//! them a tensor at a time, then handed to its worker. Its `tokenizer.json` is read by the
//! tokenizer module
//! ([`super::tokenizer_module`]), the model built by the core (`models::hf::from_folder_with`); a
//! refused folder changes nothing, the last model is kept. Nothing leaves the page. A folder at an
//! address (`model-src`, a link's `model_src=`) is fetched file by file ([`open_url`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::model_files::keep;
use crate::ui::browser::js_bytes::JsBytes;
use crate::ui::state::Lab;
use crate::ui::state::model::{ModelRef, ModelStatus};
use attention_core::api::{MaskRequest, ModelChoice, ModelFolder};
use attention_core::io::hf_folder::{
    CONFIG, FolderFiles, Held, INDEX, TOKENIZER, WEIGHTS, check_page_memory, check_size,
    header_held, header_parameters, weight_files,
};
use attention_core::io::safetensors::{MAX_HEADER, header_bytes};
use attention_core::models::hf::from_folder_with;

/// What a folder is called when nothing names it.
const UNNAMED: &str = "my-model";

/// `attentionLab.load({model: …})`: a promise of `{ok: true}` or `{ok: false, error}`.
pub fn load_model(lab: Lab, model: JsValue) -> js_sys::Promise {
    wasm_bindgen_futures::future_to_promise(async move {
        let result = match open_model(lab, &model).await {
            Ok(()) => serde_json::json!({ "ok": true }),
            Err(error) => serde_json::json!({ "ok": false, "error": error }),
        };
        Ok(js_sys::JSON::parse(&result.to_string()).unwrap_or(JsValue::NULL))
    })
}

/// `{files: {name: bytes, …}, name?}` opened.
async fn open_model(lab: Lab, model: &JsValue) -> Result<(), String> {
    let files = js_sys::Reflect::get(model, &"files".into()).unwrap_or(JsValue::UNDEFINED);
    if !files.is_object() {
        return Err(
            "model.files: expected an object of file name → contents (config.json, model.safetensors, tokenizer.json)".into(),
        );
    }
    let entries: Vec<(String, JsValue)> =
        js_sys::Object::keys(files.unchecked_ref::<js_sys::Object>())
            .iter()
            .filter_map(|key| key.as_string())
            .map(|key| {
                let value =
                    js_sys::Reflect::get(&files, &key.clone().into()).unwrap_or(JsValue::NULL);
                (key, value)
            })
            .collect();
    let name = js_sys::Reflect::get(model, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .filter(|n| !n.trim().is_empty());
    open_entries(lab, name, entries).await
}

/// A folder's files, each `(path, contents)` (a picked folder's paths keep only their last
/// part), opened as the lab's model.
pub async fn open_entries(
    lab: Lab,
    name: Option<String>,
    entries: Vec<(String, JsValue)>,
) -> Result<(), String> {
    let entries: Vec<(String, JsValue)> = entries
        .into_iter()
        .map(|(path, value)| {
            let file = path.rsplit('/').next().unwrap_or(&path).to_string();
            (file, value)
        })
        .collect();
    // Every weights Blob by its header first: the size is checked before anything is read.
    let (mut parameters, mut held) = (0usize, Held::default());
    for (file, value) in &entries {
        if let Some(blob) = value.dyn_ref::<web_sys::Blob>()
            && file.ends_with(".safetensors")
        {
            let (count, file_held) = blob_parameters(file, blob).await?;
            parameters = parameters.saturating_add(count);
            held = held.and(file_held);
        }
    }
    check_size(parameters).map_err(|e| e.to_string())?;
    check_page_memory(held).map_err(|e| e.to_string())?;
    let mut files = BTreeMap::new();
    for (file, value) in &entries {
        files.insert(file.clone(), bytes_of(file, value).await?);
    }
    drop(entries);
    open_read(lab, name.unwrap_or_else(|| UNNAMED.to_string()), files).await?;
    lab.model_src.set(None);
    Ok(())
}

/// A folder's files, in JavaScript's memory, opened as the lab's model named `name`.
async fn open_read(lab: Lab, name: String, files: BTreeMap<String, JsBytes>) -> Result<(), String> {
    // What the page can hold, from the headers, before the model is built (for files given as
    // bytes, or fetched, the first point where their headers are all known).
    let mut held = Held::default();
    for (file, bytes) in files.iter().filter(|(f, _)| f.ends_with(".safetensors")) {
        if let Ok(Some(file_held)) = header_bytes(bytes)
            .map_err(|e| e.to_string())
            .and_then(|header| header_held(file, &header).map_err(|e| e.to_string()))
        {
            held = held.and(file_held);
        }
    }
    check_page_memory(held).map_err(|e| e.to_string())?;
    // The tokenizer from the tokenizer module (loaded now the first time); a folder without
    // tokenizer.json is refused by the core, naming it.
    let made = match files.whole(TOKENIZER) {
        Some(json) => Some(
            super::tokenizer_module::tokenizer(&String::from_utf8_lossy(
                &json.map_err(|e| e.to_string())?,
            ))
            .await,
        ),
        None => None,
    };
    let model = from_folder_with(&name, &files, &|_| match &made {
        Some(made) => made.clone(),
        None => Err("missing".into()),
    })
    .map_err(|e| e.to_string())?;
    let model = Arc::new(model);
    keep(model.clone());
    // Its forward passes run in a worker of their own, which is handed the files.
    lab.model_jobs.open(model.clone(), files);
    lab.show_imported(None);
    lab.model_status.set(ModelStatus::Ready(ModelRef(model)));
    lab.edit(|r| {
        r.model = Some(ModelChoice::Folder(ModelFolder { path: name.clone() }));
        // Its heads start switched on, under the causal mask a language model is trained with.
        r.ablate = None;
        if r.mask.is_none() {
            r.mask = Some(MaskRequest::Causal);
        }
    });
    Ok(())
}

/// A model folder at the address `url` (`model-src`, a link's `model_src=`): its files fetched
/// from beside it (`config.json`, `tokenizer.json`, `tokenizer_config.json` where there is one,
/// `model.safetensors` or the index and the shards it names), each weights file read by its
/// header first and refused before the rest arrives when the model is too large; then opened as
/// a folder picked. A link made afterwards carries the address, so the model opens again there.
pub async fn open_url(lab: Lab, url: String) -> Result<(), String> {
    let base = if url.ends_with('/') {
        url.clone()
    } else {
        format!("{url}/")
    };
    let name = base
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or(UNNAMED)
        .to_string();
    let mut files = BTreeMap::new();
    for file in [CONFIG, TOKENIZER, "tokenizer_config.json"] {
        match fetch_file(&base, file, None).await? {
            Some(bytes) => {
                files.insert(file.to_string(), bytes);
            }
            None if file == "tokenizer_config.json" => {}
            None => return Err(format!("{file}: missing at {base}{file} (404)")),
        }
    }
    let mut counted = 0usize;
    match fetch_file(&base, WEIGHTS, Some(&mut counted)).await? {
        Some(bytes) => {
            files.insert(WEIGHTS.to_string(), bytes);
        }
        None => {
            let index = fetch_file(&base, INDEX, None).await?.ok_or_else(|| {
                format!("{WEIGHTS}: missing at {base}{WEIGHTS} (404), and no {INDEX} beside it")
            })?;
            let text = String::from_utf8_lossy(&index.to_vec()).into_owned();
            let shards = weight_files(&|_| true, Some(&text)).map_err(|e| e.to_string())?;
            files.insert(INDEX.to_string(), index);
            for shard in shards {
                let bytes = fetch_file(&base, &shard, Some(&mut counted))
                    .await?
                    .ok_or_else(|| format!("{shard}: missing at {base}{shard} (404)"))?;
                files.insert(shard, bytes);
            }
        }
    }
    open_read(lab, name, files).await?;
    lab.model_src.set(Some(url));
    Ok(())
}

/// `base` + `file`, fetched; `None` for a 404. A weights file (`counted` given: the parameters
/// of the files before it) is read as a stream and its header checked, with those before it,
/// against the size the lab opens as soon as it has arrived: a model too large is refused
/// before the rest of its bytes are.
async fn fetch_file(
    base: &str,
    file: &str,
    counted: Option<&mut usize>,
) -> Result<Option<JsBytes>, String> {
    let url = format!("{base}{file}");
    let window = web_sys::window().ok_or("no window")?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(&url))
        .await
        .map_err(describe(file))?
        .dyn_into()
        .map_err(|_| format!("{file}: no response from {url}"))?;
    if response.status() == 404 {
        return Ok(None);
    }
    if !response.ok() {
        return Err(format!(
            "{file}: {} {} at {url}",
            response.status(),
            response.status_text()
        ));
    }
    let Some(counted) = counted else {
        let buffer = JsFuture::from(response.array_buffer().map_err(describe(file))?)
            .await
            .map_err(describe(file))?;
        return Ok(Some(JsBytes::owned(buffer.unchecked_ref())));
    };
    let body = response
        .body()
        .ok_or_else(|| format!("{file}: an empty response from {url}"))?;
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    // The chunks stay in JavaScript's memory; only the header is copied here, to be checked.
    let mut chunks: Vec<js_sys::Uint8Array> = Vec::new();
    let (mut total, mut head): (u64, Vec<u8>) = (0, Vec::new());
    let mut checked = false;
    loop {
        let chunk = JsFuture::from(reader.read())
            .await
            .map_err(describe(file))?;
        let done = js_sys::Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            break;
        }
        let value = js_sys::Reflect::get(&chunk, &"value".into()).map_err(describe(file))?;
        let chunk = js_sys::Uint8Array::new(&value);
        total += u64::from(chunk.length());
        if !checked {
            head.extend(chunk.to_vec());
        }
        chunks.push(chunk);
        if !checked && head.len() >= 8 {
            let len = u64::from_le_bytes(head[..8].try_into().unwrap_or([0; 8]));
            let refused = if len > MAX_HEADER {
                Some(format!(
                    "{file}: not safetensors: a header of {len} bytes (at most 100 MB)"
                ))
            } else if head.len() as u64 >= 8 + len {
                checked = true;
                match header_parameters(file, &head) {
                    Ok(Some(count)) => {
                        *counted = counted.saturating_add(count);
                        check_size(*counted).err().map(|e| e.to_string())
                    }
                    Ok(None) => Some(format!("{file}: not safetensors: shorter than its header")),
                    Err(e) => Some(e.to_string()),
                }
            } else {
                None
            };
            if let Some(refused) = refused {
                let _ = reader.cancel();
                return Err(refused);
            }
        }
    }
    if !checked {
        return Err(format!("{file}: not safetensors: shorter than its header"));
    }
    let total = u32::try_from(total)
        .map_err(|_| format!("{file}: {total} bytes; the page reads files of at most 4 GB"))?;
    let whole = js_sys::Uint8Array::new_with_length(total);
    let mut at = 0u32;
    for chunk in chunks {
        whole.set(&chunk, at);
        at += chunk.length();
    }
    Ok(Some(JsBytes::owned(&whole.buffer())))
}

/// How many numbers a safetensors Blob holds, and the memory they take ([`header_held`]), from
/// its first bytes alone.
async fn blob_parameters(file: &str, blob: &web_sys::Blob) -> Result<(usize, Held), String> {
    let head = read_blob(
        file,
        &blob
            .slice_with_f64_and_f64(0.0, 8.0)
            .map_err(describe(file))?,
    )
    .await?;
    let len = head
        .get(..8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .ok_or_else(|| format!("{file}: not safetensors: shorter than its header"))?;
    let end = (8 + len.min(MAX_HEADER + 1)) as f64;
    let mut header = head;
    header.extend(
        read_blob(
            file,
            &blob
                .slice_with_f64_and_f64(8.0, end)
                .map_err(describe(file))?,
        )
        .await?,
    );
    let short = || format!("{file}: not safetensors: shorter than its header");
    let count = header_parameters(file, &header)
        .map_err(|e| e.to_string())?
        .ok_or_else(short)?;
    let held = header_held(file, &header)
        .map_err(|e| e.to_string())?
        .ok_or_else(short)?;
    Ok((count, held))
}

/// A file's contents, in JavaScript's memory and the page's own: a string's UTF-8, an
/// ArrayBuffer's or a typed array's bytes copied, a Blob read.
async fn bytes_of(file: &str, value: &JsValue) -> Result<JsBytes, String> {
    // The page reads a file through a typed array, whose length is at most 4 GB.
    let length = match value.dyn_ref::<web_sys::Blob>() {
        Some(blob) => Some(blob.size()),
        None => js_sys::Reflect::get(value, &"byteLength".into())
            .ok()
            .and_then(|n| n.as_f64()),
    };
    if let Some(length) = length.filter(|&n| n > f64::from(u32::MAX)) {
        return Err(format!(
            "{file}: {length} bytes; the page reads files of at most 4 GB (split the weights into shards: save_pretrained's max_shard_size)"
        ));
    }
    if let Some(text) = value.as_string() {
        return Ok(JsBytes::from_slice(text.as_bytes()));
    }
    if let Some(buffer) = value.dyn_ref::<js_sys::ArrayBuffer>() {
        return Ok(JsBytes::copied(&js_sys::Uint8Array::new(buffer)));
    }
    if js_sys::ArrayBuffer::is_view(value) {
        let view: &js_sys::Uint8Array = value.unchecked_ref();
        let bytes = js_sys::Uint8Array::new_with_byte_offset_and_length(
            &view.buffer(),
            view.byte_offset(),
            js_sys::Reflect::get(value, &"byteLength".into())
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0) as u32,
        );
        return Ok(JsBytes::copied(&bytes));
    }
    if let Some(blob) = value.dyn_ref::<web_sys::Blob>() {
        let buffer = JsFuture::from(blob.array_buffer())
            .await
            .map_err(describe(file))?;
        return Ok(JsBytes::owned(buffer.unchecked_ref()));
    }
    Err(format!(
        "{file}: expected a string, an ArrayBuffer, a Uint8Array or a Blob"
    ))
}

async fn read_blob(file: &str, blob: &web_sys::Blob) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(blob.array_buffer())
        .await
        .map_err(describe(file))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

fn describe(file: &str) -> impl Fn(JsValue) -> String + '_ {
    move |error| {
        format!(
            "{file}: could not be read ({})",
            error.as_string().unwrap_or_else(|| format!("{error:?}"))
        )
    }
}
