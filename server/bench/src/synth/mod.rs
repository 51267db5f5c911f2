//! Deterministic synthetic Gateway API workspaces.
//!
//! Two shapes:
//! - [`Profile::Mixed`]: a platform with shared Gateways in `infra` and many team namespaces,
//!   each with Services, HTTPRoutes/GRPCRoutes and 10-15 % policies of six real kinds
//!   (Gateway API BackendTLSPolicy, Envoy Gateway BackendTrafficPolicy/SecurityPolicy/
//!   ClientTrafficPolicy, Kuadrant RateLimitPolicy/AuthPolicy). About 500 bytes per object, spread
//!   over multi-document files of 20-50 objects in nested directories. About 1 % of the refs carry
//!   a deliberate typo, so diagnostics have real work to do.
//! - [`Profile::Policies`]: the same layout with a policy of most kinds on most routes (about
//!   half the objects are policies), where a platform team keeps one policy per route.
//! - [`Profile::Paths`]: G Gateways x R routes, each route attached to many Gateways and
//!   pointing at a small shared set of Services, with policies at every level: a stress test for
//!   effective-policy path enumeration.
//!
//! Output is a pure function of the [`Config`]: no clocks, no hash-map order, no environment.
//! YAML is written by hand (`write!` into buffers), never through a YAML library.

mod mixed;
mod paths;
mod rng;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

pub use rng::Rng;

/// Name of the marker file that says a directory was written by this generator. Only such a
/// directory (or an empty one) is overwritten.
pub const MARKER: &str = ".policylens-synth";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Mixed,
    Policies,
    Paths,
}

impl Profile {
    pub fn parse(s: &str) -> Option<Profile> {
        match s {
            "mixed" => Some(Profile::Mixed),
            "policies" => Some(Profile::Policies),
            "paths" => Some(Profile::Paths),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Mixed => "mixed",
            Profile::Policies => "policies",
            Profile::Paths => "paths",
        }
    }
}

/// Shape of the `paths` profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathsShape {
    pub gateways: usize,
    /// Listeners per Gateway (`http`, `https`, then `l2`, `l3`, ...).
    pub listeners: usize,
    pub routes: usize,
    pub services: usize,
    /// parentRefs per route (capped at `gateways` and at 32, the Gateway API maximum).
    pub parent_refs: usize,
    /// Named rules per route.
    pub rules: usize,
    /// backendRefs per rule (capped at `services`).
    pub backends: usize,
}

impl Default for PathsShape {
    fn default() -> PathsShape {
        PathsShape { gateways: 50, listeners: 2, routes: 200, services: 20, parent_refs: 16, rules: 3, backends: 3 }
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    /// Number of Kubernetes objects to write (`mixed`, `policies`; ignored by `paths`).
    pub objects: usize,
    pub out: PathBuf,
    pub seed: u64,
    pub profile: Profile,
    pub paths: PathsShape,
}

impl Config {
    pub fn mixed(objects: usize, out: impl Into<PathBuf>, seed: u64) -> Config {
        Config { objects, out: out.into(), seed, profile: Profile::Mixed, paths: PathsShape::default() }
    }
}

/// What was written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
    pub policies: usize,
    pub bytes: u64,
    /// Deliberate mistakes (typos in refs, a missing ReferenceGrant), each worth one diagnostic.
    pub mistakes: usize,
    /// `paths` profile: number of Gateway > listener > route > rule > Service > port paths.
    pub paths: u64,
}

/// Writes the workspace described by `cfg`. The output directory must be empty, missing, or a
/// previous output of this generator (it is then emptied first).
pub fn generate(cfg: &Config) -> io::Result<Summary> {
    prepare_dir(&cfg.out, cfg)?;
    let mut out = Out::new(&cfg.out);
    let mut rng = Rng::new(cfg.seed);
    match cfg.profile {
        Profile::Mixed => mixed::generate(cfg, mixed::MIXED, &mut rng, &mut out)?,
        Profile::Policies => mixed::generate(cfg, mixed::POLICIES, &mut rng, &mut out)?,
        Profile::Paths => paths::generate(&cfg.paths, &mut rng, &mut out)?,
    }
    Ok(out.summary)
}

