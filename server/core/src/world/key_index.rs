//! Object ids by a 32-bit hash of their key; callers verify each candidate against the object.
//!
//! The entries are sorted by hash, and a directory indexed by the hash's top bits points at each
//! bucket's run (about four entries): a lookup is two reads. A binary search over the sorted
//! array took ~17 dependent probes at 100k objects, the last several of them cache misses, and
//! made reference resolution grow faster than the workspace.

use super::ObjId;

#[derive(Clone, Debug)]
pub(crate) struct KeyIndex {
    /// Sorted by hash.
    entries: Box<[(u32, ObjId)]>,
    /// `dir[b]`: the first entry whose bucket is `b` or later; one more slot than buckets.
    dir: Box<[u32]>,
    /// A hash's bucket is its top bits: `hash >> shift` (a shift of 32: one bucket).
    shift: u32,
}

impl KeyIndex {
    pub(crate) fn new(mut entries: Vec<(u32, ObjId)>) -> KeyIndex {
        entries.sort_unstable();
        let bits = (entries.len() / 4).max(1).ilog2().min(24);
        let shift = 32 - bits;
        let buckets = 1usize << bits;
        let mut dir = Vec::with_capacity(buckets + 1);
        let mut at = 0usize;
        for b in 0..buckets {
            while at < entries.len() && bucket(entries[at].0, shift) < b {
                at += 1;
            }
            dir.push(at as u32);
        }
        dir.push(entries.len() as u32);
        KeyIndex { entries: entries.into_boxed_slice(), dir: dir.into_boxed_slice(), shift }
    }

    /// Runs of two or more ids sharing a hash, in hash order.
    pub(crate) fn shared_runs(&self) -> impl Iterator<Item = Vec<ObjId>> + '_ {
        self.entries.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() > 1).map(|r| r.iter().map(|&(_, id)| id).collect())
    }

    /// The ids stored under `hash`.
    pub(crate) fn get(&self, hash: u32) -> impl Iterator<Item = ObjId> + '_ {
        let b = bucket(hash, self.shift);
        let run = match (self.dir.get(b), self.dir.get(b + 1)) {
            (Some(&lo), Some(&hi)) => self.entries.get(lo as usize..hi as usize).unwrap_or(&[]),
            _ => &[],
        };
        run.iter().filter(move |&&(k, _)| k == hash).map(|&(_, id)| id)
    }
}

fn bucket(hash: u32, shift: u32) -> usize {
    (u64::from(hash) >> shift) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(runs: &KeyIndex, h: u32) -> Vec<u32> {
        let mut v: Vec<u32> = runs.get(h).map(|id| id.0).collect();
        v.sort();
        v
    }

    #[test]
    fn finds_every_entry_and_nothing_else() {
        // Colliding hashes, both ends of the range, and enough entries for many buckets.
        let mut entries: Vec<(u32, ObjId)> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761), ObjId(i))).collect();
        entries.extend([(0, ObjId(9000)), (0, ObjId(9001)), (u32::MAX, ObjId(9002)), (7, ObjId(9003))]);
        let runs = KeyIndex::new(entries.clone());
        for &(h, _) in &entries {
            let want: Vec<u32> = {
                let mut v: Vec<u32> = entries.iter().filter(|e| e.0 == h).map(|e| e.1.0).collect();
                v.sort();
                v
            };
            assert_eq!(ids(&runs, h), want, "hash {h}");
        }
        assert_eq!(ids(&runs, 0), vec![0, 9000, 9001]);
        assert_eq!(ids(&runs, u32::MAX), vec![9002]);
        assert!(ids(&runs, 1).is_empty());
        assert!(ids(&runs, u32::MAX - 1).is_empty());
    }

    #[test]
    fn small_and_empty_sets() {
        assert!(KeyIndex::new(Vec::new()).get(0).next().is_none());
        let one = KeyIndex::new(vec![(42, ObjId(3))]);
        assert_eq!(ids(&one, 42), vec![3]);
        assert!(ids(&one, 41).is_empty());
    }
}
