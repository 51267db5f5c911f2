//! The one workspace loader, shared by the CLI and the language server: finds the workspace a
//! PATH belongs to, reads its `.policylens.yaml`, walks its files (honouring `.gitignore`,
//! hidden directories and the config's `exclude`), reads `context:` directories as context,
//! and hands the core engine text. The core does no I/O; this crate does all of it.

mod read;
mod walk;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use policylens_core::workspace::{Origin, Workspace};

pub use read::{Disk, read_file, read_files};
pub use walk::{CONFIG_FILE, find_config, is_discoverable, walk_yaml};

/// What to load.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Files or directories (empty: the current directory). `-` is standard input.
    pub paths: Vec<PathBuf>,
    /// `--config`: the config file to use instead of the nearest one.
    pub config: Option<PathBuf>,
    /// Analyse exactly the PATHs given, not the workspace a file belongs to.
    pub isolated: bool,
    /// `--context DIR`: more directories read as context (never reported on).
    pub context: Vec<PathBuf>,
    /// The text of standard input and the path it stands for, when a PATH is `-`.
    pub stdin: Option<(PathBuf, String)>,
    /// Paths are shown relative to this directory when below it (the CLI's current
    /// directory); `None`: absolute (the language server's URIs).
    pub relative_to: Option<PathBuf>,
    /// A PATH with no YAML is fine (an editor opened on an empty folder); the CLI says it is a
    /// usage error.
    pub allow_empty: bool,
    /// Said after "no YAML files found here" (what else the user may have meant).
    pub empty_hint: Option<String>,
}

/// A loaded workspace.
#[derive(Debug)]
pub struct Loaded {
    pub workspace: Workspace,
    pub config_path: Option<PathBuf>,
    /// The directories walked.
    pub roots: Vec<PathBuf>,
    /// Shown paths whose diagnostics are reported; `None`: every workspace file.
    pub report_only: Option<BTreeSet<String>>,
    /// Shown paths of the workspace files read from disk.
    pub disk: Vec<String>,
    /// Problems that did not stop the load (an unreadable directory, a context dir missing).
    pub warnings: Vec<String>,
}

