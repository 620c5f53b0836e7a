//! The layering rules of ARCHITECTURE.md: which crate may depend on which (read from the
//! manifests); that no file uses itself through others (no import circles, in any crate); that
//! each folder of the core and each layer of the UI uses only those before it (read from the
//! source text, [`graph`]); and the house rules on the UI's files (their length, their language).

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).
#![cfg(not(target_arch = "wasm32"))]

#[path = "architecture/graph.rs"]
mod graph;

use graph::{Crate, Edge};

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push((
                path.display().to_string(),
                fs::read_to_string(&path).unwrap(),
            ));
        }
    }
    files
}

/// Fails if any line of code (comments aside) under `dir` mentions `name::` for a forbidden
/// name, skipping the files `exempt` accepts.
fn assert_no_mentions(dir: &str, forbidden: &[&str], exempt: impl Fn(&str) -> bool) {
    let files = sources(&root().join(dir));
    assert!(!files.is_empty(), "no sources under {dir}");
    for (path, text) in files {
        if exempt(&path) {
            continue;
        }
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for name in forbidden {
                assert!(
                    !code.contains(&format!("{name}::")),
                    "{path}:{}: {dir} must not use `{name}`: {line}",
                    number + 1
                );
            }
        }
    }
}

/// The names of the packages a manifest depends on, for building (not for its tests): every
/// `[dependencies]` and `[target.….dependencies]` table, `[dev-dependencies]` left out.
fn normal_dependencies(manifest: &str) -> Vec<String> {
    let text = fs::read_to_string(root().join(manifest)).unwrap();
    let mut in_dependencies = false;
    let mut names = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            let table = line.trim_matches(['[', ']']);
            in_dependencies = table == "dependencies" || table.ends_with(".dependencies");
            continue;
        }
        if in_dependencies && let Some((name, _)) = line.split_once('=') {
            let name = name.trim();
            if !name.is_empty() && !name.starts_with('#') {
                names.push(name.to_string());
            }
        }
    }
    names
}

fn assert_no_dependency(manifest: &str, forbidden: &[&str]) {
    let names = normal_dependencies(manifest);
    assert!(!names.is_empty(), "{manifest}: no dependencies found");
    for name in forbidden {
        assert!(
            !names.iter().any(|n| n == name),
            "{manifest} must not depend on {name}"
        );
    }
}

const WEB: [&str; 6] = [
    "leptos",
    "web-sys",
    "js-sys",
    "wasm-bindgen",
    "wasm-bindgen-futures",
    "plotters-canvas",
];

#[test]
fn the_core_crate_depends_on_no_browser_gpu_or_ui_crate() {
    let mut forbidden = WEB.to_vec();
    forbidden.extend(["wgpu", "attention-gpu", "attention-lab", "plotters"]);
    assert_no_dependency("crates/attention-core/Cargo.toml", &forbidden);
}

#[test]
fn the_gpu_crate_depends_on_the_core_and_not_on_the_ui() {
    assert!(
        normal_dependencies("crates/attention-gpu/Cargo.toml").contains(&"attention-core".into())
    );
    assert_no_dependency(
        "crates/attention-gpu/Cargo.toml",
        &["leptos", "attention-lab", "plotters", "plotters-canvas"],
    );
}

#[test]
fn the_cli_builds_no_web_app() {
    let mut forbidden = WEB.to_vec();
    forbidden.push("attention-lab");
    assert_no_dependency("crates/attention-trace/Cargo.toml", &forbidden);
}

/// The worker is the engine in another thread: the core, the GPU backend (the model worker
/// computes a folder's model's attention on the WebGPU it finds) and the glue to receive and
/// answer messages, never the UI (benches/README.md measures what the GPU backend costs its
/// module).
#[test]
fn the_worker_links_the_core_and_no_ui() {
    let manifest = "crates/attention-worker/Cargo.toml";
    let linked = normal_dependencies(manifest);
    assert!(linked.contains(&"attention-core".into()));
    assert!(linked.contains(&"attention-gpu".into()));
    assert_no_dependency(manifest, &["leptos", "attention-lab", "plotters"]);
}

