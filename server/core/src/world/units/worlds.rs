//! The config's `worlds`: folders and files named as units of their own.

/// The config's `worlds`: folder globs (each matching folder a unit) and file globs (each
/// matching file a unit).
use crate::catalog::Config;

use super::parent;
pub(super) struct WorldGlobs {
    /// `None` for a glob that does not parse (the config reports it).
    globs: Vec<Option<globset::GlobMatcher>>,
}

impl WorldGlobs {
    pub(super) fn new(config: &Config) -> WorldGlobs {
        let globs = config
            .worlds
            .iter()
            .map(|p| {
                let p = p.trim_end_matches('/');
                let p = p.strip_prefix("./").unwrap_or(p);
                globset::GlobBuilder::new(p).literal_separator(true).build().ok().map(|g| g.compile_matcher())
            })
            .collect();
        WorldGlobs { globs }
    }

    /// The world of a file (relative path): the file itself when a glob names it, else the
    /// innermost folder a glob names.
    pub(super) fn world_of(&self, rel: &str, matched: &mut [bool]) -> Option<String> {
        if self.globs.is_empty() {
            return None;
        }
        let hit = |p: &str, matched: &mut [bool]| -> bool {
            let mut any = false;
            for (i, g) in self.globs.iter().enumerate() {
                if g.as_ref().is_some_and(|g| g.is_match(p)) {
                    matched[i] = true;
                    any = true;
                }
            }
            any
        };
        if hit(rel, matched) {
            return Some(rel.to_owned());
        }
        let mut dir = parent(rel);
        while !dir.is_empty() {
            if hit(dir, matched) {
                return Some(dir.to_owned());
            }
            dir = parent(dir);
        }
        None
    }
}