/// Loads a workspace. Errors (exit 2 in the CLI) name the path and say what is wrong: a
/// missing PATH, a PATH with no YAML in it, an unreadable config.
pub fn load(req: &Request, progress: &mut dyn FnMut(usize, usize)) -> Result<Loaded, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let shown = |p: &Path| show(p, req.relative_to.as_deref(), &cwd);
    let paths: Vec<PathBuf> = if req.paths.is_empty() { vec![PathBuf::from(".")] } else { req.paths.clone() };
    let mut named_files: Vec<PathBuf> = Vec::new();
    let mut named_dirs: Vec<PathBuf> = Vec::new();
    for p in &paths {
        if p.as_os_str() == "-" {
            continue;
        }
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => named_dirs.push(absolute(p, &cwd)),
            Ok(_) => named_files.push(absolute(p, &cwd)),
            Err(e) => return Err(format!("{}: {}", p.display(), io_message(&e))),
        }
    }
    let stdin_path = req.stdin.as_ref().map(|(p, _)| absolute(p, &cwd));
    // Every PATH is analysed within its workspace (the nearest config's directory, else the
    // git work tree, else the directory itself); only what lies under the PATHs is reported.
    let files_only = named_dirs.is_empty();
    let mut roots: Vec<PathBuf> = if req.isolated {
        named_dirs.clone()
    } else if files_only {
        // A pipe's "directory" (`/dev`) is no workspace: streams belong to the current one.
        let regular = named_files.iter().find(|f| f.is_file());
        let first = regular.or(stdin_path.as_ref()).cloned().unwrap_or_else(|| cwd.join("stdin.yaml"));
        vec![workspace_root(&first)]
    } else {
        named_dirs.iter().map(|d| workspace_root(d)).collect()
    };
    roots.sort();
    roots.dedup();
    // A root inside another is walked with it.
    let all = roots.clone();
    roots.retain(|r| !all.iter().any(|o| o != r && r.starts_with(o)));
    let config_path = match &req.config {
        Some(p) if !p.is_file() => return Err(format!("{}: config file not found", p.display())),
        Some(p) => Some(absolute(p, &cwd)),
        None => roots.first().or(named_files.first()).and_then(|r| find_config(r)),
    };
    let mut ws = Workspace::new();
    let mut warnings = Vec::new();
    if let Some(cp) = &config_path {
        let text = std::fs::read_to_string(cp).map_err(|e| format!("{}: {}", cp.display(), io_message(&e)))?;
        ws.set_config(Some(&shown(cp)), &text);
    }
    ws.set_config_dirs(config_path.as_deref().and_then(Path::parent).map(Path::to_path_buf), Some(cwd.clone()));
    // Files checked in isolation name no directory to walk; their folders are still those of
    // their config's workspace (a `fixtures/` or `tests/` above that is no folder of cases).
    let named_roots = match config_path.as_deref().and_then(Path::parent) {
        Some(dir) if roots.is_empty() => vec![dir.to_path_buf()],
        _ => roots.clone(),
    };
    ws.set_roots(named_roots);
    let config = ws.config().config.clone();
    let excludes = config.exclude_matcher();
    let is_excluded = |p: &Path| excludes.is_excluded(p);

    let mut files: Vec<PathBuf> = Vec::new();
    for root in &roots {
        let (found, errors) = walk_yaml(root, &is_excluded);
        warnings.extend(errors);
        files.extend(found);
    }
    for d in &named_dirs {
        // A directory the user names is read even where the workspace's .gitignore skips it
        // (a generated `bench-data/` inside a repository).
        if !files.iter().any(|f| f.starts_with(d)) && !roots.contains(d) {
            let (found, errors) = walk_yaml(d, &is_excluded);
            warnings.extend(errors);
            files.extend(found);
        }
        if !req.allow_empty && !files.iter().any(|f| f.starts_with(d)) {
            return Err(no_yaml(&shown(d), req));
        }
    }
    // Pipes and devices (`/dev/stdin`, process substitution) can be read once only: their
    // text is read here and kept, not re-read for positions later like a regular file's. Only
    // a named path can be one: the walk takes regular files, and one of those deleted since
    // is a failed read below (a warning), not a stream (an error that would drop every file).
    let (streams, regular): (Vec<PathBuf>, Vec<PathBuf>) = named_files.iter().cloned().partition(|f| !f.is_file());
    // Named files are read whatever their extension, even when excluded or ignored: the user
    // asked for them.
    files.extend(regular);
    files.sort();
    files.dedup();
    if let Some(cp) = &config_path {
        files.retain(|f| !same_file(f, cp));
    }
    if files.is_empty() && streams.is_empty() && req.stdin.is_none() && !req.allow_empty {
        return Err(no_yaml(&shown(roots.first().unwrap_or(&cwd)), req));
    }

    for f in &streams {
        let bytes = std::fs::read(f).map_err(|e| format!("{}: {}", f.display(), io_message(&e)))?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(format!("{}: no input (read nothing)", f.display()));
        }
        match policylens_core::source::decode(bytes) {
            policylens_core::source::FileContent::Text(t) => ws.set_file(&shown(f), t),
            policylens_core::source::FileContent::Unreadable(why) => ws.set_unreadable(&shown(f), &why),
        }
    }
    let manifests: Vec<(String, PathBuf)> = files.iter().map(|f| (shown(f), f.clone())).collect();
    let total = manifests.len();
    progress(0, total);
    let mut done = 0;
    let mut disk = Vec::with_capacity(total);
    // Read and parsed a chunk at a time (in parallel, texts dropped once parsed) so that
    // progress moves and the texts are never all in memory.
    for chunk in manifests.chunks(64) {
        let failed = read_into(&mut ws, chunk.to_vec(), Origin::Workspace);
        for (f, e) in &failed {
            // A named file that cannot be read is an error; one found by the walk a warning.
            if named_files.contains(f) {
                return Err(format!("{}: {}", f.display(), io_message(e)));
            }
            warnings.push(format!("{}: {}", f.display(), io_message(e)));
        }
        disk.extend(chunk.iter().filter(|(_, f)| !failed.iter().any(|(g, _)| g == f)).map(|(s, _)| s.clone()));
        done += chunk.len();
        progress(done, total);
    }
    if let Some((p, text)) = &req.stdin {
        ws.set_file(&shown(&absolute(p, &cwd)), text.as_str());
    }

    let base = config_path.as_deref().and_then(Path::parent).map(Path::to_path_buf);
    let config_dir = base.clone().unwrap_or_else(|| cwd.clone());
    // A config is part of what a repository brings: its `context` may only name directories
    // inside that workspace (the git work tree holding the config, else the config's
    // directory), never elsewhere on the machine; `--context` may name any.
    let home = config_dir.ancestors().find(|d| d.join(".git").exists()).unwrap_or(&config_dir).to_path_buf();
    let mut context_dirs = Vec::new();
    for c in &config.context {
        let dir = absolute(&config_dir.join(c), &cwd);
        match inside(&dir, &home) {
            Some(true) | None => context_dirs.push(dir),
            Some(false) => warnings.push(format!(
                "context {}: outside the workspace {}; skipped (a .policylens.yaml names context directories inside its workspace only; `--context` may name any)",
                shown(&dir),
                shown(&home)
            )),
        }
    }
    for dir in context_dirs.into_iter().chain(req.context.iter().map(|c| absolute(c, &cwd))) {
        if !dir.exists() {
            warnings.push(format!("context {}: no such directory", shown(&dir)));
            continue;
        }
        let (found, errors) = walk_yaml(&dir, &|_| false);
        warnings.extend(errors);
        let ctx: Vec<(String, PathBuf)> = found
            .into_iter()
            .filter(|f| files.binary_search(f).is_err() && !streams.contains(f))
            .map(|f| (shown(&f), f))
            .collect();
        for (f, e) in read_into(&mut ws, ctx, Origin::Context) {
            warnings.push(format!("{}: {}", f.display(), io_message(&e)));
        }
    }

    // Reported: the named files, and the files under the named directories (all of the
    // workspace when the directories are its roots).
    let whole = !files_only && roots.iter().all(|r| named_dirs.contains(r));
    let report_only = (!req.isolated && !whole).then(|| {
        let mut s: BTreeSet<String> = named_files.iter().map(|f| shown(f)).collect();
        s.extend(files.iter().filter(|f| named_dirs.iter().any(|d| f.starts_with(d))).map(|f| shown(f)));
        s.extend(stdin_path.as_ref().map(|p| shown(p)));
        s
    });
    Ok(Loaded { workspace: ws, config_path, roots, report_only, disk, warnings })
}

