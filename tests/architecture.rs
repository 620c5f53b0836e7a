//! The layering rules of ARCHITECTURE.md: which crate may depend on which (read from the
//! manifests), and which module of the app may use what (read from the source text).

#![cfg(not(target_arch = "wasm32"))]

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

/// The worker is the engine in another thread: the core and the glue to receive and answer
/// messages, never the UI or the GPU (its module stays small and quick to start).
#[test]
fn the_worker_links_the_core_and_no_ui() {
    let manifest = "crates/attention-worker/Cargo.toml";
    assert!(normal_dependencies(manifest).contains(&"attention-core".into()));
    assert_no_dependency(
        manifest,
        &[
            "leptos",
            "attention-lab",
            "attention-gpu",
            "wgpu",
            "plotters",
        ],
    );
}

#[test]
fn only_the_api_module_of_the_core_knows_json() {
    assert_no_mentions(
        "crates/attention-core/src",
        &["serde", "serde_json"],
        |path| path.contains("/api/"),
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
fn the_ui_model_and_i18n_are_pure() {
    // What each view shows and every sentence it says are tested natively: no browser, no
    // reactive framework, and nothing from the layers above.
    let mut forbidden = BROWSER.to_vec();
    forbidden.extend(["crate::ui::state", "crate::ui::views", "crate::ui::browser"]);
    assert_no_mentions("src/ui/model", &forbidden, |_| false);
    forbidden.push("crate::ui::model");
    assert_no_mentions("src/ui/i18n", &forbidden, |_| false);
}

#[test]
fn state_and_browser_glue_never_reach_into_views() {
    assert_no_mentions(
        "src/ui/state",
        &["crate::ui::views", "web_sys", "js_sys"],
        |_| false,
    );
    assert_no_mentions("src/ui/browser", &["crate::ui::views"], |_| false);
}

#[test]
fn the_ui_reaches_its_siblings_by_absolute_paths() {
    // `super::super::…` would hide a layer crossing from the rules above.
    assert_no_mentions("src/ui", &["super::super"], |_| false);
}
