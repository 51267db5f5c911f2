#[cfg(test)]
mod t {
    use crate::syntax::*;
    fn dump(n: &Node, text: &str, ind: usize, out: &mut String) {
        let sl = &text[n.span.start as usize..n.span.end as usize];
        match &n.kind {
            NodeKind::Mapping(es) => { out.push_str(&format!("{:ind$}MAP {:?}\n", "", n.span)); for e in es { dump(&e.key, text, ind+2, out); dump(&e.value, text, ind+4, out);} }
            NodeKind::Sequence(xs) => { out.push_str(&format!("{:ind$}SEQ {:?}\n", "", n.span)); for x in xs { dump(x, text, ind+2, out);} }
            k => out.push_str(&format!("{:ind$}{:?} {:?} {:?}\n", "", n.span, sl, match k { NodeKind::Scalar(s)=> format!("{:?}", s.value), o => format!("{:?}", o)})),
        }
    }
    #[test]
    fn exp() {
        let cases = [
"kind: P\nspec:\n  targetRefs:\n  - kind: Gateway\n    sectionName: ",
"kind: P\nspec:\n  targetRefs:\n  - kind: Gateway\n    sectionName: \n  x: 1\n",
"kind: P\nspec:\n  targetRefs:\n  - kind: Gateway\n    name: che\n",
"kind: P\nspec:\n  targetRefs:\n  - {kind: Gateway, name: }\n",
"kind: P\nspec:\n  targetRefs:\n  - {kind: Gateway, name: \n",
"kind: P\nspec:\n  targetRefs:\n  - kind: Gateway\n  - \n",
"kind: P\nspec:\n  targetRefs:\n  - \n",
"kind: P\nspec:\n  targetRefs:\n    \n",
"kind: P\nspec:\n  targetRefs:\n  - kind: Gateway\n    na\n  foo: bar\n",
"kind: P\nspec:\n  targetRefs:\n  - kind: Gateway\n    name: x\n  foo: [\n  bar: : :\n",
"kind: P\nspec:\n  targetRef:\n    kind: Gateway\n    name: \"che\n",
        ];
        let mut out = String::new();
        for c in cases {
            let p = parse_file(c);
            out.push_str(&format!("=== {:?}\n", c));
            for d in &p.documents { out.push_str(&format!("doc {:?} err {:?}\n", d.span, d.error)); if let Some(r) = &d.root { dump(r, c, 0, &mut out); } }
        }
        std::fs::write("/tmp/exp/out.txt", out).unwrap();
    }
}