fn prepare_dir(dir: &Path, cfg: &Config) -> io::Result<()> {
    if dir.exists() {
        let mut entries = fs::read_dir(dir)?.peekable();
        if entries.peek().is_some() {
            if !dir.join(MARKER).is_file() {
                return Err(io::Error::other(format!(
                    "{} is not empty and was not written by policylens-synth (no {MARKER}); refusing to overwrite",
                    dir.display()
                )));
            }
            for entry in entries {
                let entry = entry?;
                if entry.file_type()?.is_dir() {
                    fs::remove_dir_all(entry.path())?;
                } else {
                    fs::remove_file(entry.path())?;
                }
            }
        }
    } else {
        fs::create_dir_all(dir)?;
    }
    let marker = match cfg.profile {
        Profile::Mixed | Profile::Policies => {
            format!("policylens-synth profile={} objects={} seed={}\n", cfg.profile.name(), cfg.objects, cfg.seed)
        }
        Profile::Paths => {
            let p = &cfg.paths;
            format!(
                "policylens-synth profile=paths seed={} gateways={} listeners={} routes={} services={} parent-refs={} rules={} backends={}\n",
                cfg.seed, p.gateways, p.listeners, p.routes, p.services, p.parent_refs, p.rules, p.backends
            )
        }
    };
    fs::write(dir.join(MARKER), marker)?;
    // A config makes the workspace its own root: under bench-data/ inside this repository,
    // `check DIR` would otherwise read the whole repository (every PATH resolves within its
    // workspace) and the benchmark would measure the fixtures too.
    fs::write(dir.join(".policylens.yaml"), "# A generated benchmark workspace: its own root.\n")
}

/// One YAML document: the text of one object, without the `---` line.
pub(crate) struct Doc {
    pub text: String,
    pub policy: bool,
    /// Deliberate mistakes in this document.
    pub mistakes: u32,
}

impl Doc {
    pub fn object(text: String) -> Doc {
        Doc { text, policy: false, mistakes: 0 }
    }

    pub fn policy(text: String) -> Doc {
        Doc { text, policy: true, mistakes: 0 }
    }

    pub fn with_mistakes(mut self, mistakes: u32) -> Doc {
        self.mistakes = mistakes;
        self
    }
}

/// The output tree: writes files and keeps the counts.
pub(crate) struct Out {
    root: PathBuf,
    made_dirs: BTreeSet<PathBuf>,
    pub summary: Summary,
}

impl Out {
    fn new(root: &Path) -> Out {
        Out { root: root.to_path_buf(), made_dirs: BTreeSet::new(), summary: Summary::default() }
    }

    /// Writes `docs` as one multi-document file at `rel`, after a comment header. Every object
    /// starts with `---`.
    pub fn write_file(&mut self, rel: &str, header: &str, docs: &[Doc]) -> io::Result<()> {
        self.write_file_refs(rel, header, docs.iter())
    }

    /// [`Out::write_file`] over borrowed documents.
    pub fn write_file_refs<'d>(
        &mut self,
        rel: &str,
        header: &str,
        docs: impl Iterator<Item = &'d Doc>,
    ) -> io::Result<()> {
        let path = self.root.join(rel);
        if let Some(dir) = path.parent()
            && !self.made_dirs.contains(dir)
        {
            fs::create_dir_all(dir)?;
            self.made_dirs.insert(dir.to_path_buf());
        }
        let mut w = io::BufWriter::with_capacity(64 * 1024, fs::File::create(&path)?);
        let mut bytes = 0u64;
        for line in header.lines() {
            writeln!(w, "# {line}")?;
            bytes += line.len() as u64 + 3;
        }
        for doc in docs {
            w.write_all(b"---\n")?;
            w.write_all(doc.text.as_bytes())?;
            bytes += 4 + doc.text.len() as u64;
            self.summary.objects += 1;
            self.summary.documents += 1;
            if doc.policy {
                self.summary.policies += 1;
            }
            self.summary.mistakes += doc.mistakes as usize;
        }
        w.flush()?;
        self.summary.files += 1;
        self.summary.bytes += bytes;
        Ok(())
    }

    /// A file that is not a Kubernetes manifest (the workspace config).
    pub fn write_raw(&mut self, rel: &str, text: &str) -> io::Result<()> {
        fs::write(self.root.join(rel), text)?;
        self.summary.files += 1;
        self.summary.bytes += text.len() as u64;
        Ok(())
    }
}

