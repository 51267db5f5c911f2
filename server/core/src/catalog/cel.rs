//! The CEL rules of a CRD (`x-kubernetes-validations`), read far enough to evaluate them on a
//! made-up reference: which (group, kind)s a policy kind's `targetRef(s)` may name, whether a
//! `sectionName` is allowed with each, and whether a reference is required at all.
//!
//! Rules are not matched as text: they are parsed (the CEL subset CRDs write: `&&`, `||`, `!`,
//! `? :`, comparisons, `in`, lists, `has()`, `size()`, string methods and the `all`, `exists`,
//! `exists_one`, `map`, `filter` macros) and evaluated in three values. Whatever is not
//! understood (a function policylens does not know, a rule that does not parse, a field the
//! made-up object lacks) is *unknown*, and `false && unknown` is still false, `true || unknown`
//! still true, as in CEL's own error absorption. So a rule policylens half reads still decides
//! where it can, and never rejects where it cannot.

/// A three-valued truth: what a rule says about one candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tri {
    True,
    False,
    Unknown,
}

impl Tri {
    pub fn and(self, o: Tri) -> Tri {
        match (self, o) {
            (Tri::False, _) | (_, Tri::False) => Tri::False,
            (Tri::True, Tri::True) => Tri::True,
            _ => Tri::Unknown,
        }
    }

    pub fn or(self, o: Tri) -> Tri {
        match (self, o) {
            (Tri::True, _) | (_, Tri::True) => Tri::True,
            (Tri::False, Tri::False) => Tri::False,
            _ => Tri::Unknown,
        }
    }

    fn not(self) -> Tri {
        match self {
            Tri::True => Tri::False,
            Tri::False => Tri::True,
            Tri::Unknown => Tri::Unknown,
        }
    }

    fn of(b: bool) -> Tri {
        if b { Tri::True } else { Tri::False }
    }
}

/// A value during evaluation. `Obj` is a CEL map or object: its fields as written (an absent
/// field is absent, so `has()` is false).
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    List(Vec<Val>),
    Obj(Vec<(String, Val)>),
    Unknown,
}

impl Val {
    fn truth(&self) -> Tri {
        match self {
            Val::Bool(b) => Tri::of(*b),
            _ => Tri::Unknown,
        }
    }

    fn from_tri(t: Tri) -> Val {
        match t {
            Tri::True => Val::Bool(true),
            Tri::False => Val::Bool(false),
            Tri::Unknown => Val::Unknown,
        }
    }

    /// A field of an object (unknown when absent: CEL's "no such key").
    pub fn field(&self, name: &str) -> Val {
        match self {
            Val::Obj(fields) => fields.iter().find(|(k, _)| k == name).map_or(Val::Unknown, |(_, v)| v.clone()),
            _ => Val::Unknown,
        }
    }
}

/// A parsed rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule(Expr);

#[derive(Clone, Debug, PartialEq)]
enum Expr {
    Lit(Val),
    Ident(String),
    Field(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    List(Vec<Expr>),
    /// A function or method call: the receiver, the name, the arguments.
    Call(Option<Box<Expr>>, String, Vec<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    Add,
    Sub,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Int(i64),
    Punct(&'static str),
}

/// Nesting deeper than this is not a rule a CRD writes: not read.
const MAX_DEPTH: usize = 64;

const PUNCTS: [&str; 22] = [
    "&&", "||", "==", "!=", "<=", ">=", "!", "<", ">", "(", ")", "[", "]", ",", ".", "?", ":", "+", "-", "{", "}", "*",
];

fn lex(s: &str) -> Option<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            // Raw strings (`r'…'`) read as plain ones.
            if &s[start..i] == "r" && matches!(b.get(i), Some(b'\'' | b'"')) {
                continue;
            }
            out.push(Tok::Ident(s[start..i].to_owned()));
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            // `1u`, `1.5`: a number policylens need not read exactly.
            if i < b.len() && (b[i] == b'.' || b[i] == b'u' || b[i] == b'e') {
                return None;
            }
            out.push(Tok::Int(s[start..i].parse().ok()?));
        } else if c == b'\'' || c == b'"' {
            let (value, next) = string(s, i)?;
            out.push(Tok::Str(value));
            i = next;
        } else {
            let p = PUNCTS.iter().find(|p| s[i..].starts_with(**p))?;
            out.push(Tok::Punct(p));
            i += p.len();
        }
    }
    Some(out)
}

