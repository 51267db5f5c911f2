//! One source file: its text, line index, syntax errors and the objects read from it.
//!
//! A file read from disk does not keep its text once parsed: the model holds what analysis
//! needs, and the text is read back on the rare occasions something needs it (positions on a
//! non-ASCII line, a source line in a report, rename edits). Editor buffers keep their text.
//! Core reads nothing itself: whoever read the file hands over a [`ReadBack`] with its text.

use std::hash::{DefaultHasher, Hasher};
use std::path::Path;
use std::sync::{Arc, OnceLock};

mod decode;
mod suppress;

pub use decode::{FileContent, decode};
pub use suppress::{Suppression, SuppressionScope};

use crate::model::{Intent, Kustomization, Object, extract_document, helm_chart_items, is_kustomization_file};
use crate::syntax::{LineIndex, Moved, Position, PositionEncoding, Span, SyntaxError, parse_each, parse_each_after};

#[derive(Debug)]
pub struct SourceFile {
    pub path: Arc<str>,
    text: Text,
    /// Built on first use: most files of a large workspace never need positions.
    line_index: OnceLock<LineIndex>,
    /// One per broken document, in order.
    pub syntax_errors: Vec<SyntaxError>,
    pub documents: u32,
    /// Template documents that could not be read around their actions (`Document::skipped`).
    pub skipped_templates: u32,
    pub objects: Vec<Object>,
    /// Set when the file is not text: why it was skipped.
    pub unreadable: Option<String>,
    /// Where the file comes from: the workspace (reported on) or context (read, never
    /// reported on).
    pub origin: Origin,
    /// Per object, a hash of its document's text: identical copies of one object are told
    /// apart from diverging ones without keeping the text.
    pub content_hashes: Box<[u32]>,
    /// `# policylens: ignore[...]` comments, in order.
    pub suppressions: Box<[Suppression]>,
    /// What a `kustomization.yaml` applies (docs/semantics.md §4.7).
    pub kustomization: Option<Box<Kustomization>>,
}

/// Where a file comes from. Instances from a better origin replace those of a worse one
/// (workspace files over context directories over the live cluster).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    #[default]
    Workspace,
    /// A `context:` directory: part of the world, never reported on.
    Context,
    /// An object read from a live cluster.
    Cluster,
}

/// Gives back the bytes of a file whose text was dropped after parsing
/// ([`SourceFile::parse_on_disk`]): the reader at the edge that read it the first time
/// (`policylens-loader` reads the filesystem).
pub trait ReadBack: Send + Sync + std::fmt::Debug {
    /// The bytes at `disk` now; `None` when they cannot be read (the file went away).
    fn read_back(&self, disk: &Path) -> Option<Vec<u8>>;
}

#[derive(Debug)]
enum Text {
    Held(Arc<str>),
    /// Dropped after parsing. Read back only while the file still holds the same bytes:
    /// positions computed from another text would point at the wrong places.
    OnDisk {
        disk: Box<Path>,
        len: u32,
        hash: u64,
        cache: OnceLock<Option<Arc<str>>>,
        source: Arc<dyn ReadBack>,
    },
}

impl SourceFile {
    pub fn parse(path: Arc<str>, text: Arc<str>) -> SourceFile {
        // Binary junk in an editor buffer gets the one diagnostic a binary file on disk gets,
        // not whatever the YAML parser makes of it.
        if let Some(reason) = decode::binary(text.as_bytes()) {
            return SourceFile { text: Text::Held(text), ..SourceFile::unreadable(path, &reason) };
        }
        let mut file = SourceFile::parsed(path, &text);
        file.text = Text::Held(text);
        file
    }

