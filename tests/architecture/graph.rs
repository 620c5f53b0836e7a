//! Which file of a crate uses which, read from the source text: every `use` tree and every path
//! that starts at `crate`, `super`, `self`, a child module or a name a `use` brought in, resolved
//! to the file that defines it (through `pub use` re-exports, so that a facade module is not
//! mistaken for the definer). Comments, string and character literals and `#[cfg(test)]` items
//! are left out: tests may reach anywhere.
//!
//! Not a Rust parser: a lexer that knows comments, strings, raw strings, characters and
//! lifetimes, and a reading of paths that is exact for the way this codebase writes them. Its
//! own tests plant a circle and a re-export to show it finds the one and sees through the other.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module's path inside its crate: `["ui", "views", "pipeline"]`; the crate root is `[]`.
pub type ModulePath = Vec<String>;

/// One source file of a crate.
#[derive(Debug, Clone)]
pub struct File {
    /// Relative to the repository (for messages).
    pub path: String,
    pub module: ModulePath,
    /// The text with comments, literals and test items taken out.
    pub code: String,
}

/// A use of one file by another, and the path that makes it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub from: ModulePath,
    pub to: ModulePath,
    pub via: String,
}

/// A crate's files by module path.
#[derive(Debug, Clone)]
pub struct Crate {
    pub files: BTreeMap<ModulePath, File>,
}

impl Crate {
    /// The crate whose root file is `src/<root_file>` under `repo`, for `src` relative to `repo`.
    /// Other binaries' roots (`main.rs` beside a `lib.rs`) are separate crates and left out.
    pub fn read(repo: &Path, src: &str, root_file: &str) -> Self {
        let dir = repo.join(src);
        let mut files = BTreeMap::new();
        for path in rust_files(&dir) {
            let relative = path.strip_prefix(&dir).unwrap_or(&path);
            let parts: Vec<String> = relative
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            let module: ModulePath = match parts.as_slice() {
                [only] if only == root_file => Vec::new(),
                [only] if only == "main.rs" || only == "lib.rs" => continue,
                [dirs @ .., last] if last == "mod.rs" => dirs.to_vec(),
                [dirs @ .., last] => {
                    let mut m = dirs.to_vec();
                    m.push(last.trim_end_matches(".rs").to_string());
                    m
                }
                [] => continue,
            };
            let text =
                fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let path = path
                .strip_prefix(repo)
                .unwrap_or(&path)
                .display()
                .to_string();
            files.insert(
                module.clone(),
                File {
                    path,
                    module,
                    code: clean(&text),
                },
            );
        }
        // Only the modules the root declares, and theirs (another binary's root beside a
        // library's is a crate of its own).
        let declared = |module: &ModulePath| {
            (1..=module.len()).all(|n| {
                files
                    .get(&module[..n - 1])
                    .is_some_and(|parent: &File| declares(&parent.code, &module[n - 1]))
            })
        };
        let kept = files
            .keys()
            .filter(|m| declared(m))
            .cloned()
            .collect::<BTreeSet<_>>();
        files.retain(|m, _| kept.contains(m));
        Self { files }
    }

    /// A crate from `(module path, source text)` pairs (for the checker's own tests).
    pub fn from_sources(sources: &[(&str, &str)]) -> Self {
        let files = sources
            .iter()
            .map(|(module, text)| {
                let module: ModulePath = module
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect();
                (
                    module.clone(),
                    File {
                        path: format!("{}.rs", module.join("/")),
                        module,
                        code: clean(text),
                    },
                )
            })
            .collect();
        Self { files }
    }

    /// The file that defines module `module`, by its path.
    pub fn path_of(&self, module: &ModulePath) -> &str {
        self.files.get(module).map_or("?", |f| f.path.as_str())
    }

    /// Every use of one file by another.
    pub fn edges(&self) -> Vec<Edge> {
        let mut edges = BTreeSet::new();
        for file in self.files.values() {
            let reader = Reader::new(self, file);
            for path in reader.paths() {
                if let Some(to) = reader.resolve(&path, 0)
                    && to != file.module
                {
                    edges.insert(Edge {
                        from: file.module.clone(),
                        to,
                        via: path,
                    });
                }
            }
        }
        // One edge per pair of files: the first path found says why.
        let mut seen = BTreeSet::new();
        edges
            .into_iter()
            .filter(|e| seen.insert((e.from.clone(), e.to.clone())))
            .collect()
    }