/// A quoted literal starting at `at`: its value and where it ends. Triple quotes and the
/// common escapes.
fn string(s: &str, at: usize) -> Option<(String, usize)> {
    let q = &s[at..at + 1];
    let triple = q.repeat(3);
    let (close, mut i) = if s[at..].starts_with(&triple) { (triple.as_str(), at + 3) } else { (q, at + 1) };
    let mut out = String::new();
    loop {
        let rest = s.get(i..)?;
        if rest.starts_with(close) {
            return Some((out, i + close.len()));
        }
        let mut chars = rest.chars();
        let c = chars.next()?;
        if c == '\\' {
            let e = chars.next()?;
            out.push(match e {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                other => other,
            });
            i += 1 + e.len_utf8();
        } else {
            out.push(c);
            i += c.len_utf8();
        }
    }
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Option<()> {
        self.eat(p).then_some(())
    }

    fn deeper(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn expr(&mut self) -> Option<Expr> {
        self.deeper()?;
        let cond = self.or()?;
        let e = if self.eat("?") {
            let a = self.expr()?;
            self.expect(":")?;
            let b = self.expr()?;
            Expr::Cond(Box::new(cond), Box::new(a), Box::new(b))
        } else {
            cond
        };
        self.depth -= 1;
        Some(e)
    }

    fn or(&mut self) -> Option<Expr> {
        let mut e = self.and()?;
        while self.eat("||") {
            e = Expr::Bin(Op::Or, Box::new(e), Box::new(self.and()?));
        }
        Some(e)
    }

    fn and(&mut self) -> Option<Expr> {
        let mut e = self.rel()?;
        while self.eat("&&") {
            e = Expr::Bin(Op::And, Box::new(e), Box::new(self.rel()?));
        }
        Some(e)
    }

    fn rel(&mut self) -> Option<Expr> {
        let mut e = self.add()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Punct("==")) => Op::Eq,
                Some(Tok::Punct("!=")) => Op::Ne,
                Some(Tok::Punct("<")) => Op::Lt,
                Some(Tok::Punct("<=")) => Op::Le,
                Some(Tok::Punct(">")) => Op::Gt,
                Some(Tok::Punct(">=")) => Op::Ge,
                Some(Tok::Ident(w)) if w == "in" => Op::In,
                _ => return Some(e),
            };
            self.at += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.add()?));
        }
    }

    fn add(&mut self) -> Option<Expr> {
        let mut e = self.unary()?;
        loop {
            let op = if self.eat("+") {
                Op::Add
            } else if self.eat("-") {
                Op::Sub
            } else {
                return Some(e);
            };
            e = Expr::Bin(op, Box::new(e), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Option<Expr> {
        self.deeper()?;
        let e = if self.eat("!") {
            Expr::Not(Box::new(self.unary()?))
        } else if self.eat("-") {
            Expr::Neg(Box::new(self.unary()?))
        } else {
            self.member()?
        };
        self.depth -= 1;
        Some(e)
    }

    fn member(&mut self) -> Option<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.eat(".") {
                let Some(Tok::Ident(name)) = self.peek().cloned() else { return None };
                self.at += 1;
                if self.eat("(") {
                    let args = self.args(")")?;
                    e = Expr::Call(Some(Box::new(e)), name, args);
                } else {
                    e = Expr::Field(Box::new(e), name);
                }
            } else if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                e = Expr::Index(Box::new(e), Box::new(i));
            } else {
                return Some(e);
            }
        }
    }

    fn args(&mut self, close: &str) -> Option<Vec<Expr>> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Some(out);
        }
        loop {
            out.push(self.expr()?);
            if self.eat(close) {
                return Some(out);
            }
            self.expect(",")?;
            // A trailing comma.
            if self.eat(close) {
                return Some(out);
            }
        }
    }

    fn primary(&mut self) -> Option<Expr> {
        let t = self.peek()?.clone();
        self.at += 1;
        Some(match t {
            Tok::Str(s) => Expr::Lit(Val::Str(s)),
            Tok::Int(n) => Expr::Lit(Val::Int(n)),
            Tok::Ident(w) => match w.as_str() {
                "true" => Expr::Lit(Val::Bool(true)),
                "false" => Expr::Lit(Val::Bool(false)),
                "null" => Expr::Lit(Val::Null),
                _ if self.eat("(") => Expr::Call(None, w, self.args(")")?),
                _ => Expr::Ident(w),
            },
            Tok::Punct("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                e
            }
            Tok::Punct("[") => Expr::List(self.args("]")?),
            // Maps (`{…}`) and anything else: not a rule this reader follows.
            Tok::Punct(_) => return None,
        })
    }
}

