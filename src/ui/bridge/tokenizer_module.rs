//! The tokenizer module (`crates/attention-tokenizer`, built by Trunk beside the app) loaded the
//! first time a model folder is opened: its no-modules script, then its module, on this page's
//! thread. A model's tokenizer is one `PageTokenizer` of that module, kept in a list on the
//! window and reached synchronously by its index ([`ModuleTokenizer`]), so the core's
//! `TextTokenizer` works on it as on `tokenizers` natively.

use std::cell::RefCell;
use std::sync::Arc;

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use attention_core::models::tokenizer::TextTokenizer;

/// Trunk's names for the module's script and code (next to index.html).
const SCRIPT: &str = "attention-tokenizer.js";
const MODULE: &str = "attention-tokenizer_bg.wasm";
/// Where the page keeps the module's initialised exports and its tokenizers.
const EXPORTS: &str = "__attentionLabTokenizer";
const LIST: &str = "__attentionLabTokenizers";
/// Where a page that carries the module inline puts its bytes (with its init at [`EXPORTS`]).
const INLINE: &str = "__attentionLabTokenizerModule";

thread_local! {
    /// The module's exports once loaded.
    static LOADED: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// A tokenizer of the module, by its index in the window's list.
#[derive(Debug)]
pub struct ModuleTokenizer {
    index: u32,
}

impl ModuleTokenizer {
    /// Calls method `name` of this tokenizer with `argument`.
    fn call(&self, name: &str, argument: &JsValue) -> Option<JsValue> {
        let window = web_sys::window()?;
        let list = js_sys::Reflect::get(&window, &LIST.into()).ok()?;
        let tokenizer = js_sys::Reflect::get_u32(&list, self.index).ok()?;
        let method: js_sys::Function = js_sys::Reflect::get(&tokenizer, &name.into())
            .ok()?
            .dyn_into()
            .ok()?;
        method.call1(&tokenizer, argument).ok()
    }
}

impl TextTokenizer for ModuleTokenizer {
    fn encode(&self, text: &str) -> Vec<(String, u32)> {
        self.call("encode", &text.into())
            .and_then(|json| json.as_string())
            .and_then(|json| serde_json::from_str(&json).ok())
            .unwrap_or_default()
    }

    fn decode(&self, ids: &[u32]) -> Option<String> {
        let ids = js_sys::Uint32Array::from(ids);
        self.call("decode", &ids.into())?.as_string()
    }

    fn vocab(&self) -> Vec<String> {
        self.call("vocab", &JsValue::UNDEFINED)
            .and_then(|json| json.as_string())
            .and_then(|json| serde_json::from_str(&json).ok())
            .unwrap_or_default()
    }
}

/// A tokenizer for `tokenizer.json`'s text, from the module (loaded first if it is not yet);
/// refused with the module's reason.
pub async fn tokenizer(json: &str) -> Result<Arc<dyn TextTokenizer>, String> {
    let exports = exports().await?;
    let class: js_sys::Function = js_sys::Reflect::get(&exports, &"PageTokenizer".into())
        .map_err(describe)?
        .dyn_into()
        .map_err(|_| "the tokenizer module has no PageTokenizer".to_string())?;
    let made =
        js_sys::Reflect::construct(&class, &js_sys::Array::of1(&json.into())).map_err(describe)?;
    let window = web_sys::window().ok_or("no window")?;
    let list = match js_sys::Reflect::get(&window, &LIST.into()) {
        Ok(list) if list.is_object() => list,
        _ => {
            let list: JsValue = js_sys::Array::new().into();
            js_sys::Reflect::set(&window, &LIST.into(), &list).map_err(describe)?;
            list
        }
    };
    let list: js_sys::Array = list
        .dyn_into()
        .map_err(|_| "the tokenizers' list".to_string())?;
    let index = list.push(&made) - 1;
    Ok(Arc::new(ModuleTokenizer { index }))
}

/// The module's exports, loading its script and module the first time.
async fn exports() -> Result<JsValue, String> {
    if let Some(exports) = LOADED.with_borrow(Clone::clone) {
        return Ok(exports);
    }
    let window = web_sys::window().ok_or("no window")?;
    // A page that carries the module inline (the notebook's page, which has no address to load
    // it from) sets its init function and its bytes on the window first.
    let preset = js_sys::Reflect::get(&window, &EXPORTS.into())
        .ok()
        .filter(JsValue::is_function);
    let inline = js_sys::Reflect::get(&window, &INLINE.into())
        .ok()
        .filter(|bytes| !bytes.is_undefined() && !bytes.is_null());
    if let (Some(init), Some(bytes)) = (preset, inline) {
        return start(init.unchecked_into(), bytes).await;
    }
    let document = window.document().ok_or("no document")?;
    let base = document
        .base_uri()
        .ok()
        .flatten()
        .ok_or("the page has no address")?;
    let url = |name: &str| {
        web_sys::Url::new_with_base(name, &base)
            .map(|u| u.href())
            .map_err(describe)
    };
    // The no-modules script declares `wasm_bindgen` in the page's global scope; a second script
    // puts it where the module can be reached from here.
    add_script(&document, &url(SCRIPT)?).await?;
    let source = format!("window.{EXPORTS} = wasm_bindgen;");
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/javascript");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(
        &js_sys::Array::of1(&source.into()),
        &options,
    )
    .map_err(describe)?;
    let shim = web_sys::Url::create_object_url_with_blob(&blob).map_err(describe)?;
    add_script(&document, &shim).await?;
    let _ = web_sys::Url::revoke_object_url(&shim);
    let init: js_sys::Function = js_sys::Reflect::get(&window, &EXPORTS.into())
        .map_err(describe)?
        .dyn_into()
        .map_err(|_| format!("{SCRIPT} did not load"))?;
    start(init, url(MODULE)?.into()).await
}

/// Starts the module from `module` (its address or its bytes) through its `init`.
async fn start(init: js_sys::Function, module: JsValue) -> Result<JsValue, String> {
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &"module_or_path".into(), &module).map_err(describe)?;
    let started: js_sys::Promise = init
        .call1(&JsValue::NULL, &options)
        .map_err(describe)?
        .dyn_into()
        .map_err(|_| format!("{SCRIPT}: no promise"))?;
    JsFuture::from(started)
        .await
        .map_err(|e| format!("{MODULE}: {}", describe(e)))?;
    let exports: JsValue = init.into();
    LOADED.with_borrow_mut(|loaded| *loaded = Some(exports.clone()));
    Ok(exports)
}

/// Adds a classic script to the page and waits until it has run (or failed to load).
async fn add_script(document: &web_sys::Document, src: &str) -> Result<(), String> {
    let script: web_sys::HtmlScriptElement = document
        .create_element("script")
        .map_err(describe)?
        .dyn_into()
        .map_err(|_| "script".to_string())?;
    script.set_src(src);
    let loaded = js_sys::Promise::new(&mut |resolve, reject| {
        script.set_onload(Some(&resolve));
        script.set_onerror(Some(&reject));
    });
    document
        .head()
        .ok_or("no head")?
        .append_child(&script)
        .map_err(describe)?;
    JsFuture::from(loaded)
        .await
        .map(|_| ())
        .map_err(|_| format!("{src} could not be loaded"))
}

fn describe(error: JsValue) -> String {
    error
        .as_string()
        .or_else(|| {
            js_sys::Reflect::get(&error, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
        })
        .unwrap_or_else(|| format!("{error:?}"))
}
