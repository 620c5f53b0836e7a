//! The layering rules of ARCHITECTURE.md, checked on the source text.

#![cfg(not(target_arch = "wasm32"))]

use std::fs;
use std::path::Path;

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
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

fn assert_no_mentions(dir: &str, forbidden: &[&str]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let files = sources(&root);
    assert!(!files.is_empty(), "no sources under {dir}");
    for (path, text) in files {
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for name in forbidden {
                assert!(
                    !code.contains(&format!("{name}::")),
                    "{path}:{}: the {dir} layer must not use `{name}`: {line}",
                    number + 1
                );
            }
        }
    }
}

#[test]
fn core_knows_nothing_of_browser_gpu_ui_or_json() {
    assert_no_mentions(
        "src/core",
        &[
            "web_sys",
            "js_sys",
            "wasm_bindgen",
            "leptos",
            "wgpu",
            "serde",
            "serde_json",
            "crate::ui",
            "crate::api",
        ],
    );
}

#[test]
fn the_gpu_backend_knows_nothing_of_the_ui() {
    assert_no_mentions("src/gpu", &["leptos", "crate::ui", "crate::api"]);
}

#[test]
fn api_does_not_depend_on_the_ui() {
    assert_no_mentions("src/api", &["web_sys", "js_sys", "leptos", "crate::ui"]);
}
