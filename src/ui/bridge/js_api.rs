//! `window.attentionLab`: a small JavaScript API for embedding hosts and tests.
//!
//! - `set(params)`: applies any subset of the parameters (named as in the trace CLI's input).
//!   Invalid values are refused with a visible message and leave the state as it was.
//!   Returns `{ok: true}` or `{ok: false, error}`.
//! - `state()`: the current parameters plus `tokens`, `backend`, `compute_ms`, `max_flash_diff`.
//! - `trace()`: the last valid trace in the CLI's JSON shape, or null; with a user's own file
//!   open, its numbers in the trace's shape (`source: "imported"`).
//! - `load(data)`: opens a user's own attention: an object as in the JSON format (`{attention,
//!   tokens}` or `{q, k, v, tokens}`), or `{format, bytes: ArrayBuffer, tokens?}` for a file's
//!   bytes, either with `batch?`, `hide_special?` and `mean?` ("heads" | "layers"); `load(null)` goes back to the lab's own numbers. Returns `{ok: true}` or `{ok:
//!   false, error}`; a refused file changes nothing. `load({model: {files: {"config.json": …,
//!   "model.safetensors": …, "tokenizer.json": …}, name?}})` opens a Hugging Face model folder
//!   (each file a string, an ArrayBuffer, a Uint8Array or a Blob) and returns a promise of the
//!   same; `state().source` is then `"model"`.

use leptos::prelude::*;
use serde_json::{Map, Value, json};
use wasm_bindgen::prelude::Closure;
use wasm_bindgen::{JsCast, JsValue};

use super::files::{self, refuse};
use crate::ui::state::imported::Refusal;
use attention_core::io::import::Format;

use super::runs::{composition_in_page, explain_in_page, generate_in_page};
use super::state_json::state_json;
use crate::ui::i18n::Lang;
use crate::ui::logic::colormap::ScaleMode;
use crate::ui::logic::element::{VIEW_SETTINGS, cleared_params};
use crate::ui::logic::link::{decode, parse_query};
use crate::ui::logic::notice::{ApiError, Notice};
use crate::ui::logic::theme::Theme;
use crate::ui::state::Lab;
use crate::ui::state::model::trained_request;
use attention_core::api::{nulled_fields, parse_request};
use attention_core::models::Shipped;
use attention_core::teaching::Chapter;

/// Whether `name` is a view setting a host may send beside the parameters (`head`, `step` and
/// `layer` count from 1, as the page and its links do).
fn is_view_setting(name: &str) -> bool {
    VIEW_SETTINGS.iter().any(|s| s.name == name)
}

