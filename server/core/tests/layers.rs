//! The core's modules form layers that only point down (ARCHITECTURE.md, "Layers"): a module
//! may name only itself and the modules below it. This fails on a new upward reference, with
//! the file and line, before it grows into a circle. And the core does no I/O and knows no
//! LSP, async runtime or kube (ARCHITECTURE.md, invariants 2 and 9): its non-test code names
//! none of them.

use std::path::{Path, PathBuf};

/// Bottom first. A module may use the modules of earlier rows, never of its own row's others
/// or of later rows.
const LAYERS: &[&[&str]] = &[
    &["syntax", "suggest"],
    &["model"],
    &["source", "catalog"],
    &["world"],
    &["diagnostic", "topology"],
    &["effective"],
    &["workspace"],
    &["analysis"],
];

/// `std` modules that do I/O: reading files, the network, processes, the environment.
const IO_MODULES: &[&str] = &["fs", "io", "net", "process", "env"];

/// Crates the core must not name: I/O, the async runtime, the protocol, the cluster.
const FOREIGN_CRATES: &[&str] =
    &["tokio", "kube", "k8s_openapi", "lsp_types", "ls_types", "tower_lsp", "tower_lsp_server", "ignore", "reqwest"];

/// Macros that write to the terminal.
const PRINT_MACROS: &[&str] = &["print", "println", "eprint", "eprintln", "dbg"];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|row| row.contains(&module))
}

