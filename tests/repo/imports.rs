//! No source file imports a file that imports it back, directly or around a
//! longer cycle: in each crate (the library, the application, the web page)
//! every `crate::…` and `super::…` path is resolved to the file of the module
//! it names, and the files must form no cycle.
//!
//! A module and its own submodules are the one exception, as Rust has them:
//! `open/mod.rs` re-exports `input::Input` and `load.rs` uses `super::input`;
//! that is one module's inside, not two files leaning on each other.

use crate::common::repo;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A crate: its root file and the folder its modules live in.
struct Crate {
    root: PathBuf,
}

/// Every `.rs` file under `dir`.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of `file` in a crate rooted at `root` (`lib.rs` or
/// `main.rs`): `scene/load.rs` → `["scene", "load"]`, `scene/mod.rs` → `["scene"]`.
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let dir = root.parent().unwrap();
    let rel = file.strip_prefix(dir).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if file == root || parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if file == root {
        parts.clear();
    }
    parts
}

/// The code of a file without comments and string contents.
pub(crate) fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let (mut in_string, mut in_line_comment, mut block_depth) = (false, false, 0);
    while let Some(c) = chars.next() {
        if in_line_comment {
            if c == '\n' {
                in_line_comment = false;
                out.push('\n');
            }
            continue;
        }
        if block_depth > 0 {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                block_depth -= 1;
            } else if c == '/' && chars.peek() == Some(&'*') {
                chars.next();
                block_depth += 1;
            }
            continue;
        }
        if in_string {
            if c == '\\' {
                chars.next();
            } else if c == '"' {
                in_string = false;
                out.push('"');
            }
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'/') => in_line_comment = true,
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                block_depth = 1;
            }
            '"' => {
                in_string = true;
                out.push('"');
            }
            // A char literal such as '{' or '"' must not open anything.
            '\'' => {
                let rest: String = chars.clone().take(3).collect();
                let mut skip = 0;
                if rest.starts_with('\\') && rest.chars().nth(2) == Some('\'') {
                    skip = 3;
                } else if rest.chars().nth(1) == Some('\'') {
                    skip = 2;
                }
                for _ in 0..skip {
                    chars.next();
                }
                out.push('\'');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every module path (`crate::`-absolute) that `text`, the code of the
/// module `at`, refers to through `crate::` or `super::`.
fn references(text: &str, at: &[String]) -> Vec<Vec<String>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    // Inline modules (`mod tests { … }`) open a level that `super` climbs first.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < bytes.len() {
        let rest = &text[i..];
        let boundary = i == 0 || !ident(bytes[i - 1]);
        if bytes[i] == b'{' {
            depth += 1;
        } else if bytes[i] == b'}' {
            depth = depth.saturating_sub(1);
            while inline.last().is_some_and(|&d| d > depth) {
                inline.pop();
            }
        } else if boundary && rest.starts_with("mod ") {
            let after = rest[4..].trim_start();
            let name_len = after.bytes().take_while(|&b| ident(b)).count();
            if after[name_len..].trim_start().starts_with('{') {
                inline.push(depth + 1);
            }
        } else if boundary && (rest.starts_with("crate::") || rest.starts_with("super::")) {
            let path_len = rest.bytes().take_while(|&b| ident(b) || b == b':').count();
            let words: Vec<&str> = rest[..path_len]
                .split("::")
                .filter(|w| !w.is_empty())
                .collect();
            let mut module: Vec<String> = at.to_vec();
            let mut nested = inline.len();
            let mut k = 0;
            if words.first() == Some(&"crate") {
                module.clear();
                k = 1;
            } else {
                while words.get(k) == Some(&"super") {
                    if nested > 0 {
                        nested -= 1;
                    } else {
                        module.pop();
                    }
                    k += 1;
                }
            }
            module.extend(words[k..].iter().map(|w| w.to_string()));
            found.push(module);
            i += path_len;
            continue;
        }
        i += 1;
    }
    found
}

/// The files of `krate` and, for each, the other files it refers to.
fn graph(krate: &Crate) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut files = Vec::new();
    rust_files(krate.root.parent().unwrap(), &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .map(|f| (module_of(&krate.root, f), f.clone()))
        .collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = code(&std::fs::read_to_string(file).unwrap());
        let targets = edges.entry(module.clone()).or_default();
        for mut path in references(&text, module) {
            // The longest prefix that is a file's module.
            while !path.is_empty() && !modules.contains_key(&path) {
                path.pop();
            }
            let related = path.starts_with(module) || module.starts_with(&path);
            if !related {
                targets.insert(path);
            }
        }
    }
    edges
}

/// The cycles among `edges` (Tarjan's strongly connected components of more
/// than one file).
fn cycles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<Vec<String>>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on_stack: BTreeSet<&'a Vec<String>>,
        found: Vec<Vec<Vec<String>>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a Vec<String>) {
        let n = w.index.len();
        w.index.insert(v, n);
        w.low.insert(v, n);
        w.stack.push(v);
        w.on_stack.insert(v);
        for u in w.edges.get(v).into_iter().flatten() {
            if !w.index.contains_key(u) {
                visit(w, u);
                let low = w.low[v].min(w.low[u]);
                w.low.insert(v, low);
            } else if w.on_stack.contains(u) {
                let low = w.low[v].min(w.index[u]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = Vec::new();
            while let Some(u) = w.stack.pop() {
                w.on_stack.remove(u);
                component.push(u.clone());
                if u == v {
                    break;
                }
            }
            if component.len() > 1 {
                w.found.push(component);
            }
        }
    }
    let mut walk = Walk {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !walk.index.contains_key(v) {
            visit(&mut walk, v);
        }
    }
    walk.found
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    for root in [
        "crates/motion-viewer/src/lib.rs",
        "src/main.rs",
        "web/src/lib.rs",
        "python/src/lib.rs",
    ] {
        let krate = Crate { root: repo(root) };
        let edges = graph(&krate);
        assert!(edges.len() > 3, "{root}: files found");
        let found = cycles(&edges);
        let named: Vec<Vec<String>> = found
            .iter()
            .map(|c| c.iter().map(|m| m.join("/")).collect())
            .collect();
        assert!(
            named.is_empty(),
            "{root}: files importing each other: {named:?}"
        );
    }
}

#[test]
fn the_checker_sees_a_cycle_between_siblings_and_not_inside_a_module() {
    let m = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    // Two siblings that name each other: found.
    let a = references("use crate::x::b::Thing;", &m("x/a"));
    let b = references("fn f() { super::a::g() }", &m("x/b"));
    assert_eq!(a, [m("x/b/Thing")]);
    assert_eq!(b, [m("x/a/g")]);
    let edges = BTreeMap::from([
        (m("x/a"), BTreeSet::from([m("x/b")])),
        (m("x/b"), BTreeSet::from([m("x/a")])),
        (m("x"), BTreeSet::new()),
    ]);
    assert_eq!(cycles(&edges).len(), 1);
    // `super::*` in an inline test module is the file itself.
    let own = references("mod tests {\n use super::*;\n}\n", &m("x/a"));
    assert_eq!(own, [m("x/a")]);
    // Paths in comments and strings are not code.
    assert!(references(&code("// crate::y\nlet s = \"crate::z\";"), &m("x")).is_empty());
}