/// The page's own module and its workers never link Hugging Face's `tokenizers` (0.8 MB gzip of
/// download): their normal dependency on the core leaves out its default `hf` feature; a model
/// folder's tokenizer is the tokenizer module's (crates/attention-tokenizer), loaded only when one
/// is opened.
#[test]
fn the_page_downloads_no_tokenizers_crate_until_a_model_folder_is_opened() {
    for manifest in [
        "Cargo.toml",
        "crates/attention-gpu/Cargo.toml",
        "crates/attention-worker/Cargo.toml",
    ] {
        let text = fs::read_to_string(root().join(manifest)).unwrap();
        let mut table = String::new();
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                table = line.trim_matches(['[', ']']).to_string();
                continue;
            }
            let normal = table == "dependencies" || table.ends_with(".dependencies");
            if normal && line.starts_with("attention-core") {
                assert!(
                    line.contains("default-features = false") && !line.contains("\"hf\""),
                    "{manifest}: {line} would link tokenizers into the page"
                );
            }
        }
    }
    let tokenizer = normal_dependencies("crates/attention-tokenizer/Cargo.toml");
    assert!(tokenizer.contains(&"attention-core".into()));
    assert_no_dependency(
        "crates/attention-tokenizer/Cargo.toml",
        &[
            "leptos",
            "attention-lab",
            "attention-gpu",
            "wgpu",
            "plotters",
        ],
    );
}

/// The crates of the workspace: the source folder and the root file of each.
const CRATES: [(&str, &str); 6] = [
    ("src", "lib.rs"),
    ("crates/attention-core/src", "lib.rs"),
    ("crates/attention-gpu/src", "lib.rs"),
    ("crates/attention-trace/src", "main.rs"),
    ("crates/attention-worker/src", "lib.rs"),
    ("crates/attention-tokenizer/src", "main.rs"),
];

fn read(src: &str, root_file: &str) -> Crate {
    Crate::read(&root(), src, root_file)
}