/// Parses a rule; `None` when it is not in the subset read here.
pub fn parse(rule: &str) -> Option<Rule> {
    let toks = lex(rule)?;
    let mut p = Parser { toks, at: 0, depth: 0 };
    let e = p.expr()?;
    (p.at == p.toks.len()).then_some(Rule(e))
}

impl Rule {
    /// What the rule says with `self` bound to `this`.
    pub fn eval(&self, this: &Val) -> Tri {
        let mut env = vec![("self".to_owned(), this.clone())];
        eval(&self.0, &mut env).truth()
    }

    /// Every string literal in the rule (the kinds and groups it may name), in the order
    /// written.
    pub fn literals(&self) -> Vec<&str> {
        let mut out = Vec::new();
        let mut stack = vec![&self.0];
        // Children are pushed last first, so that they are met in the order written.
        while let Some(e) = stack.pop() {
            match e {
                Expr::Lit(Val::Str(s)) => out.push(s.as_str()),
                Expr::Lit(_) | Expr::Ident(_) => {}
                Expr::Field(a, _) | Expr::Not(a) | Expr::Neg(a) => stack.push(a),
                Expr::Index(a, b) | Expr::Bin(_, a, b) => stack.extend([&**b, &**a]),
                Expr::Cond(a, b, c) => stack.extend([&**c, &**b, &**a]),
                Expr::List(items) => stack.extend(items.iter().rev()),
                Expr::Call(recv, _, args) => {
                    stack.extend(args.iter().rev());
                    stack.extend(recv.as_deref());
                }
            }
        }
        out
    }
}

type Env = Vec<(String, Val)>;

fn lookup(env: &Env, name: &str) -> Val {
    env.iter().rev().find(|(k, _)| k == name).map_or(Val::Unknown, |(_, v)| v.clone())
}

fn eq(a: &Val, b: &Val) -> Tri {
    match (a, b) {
        (Val::Unknown, _) | (_, Val::Unknown) => Tri::Unknown,
        (Val::List(x), Val::List(y)) => {
            if x.len() != y.len() {
                return Tri::False;
            }
            x.iter().zip(y).fold(Tri::True, |acc, (p, q)| acc.and(eq(p, q)))
        }
        (Val::Obj(_), _) | (_, Val::Obj(_)) => Tri::Unknown,
        _ => Tri::of(a == b),
    }
}

fn eval(e: &Expr, env: &mut Env) -> Val {
    match e {
        Expr::Lit(v) => v.clone(),
        Expr::Ident(name) => lookup(env, name),
        Expr::Field(target, name) => eval(target, env).field(name),
        Expr::Index(target, index) => match (eval(target, env), eval(index, env)) {
            (Val::List(items), Val::Int(i)) => {
                usize::try_from(i).ok().and_then(|i| items.get(i).cloned()).unwrap_or(Val::Unknown)
            }
            (obj @ Val::Obj(_), Val::Str(k)) => obj.field(&k),
            _ => Val::Unknown,
        },
        Expr::List(items) => Val::List(items.iter().map(|i| eval(i, env)).collect()),
        Expr::Not(a) => Val::from_tri(eval(a, env).truth().not()),
        Expr::Neg(a) => match eval(a, env) {
            Val::Int(n) => n.checked_neg().map_or(Val::Unknown, Val::Int),
            _ => Val::Unknown,
        },
        Expr::Cond(c, a, b) => match eval(c, env).truth() {
            Tri::True => eval(a, env),
            Tri::False => eval(b, env),
            Tri::Unknown => {
                let (x, y) = (eval(a, env), eval(b, env));
                if x == y && x != Val::Unknown { x } else { Val::Unknown }
            }
        },
        Expr::Bin(op, a, b) => binary(*op, a, b, env),
        Expr::Call(recv, name, args) => call(recv.as_deref(), name, args, env),
    }
}

