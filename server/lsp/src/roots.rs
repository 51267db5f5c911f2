//! Which directories the server reads, and why (docs/configuration.md "What a PATH means", as the CLI chooses): a workspace
//! folder the client names, or a document it opens without any, belongs to the workspace the
//! CLI would read for it, the nearest `.policylens.yaml` in or above it, else its git work
//! tree. A folder below such a root (an editor opened on `demo/shop`) is read with the whole
//! workspace, so that its references into sibling folders resolve, and only its own files'
//! diagnostics are reported, as `policylens check demo/shop` reports only under its PATH.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use policylens_loader::RootMarker;

/// A directory read as a root, and why it was chosen (`policylens/serverStatus`).
#[derive(Clone, Debug, PartialEq)]
pub struct Root {
    pub dir: PathBuf,
    pub why: String,
    /// The workspace folders it was chosen for (none: a document brought it).
    folders: Vec<PathBuf>,
}

/// A root a document brought, with what to tell the user when it was a guess.
pub struct NewRoot {
    pub root: PathBuf,
    pub note: Option<String>,
}

#[derive(Debug, Default)]
pub struct Roots {
    /// The client's workspace folders: diagnostics are reported under them (everywhere, when
    /// there are none).
    folders: Arc<Vec<PathBuf>>,
    /// The client named no folder: each document opened outside the roots so far brings its
    /// own ([`Roots::for_document`]).
    folderless: bool,
    chosen: Vec<Root>,
    /// Roots a document brought without a marker (guesses, replaced by a higher guess).
    guessed: Vec<PathBuf>,
    /// Bumped whenever the roots change: requests that need the world wait until an index of
    /// this epoch has landed (`Shared::ready`).
    pub epoch: u64,
    /// What the user was told of the last guess (for `policylens/serverStatus`).
    pub note: Option<String>,
}

/// The home directory and `/` are never read whole: a dotfiles repository in the home directory
/// would otherwise make every folder below it bring all of the home directory.
fn usable(dir: &Path) -> bool {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    dir.parent().is_some() && home.as_deref() != Some(dir)
}

