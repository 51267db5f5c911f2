//! The config file checked against its JSON Schema, node by node, so that every error has the
//! position of what it is about and what was valid is kept.

use std::collections::HashSet;

use globset::GlobBuilder;
use serde_json::Value;

use super::ConfigError;
use crate::syntax::{Node, NodeKind, Span};

/// Validates a YAML tree against the JSON Schema subset schemars emits (`$ref`, `type`,
/// `properties`, `required`, `items`, `enum`, `const`, `anyOf`/`oneOf`, `minimum`/`maximum`,
/// `format`), returning the valid part as JSON.
pub(super) struct Walker<'s> {
    pub(super) root: &'s Value,
    pub(super) errors: Vec<ConfigError>,
}

impl<'s> Walker<'s> {
    fn err(&mut self, span: Span, message: String) {
        self.errors.push(ConfigError { span, message });
    }

    /// Follows `$ref`s into `$defs`.
    fn resolve(&self, mut schema: &'s Value) -> &'s Value {
        for _ in 0..8 {
            let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(target) = r.strip_prefix('#').and_then(|p| self.root.pointer(p)) else {
                break;
            };
            schema = target;
        }
        schema
    }

    /// The allowed values of a schema that is an enumeration (`enum`, or `oneOf`/`anyOf` of
    /// `const`s, as schemars writes enums with documented variants).
    fn enum_values(&self, schema: &'s Value) -> Option<Vec<&'s Value>> {
        if let Some(v) = schema.get("enum").and_then(Value::as_array) {
            return Some(v.iter().collect());
        }
        if let Some(c) = schema.get("const") {
            return Some(vec![c]);
        }
        let branches = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
        let mut out = Vec::new();
        for b in branches {
            let b = self.resolve(b);
            // `Option<Enum>` is `anyOf: [enum, {type: null}]`.
            if b.get("type").and_then(Value::as_str) == Some("null") {
                out.push(&NULL);
                continue;
            }
            out.extend(self.enum_values(b)?);
        }
        Some(out)
    }

    /// Every JSON type a schema admits (`[]`: anything).
    fn accepted_types(&self, schema: &'s Value, out: &mut Vec<&'static str>) {
        let schema = self.resolve(schema);
        if let Some(values) = self.enum_values(schema) {
            out.extend(values.iter().map(|v| value_type(v)));
            return;
        }
        if let Some(bs) = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array) {
            for b in bs {
                self.accepted_types(b, out);
            }
            return;
        }
        match schema.get("type") {
            Some(Value::String(t)) => out.extend(TYPES.iter().copied().find(|x| x == t)),
            Some(Value::Array(ts)) => {
                for t in ts.iter().filter_map(Value::as_str) {
                    out.extend(TYPES.iter().copied().find(|x| *x == t));
                }
            }
            _ => {}
        }
    }

    fn admits_type(&self, schema: &'s Value, found: &str) -> bool {
        let mut types = Vec::new();
        self.accepted_types(schema, &mut types);
        types.is_empty() || types.iter().any(|t| type_matches(t, found))
    }

    pub(super) fn check(&mut self, node: &Node, schema: &'s Value, path: &str) -> Option<Value> {
        let schema = self.resolve(schema);
        if matches!(node.kind, NodeKind::Alias) {
            self.err(node.span, format!("`{path}`: aliases are not supported in the config"));
            return None;
        }
        let value = scalar_value(node);
        if let Some(allowed) = self.enum_values(schema) {
            return self.check_enum(node, value, &allowed, path);
        }
        if schema.get("anyOf").or_else(|| schema.get("oneOf")).is_some() {
            return self.check_branches(node, schema, path);
        }
        let found = json_type(node, value.as_ref());
        if !self.admits_type(schema, found) {
            self.type_error(node, schema, found, path);
            return None;
        }
        match &node.kind {
            NodeKind::Mapping(entries) => self.check_object(node, entries, schema, path),
            NodeKind::Sequence(items) => {
                let item_schema = schema.get("items").unwrap_or(&ANY);
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    if let Some(v) = self.check(item, item_schema, &format!("{path}[{i}]")) {
                        out.push(v);
                    }
                }
                Some(Value::Array(out))
            }
            _ => {
                let value = value.unwrap_or(Value::Null);
                self.check_scalar(node, value, schema, path)
            }
        }
    }