fn binary(op: Op, a: &Expr, b: &Expr, env: &mut Env) -> Val {
    match op {
        Op::And => Val::from_tri(eval(a, env).truth().and(eval(b, env).truth())),
        Op::Or => Val::from_tri(eval(a, env).truth().or(eval(b, env).truth())),
        _ => {
            let (x, y) = (eval(a, env), eval(b, env));
            match op {
                Op::Eq => Val::from_tri(eq(&x, &y)),
                Op::Ne => Val::from_tri(eq(&x, &y).not()),
                Op::In => match &y {
                    Val::List(items) => Val::from_tri(items.iter().fold(Tri::False, |acc, item| acc.or(eq(&x, item)))),
                    _ => Val::Unknown,
                },
                Op::Lt | Op::Le | Op::Gt | Op::Ge => match (&x, &y) {
                    (Val::Int(p), Val::Int(q)) => Val::Bool(match op {
                        Op::Lt => p < q,
                        Op::Le => p <= q,
                        Op::Gt => p > q,
                        _ => p >= q,
                    }),
                    _ => Val::Unknown,
                },
                Op::Add => match (x, y) {
                    (Val::Int(p), Val::Int(q)) => p.checked_add(q).map_or(Val::Unknown, Val::Int),
                    (Val::Str(p), Val::Str(q)) => Val::Str(p + &q),
                    (Val::List(mut p), Val::List(q)) => {
                        p.extend(q);
                        Val::List(p)
                    }
                    _ => Val::Unknown,
                },
                Op::Sub => match (x, y) {
                    (Val::Int(p), Val::Int(q)) => p.checked_sub(q).map_or(Val::Unknown, Val::Int),
                    _ => Val::Unknown,
                },
                Op::And | Op::Or => Val::Unknown,
            }
        }
    }
}

fn size(v: &Val) -> Val {
    match v {
        Val::Str(s) => Val::Int(s.chars().count() as i64),
        Val::List(l) => Val::Int(l.len() as i64),
        Val::Obj(o) => Val::Int(o.len() as i64),
        _ => Val::Unknown,
    }
}

fn call(recv: Option<&Expr>, name: &str, args: &[Expr], env: &mut Env) -> Val {
    match (recv, name, args) {
        (None, "has", [Expr::Field(target, field)]) => match eval(target, env) {
            Val::Obj(fields) => Val::Bool(fields.iter().any(|(k, _)| k == field)),
            _ => Val::Unknown,
        },
        (None, "size", [a]) => size(&eval(a, env)),
        (Some(r), "size", []) => size(&eval(r, env)),
        (Some(r), "all" | "exists" | "exists_one" | "map" | "filter", [Expr::Ident(var), body]) => {
            let Val::List(items) = eval(r, env) else { return Val::Unknown };
            comprehension(name, var, &items, body, env)
        }
        (Some(r), "startsWith" | "endsWith" | "contains", [a]) => match (eval(r, env), eval(a, env)) {
            (Val::Str(s), Val::Str(p)) => Val::Bool(match name {
                "startsWith" => s.starts_with(&p),
                "endsWith" => s.ends_with(&p),
                _ => s.contains(&p),
            }),
            _ => Val::Unknown,
        },
        (Some(r), "lowerAscii", []) => match eval(r, env) {
            Val::Str(s) => Val::Str(s.to_ascii_lowercase()),
            _ => Val::Unknown,
        },
        // `matches` (RE2), `type`, conversions, `oldSelf`'s optionals, ...: not followed.
        _ => Val::Unknown,
    }
}

