//! libyaml as the oracle of the parser (docs/semantics.md §4.1: a file libyaml loads is never a
//! `yaml-syntax` error, a file it rejects is one). Kubernetes reads manifests with go-yaml, a
//! port of libyaml.
//!
//! The oracle is libyaml's own loader (`yaml_parser_load`: the whole stream at once, documents
//! as node graphs, anchors checked), not the event loop policylens builds its trees from, so
//! the splitting into documents, the trees, recovery and the fast reader are all checked
//! against it. Where libyaml and go-yaml v3 (what kustomize and Flux read with) differ, go-yaml
//! decides ([`go_yaml`]): an anchor defined again replaces the earlier one. Shared by `tests/libyaml_oracle.rs` and the `libyaml` fuzz target (which
//! compiles this file by path).

use std::mem::MaybeUninit;

use policylens_core::syntax::{Node, NodeKind, ParsedFile, ScalarStyle, parse_file, parse_file_by_libyaml};
use unsafe_libyaml as unsafe_sys;

/// A document's tree as both sides can spell it: scalars by value and whether they are plain
/// (what null, booleans and numbers resolve from); aliases unexpanded.
#[derive(Clone, Debug, PartialEq)]
pub enum Tree {
    Scalar(String, bool),
    Seq(Vec<Tree>),
    Map(Vec<(Tree, Tree)>),
    Alias,
}

fn is_null_plain(v: &str) -> bool {
    matches!(v, "" | "~" | "null" | "Null" | "NULL")
}

/// libyaml's verdict on a whole text: its documents (null ones left out), or its error.
pub fn libyaml(text: &str) -> Result<Vec<Tree>, String> {
    let mut docs = Vec::new();
    // SAFETY: one parser, initialised before use and deleted once; each document is deleted
    // after it has been read; node indexes come from libyaml and are checked against the
    // node stack before use.
    unsafe {
        let mut parser = Box::new(MaybeUninit::<unsafe_sys::yaml_parser_t>::uninit());
        let p = parser.as_mut_ptr();
        if unsafe_sys::yaml_parser_initialize(p).fail {
            return Err("libyaml could not start".into());
        }
        unsafe_sys::yaml_parser_set_input_string(p, text.as_ptr(), text.len() as u64);
        let mut doc = Box::new(MaybeUninit::<unsafe_sys::yaml_document_t>::uninit());
        let d = doc.as_mut_ptr();
        let result = loop {
            if unsafe_sys::yaml_parser_load(p, d).fail {
                let r = &*p;
                let what = |c: *const std::ffi::c_char| {
                    if c.is_null() { String::new() } else { std::ffi::CStr::from_ptr(c).to_string_lossy().into_owned() }
                };
                break Err(format!("{} {} at {}", what(r.context), what(r.problem), r.problem_mark.index));
            }
            let root = unsafe_sys::yaml_document_get_root_node(d);
            if root.is_null() {
                unsafe_sys::yaml_document_delete(d);
                break Ok(());
            }
            let tree = document_tree(d);
            unsafe_sys::yaml_document_delete(d);
            if !matches!(&tree, Tree::Scalar(v, true) if is_null_plain(v)) {
                docs.push(tree);
            }
        };
        unsafe_sys::yaml_parser_delete(p);
        result.map(|()| docs)
    }
}