    fn check_enum(&mut self, node: &Node, value: Option<Value>, allowed: &[&Value], path: &str) -> Option<Value> {
        let value = value.unwrap_or(Value::Null);
        if allowed.contains(&&value) {
            return Some(value);
        }
        let names: Vec<&str> = allowed.iter().filter_map(|v| v.as_str()).collect();
        let mut message = format!(
            "`{path}` must be one of {}",
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        );
        match value.as_str() {
            Some(s) => {
                message.push_str(&format!(", found `{s}`"));
                if let Some(m) = did_you_mean(s, names.iter().copied()) {
                    message.push_str(&format!("; did you mean `{m}`?"));
                }
            }
            None => message.push_str(&format!(", found {}", article(json_type(node, Some(&value))))),
        }
        self.err(node.span, message);
        None
    }

    /// `anyOf`/`oneOf` of non-enum schemas: the first branch that takes the value without
    /// error wins; else the errors of the first branch of the right type are reported.
    fn check_branches(&mut self, node: &Node, schema: &'s Value, path: &str) -> Option<Value> {
        let branches = schema.get("anyOf").or_else(|| schema.get("oneOf"));
        let list = branches.and_then(Value::as_array)?;
        let found = json_type(node, scalar_value(node).as_ref());
        let mut fallback = None;
        for b in list {
            let b = self.resolve(b);
            let mut sub = Walker { root: self.root, errors: Vec::new() };
            let v = sub.check(node, b, path);
            if sub.errors.is_empty() {
                return v;
            }
            if fallback.is_none() && self.admits_type(b, found) {
                fallback = Some((v, sub.errors));
            }
        }
        match fallback {
            Some((v, mut errors)) => {
                self.errors.append(&mut errors);
                v
            }
            None => {
                self.type_error(node, schema, found, path);
                None
            }
        }
    }

    fn type_error(&mut self, node: &Node, schema: &'s Value, found: &str, path: &str) {
        let mut types = Vec::new();
        self.accepted_types(schema, &mut types);
        types.retain(|t| *t != "null");
        types.sort_unstable();
        types.dedup();
        let mut names: Vec<String> = types.iter().map(|t| article(t)).collect();
        let expected = match names.len() {
            0 => "null".to_owned(),
            1 => names.remove(0),
            _ => {
                let last = names.pop().unwrap_or_default();
                format!("{} or {last}", names.join(", "))
            }
        };
        self.err(node.span, format!("`{path}` must be {expected}, found {}", article(found)));
    }

    fn check_object(
        &mut self,
        node: &Node,
        entries: &[crate::syntax::Entry],
        schema: &'s Value,
        path: &str,
    ) -> Option<Value> {
        let props = schema.get("properties").and_then(Value::as_object);
        let prop_names = || props.into_iter().flat_map(|p| p.keys().map(String::as_str));
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        let mut out = serde_json::Map::new();
        let mut failed_required = Vec::new();
        let mut suggested: Vec<&str> = Vec::new();
        let mut seen = HashSet::new();
        for e in entries {
            let Some(key) = e.key.as_str() else {
                self.err(e.key.span, format!("`{path}`: keys must be strings"));
                continue;
            };
            let child = if path == "config" { key.to_owned() } else { format!("{path}.{key}") };
            if !seen.insert(key) {
                self.err(e.key.span, format!("duplicate key `{child}`; the last one is used"));
            }
            match props.and_then(|p| p.get(key)) {
                Some(s) => match self.check(&e.value, s, &child) {
                    Some(v) => {
                        out.insert(key.to_owned(), v);
                    }
                    None => {
                        out.remove(key);
                        failed_required.push(key);
                    }
                },
                None if closed => {
                    let mut message = format!("unknown key `{key}` in `{path}`");
                    if let Some(m) = did_you_mean(key, prop_names()) {
                        message.push_str(&format!("; did you mean `{m}`?"));
                        // A misspelt required key: this error says all there is to say.
                        suggested.push(m);
                    } else {
                        let known: Vec<&str> = prop_names().collect();
                        message.push_str(&format!(" (known keys: {})", known.join(", ")));
                    }
                    self.err(e.key.span, message);
                }
                None => match schema.get("additionalProperties").filter(|v| v.is_object()) {
                    Some(s) => {
                        if let Some(v) = self.check(&e.value, s, &child) {
                            out.insert(key.to_owned(), v);
                        }
                    }
                    None => {
                        out.insert(key.to_owned(), e.value.to_json());
                    }
                },
            }
        }
        let required = schema.get("required").and_then(Value::as_array);
        let mut complete = true;
        for r in required.into_iter().flatten().filter_map(Value::as_str) {
            if out.contains_key(r) {
                continue;
            }
            complete = false;
            if !failed_required.contains(&r) && !suggested.contains(&r) {
                // No span of its own: point at the first key of the mapping.
                let span = entries.first().map_or(node.span, |e| e.key.span);
                self.err(span, format!("`{path}` is missing the required key `{r}`"));
            }
        }
        complete.then_some(Value::Object(out))
    }

