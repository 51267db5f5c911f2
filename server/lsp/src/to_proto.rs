//! Core → LSP: byte spans to ranges in the negotiated encoding, paths to URIs, and the plain
//! data of core's analysis to LSP structures. Only this crate knows LSP.

use std::collections::HashMap;

use policylens_core::analysis::diagnostics::{Diagnostic as CoreDiagnostic, Severity};
use policylens_core::analysis::{
    self as core, CodeActionKind as CoreActionKind, CompletionKind, SymbolKind as CoreSymbolKind,
};
use policylens_core::syntax::{PositionEncoding, Span};
use policylens_core::workspace::SourceFile;
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeLens, Command, CompletionItem, CompletionItemKind, CompletionTextEdit, Diagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, Documentation, Hover, HoverContents,
    InsertTextFormat, Location, MarkupContent, MarkupKind, NumberOrString, Position, Range, SymbolInformation,
    SymbolKind, TextEdit, Uri, WorkspaceEdit,
};

use crate::state::View;

pub const SOURCE: &str = "policylens";
/// The command code lenses carry: `[uri, position, locations]`, as VS Code's
/// `editor.action.showReferences` takes them.
pub const SHOW_REFERENCES: &str = "policylens.showReferences";

/// The URI of a workspace path: the client's own spelling for open documents.
pub fn uri(view: &View, path: &str) -> Option<Uri> {
    if let Some(o) = view.open.get(path) {
        return Some(o.uri.clone());
    }
    if crate::cluster_doc::is_cluster_path(path) {
        return crate::cluster_doc::uri(path);
    }
    Uri::from_file_path(path)
}

pub fn position(file: &SourceFile, offset: u32, enc: PositionEncoding) -> Position {
    let p = file.position(offset, enc);
    Position::new(p.line, p.character)
}

pub fn range(file: &SourceFile, span: Span, enc: PositionEncoding) -> Range {
    Range::new(position(file, span.start, enc), position(file, span.end, enc))
}

pub fn location(view: &View, path: &str, span: Span) -> Option<Location> {
    location_in(view, path, span, &mut HashMap::new())
}

/// [`location`], with the YAML of cluster objects rendered once per call site (`rendered`):
/// a workspace symbol list names many of one object's sections.
pub fn location_in(
    view: &View,
    path: &str,
    span: Span,
    rendered: &mut HashMap<String, crate::cluster_doc::Rendered>,
) -> Option<Location> {
    let file = view.snap.source(path)?;
    // A cluster object's place in the YAML its virtual document shows.
    if crate::cluster_doc::is_cluster_path(path) {
        let shown = rendered.entry(path.to_owned()).or_insert_with(|| crate::cluster_doc::render(file.text()));
        return Some(Location::new(crate::cluster_doc::uri(path)?, shown.range(span, view.enc())));
    }
    Some(Location::new(uri(view, path)?, range(file, span, view.enc())))
}

pub fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Information => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    }
}

pub fn diagnostic(view: &View, file: &SourceFile, d: &CoreDiagnostic) -> Diagnostic {
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .filter_map(|r| {
            Some(DiagnosticRelatedInformation {
                location: location(view, &r.file, r.span)?,
                message: r.message.clone(),
            })
        })
        .collect();
    Diagnostic {
        range: range(file, d.span, view.enc()),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.code.as_str().to_owned())),
        code_description: <Uri as std::str::FromStr>::from_str(&d.code.help_uri())
            .ok()
            .map(|href| tower_lsp_server::ls_types::CodeDescription { href }),
        source: Some(SOURCE.to_owned()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

/// Every diagnostic of one file, in LSP form.
pub fn file_diagnostics(view: &View, path: &str) -> Vec<Diagnostic> {
    diagnostics(view, path, view.snap.diagnostics_for(path))
}

/// Diagnostics of one file of `view`'s snapshot, in LSP form.
pub fn diagnostics(view: &View, path: &str, ds: &[CoreDiagnostic]) -> Vec<Diagnostic> {
    let Some(file) = view.snap.source(path) else { return Vec::new() };
    ds.iter().map(|d| diagnostic(view, file, d)).collect()
}

pub fn hover(view: &View, file: &SourceFile, h: core::Hover) -> Hover {
    let contents = if view.caps.markdown_hover {
        HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown })
    } else {
        HoverContents::Markup(MarkupContent { kind: MarkupKind::PlainText, value: h.markdown })
    };
    Hover { contents, range: Some(range(file, h.span, view.enc())) }
}