fn no_yaml(shown: &str, req: &Request) -> String {
    let hint = req.empty_hint.as_deref().map_or(String::new(), |h| format!(" ({h})"));
    format!("{shown}: no YAML files (*.yaml, *.yml) found here{hint}")
}

/// Reads and parses files from disk in parallel into `ws`, as files of `origin`: (path as
/// shown, path on disk). Their texts are not kept ([`read_file`]). Returns the files that could
/// not be read.
fn read_into(ws: &mut Workspace, files: Vec<(String, PathBuf)>, origin: Origin) -> Vec<(PathBuf, std::io::Error)> {
    let (read, failed): (Vec<_>, Vec<_>) = read_files(files).into_iter().partition(Result::is_ok);
    ws.set_parsed_files(read.into_iter().flatten().map(|f| f.with_origin(origin)));
    failed.into_iter().filter_map(Result::err).collect()
}

/// Whether `dir` lies inside `home`, symlinks resolved; `None` when `dir` does not exist (the
/// caller says so).
fn inside(dir: &Path, home: &Path) -> Option<bool> {
    let dir = dir.canonicalize().ok()?;
    let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
    Some(dir.starts_with(home))
}

/// The workspace a file belongs to: the nearest ancestor holding `.policylens.yaml`, else the
/// root of the git work tree, else the file's directory.
pub fn workspace_root(file: &Path) -> PathBuf {
    workspace_root_marked(file).0
}