    /// [`SourceFile::parse`] of `text`, the new text of `prev`'s file (an editor's buffer after
    /// a keystroke): what `prev` read from the documents before the first byte that changed is
    /// kept, and only the edited document and those after it are parsed again. The result is
    /// the same as parsing the whole text.
    pub fn reparse(prev: &SourceFile, text: Arc<str>) -> SourceFile {
        let old = match &prev.text {
            Text::Held(old) if prev.unreadable.is_none() => old,
            _ => return SourceFile::parse(prev.path.clone(), text),
        };
        // Templated and JSON texts are read as a whole (`parse_pieces_with`).
        let whole = |t: &str| crate::syntax::is_templated(t) || t.trim_start().starts_with('{');
        let kustomization = is_kustomization_file(&prev.path);
        if kustomization || whole(old) || whole(&text) || decode::binary(text.as_bytes()).is_some() {
            return SourceFile::parse(prev.path.clone(), text);
        }
        let mut file = SourceFile::parsed_after(prev.path.clone(), &text, Some((prev, old)));
        file.text = Text::Held(text);
        file
    }

    /// Parses a file read from `disk` and keeps its text only until the objects are read;
    /// `source` gives it back when it is needed again.
    pub fn parse_on_disk(path: Arc<str>, disk: &Path, text: &str, source: Arc<dyn ReadBack>) -> SourceFile {
        let mut file = SourceFile::parsed(path, text);
        file.text = Text::OnDisk {
            disk: disk.into(),
            len: text.len() as u32,
            hash: hash(text),
            cache: OnceLock::new(),
            source,
        };
        file
    }

    fn parsed(path: Arc<str>, text: &str) -> SourceFile {
        SourceFile::parsed_after(path, text, None)
    }

    /// Parses `text`; with `Some((prev, old))`, keeps what `prev` read from `old`, its text, for
    /// the documents the edit left whole ([`parse_each_after`]).
    fn parsed_after(path: Arc<str>, text: &str, reuse: Option<(&SourceFile, &str)>) -> SourceFile {
        // Document by document: each tree is dropped once its objects are read.
        let (mut objects, mut syntax_errors, mut documents) = (Vec::new(), Vec::new(), 0u32);
        let mut kustomization = None;
        let is_kustomization = is_kustomization_file(&path);
        let mut skipped_templates = 0u32;
        let mut read = |i: u32, doc: crate::syntax::Document| {
            documents += 1;
            skipped_templates += u32::from(doc.skipped);
            syntax_errors.extend(doc.error.clone());
            if is_kustomization && i == 0 {
                kustomization = Kustomization::read(&doc).map(Box::new);
                if kustomization.is_some() {
                    helm_chart_items(&doc, i, text, &mut objects);
                }
                return;
            }
            extract_document(&doc, i, text, &mut objects);
        };
        let templated = match reuse {
            None => parse_each(text, read),
            Some((prev, old)) => {
                let reuse = parse_each_after(old, text, &mut read);
                let (kept, end) = (reuse.kept, reuse.kept_end);
                // A kept document's error lies before the end of the last kept one (the start
                // of the next marker line); one right there could be either's, so then the
                // file is read whole. The same holds at the start of the first moved one.
                let moved = reuse.moved.filter(|m| movable(prev, m));
                let at_edge = |e: &SyntaxError| {
                    (kept > 0 && e.span.start == end) || moved.is_some_and(|m| e.span.start == m.old_start)
                };
                if (reuse.moved.is_some() && moved.is_none()) || prev.syntax_errors.iter().any(at_edge) {
                    return SourceFile::parsed_after(path, text, None);
                }
                let kept_objects = prev.objects.iter().take_while(|o| o.doc < kept).cloned();
                objects.splice(0..0, kept_objects);
                let kept_errors = prev.syntax_errors.iter().take_while(|e| e.span.start < end).cloned();
                syntax_errors.splice(0..0, kept_errors);
                documents += kept;
                if let Some(m) = moved {
                    let from_doc = |o: &&Object| o.doc >= m.old_first;
                    objects.extend(prev.objects.iter().filter(from_doc).map(|o| o.moved(m.by, m.first, m.old_first)));
                    let errors = prev.syntax_errors.iter().filter(|e| e.span.start > m.old_start);
                    syntax_errors.extend(errors.map(|e| SyntaxError { span: e.span.shifted(m.by), ..e.clone() }));
                    documents += prev.documents.saturating_sub(m.old_first);
                }
                false
            }
        };
        objects.shrink_to_fit();
        // What a chart rendered from a release's values (the objects right after it) is named
        // as the chart computes it (`{{ .Release.Name }}` filled in), never as written.
        let mut rendered_left = 0u32;
        let mut release_substitutable = false;
        for o in &mut objects {
            let rendered = rendered_left > 0;
            rendered_left = if rendered { rendered_left - 1 } else { o.release().map_or(0, |r| r.rendered) };
            if templated && !rendered {
                o.show_written(text);
            }
            o.mark_placeholders();
            // A rendered object's names come from its release's whole document (a component's
            // `name: ${APP}-anubis` names every object its chart renders), not its values alone.
            if rendered {
                o.substitutable &= release_substitutable;
            } else {
                o.substitutable &=
                    text.get(o.span.start as usize..o.span.end as usize).is_some_and(|t| t.contains("${"));
                release_substitutable = o.substitutable;
            }
            // kubebuilder writes `# TODO(user): Add fields here` into the samples it scaffolds.
            if o.intent == Intent::Applied
                && text.get(o.span.start as usize..o.span.end as usize).is_some_and(|t| t.contains("TODO(user)"))
            {
                o.intent = Intent::ScaffoldLike;
            }
        }
        let content_hashes =
            objects.iter().map(|o| fold32(hash(&text[o.span.start as usize..o.span.end as usize]))).collect();
        SourceFile {
            documents,
            skipped_templates,
            syntax_errors,
            objects,
            content_hashes,
            suppressions: suppress::scan(text).into(),
            kustomization,
            ..SourceFile::empty(path)
        }
    }

