//! Reading manifests from disk for core: each file is read, decoded and parsed, and its text
//! dropped; core asks [`Disk`] for it again when it needs it (positions on a non-ASCII line, a
//! report's source line, rename edits), so a big workspace never holds every text.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use policylens_core::source::{FileContent, ReadBack, SourceFile, decode};

/// The filesystem, as core's [`ReadBack`]: the text of a file read from disk is read again
/// from there.
#[derive(Debug)]
pub struct Disk;

impl ReadBack for Disk {
    fn read_back(&self, disk: &Path) -> Option<Vec<u8>> {
        std::fs::read(disk).ok()
    }
}

/// One [`Disk`] shared by every file read.
static DISK: LazyLock<Arc<dyn ReadBack>> = LazyLock::new(|| Arc::new(Disk));

/// Reads and parses `disk`, shown as `path`, keeping no text (see
/// [`SourceFile::parse_on_disk`]); a binary or non-UTF-8 file is unreadable, not an error.
pub fn read_file(path: Arc<str>, disk: &Path) -> std::io::Result<SourceFile> {
    Ok(match decode(std::fs::read(disk)?) {
        FileContent::Text(t) => SourceFile::parse_on_disk(path, disk, &t, DISK.clone()),
        FileContent::Unreadable(reason) => SourceFile::unreadable(path, &reason),
    })
}

/// Reads and parses files in parallel, keeping no texts: (shown path, path on disk).
pub fn read_files(files: Vec<(String, PathBuf)>) -> Vec<Result<SourceFile, (PathBuf, std::io::Error)>> {
    use rayon::prelude::*;
    files.into_par_iter().map(|(shown, disk)| read_file(shown.into(), &disk).map_err(|e| (disk, e))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use policylens_core::syntax::{Position, PositionEncoding};

    fn temp_file(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("policylens-read-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.yaml");
        std::fs::write(&p, text).unwrap();
        p
    }

    const TEXT: &str = "apiVersion: v1\nkind: Service\nmetadata:\n  name: café-é\n  namespace: x\n";

    /// The text comes back from the file on disk, and only while the file holds what was
    /// parsed.
    #[test]
    fn a_file_read_from_disk_reads_its_text_back_while_unchanged() {
        let p = temp_file("back", TEXT);
        let f = read_file("f.yaml".into(), &p).unwrap();
        assert_eq!(f.objects.len(), 1);
        let after_name = TEXT.find("\n  namespace").unwrap() as u32;
        assert_eq!(f.position(after_name, PositionEncoding::Utf16), Position { line: 3, character: 14 });
        assert_eq!(f.load_text().as_deref(), Some(TEXT));
        std::fs::write(&p, TEXT.replace('x', "y")).unwrap();
        let g = read_file("g.yaml".into(), &p).unwrap();
        std::fs::write(&p, TEXT).unwrap();
        assert_eq!(g.load_text(), None);
        std::fs::remove_file(&p).unwrap();
        assert_eq!(g.load_text(), None);
    }

    #[test]
    fn binary_and_missing_files() {
        let p = temp_file("binary", "a: \0\n");
        let f = read_file("f.yaml".into(), &p).unwrap();
        assert_eq!(f.unreadable.as_deref(), Some("binary file (holds NUL bytes)"));
        std::fs::remove_file(&p).unwrap();
        let read = read_files(vec![("f.yaml".into(), p.clone())]);
        assert!(matches!(&read[..], [Err((q, e))] if *q == p && e.kind() == std::io::ErrorKind::NotFound));
    }
}