    /// Every circle of files that use each other (a strongly connected component of more than
    /// one file), with the edges inside it.
    pub fn circles(&self) -> Vec<Vec<Edge>> {
        let edges = self.edges();
        let nodes: Vec<&ModulePath> = self.files.keys().collect();
        let index: BTreeMap<&ModulePath, usize> =
            nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        for e in &edges {
            if let (Some(&a), Some(&b)) = (index.get(&e.from), index.get(&e.to)) {
                next[a].push(b);
            }
        }
        let component = strongly_connected(&next);
        let mut circles: BTreeMap<usize, Vec<Edge>> = BTreeMap::new();
        for e in edges {
            let (a, b) = (index[&e.from], index[&e.to]);
            if component[a] == component[b] {
                circles.entry(component[a]).or_default().push(e);
            }
        }
        circles.into_values().collect()
    }
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Tarjan's algorithm: each node's component number.
fn strongly_connected(next: &[Vec<usize>]) -> Vec<usize> {
    struct State<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        component: Vec<usize>,
        counter: usize,
        components: usize,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for i in 0..s.next[v].len() {
            let w = s.next[v][i];
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(index) if s.on_stack[w] => s.low[v] = s.low[v].min(index),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                s.component[w] = s.components;
                if w == v {
                    break;
                }
            }
            s.components += 1;
        }
    }
    let n = next.len();
    let mut state = State {
        next,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        component: vec![0; n],
        counter: 0,
        components: 0,
    };
    for v in 0..n {
        if state.index[v].is_none() {
            visit(&mut state, v);
        }
    }
    state.component
}

/// The text without comments, with every string and character literal emptied, and without
/// `#[cfg(test)]` items; inside an inline (non-test) module, `super::` is written `self::` (the
/// file's own module, as the rest of the file sees it).
pub fn clean(text: &str) -> String {
    let code = strip_literals_and_comments(text);
    let code = strip_test_items(&code);
    inline_modules_see_their_file(&code)
}