    /// This file, read as context (see [`Origin`]).
    pub fn with_origin(mut self, origin: Origin) -> SourceFile {
        self.origin = origin;
        self
    }

    fn empty(path: Arc<str>) -> SourceFile {
        SourceFile {
            path,
            text: Text::Held(Arc::from("")),
            line_index: OnceLock::new(),
            syntax_errors: Vec::new(),
            documents: 0,
            skipped_templates: 0,
            objects: Vec::new(),
            unreadable: None,
            origin: Origin::Workspace,
            content_hashes: Box::default(),
            suppressions: Box::default(),
            kustomization: None,
        }
    }

    /// A file kept only for its text and positions (the config file).
    pub fn unparsed(path: Arc<str>, text: Arc<str>) -> SourceFile {
        SourceFile { text: Text::Held(text), ..SourceFile::empty(path) }
    }

    pub fn unreadable(path: Arc<str>, reason: &str) -> SourceFile {
        SourceFile { unreadable: Some(reason.to_owned()), ..SourceFile::empty(path) }
    }

    /// The text the objects were read from. A file parsed from disk reads it back once and
    /// keeps it; `""` when the file changed or went away since (a watcher event will replace
    /// this file soon).
    pub fn text(&self) -> &str {
        match &self.text {
            Text::Held(t) => t,
            Text::OnDisk { cache, .. } => cache.get_or_init(|| self.load_text()).as_deref().unwrap_or(""),
        }
    }

    /// The text without keeping it: for one-off readers of many files.
    pub fn load_text(&self) -> Option<Arc<str>> {
        match &self.text {
            Text::Held(t) => Some(t.clone()),
            Text::OnDisk { cache, .. } if cache.get().is_some() => cache.get().cloned().flatten(),
            Text::OnDisk { disk, len, hash: h, source, .. } => match decode(source.read_back(disk)?) {
                FileContent::Text(t) if t.len() == *len as usize && hash(&t) == *h => Some(t.into()),
                _ => None,
            },
        }
    }

    /// Whether the text is held in memory (editor buffers, files whose text was needed).
    fn holds_text(&self) -> bool {
        match &self.text {
            Text::Held(_) => true,
            Text::OnDisk { cache, .. } => cache.get().is_some_and(Option::is_some),
        }
    }