/// A loaded document as a [`Tree`]. Nodes are numbered in the order the loader made them, so a
/// reference to a node made before the one being read is an alias.
///
/// SAFETY: `d` is a document libyaml loaded, with a root.
unsafe fn document_tree(d: *mut unsafe_sys::yaml_document_t) -> Tree {
    enum Open {
        Seq(Vec<i32>, Vec<Tree>),
        Map(Vec<(i32, i32)>, Vec<Tree>),
    }
    let mut next = 1; // the next new node's index
    // SAFETY (whole function): see the caller's contract; `get_node` returns null for an
    // index outside the document.
    let node = |i: i32| unsafe { unsafe_sys::yaml_document_get_node(d, i) };
    let mut stack: Vec<(Open, usize)> = Vec::new();
    let mut pending: Vec<i32> = vec![1];
    let mut done: Option<Tree> = None;
    // Iterative: documents may nest deeply.
    loop {
        let finished = if let Some(i) = pending.pop() {
            if i < next {
                Tree::Alias
            } else {
                next = i + 1;
                let n = node(i);
                if n.is_null() {
                    Tree::Alias
                } else {
                    // SAFETY: a node of the document; its data is the member its type names.
                    let n = unsafe { &*n };
                    match n.type_ {
                        unsafe_sys::YAML_SEQUENCE_NODE => {
                            let s = unsafe { n.data.sequence.items };
                            let len = unsafe { s.top.offset_from(s.start) } as usize;
                            let items = unsafe { std::slice::from_raw_parts(s.start, len) }.to_vec();
                            stack.push((Open::Seq(items, Vec::new()), 0));
                            continue;
                        }
                        unsafe_sys::YAML_MAPPING_NODE => {
                            let m = unsafe { n.data.mapping.pairs };
                            let len = unsafe { m.top.offset_from(m.start) } as usize;
                            let pairs: Vec<(i32, i32)> = unsafe { std::slice::from_raw_parts(m.start, len) }
                                .iter()
                                .map(|p| (p.key, p.value))
                                .collect();
                            stack.push((Open::Map(pairs, Vec::new()), 0));
                            continue;
                        }
                        _ => {
                            let s = unsafe { n.data.scalar };
                            let bytes = unsafe { std::slice::from_raw_parts(s.value, s.length as usize) };
                            Tree::Scalar(
                                String::from_utf8_lossy(bytes).into_owned(),
                                s.style == unsafe_sys::YAML_PLAIN_SCALAR_STYLE,
                            )
                        }
                    }
                }
            }
        } else {
            // Every child of the innermost open collection is read, or asked for.
            match stack.last_mut() {
                None => return done.unwrap_or(Tree::Alias),
                Some((open, at)) => {
                    let want = match open {
                        Open::Seq(items, _) => items.len(),
                        Open::Map(pairs, _) => pairs.len() * 2,
                    };
                    if *at < want {
                        let i = match open {
                            Open::Seq(items, _) => items[*at],
                            Open::Map(pairs, _) => {
                                if at.is_multiple_of(2) {
                                    pairs[*at / 2].0
                                } else {
                                    pairs[*at / 2].1
                                }
                            }
                        };
                        *at += 1;
                        pending.push(i);
                        continue;
                    }
                    match stack.pop() {
                        Some((Open::Seq(_, out), _)) => Tree::Seq(out),
                        Some((Open::Map(_, out), _)) => {
                            let mut it = out.into_iter();
                            let mut pairs = Vec::new();
                            while let (Some(k), Some(v)) = (it.next(), it.next()) {
                                pairs.push((k, v));
                            }
                            Tree::Map(pairs)
                        }
                        None => unreachable!(),
                    }
                }
            }
        };
        match stack.last_mut() {
            Some((Open::Seq(_, out), _)) | Some((Open::Map(_, out), _)) => out.push(finished),
            None => done = Some(finished),
        }
        if stack.is_empty() && pending.is_empty() {
            return done.unwrap_or(Tree::Alias);
        }
    }
}

