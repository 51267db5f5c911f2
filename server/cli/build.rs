//! Links the functions a language-server session runs first (`hot-text.txt`, made by
//! `scripts/hot-text.py`), so that they share a few adjacent pages: unordered, the kernel's
//! fault-around made nearly all of the binary's code resident in a running server.
//!
//! Only for release builds linked by rust-lld (the default for x86_64 Linux since Rust 1.90;
//! GNU ld has no symbol ordering), and not when a linker is configured;
//! `POLICYLENS_NO_HOT_TEXT=1` turns it off. Listed names missing from the binary are ignored.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=hot-text.txt");
    println!("cargo:rerun-if-env-changed=POLICYLENS_NO_HOT_TEXT");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let list = Path::new(&var("CARGO_MANIFEST_DIR")).join("hot-text.txt");
    // A configured linker may not be lld.
    let custom_linker = std::env::var_os("RUSTC_LINKER").is_some()
        || ["linker", "fuse-ld"].iter().any(|k| var("CARGO_ENCODED_RUSTFLAGS").contains(k));
    let wanted = var("PROFILE") == "release"
        && var("TARGET") == "x86_64-unknown-linux-gnu"
        && std::env::var_os("POLICYLENS_NO_HOT_TEXT").is_none()
        && !custom_linker
        && list.exists()
        && rustc_minor(&var("RUSTC")).is_some_and(|minor| minor >= 90);
    if !wanted {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}", list.display());
    println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
}

/// The minor version of `rustc` (`rustc 1.95.0 (…)` → 95).
fn rustc_minor(rustc: &str) -> Option<u32> {
    let out = Command::new(rustc).arg("--version").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.split_whitespace().nth(1)?.split('.').nth(1)?.parse().ok()
}