/// A file's code as the compiler sees it outside tests: comments, string and character
/// literals blanked, and every item marked `#[cfg(test)]` blanked, line breaks kept so that
/// line numbers hold. Also the modules declared test-only (`#[cfg(test)] mod name;`).
fn code(text: &str) -> (String, Vec<String>) {
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let prev_ident = i > 0 && ident(chars[i - 1]);
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.extend(['*', '*'].map(blank));
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.extend(['*', '*'].map(blank));
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (!prev_ident || (i == 1 || !ident(chars[i - 2])) && chars[i - 1] == 'b')
            && matches!(next, Some('"' | '#'))
        {
            // A raw string: r"…", r#"…"#, br"…".
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let start = i + 2 + hashes;
            let mut end = start;
            while end < chars.len()
                && !(chars[end] == '"' && chars[end + 1..].iter().take(hashes).filter(|&&h| h == '#').count() == hashes)
            {
                end += 1;
            }
            let stop = (end + 1 + hashes).min(chars.len());
            out.extend(chars[i..stop].iter().map(|&c| blank(c)));
            i = stop;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal (a lifetime has no closing quote); `'\''` ends after its
            // escape.
            let mut end = if next == Some('\\') { i + 3 } else { i + 2 };
            while end < chars.len() && chars[end] != '\'' {
                end += 1;
            }
            out.extend(chars[i..(end + 1).min(chars.len())].iter().map(|&c| blank(c)));
            i = end + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out.truncate(chars.len());

    // Items marked `#[cfg(test)]`: from the attribute to the `;` or the `}` that ends the item.
    let mut test_modules = Vec::new();
    const ATTR: &[char] = &['#', '[', 'c', 'f', 'g', '(', 't', 'e', 's', 't', ')', ']'];
    let mut at = 0;
    while let Some(found) = out[at..].windows(ATTR.len()).position(|w| w == ATTR) {
        let start = at + found;
        let mut j = start + ATTR.len();
        let mut depth = 0i32;
        let mut end = out.len();
        while j < out.len() {
            match out[j] {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                '{' if depth == 0 => {
                    let mut braces = 0;
                    while j < out.len() {
                        match out[j] {
                            '{' => braces += 1,
                            '}' => braces -= 1,
                            _ => {}
                        }
                        j += 1;
                        if braces == 0 {
                            break;
                        }
                    }
                    end = j;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let item: String = out[start + ATTR.len()..end].iter().collect();
        let words: Vec<&str> = item.split(|c: char| !ident(c)).filter(|w| !w.is_empty()).collect();
        if item.trim_end().ends_with(';')
            && let Some(m) = words.iter().position(|w| *w == "mod")
            && let Some(name) = words.get(m + 1)
        {
            test_modules.push((*name).to_owned());
        }
        for c in &mut out[start..end] {
            *c = blank(*c);
        }
        at = end;
    }
    (out.into_iter().collect(), test_modules)
}

/// `crate::NAME` references in a file's non-test code, with line numbers.
fn references(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, code) in code(text).0.lines().enumerate() {
        for (at, _) in code.match_indices("crate::") {
            // `policylens_crate::` or `$crate::` are not ours.
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let name: String =
                code[at + "crate::".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                out.push((i + 1, name));
            }
        }
    }
    out
}

/// The identifiers of a line of code, with their byte offsets.
fn words(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in line.char_indices().chain([(line.len(), ' ')]) {
        match (start, c.is_alphanumeric() || c == '_') {
            (None, true) => start = Some(at),
            (Some(s), false) => {
                out.push((s, &line[s..at]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// What a file's non-test code names that does I/O or belongs to the edge, with line numbers.
fn io_mentions(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in code(text).0.lines().enumerate() {
        let words = words(line);
        for (k, &(at, word)) in words.iter().enumerate() {
            let after = line[at + word.len()..].trim_start();
            let path_root = after.starts_with("::") && !line[..at].trim_end().ends_with("::");
            if word == "std" && path_root {
                let rest = after["::".len()..].trim_start();
                let named: Vec<&str> = match rest.strip_prefix('{') {
                    // `std::{fs, io::Read}`: the group's first names.
                    Some(group) => group
                        .split('}')
                        .next()
                        .unwrap_or("")
                        .split(',')
                        .map(|p| p.trim().split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or(""))
                        .collect(),
                    None => words.get(k + 1).map(|(_, w)| *w).into_iter().collect(),
                };
                for m in named.into_iter().filter(|m| IO_MODULES.contains(m)) {
                    out.push((i + 1, format!("std::{m}")));
                }
            } else if FOREIGN_CRATES.contains(&word)
                && (path_root || line[..at].trim_end().ends_with("use") || line[..at].trim_end().ends_with("crate"))
            {
                out.push((i + 1, word.to_owned()));
            } else if PRINT_MACROS.contains(&word) && after.starts_with('!') {
                out.push((i + 1, format!("{word}!")));
            }
        }
    }
    out
}

/// The non-test Rust files under `src`: files of modules declared `#[cfg(test)] mod name;`
/// (and their directories) are left out.
fn non_test_files(src: &Path) -> Vec<(PathBuf, String)> {
    fn all(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                all(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    all(src, &mut files);
    files.sort();
    let texts: Vec<(PathBuf, String)> =
        files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap())).collect();
    let mut test_only: Vec<PathBuf> = Vec::new();
    for (path, text) in &texts {
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let dir =
            if stem == "mod" || stem == "lib" { path.parent().unwrap().to_path_buf() } else { path.with_extension("") };
        for name in code(text).1 {
            test_only.push(dir.join(format!("{name}.rs")));
            test_only.push(dir.join(name));
        }
    }
    texts.into_iter().filter(|(p, _)| !test_only.iter().any(|t| p.starts_with(t))).collect()
}

/// The top module a file of `src` belongs to (`topology` for `src/topology/build.rs`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_str().unwrap();
    first.strip_suffix(".rs").unwrap_or(first).to_owned()
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn core_layers_only_point_down() {
    let src = src();
    let mut problems = Vec::new();
    for (path, text) in non_test_files(&src) {
        let module = module_of(&src, &path);
        if module == "lib" {
            continue;
        }
        let here = layer(&module).unwrap_or_else(|| panic!("module `{module}` is in no layer: add it to LAYERS"));
        for (line, name) in references(&text) {
            match layer(&name) {
                _ if name == module => {}
                Some(l) if l < here => {}
                Some(_) => {
                    problems.push(format!("{}:{line}: `{module}` uses `crate::{name}`, not below it", path.display()))
                }
                None => problems.push(format!("{}:{line}: `crate::{name}` is in no layer", path.display())),
            }
        }
    }
    assert!(problems.is_empty(), "upward references:\n{}", problems.join("\n"));
}

#[test]
fn core_does_no_io() {
    let src = src();
    let files = non_test_files(&src);
    // Test modules are told by their declarations, not their names.
    let has = |rel: &str| files.iter().any(|(p, _)| p == &src.join(rel));
    assert!(has("source/mod.rs") && has("workspace/mod.rs") && has("analysis/hover/policy.rs"));
    assert!(!has("analysis/fixture.rs") && !has("analysis/tests/near.rs") && !has("syntax/parse/tests.rs"));
    let mut problems = Vec::new();
    for (path, text) in files {
        for (line, what) in io_mentions(&text) {
            problems.push(format!("{}:{line}: `{what}`", path.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "core does no I/O and knows no LSP, tokio or kube: the loader, cluster and lsp crates do (ARCHITECTURE.md, invariants 2 and 9):\n{}",
        problems.join("\n")
    );
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let deps = manifest.split("[dependencies]").nth(1).unwrap_or("").split("\n[").next().unwrap_or("");
    for line in deps.lines() {
        let name = line.split(['=', '.']).next().unwrap_or("").trim().replace('-', "_");
        assert!(!FOREIGN_CRATES.contains(&name.as_str()), "policylens-core depends on `{name}`");
    }
}

#[test]
fn the_check_sees_an_upward_reference() {
    let text = "use crate::model::Object;\nfn f() { crate::analysis::hover(); } // crate::workspace\n#[cfg(test)]\nuse crate::workspace::Workspace;\n";
    assert_eq!(references(text), [(1, "model".to_owned()), (2, "analysis".to_owned())]);
}

#[test]
fn test_items_comments_and_literals_are_not_code() {
    let text = r##"fn a() -> char { '{' } fn q() -> char { '\'' }
#[cfg(test)]
pub(crate) fn helper(x: [u8; 2]) -> &'static str {
    "}"
}
/* crate::analysis /* nested */ */
fn b<'a>(s: &'a str) -> &'a str { let _ = r#"crate::workspace "# ; s }
#[cfg(test)]
mod fixture;
#[cfg(test)]
mod tests {
    use crate::workspace::Workspace;
}
fn c() { crate::model::f(); let _ = b"std::fs"; }
"##;
    let (code, test_modules) = code(text);
    assert_eq!(code.lines().count(), text.lines().count());
    assert_eq!(test_modules, ["fixture"]);
    assert!(
        code.contains("fn a()") && code.contains("fn q()") && code.contains("fn b<'a>") && !code.contains("helper")
    );
    assert_eq!(references(text), [(14, "model".to_owned())]);
    assert!(io_mentions(text).is_empty());
}

#[test]
fn the_check_sees_io() {
    let text = "use std::fs;\nuse std::{collections::HashMap, io::Read};\nfn f() { let _ = std::net::TcpStream::connect(\"x\"); }\nuse tokio::sync::Mutex;\nfn g() { eprintln!(\"x\"); kube::Client::try_default(); }\nfn h(_: lsp_types::Range) {}\n// std::fs::read\nfn k() { let io = 1; my::tokio::x(); }\n";
    let found: Vec<String> = io_mentions(text).into_iter().map(|(l, w)| format!("{l} {w}")).collect();
    assert_eq!(found, ["1 std::fs", "2 std::io", "3 std::net", "4 tokio", "5 eprintln!", "5 kube", "6 lsp_types"]);
}

/// The crates whose modules the circle check reads, from the repository root. Each `src/bin/`
/// file is a crate of its own with no modules, and is left out.
const CRATES: &[&str] = &[
    "server/core/src",
    "server/loader/src",
    "server/cluster/src",
    "server/lsp/src",
    "server/cli/src",
    "server/bench/src",
];

/// A file's module path within its crate: `["analysis", "hover"]` for `analysis/hover.rs` or
/// `analysis/hover/mod.rs`, `[]` for `lib.rs` or `main.rs`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_str().unwrap().to_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod")) || parts == ["lib"] || parts == ["main"] {
        parts.pop();
    }
    parts
}

/// The paths a file's non-test code names, each as written from its root (`crate`, `super`,
/// `self` or a first segment) to its last segment, `use` groups spread out: `use
/// crate::a::{b, c::D}` names `crate::a::b` and `crate::a::c::D`. With the line of each.
fn paths(text: &str) -> Vec<(usize, Vec<String>)> {
    let code = code(text).0;
    let chars: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let line_at = |i: usize| chars[..i].iter().filter(|&&c| c == '\n').count() + 1;
    // Reads `seg::seg::…` from `i`, then a `{…}` group after a final `::`, into `out`.
    // Returns where the path ends.
    fn read(
        chars: &[char],
        mut i: usize,
        prefix: Vec<String>,
        line: usize,
        out: &mut Vec<(usize, Vec<String>)>,
    ) -> usize {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        let skip_ws = |mut i: usize| {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            i
        };
        let mut path = prefix;
        loop {
            i = skip_ws(i);
            if i < chars.len() && chars[i] == '{' {
                // A group: its items split at top-level commas, each read on from this prefix.
                let mut depth = 0;
                let mut start = i + 1;
                let mut j = i;
                while j < chars.len() {
                    match chars[j] {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        ',' if depth == 1 => {
                            read(chars, start, path.clone(), line, out);
                            start = j + 1;
                        }
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    j += 1;
                }
                read(chars, start, path.clone(), line, out);
                return j + 1;
            }
            let start = i;
            while i < chars.len() && ident(chars[i]) {
                i += 1;
            }
            if i == start {
                break;
            }
            path.push(chars[start..i].iter().collect());
            let k = skip_ws(i);
            if chars.get(k) == Some(&':') && chars.get(k + 1) == Some(&':') {
                i = k + 2;
            } else {
                break;
            }
        }
        if !path.is_empty() {
            out.push((line, path));
        }
        i
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if ident(chars[i]) && (i == 0 || !ident(chars[i - 1])) {
            let end = (i..chars.len()).find(|&j| !ident(chars[j])).unwrap_or(chars.len());
            let before: String = chars[..i].iter().rev().take_while(|c| !c.is_whitespace()).collect();
            // The start of a path: a segment followed by `::`, not itself after one.
            if chars.get(end) == Some(&':') && chars.get(end + 1) == Some(&':') && !before.starts_with("::") {
                i = read(&chars, i, Vec::new(), line_at(i), &mut out).max(end);
                continue;
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// The module a written path names, within the crate whose modules are `modules`, from the
/// module `here`: the longest prefix that is a module (`crate::a::b::f` is `a::b` where
/// `a/b.rs` exists). `None` for another crate's path or an item of `here`'s own.
fn target(modules: &[Vec<String>], here: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path.first()?.as_str() {
        "crate" => Vec::new(),
        "self" | "super" => here.to_vec(),
        // A child module named without `self::`.
        first => {
            let child: Vec<String> = here.iter().cloned().chain([first.to_owned()]).collect();
            if !modules.contains(&child) {
                return None;
            }
            here.to_vec()
        }
    };
    let mut rest = path;
    if rest[0] == "crate" || rest[0] == "self" {
        rest = &rest[1..];
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    let mut found = base.clone();
    for seg in rest {
        base.push(seg.clone());
        if modules.contains(&base) {
            found = base.clone();
        } else {
            break;
        }
    }
    Some(found)
}

/// The arrows between the modules of one crate: (from, to, file:line), leaving out those between
/// a module and the modules it sits in (a folder's `mod.rs` re-exports its files, and they use
/// what it declares).
fn arrows(src: &Path) -> Vec<(String, String, String)> {
    let files: Vec<(PathBuf, String)> =
        non_test_files(src).into_iter().filter(|(p, _)| !p.starts_with(src.join("bin"))).collect();
    let modules: Vec<Vec<String>> = files.iter().map(|(p, _)| module_path(src, p)).collect();
    let mut out = Vec::new();
    for (path, text) in &files {
        let here = module_path(src, path);
        for (line, written) in paths(text) {
            let Some(to) = target(&modules, &here, &written) else { continue };
            if to.starts_with(&here) || here.starts_with(&to) {
                continue;
            }
            let at = format!("{}:{line}", path.strip_prefix(src).unwrap_or(path).display());
            out.push((here.join("::"), to.join("::"), at));
        }
    }
    out
}

/// The circles among `arrows`: each strongly connected set of two or more modules, with the
/// arrows inside it. Tarjan's algorithm.
fn circles(arrows: &[(String, String, String)]) -> Vec<Vec<String>> {
    let mut names: Vec<&str> = arrows.iter().flat_map(|(a, b, _)| [a.as_str(), b.as_str()]).collect();
    names.sort();
    names.dedup();
    let id = |n: &str| names.binary_search(&n).unwrap();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for (a, b, _) in arrows {
        next[id(a)].push(id(b));
    }
    struct Walk {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        sets: Vec<Vec<usize>>,
    }
    fn visit(v: usize, next: &[Vec<usize>], w: &mut Walk) {
        w.index[v] = Some(w.counter);
        w.low[v] = w.counter;
        w.counter += 1;
        w.stack.push(v);
        w.on_stack[v] = true;
        for &u in &next[v] {
            match w.index[u] {
                None => {
                    visit(u, next, w);
                    w.low[v] = w.low[v].min(w.low[u]);
                }
                Some(i) if w.on_stack[u] => w.low[v] = w.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(w.low[v]) == w.index[v] {
            let mut set = Vec::new();
            while let Some(u) = w.stack.pop() {
                w.on_stack[u] = false;
                set.push(u);
                if u == v {
                    break;
                }
            }
            if set.len() > 1 {
                w.sets.push(set);
            }
        }
    }
    let n = names.len();
    let mut w = Walk {
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        sets: Vec::new(),
    };
    for v in 0..n {
        if w.index[v].is_none() {
            visit(v, &next, &mut w);
        }
    }
    w.sets
        .into_iter()
        .map(|set| {
            let inside = |m: &str| set.contains(&id(m));
            let mut lines: Vec<String> = arrows
                .iter()
                .filter(|(a, b, _)| inside(a) && inside(b))
                .map(|(a, b, at)| format!("{a} -> {b} ({at})"))
                .collect();
            lines.sort();
            lines
        })
        .collect()
}

#[test]
fn no_circles_between_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut problems = Vec::new();
    for krate in CRATES {
        let src = root.join(krate);
        assert!(non_test_files(&src).len() > 1, "{krate}: no modules read; is the crate still there?");
        for circle in circles(&arrows(&src)) {
            problems.push(format!("{krate}:\n  {}", circle.join("\n  ")));
        }
    }
    assert!(
        problems.is_empty(),
        "modules in a circle (ARCHITECTURE.md, \"No circles\"): move what both need where both can point down to it:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_circle_check_reads_paths_and_finds_circles() {
    let text = "use crate::a::{b, c::{D, self}};\nuse super::sibling::f;\nfn g() { child::h(); x::y(); }\n";
    let found: Vec<String> = paths(text).into_iter().map(|(l, p)| format!("{l} {}", p.join("::"))).collect();
    assert_eq!(
        found,
        ["1 crate::a::b", "1 crate::a::c::D", "1 crate::a::c::self", "2 super::sibling::f", "3 child::h", "3 x::y"]
    );
    let modules: Vec<Vec<String>> = [&[][..], &["a"], &["a", "c"], &["m"], &["m", "child"], &["sibling"]]
        .iter()
        .map(|m| m.iter().map(|s| s.to_string()).collect())
        .collect();
    let here = ["m".to_owned()];
    let to =
        |p: &str| target(&modules, &here, &p.split("::").map(str::to_owned).collect::<Vec<_>>()).map(|m| m.join("::"));
    assert_eq!(to("crate::a::c::D").as_deref(), Some("a::c"));
    assert_eq!(to("super::sibling::f").as_deref(), Some("sibling"));
    assert_eq!(to("child::h").as_deref(), Some("m::child"));
    assert_eq!(to("x::y"), None);
    let arrow = |a: &str, b: &str| (a.to_owned(), b.to_owned(), "f.rs:1".to_owned());
    let found = circles(&[arrow("a", "b"), arrow("b", "c"), arrow("c", "a"), arrow("c", "d")]);
    assert_eq!(found, [vec!["a -> b (f.rs:1)", "b -> c (f.rs:1)", "c -> a (f.rs:1)"]]);
    assert!(circles(&[arrow("a", "b"), arrow("b", "c")]).is_empty());
}