/// Applies a JSON object of parameters and view settings (as `set()` and the embedding protocol
/// receive them). Everything is checked first; on a refusal nothing changes.
pub fn apply_message(lab: Lab, params: &Value) -> Result<(), ApiError> {
    let Value::Object(fields) = params else {
        return Err(ApiError::NotAnObject);
    };
    let (view, request): (Map<String, Value>, Map<String, Value>) = fields
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .partition(|(k, _)| is_view_setting(k));
    let bad = ApiError::BadView;
    // Counted from 1, as the page shows them; kept from 0 inside.
    let counted = |name: &'static str| {
        view.get(name)
            .map(|v| {
                v.as_u64()
                    .filter(|&n| n >= 1)
                    .map(|n| n as usize - 1)
                    .ok_or_else(|| bad(name))
            })
            .transpose()
    };
    let head = counted("head")?;
    let step = counted("step")?;
    let layer = counted("layer")?;
    let scale = view
        .get("scale")
        .map(|v| {
            v.as_str()
                .and_then(ScaleMode::from_name)
                .ok_or(bad("scale"))
        })
        .transpose()?;
    let new_lang = view
        .get("lang")
        .map(|v| v.as_str().and_then(Lang::from_name).ok_or(bad("lang")))
        .transpose()?;
    let theme = view
        .get("theme")
        .map(|v| v.as_str().and_then(Theme::from_name).ok_or(bad("theme")))
        .transpose()?;
    let name_ok =
        |s: &str| s.len() <= 40 && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let view_name = view
        .get("view")
        .map(|v| {
            v.as_str()
                .filter(|s| name_ok(s))
                .map(String::from)
                .ok_or_else(|| bad("view"))
        })
        .transpose()?;
    let panels = view
        .get("panels")
        .map(|v| {
            let list: Option<Vec<String>> = v.as_array().map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().filter(|s| name_ok(s)).map(String::from))
                    .collect()
            });
            list.filter(|l| l.len() == v.as_array().map_or(0, Vec::len))
                .ok_or_else(|| bad("panels"))
        })
        .transpose()?;
    // A chapter's id opens the Learn mode at that chapter; null (or "") goes back to the lab.
    let lesson = view
        .get("lesson")
        .map(|v| match v {
            Value::Null => Ok(None),
            Value::String(s) if s.is_empty() => Ok(None),
            Value::String(s) => Chapter::from_id(s).map(Some).ok_or(bad("lesson")),
            _ => Err(bad("lesson")),
        })
        .transpose()?;
    if !request.is_empty() {
        apply(lab, &Value::Object(request).to_string())?;
    }
    if let Some(lesson) = lesson {
        lab.lesson.set(lesson);
    }
    if let Some(head) = head {
        lab.head.set(head);
    }
    if let Some(step) = step {
        lab.flash_step.set(step);
    }
    if let Some(layer) = layer {
        lab.layer.set(layer);
    }
    if let Some(lang) = new_lang {
        lab.switch_language(lang);
    }
    if let Some(scale) = scale {
        lab.scale_mode.set(scale);
    }
    if let Some(theme) = theme {
        lab.theme.set(theme);
    }
    if let Some(view_name) = view_name {
        lab.view.set(Some(view_name));
    }
    if let Some(panels) = panels {
        lab.embed.update(|embed| {
            if let Some(embed) = embed {
                embed.panels = panels;
            }
        });
    }
    Ok(())
}

/// Applies a link's query (how the course element sends its attributes): its request fields
/// and the view settings it names, as `set()` applies them (refused whole, changing nothing,
/// when they cannot work); what the link itself gets wrong is refused too, in the reader's
/// language.
///
/// `cleared` names the parameters the element no longer sets (an attribute removed): what they
/// set goes back to its default ([`cleared_params`]).
pub fn apply_link(lab: Lab, query: &str, cleared: &[String]) -> Result<(), String> {
    let lang = lab.lang.get_untracked();
    let (link, notices) = parse_query(query);
    if !notices.is_empty() {
        let sentences: Vec<String> = notices.iter().map(|n| n.describe(lang)).collect();
        return Err(lang.join_sentences(&sentences));
    }
    let names: Vec<String> = query
        .split('&')
        .filter_map(|pair| decode(pair.split('=').next().unwrap_or(pair)))
        .collect();
    let given = |name: &str| names.iter().any(|n| n == name);
    let mut params = match serde_json::to_value(&link.request) {
        Ok(Value::Object(fields)) => fields,
        _ => Map::new(),
    };
    let view = &link.view;
    let counted = |n: usize| Value::from(n + 1);
    let settings: [(&str, Option<Value>); 9] = [
        ("head", Some(counted(view.head))),
        ("step", Some(counted(view.step))),
        ("layer", Some(counted(view.layer))),
        ("scale", Some(view.scale.name().into())),
        ("view", view.view.clone().map(Value::from)),
        (
            "lesson",
            Some(view.lesson.map_or(Value::Null, |c| c.id().into())),
        ),
        ("lang", view.lang.map(|l| l.name().into())),
        ("theme", Some(view.theme.name().into())),
        (
            "panels",
            names.iter().position(|n| n == "panels").and_then(|_| {
                let text = query
                    .split('&')
                    .find_map(|p| p.strip_prefix("panels="))
                    .and_then(decode)?;
                Some(
                    text.split(',')
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .collect(),
                )
            }),
        ),
    ];
    for (name, value) in settings {
        if given(name)
            && let Some(value) = value
        {
            params.insert(name.into(), value);
        }
    }
    for (name, value) in cleared_params(&names, cleared) {
        params.insert(name.into(), value);
    }
    apply_message(lab, &Value::Object(params)).map_err(|e| e.message(lang))
}