fn list(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// The root of a workspace folder and why.
fn for_folders(dir: &Path, marker: RootMarker, folders: &[PathBuf]) -> String {
    let named = folders.iter().all(|f| f == dir);
    let (s, them) = if folders.len() > 1 { ("s", "them") } else { ("", "it") };
    match (marker, named) {
        (RootMarker::Config, true) => "the workspace folder, which holds .policylens.yaml".to_owned(),
        (RootMarker::Git, true) => "the workspace folder, the top of its git work tree".to_owned(),
        (RootMarker::None, _) => format!("the workspace folder; no .policylens.yaml or .git in or above {them}"),
        (RootMarker::Config, false) => {
            format!("its .policylens.yaml is the nearest above the workspace folder{s} {}", list(folders))
        }
        (RootMarker::Git, false) => format!("the git work tree holding the workspace folder{s} {}", list(folders)),
    }
}

impl Roots {
    /// The roots of the folders named in `initialize` (none: folder-less).
    pub fn new(folders: Vec<PathBuf>) -> Roots {
        let mut r = Roots { folderless: folders.is_empty(), ..Roots::default() };
        r.set_folders(folders);
        r
    }

    /// The directories to read.
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.chosen.iter().map(|r| r.dir.clone()).collect()
    }

    pub fn chosen(&self) -> &[Root] {
        &self.chosen
    }

    /// The roots that hold files outside every workspace folder (a folder's workspace above
    /// it): what a client watching its folders does not see change.
    pub fn outside_folders(&self) -> Vec<PathBuf> {
        let inside = |d: &Path| self.folders.iter().any(|f| d.starts_with(f));
        self.chosen.iter().filter(|r| !r.folders.is_empty() && !inside(&r.dir)).map(|r| r.dir.clone()).collect()
    }

    /// The client's workspace folders (what diagnostics are reported under).
    pub fn folders(&self) -> Arc<Vec<PathBuf>> {
        self.folders.clone()
    }

    /// Folders added and removed (`workspace/didChangeWorkspaceFolders`). Once the client names
    /// folders, opened documents no longer bring roots; those they brought stay.
    pub fn change_folders(&mut self, added: Vec<PathBuf>, removed: &[PathBuf]) {
        let mut folders: Vec<PathBuf> = self.folders.iter().filter(|f| !removed.contains(f)).cloned().collect();
        self.folderless &= added.is_empty();
        for a in added {
            if !folders.contains(&a) {
                folders.push(a);
            }
        }
        self.set_folders(folders);
    }

    fn set_folders(&mut self, folders: Vec<PathBuf>) {
        self.chosen.retain(|r| r.folders.is_empty());
        let mut groups: Vec<(PathBuf, RootMarker, Vec<PathBuf>)> = Vec::new();
        for f in &folders {
            let (root, marker) = policylens_loader::workspace_root_marked(f);
            // A marker at the home directory or `/`: the folder alone. A folder that is not
            // there is kept as it is, for indexing to say so (not its parent's workspace).
            let alone = !f.is_dir() || !(usable(&root) || root == *f);
            let (root, marker) = if alone { (f.clone(), RootMarker::None) } else { (root, marker) };
            match groups.iter_mut().find(|(r, _, _)| *r == root) {
                Some((_, _, of)) => of.push(f.clone()),
                None => groups.push((root, marker, vec![f.clone()])),
            }
        }
        for (dir, marker, of) in groups {
            let why = for_folders(&dir, marker, &of);
            self.chosen.retain(|r| r.dir != dir);
            self.chosen.push(Root { dir, why, folders: of });
        }
        self.folders = Arc::new(folders);
        self.epoch += 1;
    }

    /// Whether `path`'s diagnostics are reported: it lies in a workspace folder (every file
    /// does when the client named none).
    pub fn reports(folders: &[PathBuf], path: &Path) -> bool {
        folders.is_empty() || folders.iter().any(|f| path.starts_with(f))
    }

    /// Without workspace folders, a document opened outside every root so far brings its own:
    /// the directory of the nearest `.policylens.yaml`, else the git repository (what `check
    /// FILE` reads). A document with neither above it (a copied example) would otherwise be
    /// read one directory at a time, each missing its neighbours' objects: its root is the
    /// highest directory the user opened, the editor's working directory when the document is
    /// below it, else the document's directory; a guessed root below it is replaced. Never the
    /// home directory or `/`: a file there is analysed alone.
    pub fn for_document(&mut self, file: &Path) -> Option<NewRoot> {
        if !self.folderless || self.chosen.iter().any(|r| file.starts_with(&r.dir)) {
            return None;
        }
        let dir = file.parent()?;
        let (marked, marker) = policylens_loader::workspace_root_marked(file);
        let (root, why, guess) = match marker {
            RootMarker::Config => {
                (marked, format!("its .policylens.yaml is the nearest above {}", file.display()), false)
            }
            RootMarker::Git => (marked, format!("the git work tree holding {}", file.display()), false),
            RootMarker::None => {
                let cwd = std::env::current_dir().ok().filter(|c| dir.starts_with(c) && usable(c));
                let how = if cwd.is_some() { "the editor's working directory" } else { "the file's directory" };
                (cwd.unwrap_or_else(|| dir.to_path_buf()), how.to_owned(), true)
            }
        };
        if !usable(&root) {
            return None;
        }
        if guess {
            let guessed = std::mem::take(&mut self.guessed);
            self.chosen.retain(|r| !(r.dir.starts_with(&root) && guessed.contains(&r.dir)));
            self.guessed = guessed.into_iter().filter(|g| !g.starts_with(&root)).collect();
            self.guessed.push(root.clone());
            self.note = Some(format!(
                "no .policylens.yaml or .git above {}: reading {} ({why}) as the workspace root",
                file.display(),
                root.display()
            ));
        }
        self.chosen.push(Root { dir: root.clone(), why, folders: Vec::new() });
        self.epoch += 1;
        Some(NewRoot { root, note: self.note.clone().filter(|_| guess) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("policylens-roots-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("shop")).unwrap();
        std::fs::create_dir_all(dir.join("payments")).unwrap();
        std::fs::write(dir.join(".policylens.yaml"), "{}\n").unwrap();
        dir.canonicalize().unwrap()
    }

    /// Two subfolders of one workspace: one root, said once, reported under both folders only.
    #[test]
    fn subfolders_share_the_workspace_above_them() {
        let ws = temp("sub");
        let r = Roots::new(vec![ws.join("shop"), ws.join("payments")]);
        assert_eq!(r.dirs(), std::slice::from_ref(&ws));
        assert_eq!(
            r.chosen()[0].why,
            format!(
                "its .policylens.yaml is the nearest above the workspace folders {}, {}",
                ws.join("shop").display(),
                ws.join("payments").display()
            )
        );
        let folders = r.folders();
        assert!(Roots::reports(&folders, &ws.join("shop/routes.yaml")));
        assert!(!Roots::reports(&folders, &ws.join("platform/gateways.yaml")));
        let top = Roots::new(vec![ws.clone()]);
        assert_eq!(top.chosen()[0].why, "the workspace folder, which holds .policylens.yaml");
        std::fs::remove_dir_all(&ws).unwrap();
    }

    /// Folders removed take their roots with them; a folder added later is read.
    #[test]
    fn folders_change() {
        let ws = temp("change");
        let mut r = Roots::new(vec![ws.join("shop")]);
        let epoch = r.epoch;
        r.change_folders(vec![], &[ws.join("shop")]);
        assert!(r.dirs().is_empty() && r.epoch > epoch);
        r.change_folders(vec![ws.join("payments")], &[]);
        assert_eq!(r.dirs(), std::slice::from_ref(&ws));
        assert!(r.for_document(&ws.join("../elsewhere/x.yaml")).is_none(), "folders named: documents bring none");
        std::fs::remove_dir_all(&ws).unwrap();
    }
}