/// The commands a hover's links run in a client that declared them (VS Code's extension:
/// `hoverActions` in its initializationOptions).
pub const EXPLAIN: &str = "policylens.explain";
pub const SHOW_TOPOLOGY: &str = "policylens.showTopology";
pub const FIND_REFERENCES: &str = "policylens.findReferences";

/// `command:` links under a hover: Explain and Show in topology for the object it is about,
/// References at the hovered position. `None` when the hover is about no object.
pub fn hover_actions(target: Option<&str>, uri: &Uri, position: Position) -> Option<String> {
    let target = target?;
    let link = |title: &str, command: &str, args: serde_json::Value| {
        format!("[{title}](command:{command}?{})", percent_encode(&args.to_string()))
    };
    let position = serde_json::json!({"line": position.line, "character": position.character});
    Some(format!(
        "\n\n---\n{} · {} · {}",
        link("Explain", EXPLAIN, serde_json::json!([target])),
        link("Show in topology", SHOW_TOPOLOGY, serde_json::json!([target])),
        link("References", FIND_REFERENCES, serde_json::json!([uri.as_str(), position])),
    ))
}

/// Percent-encodes all but RFC 3986's unreserved characters (a command link's arguments).
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn completion(view: &View, file: &SourceFile, c: core::CompletionItem) -> CompletionItem {
    let kind = match c.kind {
        CompletionKind::Reference => CompletionItemKind::REFERENCE,
        CompletionKind::Section => CompletionItemKind::FIELD,
        CompletionKind::Kind => CompletionItemKind::CLASS,
        CompletionKind::Namespace => CompletionItemKind::MODULE,
        CompletionKind::Value => CompletionItemKind::ENUM_MEMBER,
        CompletionKind::Snippet => CompletionItemKind::SNIPPET,
    };
    let snippet = c.is_snippet && view.caps.snippets;
    let new_text = if c.is_snippet && !snippet { strip_snippet(&c.insert_text) } else { c.insert_text };
    CompletionItem {
        label: c.label,
        kind: Some(kind),
        detail: c.detail,
        documentation: c
            .documentation
            .map(|d| Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: d })),
        sort_text: Some(c.sort_text),
        insert_text_format: Some(if snippet { InsertTextFormat::SNIPPET } else { InsertTextFormat::PLAIN_TEXT }),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit { range: range(file, c.replace, view.enc()), new_text })),
        ..Default::default()
    }
}

/// Snippet syntax to plain text, for clients without snippet support: `${1:x}` → `x`,
/// `${1|a,b|}` → `a`, `$1`/`$0` → nothing, `\$` → `$`.
pub fn strip_snippet(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    strip_into(&mut s.chars().peekable(), &mut out, false);
    out
}

/// Copies text up to the end, or up to the `}` closing a placeholder when `nested`.
fn strip_into(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String, nested: bool) {
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '}' if nested => return,
            '$' if chars.peek().is_some_and(char::is_ascii_digit) => {
                while chars.next_if(char::is_ascii_digit).is_some() {}
            }
            '$' if chars.peek() == Some(&'{') => {
                chars.next();
                while chars.next_if(char::is_ascii_digit).is_some() {}
                match chars.next() {
                    Some(':') => strip_into(chars, out, true),
                    Some('|') => {
                        // A choice: keep the first option.
                        let mut first = true;
                        while let Some(n) = chars.next() {
                            match n {
                                '|' if chars.peek() == Some(&'}') => {
                                    chars.next();
                                    break;
                                }
                                ',' => first = false,
                                '\\' => out.extend(chars.next().filter(|_| first)),
                                c if first => out.push(c),
                                _ => {}
                            }
                        }
                    }
                    _ => {} // `${1}`: a tab stop
                }
            }
            c => out.push(c),
        }
    }
}

fn symbol_kind(k: CoreSymbolKind) -> SymbolKind {
    match k {
        CoreSymbolKind::Object => SymbolKind::CLASS,
        CoreSymbolKind::Policy => SymbolKind::INTERFACE,
        CoreSymbolKind::Section => SymbolKind::FIELD,
    }
}

