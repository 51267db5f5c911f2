//! RFC 3339 timestamps (`metadata.creationTimestamp`), compared as instants.

/// Seconds and nanoseconds since the Unix epoch, UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    pub secs: i64,
    pub nanos: u32,
}

impl Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`; `None` for anything else.
    pub fn parse(s: &str) -> Option<Timestamp> {
        let b = s.as_bytes();
        if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
            return None;
        }
        if b[13] != b':' || b[16] != b':' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            let t = s.get(r)?;
            t.bytes().all(|c| c.is_ascii_digit()).then(|| t.parse().ok())?
        };
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
            return None;
        }
        let mut i = 19;
        let mut nanos = 0u32;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start {
                return None;
            }
            let frac = &s[start..i.min(start + 9)];
            nanos = frac.parse::<u32>().ok()? * 10u32.pow(9 - frac.len() as u32);
        }
        let offset = match b.get(i)? {
            b'Z' | b'z' if i + 1 == b.len() => 0,
            b'+' | b'-' if i + 6 == b.len() && b[i + 3] == b':' => {
                let o = num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60;
                if b[i] == b'+' { o } else { -o }
            }
            _ => return None,
        };
        let days = days_from_civil(y, mo, d);
        Some(Timestamp { secs: days * 86400 + h * 3600 + mi * 60 + se - offset, nanos })
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_orders() {
        let a = Timestamp::parse("2023-01-01T00:00:00Z").unwrap();
        assert_eq!(a.secs, 1_672_531_200);
        let b = Timestamp::parse("2023-01-01T01:00:00.5+01:00").unwrap();
        assert_eq!((b.secs, b.nanos), (1_672_531_200, 500_000_000));
        assert!(Timestamp::parse("2023-01-01T00:00:01Z").unwrap() > a);
        assert!(Timestamp::parse("yesterday").is_none());
        assert!(Timestamp::parse("2023-13-01T00:00:00Z").is_none());
    }
}
