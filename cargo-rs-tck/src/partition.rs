//! `--partition k/n`: a deterministic share of the rule tests, so that n CI
//! jobs run one share each and `cargo rs-tck merge` joins their reports.
//!
//! As cargo-nextest's `count:k/n`: the rule tests are sorted by a key that
//! does not depend on the build (the test target's name, without cargo's
//! hash, then the test's path) and dealt round-robin, the first to share 1;
//! share k keeps every n-th from its k-th on. Every rule test lands in
//! exactly one share, and the shares differ in size by one at most.

use std::fmt;
use std::path::Path;

use super::discover::Planned;

/// A parsed `--partition` value: share `k` of `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    /// Which share, from 1.
    pub k: usize,
    /// How many shares.
    pub n: usize,
}

impl Partition {
    /// Parses `k/n` (or `count:k/n`, as cargo-nextest writes it), with
    /// 1 ≤ k ≤ n.
    pub fn parse(text: &str) -> Result<Partition, String> {
        let bad = || {
            format!(
                "'{text}' is not a share: write k/n with 1 ≤ k ≤ n, e.g. '2/3' for the second of three"
            )
        };
        let share = text.strip_prefix("count:").unwrap_or(text);
        let (k, n) = share.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Partition { k, n })
    }

    /// The rule tests of this share, in plan order.
    pub fn select(&self, planned: Vec<Planned>) -> Vec<Planned> {
        let mut keys: Vec<(String, String)> = planned.iter().map(key).collect();
        keys.sort();
        let mine: std::collections::HashSet<&(String, String)> = keys
            .iter()
            .enumerate()
            .filter(|(index, _)| index % self.n == self.k - 1)
            .map(|(_, key)| key)
            .collect();
        planned
            .into_iter()
            .filter(|p| mine.contains(&key(p)))
            .collect()
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// A rule test's place in the deal: the same on every machine.
fn key(planned: &Planned) -> (String, String) {
    (target_name(&planned.exe), planned.test.path.clone())
}

/// The test target's name: the executable's name without the `-<hash>`
/// cargo appends (and without `.exe`).
fn target_name(exe: &Path) -> String {
    let stem = exe
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match stem.rsplit_once('-') {
        Some((name, hash)) if !hash.is_empty() && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            name.to_owned()
        }
        _ => stem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naming::RuleTest;
    use std::path::PathBuf;

    fn planned(exe: &str, path: &str) -> Planned {
        Planned {
            exe: PathBuf::from(exe),
            test: RuleTest::parse(path).unwrap(),
            ignored: false,
        }
    }

    #[test]
    fn shares_parse_as_nextest_writes_them() {
        assert_eq!(Partition::parse("2/3"), Ok(Partition { k: 2, n: 3 }));
        assert_eq!(Partition::parse("count:1/1"), Ok(Partition { k: 1, n: 1 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "hash:1/2", ""] {
            assert!(Partition::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_target_name_drops_the_build_hash() {
        assert_eq!(target_name(Path::new("/t/deps/tck-0123abcd")), "tck");
        assert_eq!(
            target_name(Path::new("/t/deps/tck_multicast-89ef.exe")),
            "tck_multicast"
        );
        assert_eq!(target_name(Path::new("/t/deps/my-tests")), "my-tests");
    }

    /// Every test of the TCK's own lists, in two executables, split three
    /// ways: each lands in exactly one share, the shares are as even as a
    /// deal makes them, and the deal does not depend on where cargo put the
    /// executables or in which order they were listed.
    #[test]
    fn shares_cover_every_rule_test_exactly_once() {
        let mut all = Vec::new();
        for (exe, module) in [
            ("/a/deps/tck-1111", "range::publisher"),
            ("/a/deps/sinks-2222", "s::stream"),
        ] {
            for test in reactive_streams_tck::publisher::TESTS {
                all.push(planned(exe, &format!("{module}::{test}")));
            }
        }
        let paths = |planned: &[Planned]| -> Vec<String> {
            planned
                .iter()
                .map(|p| format!("{}:{}", target_name(&p.exe), p.test.path))
                .collect()
        };
        let mut seen: Vec<String> = Vec::new();
        let mut sizes = Vec::new();
        for k in 1..=3 {
            let share = Partition { k, n: 3 }.select(all.clone());
            sizes.push(share.len());
            seen.extend(paths(&share));
            let mut elsewhere: Vec<Planned> = all
                .iter()
                .rev()
                .map(|p| Planned {
                    exe: PathBuf::from(
                        p.exe
                            .to_string_lossy()
                            .replace("/a/", "/b/")
                            .replace("1111", "ffff"),
                    ),
                    ..p.clone()
                })
                .collect();
            elsewhere = Partition { k, n: 3 }.select(elsewhere);
            let mut here = paths(&share);
            let mut there = paths(&elsewhere);
            here.sort();
            there.sort();
            assert_eq!(here, there, "share {k}/3 is the same on another machine");
        }
        let mut expected = paths(&all);
        expected.sort();
        seen.sort();
        assert_eq!(seen, expected);
        assert!(
            sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
            "{sizes:?}"
        );
    }
}