/// Applies `update` if the result is computable; otherwise returns why and changes nothing.
pub fn apply(lab: Lab, update: &str) -> Result<(), ApiError> {
    let refuse = ApiError::Request;
    let cleared = nulled_fields(update);
    let update = parse_request(update).map_err(refuse)?;
    let merged = lab
        .request
        .get_untracked()
        .merged_clearing(&update, &cleared);
    if merged.is_trained() {
        // The trained model reads the sentence, the mask, the temperature and the tiles; a
        // setting it fixes is refused, naming it.
        if let Some(field) = update.fixed_by(merged.shipped_model().unwrap_or(Shipped::Gpt2)) {
            return Err(ApiError::Request(
                attention_core::api::RequestError::FixedByModel { field },
            ));
        }
        trained_request(&merged).trained_run().map_err(refuse)?;
    } else {
        let previous = lab.shown.get_untracked();
        crate::ui::state::validate(&merged, previous.as_ref().map(|t| &t.0.config))
            .map_err(refuse)?;
    }
    lab.change_clearing(update, &cleared);
    Ok(())
}

/// Installs `window.attentionLab` for this lab (the last mounted lab wins).
pub fn install(lab: Lab) {
    #[cfg(target_arch = "wasm32")]
    if let Err(error) = install_on_window(lab) {
        web_sys::console::error_2(&"attentionLab: could not install the API".into(), &error);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = lab;
}

fn parse(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap_or(JsValue::NULL)
}

/// `attentionLab.load(data)` (and the embedding's `attention-lab:load`): see the module's
/// documentation. `name` is what the page calls the data (the API's name when `None`).
pub fn load_data(lab: Lab, data: &JsValue, name: Option<&str>) -> Result<(), String> {
    let texts = lab.lang.get_untracked().import();
    if data.is_null() || data.is_undefined() {
        lab.show_imported(None);
        return Ok(());
    }
    let field = |name: &str| js_sys::Reflect::get(data, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let bytes = field("bytes");
    // A name the data gives itself (`{name: "run 3", …}`), else the caller's, else the API's.
    let own_name = field("name").as_string().filter(|n| !n.trim().is_empty());
    let name = name.or(own_name.as_deref()).unwrap_or(texts.api_name);
    if bytes.is_undefined() {
        // An object as in the JSON format.
        let text = js_sys::JSON::stringify(data)
            .map(String::from)
            .map_err(|_| {
                refuse(
                    lab,
                    name,
                    Refusal::Unreadable("JSON.stringify failed".into()),
                )
            })?;
        files::open(lab, name, Some(Format::Json), text.as_bytes(), None, None)?;
        return files::look(lab, data, name);
    }
    let bytes = if let Some(buffer) = bytes.dyn_ref::<js_sys::ArrayBuffer>() {
        js_sys::Uint8Array::new(buffer).to_vec()
    } else if js_sys::ArrayBuffer::is_view(&bytes) {
        js_sys::Uint8Array::new_with_byte_offset_and_length(
            &js_sys::Reflect::get(&bytes, &"buffer".into()).unwrap_or(JsValue::UNDEFINED),
            js_sys::Reflect::get(&bytes, &"byteOffset".into())
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0) as u32,
            js_sys::Reflect::get(&bytes, &"byteLength".into())
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0) as u32,
        )
        .to_vec()
    } else {
        return Err(refuse(
            lab,
            name,
            Refusal::Unreadable("bytes: expected an ArrayBuffer or a typed array".into()),
        ));
    };
    let format = match field("format").as_string() {
        None => None,
        Some(f) => {
            Some(Format::from_name(&f).ok_or_else(|| refuse(lab, name, Refusal::UnknownFormat))?)
        }
    };
    let tokens_value = field("tokens");
    let tokens = if tokens_value.is_undefined() || tokens_value.is_null() {
        None
    } else {
        let text = js_sys::JSON::stringify(&tokens_value)
            .map(String::from)
            .unwrap_or_default();
        Some(serde_json::from_str::<Vec<String>>(&text).map_err(|_| {
            refuse(
                lab,
                name,
                Refusal::Unreadable("tokens: expected a list of strings".into()),
            )
        })?)
    };
    let batch = files::batch_of(lab, data, name)?;
    files::open(lab, name, format, &bytes, tokens, batch)?;
    files::look(lab, data, name)
}

