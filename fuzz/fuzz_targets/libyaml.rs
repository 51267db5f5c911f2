//! One text → libyaml's verdict beside policylens's (docs/semantics.md §4.1): where libyaml's loader loads
//! the text, policylens reads the same documents with the same scalar values; where it rejects
//! it, policylens reports a YAML error (template files excepted); and the fast reader gives
//! exactly the trees and spans libyaml's events give. The comparison is
//! `server/core/tests/oracle/mod.rs`, compiled here from its source file.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../server/core/tests/oracle/mod.rs"]
#[allow(dead_code)]
mod oracle;

fuzz_target!(|data: &[u8]| {
    if data.len() > policylens_fuzz::MAX_INPUT {
        return;
    }
    // Texts as the loader hands them over: UTF-8 without NUL bytes.
    let Ok(text) = std::str::from_utf8(data) else { return };
    if text.contains('\0') {
        return;
    }
    if let Err(why) = oracle::compare(text) {
        panic!("{why}");
    }
});
