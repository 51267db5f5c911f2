//! "Did you mean …?": the closest candidate by edit distance.

/// The candidate closest to `wanted`, if it is close enough to be a plausible typo (distance
/// at most a third of the length, and at least one edit allowed).
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = wanted.chars().count();
    let max = (len / 3).max(1);
    candidates
        .into_iter()
        // The length difference bounds the distance from below: skip hopeless candidates
        // before paying for the full alignment.
        .filter(|c| *c != wanted && c.len().abs_diff(wanted.len()) <= max * 4 && c.chars().count().abs_diff(len) <= max)
        .map(|c| (distance(wanted, c), c))
        .filter(|(d, _)| *d <= max)
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(b.1)))
        .map(|(_, c)| c)
}

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions), which
/// counts the commonest typo, two swapped letters, as one edit.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1).min(d[i * w + j - 1] + 1).min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_close_and_strangers_are_not() {
        assert_eq!(distance("checkout", "chekcout"), 1);
        assert_eq!(closest("chekout", ["checkout", "payments", "cart"]), Some("checkout"));
        assert_eq!(closest("zzz", ["checkout"]), None);
        assert_eq!(closest("checkout", ["checkout"]), None);
    }
}
