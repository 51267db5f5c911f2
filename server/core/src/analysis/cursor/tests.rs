//! The cursor context on complete and half-typed documents: `$0` marks the cursor; the
//! expectation is `path role "typed text"` (plus `+space` when a value needs a leading space).

use super::{Cursor, PathDisplay, Role};

fn check(src: &str, expect: &str) {
    let offset = src.find("$0").expect("fixture has a $0 cursor");
    let text = src.replacen("$0", "", 1);
    let c = Cursor::at(&text, offset as u32);
    let role = match c.role {
        Role::Key => "key",
        Role::Value => "value",
    };
    let typed = &text[c.span.start as usize..c.span.end as usize];
    let space = if c.needs_space { " +space" } else { "" };
    let got = format!("{} {role} {typed:?}{space}", PathDisplay(&c.path));
    assert_eq!(got, expect, "cursor context differs for:\n{src}");
}

const HEAD: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata:\n  name: tls\n";

fn doc(body: &str) -> String {
    format!("{HEAD}{body}")
}

#[test]
fn cursor_value_with_nothing_typed_at_end_of_line() {
    check(
        &doc("spec:\n  targetRefs:\n  - kind: Service\n    sectionName: $0\n    name: api\n"),
        "spec.targetRefs[0].sectionName value \"\"",
    );
}

#[test]
fn cursor_value_with_nothing_typed_at_end_of_file() {
    check(
        &doc("spec:\n  targetRefs:\n  - kind: Service\n    sectionName: $0"),
        "spec.targetRefs[0].sectionName value \"\"",
    );
    check(
        &doc("spec:\n  targetRefs:\n  - kind: Service\n    sectionName:$0"),
        "spec.targetRefs[0].sectionName value \"\" +space",
    );
}

#[test]
fn cursor_partial_value() {
    check(&doc("spec:\n  targetRefs:\n  - kind: Service\n    name: che$0\n"), "spec.targetRefs[0].name value \"che\"");
    check(&doc("spec:\n  targetRefs:\n  - kind: Service\n    name: c$0he\n"), "spec.targetRefs[0].name value \"che\"");
}

#[test]
fn cursor_unclosed_quote() {
    check(&doc("spec:\n  targetRef:\n    kind: Service\n    name: \"che$0\n"), "spec.targetRef.name value \"\\\"che\"");
}

#[test]
fn cursor_in_flow_mapping() {
    check(&doc("spec:\n  targetRefs:\n  - {kind: Gateway, name: $0}\n"), "spec.targetRefs[0].name value \"\"");
    check(&doc("spec:\n  targetRefs:\n  - {kind: Gateway, name: ed$0}\n"), "spec.targetRefs[0].name value \"ed\"");
    check(&doc("spec:\n  targetRefs:\n  - {kind: $0, name: edge}\n"), "spec.targetRefs[0].kind value \"\"");
    // Not closed yet: the parser recovers the mapping.
    check(&doc("spec:\n  targetRefs:\n  - {kind: Gateway, name: $0\n"), "spec.targetRefs[0].name value \"\"");
}

#[test]
fn cursor_new_list_item() {
    check(&doc("spec:\n  targetRefs:\n  - $0\n"), "spec.targetRefs[0] value \"\"");
    check(&doc("spec:\n  targetRefs:\n  - kind: Service\n    name: a\n  - $0\n"), "spec.targetRefs[1] value \"\"");
    check(&doc("spec:\n  targetRefs:\n  - kind: Service\n    name: a\n  - $0"), "spec.targetRefs[1] value \"\"");
}

#[test]
fn cursor_blank_line_falls_back_to_indentation() {
    // Under a key with no value yet.
    check(&doc("spec:\n  targetRefs:\n    $0\n"), "spec.targetRefs. key \"\"");
    // Inside a list item's mapping, after its last key.
    check(&doc("spec:\n  targetRefs:\n  - kind: Service\n    name: a\n    $0\n"), "spec.targetRefs[0]. key \"\"");
    // At the list's own column: a sibling of `targetRefs` in `spec`.
    check(&doc("spec:\n  targetRefs:\n  - kind: Service\n  $0\n"), "spec. key \"\"");
    // Second item, indented list style.
    check(
        &doc("spec:\n  targetRefs:\n    - kind: Service\n      name: a\n    - kind: Service\n      $0\n"),
        "spec.targetRefs[1]. key \"\"",
    );
}

#[test]
fn cursor_key_being_typed_in_broken_line() {
    check(&doc("spec:\n  targetRefs:\n  - kind: Gateway\n    na$0\n  other: x\n"), "spec.targetRefs[0].na key \"na\"");
}

#[test]
fn cursor_on_key() {
    check(
        &doc("spec:\n  targetRefs:\n  - kind: Service\n    sectionN$0ame: a\n"),
        "spec.targetRefs[0].sectionName key \"sectionName\"",
    );
}

#[test]
fn cursor_with_another_part_invalid() {
    check(
        &doc("spec:\n  targetRefs:\n  - kind: Service\n    name: che$0\n  defaults: [\n  broken: : :\n"),
        "spec.targetRefs[0].name value \"che\"",
    );
    check(
        &doc("spec:\n  bad: : :\n  targetRefs:\n  - kind: Service\n    name: che$0\n"),
        "spec.targetRefs[0].name value \"che\"",
    );
}

#[test]
fn cursor_after_key_whose_mapping_is_below() {
    check(&doc("spec:\n  targetRef: $0\n    kind: Service\n"), "spec.targetRef value \"\"");
}

#[test]
fn cursor_skips_block_scalars_and_multi_line_flows() {
    check(
        &doc("spec:\n  script: |\n    a: b\n    - c\n  list: [a,\n    b]\n  targetRef:\n    name: x$0\n"),
        "spec.targetRef.name value \"x\"",
    );
    let broken = doc("spec:\n  script: |\n    a: b\n  targetRef:\n    kind: A\n    na$0\n  x: : :\n");
    check(&broken, "spec.targetRef.na key \"na\"");
}

#[test]
fn cursor_second_document() {
    check(
        &format!("{HEAD}spec: {{}}\n---\n{HEAD}spec:\n  targetRef:\n    name: $0\n"),
        "spec.targetRef.name value \"\"",
    );
}

#[test]
fn cursor_never_panics() {
    let text = doc("spec:\n  targetRefs:\n  - kind: Sérvice\n    name: é\n");
    for o in 0..=text.len() as u32 + 5 {
        let c = Cursor::at(&text, o);
        assert!(c.span.start <= c.span.end && c.span.end as usize <= text.len());
        assert!(text.is_char_boundary(c.span.start as usize) && text.is_char_boundary(c.span.end as usize));
    }
    for t in ["", "\n", "- ", ":", "a:\n  - ", "{", "[{a: ", "\u{feff}x: ", "---\n---\n"] {
        for o in 0..=t.len() as u32 + 1 {
            let _ = Cursor::at(t, o);
        }
    }
}