    pub fn line_index(&self) -> &LineIndex {
        self.line_index.get_or_init(|| {
            let Text::OnDisk { cache, .. } = &self.text else { return LineIndex::new(self.text()) };
            if let Some(Some(t)) = cache.get() {
                return LineIndex::new(t);
            }
            let Some(t) = self.load_text() else { return LineIndex::new("") };
            let index = LineIndex::new(&t);
            // The index of an ASCII file answers positions alone: its text need not stay.
            if !index.is_ascii() {
                let _ = cache.set(Some(t));
            }
            index
        })
    }

    /// The text positions on non-ASCII lines are counted in (`""` for an ASCII file whose
    /// text is not held: its index needs none).
    fn text_for(&self, index: &LineIndex) -> &str {
        if index.is_ascii() && !self.holds_text() { "" } else { self.text() }
    }

    pub fn position(&self, offset: u32, enc: PositionEncoding) -> Position {
        let index = self.line_index();
        index.position(self.text_for(index), offset, enc)
    }

    pub fn offset(&self, pos: Position, enc: PositionEncoding) -> u32 {
        self.line_index().offset(self.text(), pos, enc)
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text().get(span.start as usize..span.end as usize).unwrap_or("")
    }
}

fn fold32(h: u64) -> u32 {
    (h ^ (h >> 32)) as u32
}

fn hash(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    h.write(text.as_bytes());
    h.finish()
}