    fn check_scalar(&mut self, node: &Node, value: Value, schema: &'s Value, path: &str) -> Option<Value> {
        if let Some(n) = value.as_f64() {
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                self.err(node.span, format!("`{path}` must be at least {min}"));
                return None;
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                self.err(node.span, format!("`{path}` must be at most {max}"));
                return None;
            }
        }
        if let (Some(s), Some(format)) = (value.as_str(), schema.get("format").and_then(Value::as_str)) {
            let problem = match format {
                "glob" => GlobBuilder::new(s.trim_end_matches('/'))
                    .literal_separator(true)
                    .build()
                    .err()
                    .map(|e| format!("`{path}` is not a valid glob: {}", e.kind())),
                "json-pointer" if !s.is_empty() && !s.starts_with('/') => {
                    Some(format!("`{path}` must be a JSON pointer starting with `/`, e.g. `/{s}`"))
                }
                _ => None,
            };
            if let Some(p) = problem {
                self.err(node.span, p);
                return None;
            }
        }
        Some(value)
    }
}

/// A scalar's JSON value under the YAML 1.2 core schema (quoted scalars stay strings).
fn scalar_value(node: &Node) -> Option<Value> {
    match &node.kind {
        NodeKind::Scalar(_) | NodeKind::Missing => Some(node.to_json()),
        _ => None,
    }
}

/// The JSON type name of a node: `object`, `array`, `string`, `integer`, `number`,
/// `boolean`, `null`.
fn json_type(node: &Node, value: Option<&Value>) -> &'static str {
    match (&node.kind, value) {
        (NodeKind::Mapping(_), _) => "object",
        (NodeKind::Sequence(_), _) => "array",
        (_, Some(Value::String(_))) => "string",
        (_, Some(Value::Bool(_))) => "boolean",
        (_, Some(Value::Number(n))) if n.is_i64() || n.is_u64() => "integer",
        (_, Some(Value::Number(_))) => "number",
        _ => "null",
    }
}

const TYPES: [&str; 7] = ["object", "array", "string", "integer", "number", "boolean", "null"];
static NULL: Value = Value::Null;
static ANY: Value = Value::Bool(true);

fn value_type(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
    }
}

fn type_matches(expected: &str, found: &str) -> bool {
    expected == found || (expected == "number" && found == "integer")
}

fn article(t: &str) -> String {
    match t {
        "object" => "a mapping".into(),
        "array" => "a list".into(),
        "integer" => "an integer".into(),
        "null" => "null".into(),
        "boolean" => "a boolean".into(),
        other => format!("a {other}"),
    }
}

/// The candidate closest to `word`, when it is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    let len = word.chars().count();
    // Ties go to the candidate of the word's length (`targetRefz` → `targetRefs`).
    let mut best: Option<((usize, usize), &str)> = None;
    for c in candidates {
        let d =
            if c.to_ascii_lowercase() == lower { 0 } else { crate::suggest::distance(&lower, &c.to_ascii_lowercase()) };
        let rank = (d, c.chars().count().abs_diff(len));
        if best.is_none_or(|(br, _)| rank < br) {
            best = Some((rank, c));
        }
    }
    let ((d, _), c) = best?;
    let limit = (word.chars().count().max(c.chars().count()) / 3).max(1);
    (d <= limit).then_some(c)
}
