//! Names as the chart's templates compute them (bjw-s-labs/helm-charts):
//! - `charts/other/app-template/templates/common.yaml` sets `global.nameOverride` to the
//!   release name unless the values set one;
//! - `charts/library/common/templates/lib/chart/_names.tpl`: `name` is `global.nameOverride`
//!   (else `nameOverride`, else the chart's name); `fullname` is `global.fullnameOverride` or
//!   `fullnameOverride`, else the release name when it contains `name`, else
//!   `<release>-<name>`; both cut to 63 characters without a trailing `-`;
//! - common 4.x and later (`lib/common/_determineResourceNameFromValues.tpl`, 72cbacc0 at
//!   4.1.1; unchanged in 5.x apart from `tpl` becoming `renderString`): `forceRename`, else
//!   `<prefix>-` unless the prefix is the name, `-<key>` when more than one item of the kind is
//!   enabled (or `global.alwaysAppendIdentifierToResourceName`) unless the name already ends
//!   with it or is the key, `-<suffix>` unless it already ends with it; lower-cased;
//! - common 3.x (`lib/service/_valuesToObject.tpl`, `lib/routes/_valuesToObject.tpl`,
//!   245e1631 at 3.7.3): `-<nameOverride>` unless it is the name, else `-<key>` when more
//!   than one item is enabled and the item is not `primary`, unless the name is the key; not
//!   lower-cased.

use super::values::Values;
use crate::model::is_placeholder;
use crate::syntax::{Node, Span};

/// The common library's generation: the naming rules and what a route's backendRef means
/// changed at 4.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Generation {
    /// common 3.x (app-template 3.x).
    V3,
    /// common 4.x and later (app-template 4.x, 5.x): also what an unknown version reads as.
    V4,
}

impl Generation {
    /// The generation a chart version (or range) names: its first number. `None` for app-template
    /// 1.x and 2.x, whose values render otherwise.
    pub(super) fn of(version: Option<&str>) -> Option<Generation> {
        let Some(v) = version else { return Some(Generation::V4) };
        let digits: String = v.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
        match digits.parse::<u32>() {
            Ok(0..=2) => None,
            Ok(3) => Some(Generation::V3),
            _ => Some(Generation::V4),
        }
    }
}

/// Helm's `trunc 63 | trimSuffix "-"`.
fn trunc63(s: &str) -> String {
    let cut: String = s.chars().take(63).collect();
    cut.strip_suffix('-').map(str::to_owned).unwrap_or(cut)
}

/// The release-wide names: `bjw-s.common.lib.chart.names.name` and `.fullname`.
pub(super) struct Names {
    pub name: String,
    pub fullname: String,
}

impl Names {
    pub(super) fn of(v: &Values<'_>, values: &Node, release: &str) -> Names {
        let global = |k: &str| v.get(values, "global").and_then(|g| v.get(g, k)).and_then(|n| v.raw(n));
        let own = |k: &str| v.get(values, k).and_then(|n| v.raw(n));
        let nonempty = |s: Option<String>| s.filter(|s| !s.is_empty());
        // app-template's `common.yaml` makes the release name the `global.nameOverride`.
        let name = trunc63(&nonempty(global("nameOverride")).unwrap_or_else(|| release.to_owned()));
        let fullname = match nonempty(global("fullnameOverride")).or_else(|| nonempty(own("fullnameOverride"))) {
            Some(f) => f,
            None if release.contains(&name) => release.to_owned(),
            None => format!("{release}-{name}"),
        };
        Names { name, fullname: trunc63(&fullname) }
    }
}

/// One item's name (a Service or route under its key), and the span of the value that names it
/// when one does (`forceRename`, or common 3.x's `nameOverride`).
pub(super) fn item_name(
    v: &Values<'_>,
    generation: Generation,
    fullname: &str,
    key: &str,
    item: &Node,
    enabled: usize,
    always_append: bool,
) -> (String, Option<Span>) {
    let text = |k: &str| v.get(item, k).and_then(|n| v.tpl(n).filter(|s| !s.is_empty()).map(|s| (s, n.span)));
    match generation {
        Generation::V3 => {
            if let Some((o, span)) = text("nameOverride") {
                return (if fullname == o { o } else { format!("{fullname}-{o}") }, Some(span));
            }
            let primary = v.get(item, "primary").is_some_and(|p| v.truthy(p));
            let name = if !primary && enabled > 1 && fullname != key {
                format!("{fullname}-{key}")
            } else {
                fullname.to_owned()
            };
            (name, None)
        }
        Generation::V4 => {
            if let Some((f, span)) = text("forceRename") {
                return (lower(&f), Some(span));
            }
            let mut name = fullname.to_owned();
            if let Some((p, _)) = text("prefix")
                && name != p
            {
                name = format!("{p}-{name}");
            }
            if (enabled > 1 || always_append) && !name.ends_with(&format!("-{key}")) && name != key {
                name = format!("{name}-{key}");
            }
            if let Some((s, _)) = text("suffix")
                && !name.ends_with(&format!("-{s}"))
            {
                name = format!("{name}-{s}");
            }
            (lower(&name), None)
        }
    }
}

/// Sprig's `lower`, leaving placeholders (`${APP}`, `{{ ... }}`) as written: what they stand
/// for is lower-cased once filled in.
fn lower(s: &str) -> String {
    if !is_placeholder(s) {
        return s.to_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${").or_else(|| rest.find("{{")) {
        out.push_str(&rest[..i].to_lowercase());
        let close = if rest[i..].starts_with("${") { "}" } else { "}}" };
        let end = rest[i..].find(close).map_or(rest.len(), |e| i + e + close.len());
        out.push_str(&rest[i..end]);
        rest = &rest[end..];
    }
    out.push_str(&rest.to_lowercase());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_of_a_version_or_range() {
        assert_eq!(Generation::of(None), Some(Generation::V4));
        assert_eq!(Generation::of(Some("3.7.3")), Some(Generation::V3));
        assert_eq!(Generation::of(Some(">=3.0.0 <4.0.0")), Some(Generation::V3));
        assert_eq!(Generation::of(Some("4.x")), Some(Generation::V4));
        assert_eq!(Generation::of(Some("5.1.0")), Some(Generation::V4));
        assert_eq!(Generation::of(Some("2.6.0")), None);
        assert_eq!(Generation::of(Some("${VERSION}")), Some(Generation::V4));
    }

    #[test]
    fn lower_leaves_placeholders_as_written() {
        assert_eq!(lower("My-App"), "my-app");
        assert_eq!(lower("${APP}-Web"), "${APP}-web");
        assert_eq!(lower("X-{{ .Release.Name }}"), "x-{{ .Release.Name }}");
        assert_eq!(trunc63(&format!("{}-x", "a".repeat(62))), "a".repeat(62));
    }
}