/// A policylens tree as a [`Tree`].
pub fn tree(root: &Node) -> Tree {
    /// An open collection: its children (a mapping's keys and values alternate), how many
    /// were read, and their trees.
    struct Open<'a> {
        node: &'a Node,
        at: usize,
        out: Vec<Tree>,
    }
    fn child(n: &Node, i: usize) -> Option<&Node> {
        match &n.kind {
            NodeKind::Sequence(items) => items.get(i),
            NodeKind::Mapping(entries) => {
                entries.get(i / 2).map(|e| if i.is_multiple_of(2) { &e.key } else { &e.value })
            }
            _ => None,
        }
    }
    fn close(o: Open<'_>) -> Tree {
        match &o.node.kind {
            NodeKind::Mapping(_) => {
                let mut it = o.out.into_iter();
                let mut pairs = Vec::new();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    pairs.push((k, v));
                }
                Tree::Map(pairs)
            }
            _ => Tree::Seq(o.out),
        }
    }
    let mut stack = vec![Open { node: root, at: 0, out: Vec::new() }];
    loop {
        let Some(top) = stack.last_mut() else { return Tree::Alias };
        let finished = match (&top.node.kind, child(top.node, top.at)) {
            (NodeKind::Scalar(s), _) => Tree::Scalar(s.value.to_string(), s.style == ScalarStyle::Plain),
            (NodeKind::Alias, _) => Tree::Alias,
            (NodeKind::Missing, _) => Tree::Scalar("<missing>".into(), false),
            (_, Some(c)) => {
                top.at += 1;
                stack.push(Open { node: c, at: 0, out: Vec::new() });
                continue;
            }
            (_, None) => {
                let Some(o) = stack.pop() else { return Tree::Alias };
                let t = close(o);
                match stack.last_mut() {
                    Some(parent) => {
                        parent.out.push(t);
                        continue;
                    }
                    None => return t,
                }
            }
        };
        stack.pop();
        match stack.last_mut() {
            Some(parent) => parent.out.push(finished),
            None => return finished,
        }
    }
}

/// policylens's documents of a parsed file (null ones left out), or its first error.
pub fn policylens(f: &ParsedFile) -> Result<Vec<Tree>, String> {
    if let Some(e) = f.documents.iter().find_map(|d| d.error.as_ref()) {
        return Err(format!("{} at {}", e.message, e.span.start));
    }
    Ok(f.documents.iter().filter_map(|d| d.root.as_ref()).map(tree).collect())
}

/// How one text fared on both sides.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Verdict {
    /// Both load it, with the same documents.
    BothLoad,
    /// Both reject it.
    BothReject,
    /// A template file libyaml rejects: policylens reads around the template lines.
    Template,
}

/// The verdict of go-yaml v3 where it differs from libyaml's: libyaml's loader rejects an anchor
/// defined twice in one document ("found duplicate anchor"), go-yaml v3 lets the later one
/// replace the earlier (`yaml.v3` decode.go `parser.anchor` sets `p.anchors[name]`, overwriting;
/// an alias resolves to the definition before it). Modelled by renaming each redefinition, and
/// the aliases after it, apart, and loading that with libyaml.
///
/// And a `:` inside a plain scalar in a flow collection, before `,`, `]` or `}`
/// (`[1.2.3.4, 001:db8::]`): libyaml 0.2.5 rejects it ("found unexpected ':'"), go-yaml v2 and
/// v3 keep it in the scalar (`scannerc.go` `yaml_parser_scan_plain_scalar` ends one at a `:`
/// only before a blank). Modelled by loading the text with each such `:` spelled as a private
/// use character, then spelling it back in the values.
pub fn go_yaml(text: &str) -> Result<Vec<Tree>, String> {
    let hidden = flow_colons_hidden(text);
    let shown = |r: Result<Vec<Tree>, String>| r.map(|docs| docs.into_iter().map(colons_shown).collect());
    let verdict = libyaml(&hidden);
    match &verdict {
        Err(e) if e.contains("found duplicate anchor") => match anchors_renamed(&hidden) {
            Some(renamed) => shown(libyaml(&renamed)),
            None => shown(verdict),
        },
        _ => shown(verdict),
    }
}

const HIDDEN_COLON: &str = "\u{E000}";

