//! With the `heap-stats` feature, a global allocator that counts live and peak heap bytes, so
//! `--stats` can say which phase holds the memory (RSS alone cannot tell the model from the
//! allocator's slack). Always: the glibc settings of one-shot runs.
//!
//! Each thread counts in its own cell and adds to the shared counters once its count has moved
//! by [`BATCH`] bytes: shared atomics bumped on every allocation made the parser threads fight
//! over one cache line, about a tenth of the parse time. The totals lag by less than
//! `BATCH` (16 KiB) per thread, under the 0.1 MiB the reports print.

#[cfg(feature = "heap-stats")]
pub use counting::{Counting, blocks, live, peak};

#[cfg(feature = "heap-stats")]
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;
    use std::sync::atomic::{AtomicIsize, Ordering};

    pub struct Counting;

    static LIVE: AtomicIsize = AtomicIsize::new(0);
    static PEAK: AtomicIsize = AtomicIsize::new(0);
    // Live blocks: glibc adds 8-16 bytes to each, so many small blocks cost RSS the byte count hides.
    static BLOCKS: AtomicIsize = AtomicIsize::new(0);

    const BATCH: isize = 16 * 1024;

    thread_local! {
        // (bytes, blocks) not yet added to the shared counters. Const-initialised `Cell`s need no
        // allocation and no destructor, so the allocator may touch them at any time.
        static PENDING: Cell<(isize, isize)> = const { Cell::new((0, 0)) };
    }

    // SAFETY: every call is forwarded to `System` unchanged; only counters are added.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let p = unsafe { System.alloc(layout) };
            if !p.is_null() {
                count(layout.size() as isize, 1);
            }
            p
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let p = unsafe { System.alloc_zeroed(layout) };
            if !p.is_null() {
                count(layout.size() as isize, 1);
            }
            p
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) };
            count(-(layout.size() as isize), -1);
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let p = unsafe { System.realloc(ptr, layout, new_size) };
            if !p.is_null() {
                count(new_size as isize - layout.size() as isize, 0);
            }
            p
        }
    }

    fn count(bytes: isize, blocks: isize) {
        let flushed = PENDING.try_with(|c| {
            let (b, n) = c.get();
            let (b, n) = (b + bytes, n + blocks);
            if b.abs() < BATCH {
                c.set((b, n));
                None
            } else {
                c.set((0, 0));
                Some((b, n))
            }
        });
        // A thread being torn down has no cell any more: count straight into the totals.
        let (b, n) = match flushed {
            Ok(None) => return,
            Ok(Some(d)) => d,
            Err(_) => (bytes, blocks),
        };
        BLOCKS.fetch_add(n, Ordering::Relaxed);
        let live = LIVE.fetch_add(b, Ordering::Relaxed) + b;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }

    /// Bytes currently allocated.
    pub fn live() -> usize {
        LIVE.load(Ordering::Relaxed).max(0) as usize
    }

    /// Blocks currently allocated.
    pub fn blocks() -> usize {
        BLOCKS.load(Ordering::Relaxed).max(0) as usize
    }

    /// The most bytes ever allocated at once.
    pub fn peak() -> usize {
        PEAK.load(Ordering::Relaxed).max(0) as usize
    }
}

/// Bytes as MiB with one decimal, for reports.
#[cfg(feature = "heap-stats")]
pub fn mib(n: usize) -> String {
    format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
}

/// Allocator settings for one-shot runs (`check`, `explain`, ...), not the server.
///
/// glibc's fastbins never merge freed neighbours: the parser's short-lived blocks, freed
/// between the model's long-lived ones, stayed as scattered small chunks that every later
/// allocation searched through. Without them the parse phase ran about a quarter faster at
/// 100k objects and peaked lower (`policylens-bench-check`). The server, whose heap is
/// trimmed after every pass instead (`lsp/memory.rs`), measured no gain.
pub fn tune_for_batch() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const M_MXFAST: i32 = 1;
        unsafe extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        // SAFETY: `mallopt(M_MXFAST, 0)` only changes glibc's own size threshold (after merging
        // the fastbins); it reads no pointer of ours and is valid at any time.
        unsafe {
            mallopt(M_MXFAST, 0);
        }
    }
}