fn describe(krate: &Crate, edges: &[Edge]) -> String {
    edges
        .iter()
        .map(|e| {
            format!(
                "  {} uses {} ({})",
                krate.path_of(&e.from),
                krate.path_of(&e.to),
                e.via
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_file_uses_itself_through_others() {
    let mut found = Vec::new();
    for (src, root_file) in CRATES {
        let krate = read(src, root_file);
        assert!(!krate.files.is_empty(), "{src}: no files read");
        for circle in krate.circles() {
            found.push(format!("a circle in {src}:\n{}", describe(&krate, &circle)));
        }
    }
    assert!(
        found.is_empty(),
        "move the shared piece below both:\n{}",
        found.join("\n")
    );
}

/// Fails on every edge from a module in `layers[i]` to one in `layers[j]` with j > i: each layer
/// uses only those before it. `layer_of` says which layer a module is in (`None`: not layered,
/// such as the crate's root, which composes them).
fn assert_layered(krate: &Crate, layers: &[&str], layer_of: impl Fn(&[String]) -> Option<String>) {
    let index = |module: &[String]| {
        let layer = layer_of(module)?;
        let i = layers.iter().position(|&l| l == layer);
        assert!(i.is_some(), "{layer}: not one of the layers {layers:?}");
        i
    };
    let reaching_up: Vec<Edge> = krate
        .edges()
        .into_iter()
        .filter(|e| matches!((index(&e.from), index(&e.to)), (Some(a), Some(b)) if b > a))
        .collect();
    assert!(
        reaching_up.is_empty(),
        "each layer ({}) uses only those before it:\n{}",
        layers.join(" < "),
        describe(krate, &reaching_up)
    );
}

/// The core's folders, in order (lib.rs, their root, composes them).
const CORE: [&str; 7] = [
    "math", "pipeline", "io", "models", "circuits", "teaching", "api",
];

#[test]
fn each_folder_of_the_core_uses_only_those_before_it() {
    let krate = read("crates/attention-core/src", "lib.rs");
    for folder in CORE {
        assert!(
            krate
                .files
                .keys()
                .any(|m| m.first().is_some_and(|f| f == folder)),
            "no folder {folder}"
        );
    }
    assert!(
        krate
            .files
            .keys()
            .all(|m| m.is_empty() || CORE.contains(&m[0].as_str())),
        "every module of the core is in one of {CORE:?}"
    );
    assert_layered(&krate, &CORE, |m| m.first().cloned());
}

/// The UI's layers, in order (ui/mod.rs composes them).
const UI: [&str; 6] = ["i18n", "logic", "browser", "state", "bridge", "views"];

#[test]
fn each_layer_of_the_ui_uses_only_those_before_it() {
    let krate = read("src", "lib.rs");
    for layer in UI {
        assert!(
            krate
                .files
                .contains_key(&vec!["ui".to_string(), layer.to_string()]),
            "no layer ui::{layer}"
        );
    }
    assert_layered(&krate, &UI, |m| match m {
        [ui, layer, ..] if ui == "ui" => Some(layer.clone()),
        _ => None,
    });
}

#[test]
fn only_the_cores_file_formats_and_api_know_json() {
    // The mathematics, the pipeline, the models and the lessons are plain Rust: JSON is read
    // where users' files are read (`io`) and written where the CLI and the page talk (`api`).
    assert_no_mentions(
        "crates/attention-core/src",
        &["serde", "serde_json"],
        |path| path.contains("/api/") || path.contains("/io/"),
    );
}

const BROWSER: [&str; 5] = [
    "leptos",
    "web_sys",
    "js_sys",
    "wasm_bindgen",
    "wasm_bindgen_futures",
];

#[test]
fn the_ui_logic_and_i18n_are_pure() {
    // What each view shows and every sentence it says are tested natively: no browser and no
    // reactive framework (the layers above them are checked by the layering test).
    assert_no_mentions("src/ui/logic", &BROWSER, |_| false);
    assert_no_mentions("src/ui/i18n", &BROWSER, |_| false);
}

/// Files of the UI that are content or generated data, not code to read: the sentences of both
/// languages, and the colour maps' tables.
fn is_content(path: &str) -> bool {
    path.contains("/ui/i18n/") || path.ends_with("colormap_data.rs")
}

#[test]
fn no_ui_file_is_over_500_lines() {
    let long: Vec<String> = sources(&root().join("src/ui"))
        .into_iter()
        .filter(|(path, _)| !is_content(path))
        .map(|(path, text)| (path, text.lines().count()))
        .filter(|&(_, lines)| lines > 500)
        .map(|(path, lines)| format!("  {path}: {lines} lines"))
        .collect();
    assert!(
        long.is_empty(),
        "split these by what they hold:\n{}",
        long.join("\n")
    );
}

#[test]
fn every_chinese_sentence_of_the_ui_is_in_i18n() {
    // A sentence in code is one a translator never sees: Chinese (example sentences included)
    // lives in i18n beside its English. Tests may hold Chinese test data.
    let han =
        |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3400}'..='\u{4dbf}').contains(&c);
    let mut found = Vec::new();
    for (path, text) in sources(&root().join("src/ui")) {
        if is_content(&path) {
            continue;
        }
        let code = strip_tests(&text);
        for (number, line) in code.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.chars().any(han) {
                found.push(format!("  {path}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "move these to src/ui/i18n:\n{}",
        found.join("\n")
    );
}

/// `text` with its `#[cfg(test)]` module blanked (lines kept, so that numbers stay right).
fn strip_tests(text: &str) -> String {
    match text.find("#[cfg(test)]") {
        Some(at) => {
            let tail: String = text[at..].lines().map(|_| "\n").collect();
            format!("{}{tail}", &text[..at])
        }
        None => text.to_string(),
    }
}

#[test]
fn the_ui_reaches_its_siblings_by_absolute_paths() {
    // `super::super::…` would hide a layer crossing from a reader.
    assert_no_mentions("src/ui", &["super::super"], |_| false);
}