/// What made a directory a workspace root ([`workspace_root_marked`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootMarker {
    /// It holds `.policylens.yaml`.
    Config,
    /// It is the top of a git work tree (`.git`, a directory or a worktree's file).
    Git,
    /// Neither in or above the path: the directory itself.
    None,
}

/// [`workspace_root`] and what marked it, for those who say why they read it (the language
/// server).
pub fn workspace_root_marked(file: &Path) -> (PathBuf, RootMarker) {
    let dir = if file.is_dir() { file } else { file.parent().unwrap_or(file) };
    if let Some(c) = find_config(dir) {
        return (c.parent().map(Path::to_path_buf).unwrap_or_else(|| dir.to_path_buf()), RootMarker::Config);
    }
    if let Some(git) = dir.ancestors().find(|d| d.join(".git").exists()) {
        return (git.to_path_buf(), RootMarker::Git);
    }
    (dir.to_path_buf(), RootMarker::None)
}

/// The path as shown to users and in JSON: relative to `base` when below it, else absolute.
pub fn show(p: &Path, base: Option<&Path>, cwd: &Path) -> String {
    let abs = absolute(p, cwd);
    let rel = base.and_then(|b| abs.strip_prefix(b).ok()).filter(|r| !r.as_os_str().is_empty()).unwrap_or(&abs);
    rel.to_string_lossy().replace('\\', "/")
}