/// Whether `prev`'s objects in the documents `m` moves can be moved ([`Object::movable`]).
fn movable(prev: &SourceFile, m: &Moved) -> bool {
    prev.objects.iter().filter(|o| o.doc >= m.old_first).all(Object::movable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::path::PathBuf;
    use std::sync::Mutex;

    /// Files in memory, as a reader at the edge would give them back.
    #[derive(Debug, Default)]
    struct Files(Mutex<HashMap<PathBuf, Vec<u8>>>);

    impl Files {
        fn write(&self, disk: &str, text: &str) {
            self.0.lock().unwrap().insert(disk.into(), text.as_bytes().to_vec());
        }
    }

    impl ReadBack for Files {
        fn read_back(&self, disk: &Path) -> Option<Vec<u8>> {
            self.0.lock().unwrap().get(disk).cloned()
        }
    }

    /// `text` as read from `disk` of `files`, parsed without keeping the text.
    fn on_disk(files: &Arc<Files>, disk: &str, text: &str) -> SourceFile {
        files.write(disk, text);
        SourceFile::parse_on_disk("f.yaml".into(), Path::new(disk), text, files.clone())
    }

    const TEXT: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: café-é\n  namespace: x\n";

    #[test]
    fn file_read_from_disk_keeps_no_text_until_asked() {
        let files = Arc::new(Files::default());
        let f = on_disk(&files, "/ws/f.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n");
        assert_eq!(f.objects.len(), 1);
        assert!(!f.holds_text());
        // An ASCII file answers positions from its line index alone.
        assert_eq!(f.position(47, PositionEncoding::Utf16), Position { line: 3, character: 8 });
        assert!(!f.holds_text());
        assert_eq!(f.slice(f.objects[0].name.span), "a");
        assert!(f.holds_text());
    }

    #[test]
    fn non_ascii_positions_read_the_text_back() {
        let files = Arc::new(Files::default());
        let f = on_disk(&files, "/ws/f.yaml", TEXT);
        let ns = TEXT.find("namespace").unwrap() as u32;
        let after_name = TEXT.find("\n  namespace").unwrap() as u32;
        assert_eq!(f.position(after_name, PositionEncoding::Utf16), Position { line: 3, character: 14 });
        assert_eq!(f.position(after_name, PositionEncoding::Utf8), Position { line: 3, character: 16 });
        assert_eq!(f.position(ns, PositionEncoding::Utf16), Position { line: 4, character: 2 });
        assert_eq!(f.text(), TEXT);
    }

    #[test]
    fn a_changed_file_is_not_read_back() {
        let files = Arc::new(Files::default());
        let f = on_disk(&files, "/ws/f.yaml", TEXT);
        files.write("/ws/f.yaml", &TEXT.replace("x", "y"));
        assert_eq!(f.load_text(), None);
        assert_eq!(f.text(), "");
        // Positions clamp instead of pointing into the other text.
        assert_eq!(f.position(40, PositionEncoding::Utf16), Position { line: 0, character: 0 });
        files.0.lock().unwrap().clear();
        assert_eq!(f.load_text(), None);
    }

    /// Several documents: clean ones, a broken one, a `...` end, a comment before a marker.
    const DOCS: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  namespace: x\n---\n\
        # a comment\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\n  labels: {app: b}\n---\n\
        apiVersion: v1\nkind: Service\nmetadata:\n  name: [c\n...\n\
        ---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n\
        spec:\n  parentRefs:\n    - name: gw\n---\n# policylens: ignore[target-not-found]\n\
        apiVersion: v1\nkind: Service\nmetadata:\n  name: d\n";

    /// A CRD (its schema's spans are not moved, so a file it would move in is read whole), then
    /// one document of every kind whose objects carry spans, each moved by its own code when an
    /// edit before it changes the length of the text.
    const KINDS: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n\
        \x20 name: xs.example.com\nspec:\n  group: example.com\n  names: {kind: X, plural: xs}\n  scope: Namespaced\n\
        \x20 versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n\
        \x20       openAPIV3Schema: {type: object}\n---\n\
        apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n    - name: http\n      port: 80\n---\n\
        apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\nspec:\n  gatewayClassName: c\n\
        \x20 allowedListeners:\n    namespaces:\n      from: All\n  listeners:\n    - name: https\n      port: 443\n\
        \x20     hostname: a.example\n      allowedRoutes:\n        namespaces:\n          from: Selector\n\
        \x20         selector:\n            matchLabels: {team: a}\n---\n\
        apiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata:\n  name: ls\nspec:\n\
        \x20 parentRef: {name: gw, sectionName: https}\n  listeners:\n    - name: extra\n      port: 8443\n---\n\
        apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n  namespace: shop\nspec:\n\
        \x20 parentRefs: [{name: gw, namespace: infra, sectionName: https, port: 443}]\n  hostnames: [a.example]\n\
        \x20 rules:\n    - name: pay\n      backendRefs: [{name: s, port: 80}]\n      filters:\n\
        \x20       - type: ExtensionRef\n          extensionRef: {group: gateway.kgateway.dev, kind: TrafficPolicy, name: tp}\n---\n\
        apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: p\nspec:\n\
        \x20 targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n\
        \x20 targetRefs:\n    - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: pay}\n\
        \x20 targetSelectors:\n    - group: gateway.networking.k8s.io\n      kind: HTTPRoute\n\
        \x20     matchLabels: {app: a}\n      namespaces: {from: All}\n  timeout:\n    http: {requestTimeout: 5s}\n";

    fn assert_same(got: &SourceFile, want: &SourceFile, text: &str) {
        assert_eq!(got.documents, want.documents, "documents of {text:?}");
        assert_eq!(got.syntax_errors, want.syntax_errors, "syntax errors of {text:?}");
        assert_eq!(got.objects, want.objects, "objects of {text:?}");
        assert_eq!(got.content_hashes, want.content_hashes, "content hashes of {text:?}");
        assert_eq!(got.suppressions, want.suppressions, "suppressions of {text:?}");
        assert_eq!(got.text(), text);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 800, ..Default::default() })]

        /// Keystroke after keystroke, each text re-read from the one before reads as the whole
        /// text parsed afresh, whatever the edit (markers typed or broken, quotes, brackets).
        #[test]
        fn a_reparse_reads_as_a_parse(start in proptest::sample::select(vec![DOCS, KINDS]), edits in proptest::collection::vec(
            (proptest::prop_oneof![0usize..8, 0usize..2000], 0usize..4, proptest::sample::select(vec![
                "", "a", "-", "---\n", "--", "...\n", "\n", "  ", ": ", "'", "\"", "[", "]", "#",
                "kind: Service\n", "\t", "é", "{{ x }}", "{", "name: z\n", "\r\n",
            ])),
            1..8,
        )) {
            let mut text = start.to_owned();
            let mut file = SourceFile::parse("f.yaml".into(), text.clone().into());
            for (at, del, ins) in edits {
                let mut a = at % (text.len() + 1);
                while !text.is_char_boundary(a) {
                    a -= 1;
                }
                let mut b = (a + del).min(text.len());
                while !text.is_char_boundary(b) {
                    b += 1;
                }
                text.replace_range(a..b, ins);
                file = SourceFile::reparse(&file, text.clone().into());
                assert_same(&file, &SourceFile::parse("f.yaml".into(), text.clone().into()), &text);
            }
        }
    }

    #[test]
    fn a_reparse_keeps_the_documents_before_the_edit() {
        let prev = SourceFile::parse("f.yaml".into(), DOCS.into());
        let at = DOCS.find("name: d").unwrap();
        let text = format!("{}name: e{}", &DOCS[..at], &DOCS[at + "name: d".len()..]);
        let reuse = crate::syntax::parse_each_after(DOCS, &text, |_, _| {});
        assert_eq!((reuse.kept, &text[reuse.kept_end as usize..][..4], reuse.moved), (4, "---\n", None));
        let file = SourceFile::reparse(&prev, text.clone().into());
        assert_same(&file, &SourceFile::parse("f.yaml".into(), text.clone().into()), &text);
        assert_eq!(file.objects.iter().map(|o| o.name.value.as_str()).collect::<Vec<_>>(), ["a", "b", "r", "e"]);
    }

    /// Typing on a `---` line breaks the marker: the document before it is not kept, since it
    /// now runs on into the next one.
    #[test]
    fn a_reparse_after_a_broken_marker_reads_the_document_before_again() {
        let prev = SourceFile::parse("f.yaml".into(), DOCS.into());
        let at = DOCS.find("---").unwrap() + 3;
        let text = format!("{}x{}", &DOCS[..at], &DOCS[at..]);
        let file = SourceFile::reparse(&prev, text.clone().into());
        assert_same(&file, &SourceFile::parse("f.yaml".into(), text.clone().into()), &text);
        assert_eq!(file.documents, prev.documents - 1);
    }

    /// Typing the third `-` makes a marker: the document before it ends there now, so it is
    /// read again rather than kept.
    #[test]
    fn a_reparse_after_a_marker_is_typed_reads_the_document_before_again() {
        let old = DOCS.replacen("---\n", "--\n", 1);
        let prev = SourceFile::parse("f.yaml".into(), old.clone().into());
        let at = old.find("--\n").unwrap() + 2;
        let text = format!("{}-{}", &old[..at], &old[at..]);
        assert_eq!(text, DOCS);
        let file = SourceFile::reparse(&prev, text.clone().into());
        assert_same(&file, &SourceFile::parse("f.yaml".into(), text.clone().into()), &text);
        assert_eq!(file.documents, prev.documents + 1);
    }

    /// A `...` typed above a broken document: nothing is kept, and the old error (at 0) goes
    /// with it (random editor sessions, seed 7011).
    #[test]
    fn a_reparse_keeps_no_error_of_a_document_it_reads_again() {
        let prev = SourceFile::parse("f.yaml".into(), "\"ü☕".into());
        assert_eq!(prev.syntax_errors.len(), 1);
        let text = "...\n\"ü☕";
        let file = SourceFile::reparse(&prev, text.into());
        assert_same(&file, &SourceFile::parse("f.yaml".into(), text.into()), text);
    }

    /// A line typed above a stray `...` that opens the file: every document is moved, and the
    /// stray end's error (before the first document, at 0 in the old text) with them
    /// (`a_reparse_reads_as_a_parse`, edits `(0, 0, "...\n")` then `(0, 0, "\r\n")` on `DOCS`).
    #[test]
    fn a_reparse_moves_the_error_of_a_stray_end_before_the_first_document() {
        let old = format!("...\n{DOCS}");
        let prev = SourceFile::parse("f.yaml".into(), old.clone().into());
        let stray = |f: &SourceFile| f.syntax_errors.iter().map(|e| e.span.start).collect::<Vec<_>>();
        assert_eq!(stray(&prev)[0], 0);
        let text = format!("\r\n{old}");
        let file = SourceFile::reparse(&prev, text.clone().into());
        assert_same(&file, &SourceFile::parse("f.yaml".into(), text.clone().into()), &text);
        assert_eq!(stray(&file)[0], 2);
    }

    /// Which documents a re-parse of `text` after `old` reads again.
    fn read_again(old: &str, text: &str) -> Vec<u32> {
        let mut read = Vec::new();
        crate::syntax::parse_each_after(old, text, |i, _| read.push(i));
        read
    }

    /// An edit that lengthens the first document reads it alone: every later one is moved, each
    /// of its spans by the three bytes typed (the equality with a whole parse compares them all).
    #[test]
    fn a_reparse_moves_the_documents_after_the_edit() {
        let prev = SourceFile::parse("f.yaml".into(), KINDS.into());
        let at = KINDS.find("name: s").unwrap() + "name: s".len();
        let text = format!("{}vc1{}", &KINDS[..at], &KINDS[at..]);
        assert_eq!(read_again(KINDS, &text), [1]);
        let file = SourceFile::reparse(&prev, text.clone().into());
        assert_same(&file, &SourceFile::parse("f.yaml".into(), text.clone().into()), &text);
        let names: Vec<&str> = file.objects.iter().map(|o| o.name.value.as_str()).collect();
        assert_eq!(names, ["xs.example.com", "svc1", "gw", "ls", "r", "p"]);
        let gw = &file.objects[2];
        assert_eq!((gw.doc, file.slice(gw.name.span)), (2, "gw"));
    }

    /// A `---` typed inside a document splits it: the documents after it are moved and
    /// renumbered, one further on.
    #[test]
    fn a_reparse_renumbers_the_documents_it_moves() {
        let at = KINDS.find("\nspec:\n  gatewayClassName").unwrap() + 1;
        let text = format!("{}---\n{}", &KINDS[..at], &KINDS[at..]);
        let prev = SourceFile::parse("f.yaml".into(), KINDS.into());
        let reuse = crate::syntax::parse_each_after(KINDS, &text, |_, _| {});
        let moved = reuse.moved.unwrap();
        assert_eq!((reuse.kept, moved.first, moved.old_first, moved.by), (2, 4, 3, 4));
        let file = SourceFile::reparse(&prev, text.clone().into());
        assert_same(&file, &SourceFile::parse("f.yaml".into(), text.clone().into()), &text);
        assert_eq!(file.documents, prev.documents + 1);
    }

    /// An error in a moved document moves with it; a document that loses its error is read.
    #[test]
    fn a_reparse_moves_the_errors_after_the_edit() {
        let old = DOCS.replacen("name: a", "name: [a", 1);
        let prev = SourceFile::parse("f.yaml".into(), old.clone().into());
        assert_eq!(prev.syntax_errors.len(), 2);
        let at = old.find("[a").unwrap() + 1;
        let text = format!("{}{}", &old[..at], &old[at..].replacen("a", "a]", 1));
        assert_eq!(read_again(&old, &text), [0]);
        let file = SourceFile::reparse(&prev, text.clone().into());
        assert_same(&file, &SourceFile::parse("f.yaml".into(), text.clone().into()), &text);
        assert_eq!(file.syntax_errors.len(), 1);
        assert_eq!(file.syntax_errors[0].span, prev.syntax_errors[1].span.shifted(1));
    }

    #[test]
    fn a_file_that_turned_binary_is_not_read_back() {
        let files = Arc::new(Files::default());
        let f = on_disk(&files, "/ws/f.yaml", "a: b\n");
        files.write("/ws/f.yaml", "a: \0\n");
        assert_eq!(f.load_text(), None);
    }
}