/// `attentionLab.kernelBench({n, d, block, runs})`: the benchmark harness of issue 24's kernel
/// measure (`tests/e2e/kernel_bench.mjs`) on the page's thread, in the app's module (simd128):
/// [`attention_core::api::kernel_bench`]. It blocks the page while it runs: a measuring tool, not a
/// view. `attentionLab.workerKernelBench` runs the same in a worker of either build.
fn kernel_bench(options: &str) -> serde_json::Value {
    let options = serde_json::from_str(options).unwrap_or(json!({}));
    attention_core::api::kernel_bench(&options, &crate::ui::browser::clock::now_ms)
}

/// `attentionLab.workerKernelBench({n, d, block, runs, build})`: the same measure in a fresh Web
/// Worker of `build` (`"relaxed-simd"` or `"simd128"`; the page's own choice,
/// `attentionLab.workerBuild()`, when absent). A Promise of the result, with `build` added; a
/// build the browser cannot load is refused. The worker's JSON is parsed by the browser, not
/// by serde_json, whose float parsing is not exact to the last bit: two builds' numbers compare
/// exactly.
async fn worker_kernel_bench(options: String) -> JsValue {
    use crate::ui::browser::worker::{Build, kernel_bench};
    let refuse = |error: &str| parse(&json!({"ok": false, "error": error}).to_string());
    let parsed: Value = serde_json::from_str(&options).unwrap_or(json!({}));
    let build = match parsed.get("build").and_then(Value::as_str) {
        None => Build::chosen(),
        Some(name) => match Build::from_name(name) {
            Some(build) => build,
            None => return refuse(r#"build: "relaxed-simd" or "simd128""#),
        },
    };
    if build == Build::Relaxed && Build::chosen() != Build::Relaxed {
        return refuse("this browser does not support relaxed SIMD");
    }
    let result = parse(&kernel_bench(build, options).await);
    if !result.is_object() {
        return refuse("the worker's answer was not JSON");
    }
    let _ = js_sys::Reflect::set(&result, &"build".into(), &build.name().into());
    result
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn install_on_window(lab: Lab) -> Result<(), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let api = js_sys::Object::new();
    let set = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |params: JsValue| {
        let text = js_sys::JSON::stringify(&params)
            .map(String::from)
            .unwrap_or_default();
        let parsed = serde_json::from_str::<Value>(&text).unwrap_or(Value::Null);
        let result = match apply_message(lab, &parsed) {
            Ok(()) => json!({ "ok": true }),
            Err(error) => {
                let message = error.message(lab.lang.get_untracked());
                lab.notice.set(Some(Notice::Refused(error)));
                json!({ "ok": false, "error": message })
            }
        };
        parse(&result.to_string())
    });
    let state = Closure::<dyn Fn() -> JsValue>::new(move || parse(&state_json(lab)));
    let trace = Closure::<dyn Fn() -> JsValue>::new(move || {
        if lab.imported.with_untracked(Option::is_some) {
            return match lab.imported_run.get_untracked() {
                Some(Ok(run)) => parse(
                    &attention_core::api::import::run_json(&run.0, lab.layer.get_untracked())
                        .to_string(),
                ),
                _ => JsValue::NULL,
            };
        }
        match lab.shown.get_untracked().map(|t| t.to_json()) {
            Some(Ok(json)) => parse(&json),
            _ => JsValue::NULL,
        }
    });
    let load = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |data: JsValue| {
        // `{model: {files, name?}}`: a Hugging Face folder, read asynchronously (a promise).
        let model = if data.is_object() {
            js_sys::Reflect::get(&data, &"model".into()).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        };
        if model.is_object() {
            return super::own_model::load_model(lab, model).into();
        }
        let result = match load_data(lab, &data, None) {
            Ok(()) => json!({ "ok": true }),
            Err(message) => json!({ "ok": false, "error": message }),
        };
        parse(&result.to_string())
    });
    let generate = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |options: JsValue| {
        let text = js_sys::JSON::stringify(&options)
            .map(String::from)
            .unwrap_or_default();
        generate_in_page(lab, &text).into()
    });
    let explain = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |options: JsValue| {
        let text = js_sys::JSON::stringify(&options)
            .map(String::from)
            .unwrap_or_default();
        let result = explain_in_page(lab, &text)
            .unwrap_or_else(|error| json!({ "ok": false, "error": error }));
        parse(&result.to_string())
    });
    let composition = Closure::<dyn Fn() -> JsValue>::new(move || composition_in_page(lab).into());
    let kernel = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |options: JsValue| {
        let text = js_sys::JSON::stringify(&options)
            .map(String::from)
            .unwrap_or_default();
        parse(&kernel_bench(&text).to_string())
    });
    let worker_kernel = Closure::<dyn Fn(JsValue) -> JsValue>::new(move |options: JsValue| {
        let text = js_sys::JSON::stringify(&options)
            .map(String::from)
            .unwrap_or_default();
        wasm_bindgen_futures::future_to_promise(async move { Ok(worker_kernel_bench(text).await) })
            .into()
    });
    let worker_build = Closure::<dyn Fn() -> JsValue>::new(|| {
        crate::ui::browser::worker::Build::chosen().name().into()
    });
    js_sys::Reflect::set(&api, &"kernelBench".into(), &kernel.into_js_value())?;
    js_sys::Reflect::set(
        &api,
        &"workerKernelBench".into(),
        &worker_kernel.into_js_value(),
    )?;
    js_sys::Reflect::set(&api, &"workerBuild".into(), &worker_build.into_js_value())?;
    js_sys::Reflect::set(&api, &"generate".into(), &generate.into_js_value())?;
    js_sys::Reflect::set(&api, &"explain".into(), &explain.into_js_value())?;
    js_sys::Reflect::set(&api, &"composition".into(), &composition.into_js_value())?;
    js_sys::Reflect::set(&api, &"load".into(), &load.into_js_value())?;
    js_sys::Reflect::set(&api, &"set".into(), &set.into_js_value())?;
    js_sys::Reflect::set(&api, &"state".into(), &state.into_js_value())?;
    js_sys::Reflect::set(&api, &"trace".into(), &trace.into_js_value())?;
    // For tests of the recovery path: lose the GPU device as a driver reset would, and retry.
    let lose = Closure::<dyn Fn()>::new(move || lab.jobs.simulate_loss());
    let retry = Closure::<dyn Fn()>::new(move || lab.jobs.probe(lab.gpu));
    js_sys::Reflect::set(&api, &"simulateGpuLoss".into(), &lose.into_js_value())?;
    js_sys::Reflect::set(&api, &"retryGpu".into(), &retry.into_js_value())?;
    js_sys::Reflect::set(&window, &"attentionLab".into(), &api)?;
    Ok(())
}