/// `text` with each `:` go-yaml keeps in a flow plain scalar spelled [`HIDDEN_COLON`]: libyaml's
/// event parser is run until it stops, and while it stops at such a `:` ("found unexpected
/// ':'" before `,`, `]` or `}`), that `:` is hidden and the text parsed again.
fn flow_colons_hidden(text: &str) -> String {
    let mut out = text.to_owned();
    let kept = |text: &str, (problem, at): &(String, usize)| {
        let b = text.as_bytes();
        problem == "found unexpected ':'"
            && b.get(*at) == Some(&b':')
            && matches!(b.get(at + 1), Some(b',' | b']' | b'}'))
    };
    // libyaml's marks count from after a byte-order mark.
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    while let Some((_, at)) = first_parse_error(&out).map(|(p, at)| (p, at + bom)).filter(|e| kept(&out, e)) {
        out.replace_range(at..at + 1, HIDDEN_COLON);
    }
    out
}

/// Where libyaml's event parser first stops on `text`, and its problem.
fn first_parse_error(text: &str) -> Option<(String, usize)> {
    // SAFETY: one parser, initialised before use and deleted once; each event is deleted after
    // it has been read; the problem string is a static C string libyaml set.
    unsafe {
        let mut parser = Box::new(MaybeUninit::<unsafe_sys::yaml_parser_t>::uninit());
        let p = parser.as_mut_ptr();
        if unsafe_sys::yaml_parser_initialize(p).fail {
            return None;
        }
        unsafe_sys::yaml_parser_set_input_string(p, text.as_ptr(), text.len() as u64);
        let mut event = Box::new(MaybeUninit::<unsafe_sys::yaml_event_t>::uninit());
        let e = event.as_mut_ptr();
        let out = loop {
            if unsafe_sys::yaml_parser_parse(p, e).fail {
                let r = &*p;
                let problem = if r.problem.is_null() {
                    String::new()
                } else {
                    std::ffi::CStr::from_ptr(r.problem).to_string_lossy().into_owned()
                };
                break Some((problem, r.problem_mark.index as usize));
            }
            let done = (*e).type_ == unsafe_sys::YAML_STREAM_END_EVENT;
            unsafe_sys::yaml_event_delete(e);
            if done {
                break None;
            }
        };
        unsafe_sys::yaml_parser_delete(p);
        out
    }
}

fn colons_shown(tree: Tree) -> Tree {
    match tree {
        Tree::Scalar(v, plain) => Tree::Scalar(v.replace(HIDDEN_COLON, ":"), plain),
        Tree::Seq(items) => Tree::Seq(items.into_iter().map(colons_shown).collect()),
        Tree::Map(pairs) => Tree::Map(pairs.into_iter().map(|(k, v)| (colons_shown(k), colons_shown(v))).collect()),
        Tree::Alias => Tree::Alias,
    }
}