#[allow(deprecated)] // `deprecated` is a required field of the LSP structs
pub fn document_symbol(view: &View, file: &SourceFile, s: core::Symbol) -> DocumentSymbol {
    let enc = view.enc();
    let range = range(file, s.span, enc);
    // Clients reject a selection range outside the full range.
    let sel = if s.span.start <= s.selection_span.start && s.selection_span.end <= s.span.end {
        self::range(file, s.selection_span, enc)
    } else {
        range
    };
    DocumentSymbol {
        name: if s.name.is_empty() { "(unnamed)".into() } else { s.name },
        detail: s.detail,
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        range,
        selection_range: sel,
        children: (!s.children.is_empty())
            .then(|| s.children.into_iter().map(|c| document_symbol(view, file, c)).collect()),
    }
}

/// Symbols flattened, children named with their parent as container.
#[allow(deprecated)] // `deprecated` is a required field of the LSP structs
pub fn symbol_information(
    view: &View,
    s: core::Symbol,
    container: Option<&str>,
    rendered: &mut HashMap<String, crate::cluster_doc::Rendered>,
    out: &mut Vec<SymbolInformation>,
) {
    let Some(loc) = location_in(view, &s.file, s.selection_span, rendered) else { return };
    // Objects only the live cluster holds say so where flat symbols have room for it.
    let container = container.or(crate::cluster_doc::is_cluster_path(&s.file).then_some("live cluster"));
    let name = if s.name.is_empty() { "(unnamed)".to_owned() } else { s.name };
    out.push(SymbolInformation {
        name: name.clone(),
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        location: loc,
        container_name: container.map(str::to_owned),
    });
    for c in s.children {
        symbol_information(view, c, Some(&name), rendered, out);
    }
}

pub fn code_lens(view: &View, file: &SourceFile, path: &str, l: core::CodeLens) -> CodeLens {
    let range = range(file, l.span, view.enc());
    let locations: Vec<Location> = l.locations.iter().filter_map(|x| location(view, &x.file, x.span)).collect();
    let args = uri(view, path).map(|u| {
        vec![
            serde_json::json!(u.as_str()),
            serde_json::to_value(range.start).unwrap_or_default(),
            serde_json::to_value(&locations).unwrap_or_default(),
        ]
    });
    CodeLens {
        range,
        command: Some(Command { title: l.title, command: SHOW_REFERENCES.to_owned(), arguments: args }),
        data: None,
    }
}

/// Core edits grouped by file into a workspace edit; edits in files the snapshot does not
/// know are dropped.
pub fn workspace_edit(view: &View, edits: &[core::FileEdit]) -> WorkspaceEdit {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    // The live cluster is read-only: an edit never reaches its objects.
    for e in edits.iter().filter(|e| !crate::cluster_doc::is_cluster_path(&e.file)) {
        let (Some(file), Some(u)) = (view.snap.source(&e.file), uri(view, &e.file)) else { continue };
        changes
            .entry(u)
            .or_default()
            .push(TextEdit { range: range(file, e.span, view.enc()), new_text: e.new_text.clone() });
    }
    WorkspaceEdit { changes: Some(changes), ..Default::default() }
}

pub fn code_action(view: &View, a: core::CodeAction, diagnostics: Vec<Diagnostic>) -> CodeAction {
    CodeAction {
        title: a.title,
        kind: Some(match a.kind {
            CoreActionKind::QuickFix => CodeActionKind::QUICKFIX,
            CoreActionKind::Refactor => CodeActionKind::REFACTOR_REWRITE,
        }),
        diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
        edit: Some(workspace_edit(view, &a.edits)),
        is_preferred: a.preferred.then_some(true),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_become_plain_text() {
        assert_eq!(strip_snippet("- kind: ${1:Gateway}\n  name: $2$0"), "- kind: Gateway\n  name: ");
        assert_eq!(strip_snippet(r"cost: \$5 ${1:a{b\} ${2:c}}"), "cost: $5 a{b} c");
        assert_eq!(strip_snippet("name: ${1|edge,internal|}$0"), "name: edge");
    }
}
