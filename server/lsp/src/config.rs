//! Client settings (section `policylens`), the `.policylens.yaml` lookup, and which files on
//! disk belong to the workspace.

use std::path::{Path, PathBuf};

use policylens_core::catalog::Config;
use policylens_core::catalog::config::ExcludeMatcher;
use serde::Deserialize;

/// The `policylens` settings section. Unknown keys are ignored so that clients may send more.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// The config file; relative paths are relative to the first workspace folder.
    pub config_path: Option<String>,
    /// The live cluster, laid under the workspace files (read-only).
    pub cluster: ClusterSettings,
}

/// `policylens.cluster.*`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterSettings {
    pub enabled: bool,
    /// The kubeconfig context (default: the current one).
    pub context: Option<String>,
    /// The kubeconfig file (default: `KUBECONFIG`, else `~/.kube/config`).
    pub kubeconfig: Option<String>,
}

impl Settings {
    /// Reads settings from a `workspace/configuration` answer or a `didChangeConfiguration`
    /// payload; anything malformed counts as "no settings" (it is client input).
    pub fn from_value(v: &serde_json::Value) -> Settings {
        let v = v.get("policylens").unwrap_or(v);
        if v.is_null() {
            return Settings::default();
        }
        match serde_json::from_value::<Settings>(v.clone()) {
            Ok(s) => s.unset_empty(),
            Err(e) => {
                tracing::warn!(target: "policylens", "ignoring malformed policylens settings: {e}");
                Settings::default()
            }
        }
    }
}

impl Settings {
    /// An empty string means unset, as VS Code sends every setting of the section, its
    /// defaults (`""`) included: an empty `kubeconfig` is `KUBECONFIG`, then
    /// `~/.kube/config`, not a file named "".
    fn unset_empty(mut self) -> Settings {
        let unset = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
        self.config_path = unset(self.config_path);
        self.cluster.context = unset(self.cluster.context);
        self.cluster.kubeconfig = unset(self.cluster.kubeconfig);
        self
    }
}

/// The config file in force: the `configPath` setting (relative to the first workspace
/// folder), else the nearest `.policylens.yaml` in or above the first root. A `configPath` that
/// names no file is ignored, with what to tell the user.
pub fn resolve_config_path(
    settings: &Settings,
    folders: &[PathBuf],
    roots: &[PathBuf],
) -> (Option<PathBuf>, Option<String>) {
    if let Some(p) = settings.config_path.as_deref().filter(|p| !p.is_empty()) {
        let p = Path::new(p);
        let p = match folders.first().or(roots.first()) {
            Some(root) if p.is_relative() => root.join(p),
            _ => p.to_path_buf(),
        };
        if p.is_file() {
            return (Some(p), None);
        }
        return (None, Some(format!("configPath {} is not a file; analysing without a config", p.display())));
    }
    (roots.first().and_then(|r| policylens_loader::find_config(r)), None)
}

/// The config's `exclude` globs, relative to the config file's directory (core's matcher, so
/// the server and the CLI exclude the same files).
#[derive(Clone, Debug, Default)]
pub struct Excludes(Option<ExcludeMatcher>);

impl Excludes {
    pub fn new(config: &Config, config_path: Option<&Path>) -> Excludes {
        let mut config = config.clone();
        config.base_dir = config_path.and_then(Path::parent).map(Path::to_path_buf);
        Excludes(config.base_dir.is_some().then(|| config.exclude_matcher()))
    }

    pub fn is_excluded(&self, path: &Path) -> bool {
        self.0.as_ref().is_some_and(|m| m.is_excluded(path))
    }
}

/// Whether `path` is a manifest the loader's walk of `roots` would pick up (for files that
/// appear or change on disk after the first walk).
pub fn is_discoverable(path: &Path, roots: &[PathBuf], excludes: &Excludes) -> bool {
    policylens_loader::is_discoverable(path, roots, &|p| excludes.is_excluded(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_accept_section_or_bare_and_ignore_junk() {
        let s = Settings::from_value(&serde_json::json!({"policylens": {"configPath": "x.yaml", "other": 1}}));
        assert_eq!(s.config_path.as_deref(), Some("x.yaml"));
        let s = Settings::from_value(&serde_json::json!({"configPath": "y.yaml"}));
        assert_eq!(s.config_path.as_deref(), Some("y.yaml"));
        assert_eq!(Settings::from_value(&serde_json::json!(null)), Settings::default());
        assert_eq!(Settings::from_value(&serde_json::json!({"configPath": 5})), Settings::default());
    }

    /// What VS Code sends with only `cluster.enabled` set: the other settings' empty defaults,
    /// which mean "unset" (before, the kubeconfig `""` failed the cluster read).
    #[test]
    fn empty_settings_are_unset() {
        let s = Settings::from_value(&serde_json::json!({"policylens": {"configPath": "",
            "cluster": {"enabled": true, "context": "", "kubeconfig": " "}}}));
        assert_eq!(
            s,
            Settings { cluster: ClusterSettings { enabled: true, ..Default::default() }, ..Default::default() }
        );
    }
}