/// `text` with every redefined anchor given a name of its own (`a` → `a__2`), and each alias
/// pointing at the definition in force where it is: the stream go-yaml v3 loads. `None` when
/// libyaml's event parser stops first (the text is broken anyway).
fn anchors_renamed(text: &str) -> Option<String> {
    use std::collections::HashMap;
    let b = text.as_bytes();
    // (offset of the `&` or `*`, length of the name with its sigil, replacement name)
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    // SAFETY: one parser, initialised before use and deleted once; each event is deleted
    // after it has been read; anchor strings are read while their event is alive.
    unsafe {
        let mut parser = Box::new(MaybeUninit::<unsafe_sys::yaml_parser_t>::uninit());
        let p = parser.as_mut_ptr();
        if unsafe_sys::yaml_parser_initialize(p).fail {
            return None;
        }
        unsafe_sys::yaml_parser_set_input_string(p, text.as_ptr(), text.len() as u64);
        let mut event = Box::new(MaybeUninit::<unsafe_sys::yaml_event_t>::uninit());
        let e = event.as_mut_ptr();
        // Per document: how often each name was defined.
        let mut defined: HashMap<Vec<u8>, usize> = HashMap::new();
        let name_of = |a: *const u8| std::ffi::CStr::from_ptr(a.cast()).to_bytes().to_vec();
        let mut unresolved = false;
        let ok = loop {
            if unsafe_sys::yaml_parser_parse(p, e).fail {
                break false;
            }
            let ev = &*e;
            let (start, end) = (ev.start_mark.index as usize, ev.end_mark.index as usize);
            let anchor = match ev.type_ {
                unsafe_sys::YAML_DOCUMENT_START_EVENT => {
                    defined.clear();
                    None
                }
                unsafe_sys::YAML_SCALAR_EVENT => Some(ev.data.scalar.anchor),
                unsafe_sys::YAML_SEQUENCE_START_EVENT => Some(ev.data.sequence_start.anchor),
                unsafe_sys::YAML_MAPPING_START_EVENT => Some(ev.data.mapping_start.anchor),
                unsafe_sys::YAML_ALIAS_EVENT => {
                    let name = name_of(ev.data.alias.anchor);
                    if let Some(&n) = defined.get(&name).filter(|&&n| n > 1) {
                        let mut sigil = b"*".to_vec();
                        sigil.extend_from_slice(&name);
                        // The `*name` token, from where libyaml marks the alias on.
                        let to = (end + sigil.len()).min(b.len());
                        match (start..to).find(|&i| b[i..].starts_with(&sigil)) {
                            Some(at) => {
                                edits.push((at, sigil.len(), format!("*{}__{n}", String::from_utf8_lossy(&name))))
                            }
                            None => unresolved = true,
                        }
                    }
                    None
                }
                _ => None,
            };
            let mut found = !unresolved;
            if let Some(a) = anchor.filter(|a| !a.is_null()) {
                let name = name_of(a);
                let n = defined.entry(name.clone()).or_insert(0);
                *n += 1;
                if *n > 1 {
                    // The `&name` among the node's properties (a tag may come first).
                    let mut sigil = b"&".to_vec();
                    sigil.extend_from_slice(&name);
                    match (start..end.min(b.len())).find(|&i| b[i..].starts_with(&sigil)) {
                        Some(at) => {
                            edits.push((at, sigil.len(), format!("&{}__{}", String::from_utf8_lossy(&name), *n)))
                        }
                        None => found = false,
                    }
                }
            }
            let done = ev.type_ == unsafe_sys::YAML_STREAM_END_EVENT;
            unsafe_sys::yaml_event_delete(e);
            if done || !found {
                break found;
            }
        };
        unsafe_sys::yaml_parser_delete(p);
        if !ok {
            return None;
        }
    }
    let mut out = text.to_owned();
    edits.sort_by_key(|e| e.0);
    for (at, len, with) in edits.into_iter().rev() {
        out.replace_range(at..at + len, &with);
    }
    Some(out)
}

/// Compares policylens with libyaml on `text`: same documents where libyaml loads it (values
/// not compared in template files, whose actions read as placeholders), a `yaml-syntax` error
/// where it rejects it, unless the file is a template; go-yaml v3 decides where the two differ
/// ([`go_yaml`]).
pub fn compare(text: &str) -> Result<Verdict, String> {
    let oracle = go_yaml(text);
    let parsed = parse_file(text);
    // The fast reader reads exactly what libyaml's events give, spans included (a text that
    // is one JSON object is read by the JSON reader instead, with spans of its own).
    if !text.trim_start().starts_with('{') {
        let by_libyaml = parse_file_by_libyaml(text);
        if by_libyaml != parsed {
            return Err(format!(
                "the fast reader and libyaml's events differ:\nfast:    {parsed:?}\nlibyaml: {by_libyaml:?}"
            ));
        }
    }
    let ours = policylens(&parsed);
    match (oracle, ours) {
        (Ok(a), Ok(b)) => {
            if parsed.templated || a == b {
                Ok(Verdict::BothLoad)
            } else {
                Err(format!("documents differ:\nlibyaml:    {a:?}\npolicylens: {b:?}"))
            }
        }
        (Ok(_), Err(e)) => Err(format!("libyaml loads it, policylens says: {e}")),
        (Err(_), Err(_)) => Ok(Verdict::BothReject),
        (Err(_), Ok(_)) if parsed.templated => Ok(Verdict::Template),
        (Err(e), Ok(b)) => Err(format!("libyaml rejects it ({e}), policylens reads {b:?}")),
    }
}
