//! Returning freed memory to the system between analyses.
//!
//! A full pass builds a world and an effective index (several MB at 10k objects) and frees
//! them when the next pass replaces them. glibc keeps the freed pages of its heaps mapped,
//! scattered between live blocks, so without this the server's resident size climbs with
//! every pass although its live heap stays flat.

/// Gives free heap pages back to the system (glibc's `malloc_trim`); a no-op elsewhere.
pub fn release_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: `malloc_trim` only releases free memory of glibc's own arenas; it reads no
        // pointer of ours and is safe to call from any thread at any time.
        unsafe {
            malloc_trim(0);
        }
    }
}