/// `p` made absolute against `cwd`, with `.` and `..` resolved lexically (no symlinks).
pub fn absolute(p: &Path, cwd: &Path) -> PathBuf {
    let joined = if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Loads the world of a git revision of the repository that holds `dir`, without checking it
/// out: every tracked `*.yaml`/`*.yml` file of `rev` (and its root `.policylens.yaml`), with
/// paths relative to the repository's top directory. Needs `git` on PATH.
pub fn load_git(dir: &Path, rev: &str) -> Result<Loaded, String> {
    let top = git(dir, &["rev-parse", "--show-toplevel"], None)?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    let tree = git(&top, &["ls-tree", "-r", "-z", "--full-tree", rev], None).map_err(|e| format!("git:{rev}: {e}"))?;
    // `<mode> <type> <sha>\t<path>\0` per entry.
    let mut blobs: Vec<(String, String)> = Vec::new();
    for entry in tree.split(|&b| b == 0).filter(|e| !e.is_empty()) {
        let entry = String::from_utf8_lossy(entry);
        let Some((meta, path)) = entry.split_once('\t') else { continue };
        let mut m = meta.split(' ');
        let (Some(_mode), Some(kind), Some(sha)) = (m.next(), m.next(), m.next()) else { continue };
        let yaml = path.ends_with(".yaml") || path.ends_with(".yml");
        let hidden = path.split('/').any(|c| c.starts_with('.')) && path != CONFIG_FILE;
        if kind == "blob" && yaml && !hidden {
            blobs.push((path.to_owned(), sha.to_owned()));
        }
    }
    let input: String = blobs.iter().map(|(_, sha)| format!("{sha}\n")).collect();
    let out = git(&top, &["cat-file", "--batch"], Some(input.as_bytes()))?;
    // `<sha> blob <size>\n<bytes>\n` per object, in the order asked.
    let mut texts = Vec::with_capacity(blobs.len());
    let mut at = 0usize;
    for _ in &blobs {
        let nl = out[at..].iter().position(|&b| b == b'\n').map(|i| at + i).ok_or("git cat-file: short output")?;
        let header = String::from_utf8_lossy(&out[at..nl]).into_owned();
        let size: usize =
            header.rsplit(' ').next().and_then(|s| s.parse().ok()).ok_or_else(|| format!("git cat-file: {header}"))?;
        let body = out.get(nl + 1..nl + 1 + size).ok_or("git cat-file: short output")?;
        texts.push(body.to_vec());
        at = nl + 1 + size + 1;
    }
    let mut ws = Workspace::new();
    let config_text = blobs.iter().zip(&texts).find(|((p, _), _)| p == CONFIG_FILE).map(|(_, t)| t.clone());
    if let Some(t) = &config_text {
        ws.set_config(Some(CONFIG_FILE), &String::from_utf8_lossy(t));
    }
    ws.set_config_dirs(Some(top.clone()), Some(top.clone()));
    ws.set_roots(vec![top.clone()]);
    let excludes = ws.config().config.exclude_matcher();
    let mut disk = Vec::new();
    for ((path, _), bytes) in blobs.iter().zip(texts) {
        if path == CONFIG_FILE || excludes.is_excluded(&top.join(path)) {
            continue;
        }
        match policylens_core::source::decode(bytes) {
            policylens_core::source::FileContent::Text(t) => ws.set_file(path, t),
            policylens_core::source::FileContent::Unreadable(why) => ws.set_unreadable(path, &why),
        }
        disk.push(path.clone());
    }
    Ok(Loaded {
        workspace: ws,
        config_path: config_text.map(|_| top.join(CONFIG_FILE)),
        roots: vec![top],
        report_only: None,
        disk,
        warnings: Vec::new(),
    })
}

/// The top directory of the git work tree holding `dir`.
pub fn git_top(dir: &Path) -> Result<PathBuf, String> {
    let top = git(dir, &["rev-parse", "--show-toplevel"], None)?;
    Ok(PathBuf::from(String::from_utf8_lossy(&top).trim()))
}

fn git(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Result<Vec<u8>, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A writer thread: git's output can fill its pipe before it has read all its input.
        let input = input.to_vec();
        std::thread::spawn(move || pipe.write_all(&input));
    }
    let out = child.wait_with_output().map_err(|e| format!("git: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files deleted while a walk runs (a branch switch, a build cleaning its output) are
    /// each a warning: the load goes on with every other file. A walked file gone by the time
    /// it was read used to be taken for a pipe, and the whole load failed (the language server
    /// then held no file until the next walk).
    #[test]
    fn files_deleted_during_a_load_are_skipped_not_fatal() {
        let dir = std::env::temp_dir().join(format!("policylens-vanish-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let doc = |name: &str| format!("apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: a\n");
        for i in 0..300 {
            std::fs::write(dir.join(format!("keep-{i:03}.yaml")), doc(&format!("keep-{i}"))).unwrap();
            std::fs::write(dir.join(format!("gone-{i:03}.yaml")), doc(&format!("gone-{i}"))).unwrap();
        }
        let deleting = dir.clone();
        let deleter = std::thread::spawn(move || {
            for i in 0..300 {
                let _ = std::fs::remove_file(deleting.join(format!("gone-{i:03}.yaml")));
                std::thread::sleep(std::time::Duration::from_micros(50));
            }
        });
        let req = Request { paths: vec![dir.clone()], isolated: true, ..Request::default() };
        let mut loads = 0;
        while !deleter.is_finished() || loads == 0 {
            let loaded = load(&req, &mut |_, _| {}).unwrap_or_else(|e| panic!("load {loads} failed: {e}"));
            let kept = loaded.disk.iter().filter(|p| p.contains("keep-")).count();
            assert_eq!(kept, 300, "load {loads} lost files that were never deleted");
            loads += 1;
        }
        deleter.join().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
