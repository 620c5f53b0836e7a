//! "Open a model folder…": a Hugging Face folder picked (or its files dropped on the page) and
//! run as the lab's model; while its files are read, and why a folder was refused (the model in
//! use stays).

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use crate::ui::state::Lab;
use crate::ui::state::model::{ModelKey, ModelStatus};

/// Opening a folder: nothing yet, reading its files, or refused with the reason.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum OwnStatus {
    #[default]
    Idle,
    Opening,
    Failed(String),
}

/// The page's one opening status (provided by the app beside the lab).
#[derive(Debug, Clone, Copy)]
pub struct OwnModel(pub RwSignal<OwnStatus>);

/// Opens `files` (a picked folder's or dropped files) as the lab's model, saying so in `status`.
pub fn open_files(lab: Lab, status: Option<OwnModel>, files: web_sys::FileList) {
    let mut entries: Vec<(String, JsValue)> = Vec::new();
    for i in 0..files.length() {
        if let Some(file) = files.get(i) {
            // A picked folder's files carry their path inside it; dropped files their name.
            let path = js_sys::Reflect::get(&file, &"webkitRelativePath".into())
                .ok()
                .and_then(|p| p.as_string())
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| file.name());
            entries.push((path, file.into()));
        }
    }
    // The folder's name: the first part of a picked file's path.
    let name = entries
        .iter()
        .find_map(|(path, _)| path.split_once('/').map(|(folder, _)| folder.to_string()));
    if let Some(OwnModel(s)) = status {
        s.set(OwnStatus::Opening);
    }
    leptos::task::spawn_local(async move {
        let result = crate::ui::bridge::own_model::open_entries(lab, name, entries).await;
        if let Some(OwnModel(s)) = status {
            s.set(match result {
                Ok(()) => OwnStatus::Idle,
                Err(why) => OwnStatus::Failed(why),
            });
        }
    });
}

/// Opens the model folder at the address `url` (a link's `model_src=`, the element's
/// `model-src`), saying so in `status`.
pub fn open_address(lab: Lab, status: Option<OwnModel>, url: String) {
    if let Some(OwnModel(s)) = status {
        s.set(OwnStatus::Opening);
    }
    leptos::task::spawn_local(async move {
        let result = crate::ui::bridge::own_model::open_url(lab, url).await;
        if let Some(OwnModel(s)) = status {
            s.set(match result {
                Ok(()) => OwnStatus::Idle,
                Err(why) => OwnStatus::Failed(why),
            });
        }
    });
}

/// Whether dropped files are a model folder's (rather than one's own attention).
pub fn is_model_folder(files: &web_sys::FileList) -> bool {
    (0..files.length())
        .filter_map(|i| files.get(i))
        .any(|f| f.name() == "config.json" || f.name() == "tokenizer.json")
}

/// The picker, its help, and what happened.
#[component]
pub fn OwnModelOpener(input: NodeRef<leptos::html::Input>) -> impl IntoView {
    let lab = expect_context::<Lab>();
    let status = use_context::<OwnModel>();
    let texts = move || lab.lang.get().text().own_model;
    let on_pick = move |ev: web_sys::Event| {
        let Some(target) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        if let Some(files) = target.files() {
            open_files(lab, status, files);
        }
        // The same folder chosen again opens again.
        target.set_value("");
    };
    let state = move || status.map(|OwnModel(s)| s.get()).unwrap_or_default();
    // A folder refused earlier is old news once a model opens (by the API too): say it no more.
    Effect::new(move |_| {
        let opened = lab.model_status.with(|m| {
            matches!(m, ModelStatus::Ready(_)) && matches!(m.key(), Some(ModelKey::Folder(_)))
        });
        if let Some(OwnModel(s)) = status
            && opened
            && matches!(s.get_untracked(), OwnStatus::Failed(_))
        {
            s.set(OwnStatus::Idle);
        }
    });
    // A folder, not files: `webkitdirectory` (every browser has it, under that name).
    Effect::new(move |_| {
        if let Some(input) = input.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    view! {
        <div class="own-model" data-testid="own-model">
            <label class="button file-button">
                {move || texts().open}
                <input type="file" class="visually-hidden" data-testid="own-model-folder"
                    multiple=true node_ref=input on:change=on_pick />
            </label>
            <p class="help block">{move || texts().open_help}</p>
            {move || match state() {
                OwnStatus::Idle => None,
                OwnStatus::Opening => Some(view! {
                    <p class="help block" role="status" data-testid="own-model-opening">{texts().opening}</p>
                }.into_any()),
                OwnStatus::Failed(why) => Some(view! {
                    <p class="help block" role="alert" data-testid="own-model-failed">
                        {texts().failed} " " <code class="error-detail">{why}</code>
                    </p>
                }.into_any()),
            }}
        </div>
    }
}