fn strip_literals_and_comments(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if (c == 'r' || c == 'b')
            && !at(i.wrapping_sub(1)).is_alphanumeric()
            && at(i.wrapping_sub(1)) != '_'
            && raw_string_start(&chars, i).is_some()
        {
            let (hashes, body) = raw_string_start(&chars, i).unwrap_or((0, i));
            let mut j = body;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (1..=hashes).all(|h| at(j + h) == '#') {
                    j += 1 + hashes;
                    break;
                }
                if chars[j] == '\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                } else if chars[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), or a lifetime or label ('a).
            if at(i + 1) == '\\' {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                out.push_str("' '");
                i = j + 1;
            } else if at(i + 2) == '\'' {
                out.push_str("' '");
                i += 3;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Where a raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i` has its body: the number of
/// `#` and the index after the opening quote.
fn raw_string_start(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (chars.get(j) == Some(&'"')).then_some((hashes, j + 1))
}

/// The index just past the item that starts at `start` (its braces balanced, or its `;`).
fn item_end(code: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < code.len() {
        match code[i] {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 && code[i] == b'}' {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    code.len()
}

fn strip_test_items(code: &str) -> String {
    let mut code = code.to_string();
    while let Some(at) = code.find("#[cfg(test)]") {
        let end = item_end(code.as_bytes(), at + "#[cfg(test)]".len());
        let lines = code[at..end].matches('\n').count();
        code.replace_range(at..end, &"\n".repeat(lines));
    }
    code
}

/// Inside `mod name { … }` (a module written inline), `super` is the file's module: written
/// `self` there, every path of the file resolves from the file's module.
fn inline_modules_see_their_file(code: &str) -> String {
    let bytes = code.as_bytes();
    let mut out = code.to_string();
    let mut search = 0;
    while let Some(found) = code[search..].find("mod ") {
        let at = search + found;
        search = at + 4;
        let before = code[..at].chars().next_back().unwrap_or(' ');
        if before.is_alphanumeric() || before == '_' {
            continue;
        }
        let rest = &code[at + 4..];
        let name_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after = rest[name_len..].trim_start();
        if name_len == 0 || !after.starts_with('{') {
            continue;
        }
        let end = item_end(bytes, at);
        let inner = out[at..end].replace("super::", "self::");
        out.replace_range(at..end, &inner);
    }
    out
}

/// The use trees of `code`, expanded (`a::{b, c::d}` is `a::b` and `a::c::d`), each with the
/// name it brings in and whether it is a re-export (`pub use`).
fn use_trees(code: &str) -> Vec<(String, String, bool)> {
    let mut trees = Vec::new();
    let bytes = code.as_bytes();
    let mut search = 0;
    while let Some(found) = code[search..].find("use ") {
        let at = search + found;
        search = at + 4;
        let before = code[..at].trim_end();
        let starts_item = before.is_empty()
            || before.ends_with([';', '{', '}', ']'])
            || before.ends_with("pub")
            || before.ends_with(')');
        let previous = code[..at].chars().next_back().unwrap_or(' ');
        if !starts_item || previous.is_alphanumeric() || previous == '_' {
            continue;
        }
        let tail = &before[before.len().saturating_sub(16)..];
        let public = before.ends_with("pub") || (before.ends_with(')') && tail.contains("pub("));
        let end = item_end(bytes, at);
        // Whitespace out, an alias kept as `path@alias`.
        let tree: String = code[at + 4..end]
            .trim_end_matches(';')
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace(" as ", "@")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        for path in expand(&tree) {
            let (path, name) = match path.split_once('@') {
                Some((path, alias)) => (path.to_string(), alias.to_string()),
                None => {
                    let name = path.rsplit("::").next().unwrap_or(&path).to_string();
                    (path, name)
                }
            };
            trees.push((path, name, public));
        }
    }
    trees
}

/// A use tree without whitespace, expanded into its paths.
fn expand(tree: &str) -> Vec<String> {
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let prefix = tree[..open].trim_end_matches("::");
    let Some(close) = tree.rfind('}') else {
        return vec![tree.to_string()];
    };
    let inner = &tree[open + 1..close];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .flat_map(expand)
        .map(|p| match (prefix.is_empty(), p.as_str()) {
            (_, "self") => prefix.to_string(),
            (true, _) => p,
            (false, _) => format!("{prefix}::{p}"),
        })
        .collect()
}

/// Reads one file's paths and resolves them in its crate.
struct Reader<'a> {
    krate: &'a Crate,
    file: &'a File,
    /// Names brought in by `use`, and the path each stands for.
    imported: BTreeMap<String, String>,
}

impl<'a> Reader<'a> {
    fn new(krate: &'a Crate, file: &'a File) -> Self {
        let imported = use_trees(&file.code)
            .into_iter()
            .filter(|(_, name, _)| name != "*")
            .map(|(path, name, _)| (name, path))
            .collect();
        Self {
            krate,
            file,
            imported,
        }
    }

    /// Every path the file writes: its use trees, and paths of two or more names in its code.
    fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = use_trees(&self.file.code)
            .into_iter()
            .map(|(path, _, _)| path)
            .collect();
        let code = self.file.code.as_bytes();
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut i = 0;
        while i < code.len() {
            if !word(code[i]) || (i > 0 && (word(code[i - 1]) || code[i - 1] == b':')) {
                i += 1;
                continue;
            }
            let mut j = i;
            loop {
                while j < code.len() && word(code[j]) {
                    j += 1;
                }
                if code.get(j..j + 2) == Some(b"::") && code.get(j + 2).is_some_and(|&c| word(c)) {
                    j += 2;
                } else {
                    break;
                }
            }
            let path = &self.file.code[i..j];
            if path.contains("::") {
                paths.push(path.to_string());
            }
            i = j.max(i + 1);
        }
        paths
    }

    /// The file `path` leads to, if it leads into this crate.
    fn resolve(&self, path: &str, depth: usize) -> Option<ModulePath> {
        if depth > 8 {
            return None;
        }
        let segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let (&first, _) = segments.split_first()?;
        let here = &self.file.module;
        let (base, rest): (ModulePath, &[&str]) = match first {
            "crate" => (Vec::new(), &segments[1..]),
            "self" | "super" => {
                let mut base = here.clone();
                let mut k = 0;
                while k < segments.len() && matches!(segments[k], "self" | "super") {
                    if segments[k] == "super" {
                        base.pop();
                    }
                    k += 1;
                }
                (base, &segments[k..])
            }
            name if self.krate.files.contains_key(&child(here, name)) => {
                (here.clone(), &segments[..])
            }
            name => {
                let stands_for = self.imported.get(name)?;
                if stands_for == path {
                    return None;
                }
                let whole = std::iter::once(stands_for.as_str())
                    .chain(segments[1..].iter().copied())
                    .collect::<Vec<_>>()
                    .join("::");
                return self.resolve(&whole, depth + 1);
            }
        };
        self.krate.walk(base, rest, depth)
    }
}

impl Crate {
    /// The deepest file reached from module `base` by `rest`, following re-exports.
    fn walk(&self, base: ModulePath, rest: &[&str], depth: usize) -> Option<ModulePath> {
        let mut reached = self.files.contains_key(&base).then(|| base.clone());
        let mut current = base;
        for (k, segment) in rest.iter().enumerate() {
            let next = child(&current, segment);
            if self.files.contains_key(&next) {
                reached = Some(next.clone());
                current = next;
                continue;
            }
            // A name defined or re-exported by the module reached so far.
            let module = reached.clone()?;
            if let Some(target) = self.reexport(&module, segment, depth) {
                let more = &rest[k + 1..];
                return Some(self.walk(target.clone(), more, depth + 1).unwrap_or(target));
            }
            return Some(module);
        }
        reached
    }

    /// The file that defines `name`, re-exported by `module` (`pub use a::name`, or a glob
    /// `pub use a::*` whose module defines it).
    fn reexport(&self, module: &ModulePath, name: &str, depth: usize) -> Option<ModulePath> {
        if depth > 8 {
            return None;
        }
        let file = self.files.get(module)?;
        let reader = Reader::new(self, file);
        for (path, brought, public) in use_trees(&file.code) {
            if !public {
                continue;
            }
            if brought == name {
                return reader.resolve(&path, depth + 1);
            }
            if brought == "*" {
                let from = reader.resolve(path.trim_end_matches("::*"), depth + 1)?;
                if self.defines(&from, name) {
                    return Some(from);
                }
            }
        }
        None
    }

    /// Whether the file of `module` defines an item called `name`.
    fn defines(&self, module: &ModulePath, name: &str) -> bool {
        let Some(file) = self.files.get(module) else {
            return false;
        };
        [
            "fn ", "struct ", "enum ", "const ", "static ", "type ", "trait ", "mod ",
        ]
        .iter()
        .any(|keyword| {
            file.code
                .match_indices(&format!("{keyword}{name}"))
                .any(|(at, _)| {
                    let after = file.code[at + keyword.len() + name.len()..].chars().next();
                    !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
        })
    }
}

/// Whether `code` declares the module `name` in a file of its own (`mod name;`).
fn declares(code: &str, name: &str) -> bool {
    code.match_indices(&format!("mod {name}"))
        .any(|(at, found)| {
            let before = code[..at].chars().next_back().unwrap_or(' ');
            let after = code[at + found.len()..].trim_start();
            !(before.is_alphanumeric() || before == '_') && after.starts_with(';')
        })
}

fn child(module: &ModulePath, name: &str) -> ModulePath {
    let mut m = module.clone();
    m.push(name.to_string());
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(path: &str) -> ModulePath {
        path.split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    }

    #[test]
    fn a_planted_circle_is_found_with_the_paths_that_make_it() {
        let krate = Crate::from_sources(&[
            ("", "pub mod a;\npub mod b;\npub mod c;"),
            ("a", "use crate::b::Thing;\npub struct Other;"),
            (
                "b",
                "pub struct Thing;\nfn f() -> super::c::Third { todo!() }",
            ),
            ("c", "pub struct Third(crate::a::Other);"),
        ]);
        let circles = krate.circles();
        assert_eq!(circles.len(), 1, "{circles:?}");
        let vias: Vec<&str> = circles[0].iter().map(|e| e.via.as_str()).collect();
        assert_eq!(
            vias,
            ["crate::b::Thing", "super::c::Third", "crate::a::Other"]
        );
    }

    #[test]
    fn a_facade_that_re_exports_is_not_a_circle() {
        // `parent` re-exports its child's item; a sibling that names it through the parent
        // uses the child, not the parent.
        let krate = Crate::from_sources(&[
            (
                "parent",
                "mod kid;\nmod sibling;\npub use kid::{Item, Other};\npub use sibling::*;",
            ),
            ("parent::kid", "pub struct Item;\npub struct Other;"),
            (
                "parent::sibling",
                "use super::Item;\npub fn uses() -> Item { Item }",
            ),
        ]);
        assert!(krate.circles().is_empty(), "{:?}", krate.circles());
        let edges = krate.edges();
        assert!(edges.contains(&Edge {
            from: module("parent::sibling"),
            to: module("parent::kid"),
            via: "super::Item".into(),
        }));
    }

    #[test]
    fn comments_strings_tests_and_inline_modules_do_not_count() {
        let krate = Crate::from_sources(&[
            ("", "pub mod a;\npub mod b;"),
            (
                "a",
                "// crate::b::X\nconst S: &str = \"crate::b::X\";\nconst R: &str = r#\"crate::b::\"X\"#;\n\
                 fn f<'a>(c: char) -> bool { c == '\"' }\n\
                 #[cfg(test)]\nmod tests { use crate::b::X; }\n\
                 mod simd { use super::f; }",
            ),
            ("b", "pub struct X;\nuse crate::a::f;"),
        ]);
        assert!(krate.circles().is_empty(), "{:?}", krate.edges());
        assert!(krate.edges().iter().all(|e| e.from != module("a")));
    }

    #[test]
    fn a_layer_reaching_up_is_an_edge_named_by_its_path() {
        let krate = Crate::from_sources(&[
            ("low", "pub fn f() { crate::high::g() }"),
            ("high", "pub fn g() {}"),
        ]);
        let edges = krate.edges();
        assert_eq!(
            edges,
            vec![Edge {
                from: module("low"),
                to: module("high"),
                via: "crate::high::g".into(),
            }]
        );
    }
}