/// `writeln!` into a `String` (which cannot fail).
macro_rules! line {
    ($s:expr, $($arg:tt)*) => {{
        let _ = writeln!($s, $($arg)*);
    }};
}
pub(crate) use line;

pub(crate) const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";

/// Words used for names. Every typo is checked against all of them, so that a misspelt name can
/// never be another real name.
pub(crate) const APP_WORDS: &[&str] = &[
    "orders",
    "catalog",
    "cart",
    "checkout",
    "inventory",
    "pricing",
    "search",
    "reviews",
    "accounts",
    "profile",
    "billing",
    "invoices",
    "shipping",
    "tracking",
    "returns",
    "payments",
    "refunds",
    "ledger",
    "wallet",
    "coupons",
    "loyalty",
    "recommend",
    "notify",
    "mailer",
    "sms",
    "media",
    "images",
    "thumbs",
    "uploads",
    "exports",
    "reports",
    "analytics",
    "audit",
    "session",
    "login",
    "tokens",
    "consent",
    "gdpr",
    "support",
    "tickets",
    "chat",
    "feeds",
    "stock",
    "supplier",
    "warehouse",
    "fulfil",
    "quotes",
    "tax",
    "currency",
    "fraud",
    "risk",
    "kyc",
    "ads",
    "banner",
    "geo",
    "maps",
    "routing",
    "slots",
    "booking",
    "calendar",
    "survey",
    "wishlist",
    "gifts",
    "bundles",
];

pub(crate) const TEAM_WORDS: &[&str] = &[
    "apollo", "borealis", "comet", "delta", "ember", "falcon", "glacier", "harbor", "ion", "jade", "kestrel", "lumen",
    "meteor", "nova", "orbit", "pulsar", "quartz", "raven", "sierra", "tundra", "umber", "vega", "willow", "xenon",
    "yarrow", "zephyr",
];

pub(crate) const RULE_WORDS: &[&str] = &[
    "list", "get", "create", "update", "delete", "search", "health", "static", "assets", "api", "admin", "hooks",
    "signin", "signout", "export", "import", "preview", "batch", "stream", "feed",
];

/// Other name segments that occur in generated names.
const OTHER_WORDS: &[&str] = &[
    "gw", "http", "https", "grpc", "metrics", "admin", "partner", "canary", "upstream", "infra", "synth", "paths",
    "svc", "tls", "traffic", "limits", "auth", "security", "client", "allow", "edge", "stress", "route", "ns", "cap",
    "defaults", "team", "worker", "cache", "events",
];

fn is_word(w: &str) -> bool {
    APP_WORDS.contains(&w) || TEAM_WORDS.contains(&w) || RULE_WORDS.contains(&w) || OTHER_WORDS.contains(&w)
}

/// A plausible misspelling of `name` that is not any real name: two adjacent letters of one
/// alphabetic segment swapped (`orders` -> `odrers`), or a letter doubled when no swap works.
pub(crate) fn typo(rng: &mut Rng, name: &str) -> String {
    let b = name.as_bytes();
    let mut spots: Vec<usize> = (0..b.len().saturating_sub(1))
        .filter(|&i| b[i].is_ascii_lowercase() && b[i + 1].is_ascii_lowercase() && b[i] != b[i + 1])
        .collect();
    while !spots.is_empty() {
        let i = spots.swap_remove(rng.below(spots.len()));
        let mut v = b.to_vec();
        v.swap(i, i + 1);
        let s = String::from_utf8(v).expect("ASCII");
        let collides = name.split('-').zip(s.split('-')).any(|(o, n)| o != n && is_word(n));
        if !collides {
            return s;
        }
    }
    // No usable swap (e.g. `gw-01`): double the first letter.
    let mut s = String::with_capacity(name.len() + 1);
    s.push_str(&name[..1]);
    s.push_str(name);
    s
}