fn comprehension(name: &str, var: &str, items: &[Val], body: &Expr, env: &mut Env) -> Val {
    let each = |item: &Val, env: &mut Env| {
        env.push((var.to_owned(), item.clone()));
        let v = eval(body, env);
        env.pop();
        v
    };
    match name {
        "all" => Val::from_tri(items.iter().fold(Tri::True, |acc, i| acc.and(each(i, env).truth()))),
        "exists" => Val::from_tri(items.iter().fold(Tri::False, |acc, i| acc.or(each(i, env).truth()))),
        "exists_one" => {
            let (mut yes, mut unknown) = (0, false);
            for i in items {
                match each(i, env).truth() {
                    Tri::True => yes += 1,
                    Tri::Unknown => unknown = true,
                    Tri::False => {}
                }
            }
            match (yes, unknown) {
                (n, _) if n > 1 => Val::Bool(false),
                (1, false) => Val::Bool(true),
                (0, false) => Val::Bool(false),
                _ => Val::Unknown,
            }
        }
        "map" => Val::List(items.iter().map(|i| each(i, env)).collect()),
        _ => {
            let mut out = Vec::new();
            for i in items {
                match each(i, env).truth() {
                    Tri::True => out.push(i.clone()),
                    Tri::False => {}
                    Tri::Unknown => return Val::Unknown,
                }
            }
            Val::List(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(group: &str, kind: &str) -> Val {
        Val::Obj(vec![
            ("group".into(), Val::Str(group.into())),
            ("kind".into(), Val::Str(kind.into())),
            ("name".into(), Val::Str("x".into())),
        ])
    }

    fn on(rule: &str, this: &Val) -> Tri {
        parse(rule).unwrap_or_else(|| panic!("parses: {rule}")).eval(this)
    }

    #[test]
    fn catalog_cel_reads_the_shapes_crds_write() {
        let svc = reference("", "Service");
        let route = reference("gateway.networking.k8s.io", "HTTPRoute");
        let x = reference("x.dev", "XBackend");
        let list = |r: &Val| Val::List(vec![r.clone()]);
        // Comparisons, `in` lists, groups kept with their kinds.
        let rule =
            "(self.kind == 'XBackend' && self.group == 'x.dev') || (size(self.group) == 0 && self.kind == 'Service')";
        assert_eq!((on(rule, &x), on(rule, &svc), on(rule, &route)), (Tri::True, Tri::True, Tri::False));
        assert_eq!(on("self.kind in ['HTTPRoute', \"Gateway\"]", &route), Tri::True);
        assert_eq!(on("[self.group, self.kind] in [['core','Service'], ['','Service']]", &svc), Tri::True);
        // Rules on the list, ternaries and `has()` guards at spec level.
        assert_eq!(on("self.all(r, r.kind == 'HTTPRoute' || r.kind == 'Gateway')", &list(&route)), Tri::True);
        assert_eq!(on("self.exists(r, r.kind == 'Gateway')", &list(&route)), Tri::False);
        let spec = Val::Obj(vec![("targetRefs".into(), list(&x))]);
        let rule = "has(self.targetRefs) ? self.targetRefs.all(ref, ref.group == 'x.dev') : true";
        assert_eq!(on(rule, &spec), Tri::True);
        assert_eq!(on("has(self.targetRef) ? self.targetRef.kind == 'Gateway' : true", &spec), Tri::True);
        assert_eq!(on("!has(self.mergeType) || self.targetRef.kind == 'HTTPRoute'", &spec), Tri::True);
        // Uniqueness over the list holds for one item.
        let rule =
            "self.all(p1, self.exists_one(p2, p1.group == p2.group && p1.kind == p2.kind && p1.name == p2.name))";
        assert_eq!(on(rule, &list(&svc)), Tri::True);
        assert_eq!(on("self.kind.endsWith('ListenerSet')", &reference("", "XListenerSet")), Tri::True);
        // What is not followed is unknown, and absorbed where CEL would absorb an error.
        assert_eq!(on("self.kind.matches('^Gate')", &route), Tri::Unknown);
        assert_eq!(on("self.kind.matches('^Gate') && self.kind == 'Gateway'", &route), Tri::False);
        assert_eq!(on("self.kind.matches('^Gate') || self.kind == 'HTTPRoute'", &route), Tri::True);
        assert!(parse("self.kind == {'a': 1}").is_none());
        assert!(parse("self.kind ==").is_none());
        assert_eq!(parse("self.kind == 'A'").map(|r| r.literals().join(",")), Some("A".to_owned()));
    }
}
