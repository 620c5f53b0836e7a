//! Documents that stay true. The course element and the notebook package follow the lab's
//! tables: the element's manifest (`assets/custom-elements.json`) and its attribute table (in
//! `assets/attention-lab.js`) are written from `ui::logic::element`, the site's
//! `assets/request.schema.json` is the CLI's `--schema`, the README's table of request fields is
//! the schema's, and the Python package's view settings are the lab's; the README's counts are
//! the code's. `UPDATE_EXPECT=1 cargo test --test documents` rewrites the generated files.

#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests may (the workspace denies both elsewhere).
#![cfg(not(target_arch = "wasm32"))]

use std::fs;
use std::path::PathBuf;

use attention_core::api::{FIELDS, request_schema_text};
use attention_lab::ui::logic::element::{VIEW_SETTINGS, manifest_text, script_table};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn update() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some()
}

/// Fails unless the file at `path` (from the root) holds `expected`; rewrites it under
/// `UPDATE_EXPECT`.
fn expect_file(path: &str, expected: &str) {
    let file = root().join(path);
    if update() {
        fs::write(&file, expected).unwrap();
        return;
    }
    let found = fs::read_to_string(&file).unwrap_or_default();
    assert!(
        found == expected,
        "{path} is not what the lab's tables write: run `UPDATE_EXPECT=1 cargo test --test documents`"
    );
}

#[test]
fn the_manifest_is_written_from_the_tables() {
    expect_file("assets/custom-elements.json", &manifest_text());
}

#[test]
fn the_sites_schema_is_the_clis() {
    expect_file("assets/request.schema.json", &request_schema_text());
}

const BEGIN: &str = "// BEGIN ATTRIBUTES\n";
const END: &str = "\n// END ATTRIBUTES";

#[test]
fn the_elements_attribute_table_is_written_from_the_tables() {
    let path = root().join("assets/attention-lab.js");
    let script = fs::read_to_string(&path).unwrap();
    let (Some(start), Some(end)) = (script.find(BEGIN), script.find(END)) else {
        panic!("assets/attention-lab.js lacks its {BEGIN:?} … {END:?} block");
    };
    let written = format!(
        "{}{BEGIN}{}{}",
        &script[..start],
        script_table(),
        &script[end..]
    );
    if update() {
        fs::write(&path, &written).unwrap();
        return;
    }
    assert!(
        written == script,
        "the attribute table of attention-lab.js is not the lab's: run `UPDATE_EXPECT=1 cargo test --test documents`"
    );
}

/// The README's table of request fields: one row per field, in the table's order, with its
/// default and what it means (from the field's own doc comment).
fn readme_table() -> String {
    let mut lines = vec![
        "| field | when left out | what it is |".to_string(),
        "|---|---|---|".to_string(),
    ];
    for field in FIELDS {
        let default = field.default.map_or("—".to_string(), |d| format!("`{d}`"));
        let scope = match field.scope {
            attention_core::api::fields::Scope::Lab => "",
            attention_core::api::fields::Scope::Cli => " (CLI only)",
        };
        lines.push(format!(
            "| `{}` | {default} | {}{scope} |",
            field.name,
            field.description().replace('|', "\\|")
        ));
    }
    lines.join("\n")
}

#[test]
fn the_readmes_table_of_request_fields_is_the_schemas() {
    let path = root().join("README.md");
    let readme = fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- request fields -->\n", "\n<!-- /request fields -->");
    let (Some(start), Some(stop)) = (readme.find(begin), readme.find(end)) else {
        panic!("the README marks its table of request fields with {begin:?} … {end:?}");
    };
    let written = format!(
        "{}{begin}{}{}",
        &readme[..start],
        readme_table(),
        &readme[stop..]
    );
    if update() {
        fs::write(&path, &written).unwrap();
        return;
    }
    assert!(
        written == readme,
        "the README's table of request fields is not the schema's: run `UPDATE_EXPECT=1 cargo test --test documents`"
    );
}

#[test]
fn the_python_packages_view_settings_are_the_labs() {
    // `_fields.py` checks a cell's keywords before anything is drawn: the request's against the
    // shipped schema, the view settings against its VIEW (lang and panels are show()'s own).
    let text = fs::read_to_string(root().join("python/attention_lab/_fields.py")).unwrap();
    let start = text.find("VIEW = {").expect("_fields.py has VIEW");
    let end = text[start..].find("\n}").unwrap() + start;
    let mut names: Vec<&str> = text[start..end]
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"'))
        .filter_map(|l| l.split('"').next())
        .collect();
    names.sort_unstable();
    let mut lab: Vec<&str> = VIEW_SETTINGS
        .iter()
        .map(|s| s.name)
        .filter(|n| !["lang", "panels"].contains(n))
        .collect();
    lab.sort_unstable();
    assert_eq!(names, lab);
}

#[test]
fn the_readme_counts_the_chapters_the_code_has() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let chapters = attention_core::teaching::Chapter::ALL.len();
    let mut claims = Vec::new();
    for (marker, before) in [(" chapters", true), (" 章", true)] {
        for (at, _) in readme.match_indices(marker) {
            let digits: String = readme[..at]
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if before && !digits.is_empty() {
                claims.push(digits.parse::<usize>().unwrap());
            }
        }
    }
    assert!(
        claims.len() >= 3,
        "the README says how many chapters, in both languages: {claims:?}"
    );
    assert!(
        claims.iter().all(|&n| n == chapters),
        "the README's chapter counts {claims:?}, the code's {chapters}"
    );
}

/// The README states how much of one's own attention the page, the CLI and the notebook take,
/// with the numbers the code uses (the review found the limit nowhere but in a refusal).
#[test]
fn the_readme_states_the_import_limits_the_code_uses() {
    use attention_core::io::import::{DEFAULT_BUDGET, MAX_TOKENS};
    use attention_lab::ui::state::imported::PAGE_BUDGET;
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let grouped = |n: usize| {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(' ');
            }
            out.push(c);
        }
        out
    };
    for (what, n) in [("the page's", PAGE_BUDGET), ("the CLI's", DEFAULT_BUDGET)] {
        assert!(
            readme.contains(&format!("{} numbers", grouped(n))),
            "{what} budget {} is not in the README",
            grouped(n)
        );
    }
    assert!(readme.contains(&format!("and {MAX_TOKENS} tokens")));
    let python = fs::read_to_string(root().join("python/attention_lab/_convert.py")).unwrap();
    assert!(python.contains("BUDGET = 16 << 20") && PAGE_BUDGET == 16 << 20);
}