/// RFC 3339 UTC timestamp, `secs` after 2024-01-01T00:00:00Z.
pub(crate) fn timestamp(secs: u64) -> String {
    let t = 1_704_067_200 + secs; // 2024-01-01T00:00:00Z
    let days = (t / 86_400) as i64;
    let rem = t % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem / 60 % 60, rem % 60)
}

/// Proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `Orders` from `orders`.
pub(crate) fn pascal(s: &str) -> String {
    s.split('-')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// A `targetRefs` list item (indent is the column of `-`).
pub(crate) fn target_ref_item(
    s: &mut String,
    indent: usize,
    group: &str,
    kind: &str,
    name: &str,
    section: Option<&str>,
) {
    let pad = " ".repeat(indent);
    line!(s, "{pad}- group: {}", quote_group(group));
    line!(s, "{pad}  kind: {kind}");
    line!(s, "{pad}  name: {name}");
    if let Some(sec) = section {
        line!(s, "{pad}  sectionName: {sec}");
    }
}

/// A singular `targetRef` mapping under `spec:`.
pub(crate) fn target_ref_single(s: &mut String, group: &str, kind: &str, name: &str, section: Option<&str>) {
    line!(s, "  targetRef:");
    line!(s, "    group: {}", quote_group(group));
    line!(s, "    kind: {kind}");
    line!(s, "    name: {name}");
    if let Some(sec) = section {
        line!(s, "    sectionName: {sec}");
    }
}

fn quote_group(g: &str) -> &str {
    if g.is_empty() { "\"\"" } else { g }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        std::env::temp_dir().join(format!(
            "policylens-synth-test-{}-{}-{}-{}",
            std::process::id(),
            tag,
            N.fetch_add(1, Ordering::SeqCst),
            nanos
        ))
    }

    /// Every file under `dir`, relative path and bytes, sorted by path.
    fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let e = e.unwrap();
                if e.file_type().unwrap().is_dir() {
                    stack.push(e.path());
                } else {
                    out.push((e.path().strip_prefix(dir).unwrap().to_path_buf(), fs::read(e.path()).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    fn yaml_stats(files: &[(PathBuf, Vec<u8>)]) -> (usize, usize, usize) {
        let (mut kinds, mut docs, mut bytes) = (0, 0, 0);
        for (p, b) in files {
            if p.extension().is_some_and(|e| e == "yaml") {
                let text = std::str::from_utf8(b).unwrap();
                kinds += text.lines().filter(|l| l.starts_with("kind:")).count();
                docs += text.lines().filter(|l| *l == "---").count();
                bytes += b.len();
            }
        }
        (kinds, docs, bytes)
    }

    #[test]
    fn mixed_1000_objects_exact_and_deterministic() {
        let (a, b) = (temp_dir("a"), temp_dir("b"));
        let sa = generate(&Config::mixed(1000, &a, 42)).unwrap();
        let sb = generate(&Config::mixed(1000, &b, 42)).unwrap();
        let (ta, tb) = (tree(&a), tree(&b));
        let (kinds, docs, _) = yaml_stats(&ta);
        assert_eq!(sa.objects, 1000);
        assert_eq!(kinds, 1000, "`kind:` lines at column 0");
        assert_eq!(docs, 1000, "documents");
        assert_eq!(sa, sb);
        assert_eq!(ta.len(), tb.len());
        for ((pa, ba), (pb, bb)) in ta.iter().zip(&tb) {
            assert_eq!(pa, pb);
            assert!(ba == bb, "{} differs between two runs with the same seed", pa.display());
        }
        // Another seed gives another workspace of the same size.
        let c = temp_dir("c");
        let sc = generate(&Config::mixed(1000, &c, 43)).unwrap();
        assert_eq!(sc.objects, 1000);
        assert_ne!(tree(&c), ta);
        // Rewriting a previous output is allowed and gives the same bytes.
        generate(&Config::mixed(1000, &a, 42)).unwrap();
        assert!(tree(&a) == tb);
        for d in [a, b, c] {
            fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn mixed_shape_is_realistic() {
        let d = temp_dir("shape");
        let s = generate(&Config::mixed(5000, &d, 1)).unwrap();
        assert_eq!(s.objects, 5000);
        let pct = s.policies * 100 / s.objects;
        assert!((10..=15).contains(&pct), "policies {pct} %");
        let per_object = s.bytes / s.objects as u64;
        assert!((400..=600).contains(&per_object), "{per_object} bytes/object");
        let per_file = s.objects / s.files;
        assert!((15..=50).contains(&per_file), "{per_file} objects/file");
        assert!(s.mistakes > 0 && s.mistakes < s.objects / 20, "{} mistakes", s.mistakes);
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn policies_profile_has_a_policy_on_most_routes() {
        let d = temp_dir("policies");
        let cfg = Config { profile: Profile::Policies, ..Config::mixed(5000, &d, 1) };
        let s = generate(&cfg).unwrap();
        let (kinds, _, _) = yaml_stats(&tree(&d));
        assert_eq!((s.objects, kinds), (5000, 5000));
        let pct = s.policies * 100 / s.objects;
        assert!((45..=60).contains(&pct), "policies {pct} %");
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn tiny_and_odd_sizes_are_exact() {
        for n in [0, 1, 2, 7, 33, 101] {
            let d = temp_dir("tiny");
            let s = generate(&Config::mixed(n, &d, 3)).unwrap();
            let (kinds, _, _) = yaml_stats(&tree(&d));
            assert_eq!((s.objects, kinds), (n, n));
            fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn paths_profile_counts() {
        let d = temp_dir("paths");
        let shape =
            PathsShape { gateways: 5, listeners: 2, routes: 12, services: 4, parent_refs: 3, rules: 2, backends: 2 };
        let cfg = Config { objects: 0, out: d.clone(), seed: 9, profile: Profile::Paths, paths: shape };
        let s = generate(&cfg).unwrap();
        let t = tree(&d);
        let (kinds, docs, _) = yaml_stats(&t);
        assert_eq!(kinds, s.objects);
        assert_eq!(docs, s.objects);
        assert_eq!(s.paths, 12 * 3 * 2 * 2 * 2);
        assert!(t.iter().any(|(p, _)| p == Path::new(".policylens.yaml")));
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn refuses_foreign_directory() {
        let d = temp_dir("foreign");
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("keep.txt"), "mine").unwrap();
        assert!(generate(&Config::mixed(10, &d, 1)).is_err());
        assert_eq!(fs::read_to_string(d.join("keep.txt")).unwrap(), "mine");
        fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn typos_are_never_real_names() {
        let mut rng = Rng::new(5);
        for w in APP_WORDS.iter().chain(RULE_WORDS).chain(TEAM_WORDS) {
            for _ in 0..8 {
                let t = typo(&mut rng, w);
                assert_ne!(&t, w);
                assert!(!is_word(&t), "{w} -> {t}");
            }
        }
        for name in ["gw-01", "orders-canary", "t0003-comet", "https", "ion"] {
            let t = typo(&mut rng, name);
            assert_ne!(t, name);
        }
    }

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(0), "2024-01-01T00:00:00Z");
        assert_eq!(timestamp(59 * 86_400 + 3_661), "2024-02-29T01:01:01Z");
        assert_eq!(timestamp(366 * 86_400), "2025-01-01T00:00:00Z");
    }
}
