//! Known failures: a baseline file (`tck-baseline.toml`) that lets a crate
//! adopt the TCK while a rule still fails, and turns the run red when that
//! changes, not while it stays.
//!
//! ```toml
//! [[known]]
//! target = "kanal 0.1.1 ReceiveStream (bounded_async(1))"
//! verification = "stream"            # optional
//! test = "tck_stream_gives_exactly_n"  # or: rule = "tck.stream_gives_exactly_n"
//! reason = "https://github.com/… (reproduction: tests/findings.rs)"
//! ```
//!
//! An entry lists a rule of a target (named by the rule id, or by its test,
//! which stands for its rule): the report's row for it is `known` instead
//! of `failed` (or `warned`) and does not fail the run. A failure no entry
//! lists fails the run; so does, on a run of every rule test, an entry
//! whose rows all hold now (it is stale). A rule's verdict counts every
//! test of its target, so a share of the tests (`--partition`, `--rules`)
//! cannot tell a stale entry: `cargo rs-tck merge` judges the whole.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use reactive_streams_tck::outcome::RuleResult;
use serde::{Deserialize, Serialize};

use super::Fatal;
use super::discover::Planned;
pub use super::known::Entry;
use super::known::verification_named;
use super::report::{Conclusion, Held, Report, Section};

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    known: Vec<Entry>,
}

/// The file name looked for at the crate's root.
pub const DEFAULT_FILE: &str = "tck-baseline.toml";

/// The reason `--update-baseline` gives an entry it adds.
pub const TODO_REASON: &str =
    "TODO: why it fails (a link to the upstream issue, a reproduction file)";

/// A loaded baseline file.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// Where it is.
    pub path: PathBuf,
    /// How messages and reports name it: as given, or `tck-baseline.toml`
    /// when found at the crate's root.
    pub shown: String,
    /// Its entries, in file order.
    pub entries: Vec<Entry>,
}

impl Baseline {
    /// The baseline of a run: `--baseline FILE` (which must exist, unless
    /// it is to be written), else the crate root's `tck-baseline.toml` if
    /// there is one; none with `--no-baseline`.
    pub fn find(
        given: Option<&Path>,
        crate_dir: &Path,
        ignore: bool,
        update: bool,
    ) -> Result<Option<Baseline>, Fatal> {
        if ignore {
            return Ok(None);
        }
        let (path, shown) = match given {
            Some(path) => (path.to_path_buf(), path.display().to_string()),
            None => (crate_dir.join(DEFAULT_FILE), DEFAULT_FILE.to_owned()),
        };
        if path.is_file() {
            return Baseline::load(&path, shown).map(Some);
        }
        if update {
            return Ok(Some(Baseline {
                path,
                shown,
                entries: Vec::new(),
            }));
        }
        match given {
            Some(path) => Err(Fatal(format!(
                "--baseline {} does not exist; give an existing file, or write one with --update-baseline",
                path.display()
            ))),
            None => Ok(None),
        }
    }

    /// Reads and checks a baseline file, named `shown` in messages.
    pub fn load(path: &Path, shown: String) -> Result<Baseline, Fatal> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| Fatal(format!("cannot read the baseline {shown}: {error}")))?;
        let file: File = toml::from_str(&text).map_err(|error| {
            let message = error.message().replace('\n', " ");
            let place = error
                .span()
                .map(|span| {
                    let line = text[..span.start.min(text.len())].lines().count().max(1);
                    format!(" (line {line})")
                })
                .unwrap_or_default();
            Fatal(format!(
                "the baseline {shown} is not a list of [[known]] entries{place}: {}",
                message.trim()
            ))
        })?;
        Baseline::checked(shown, path.to_path_buf(), file.known)
    }

    /// A baseline of these entries, checked as a file's are.
    pub fn checked(shown: String, path: PathBuf, entries: Vec<Entry>) -> Result<Baseline, Fatal> {
        let mut keys = HashSet::new();
        for (index, entry) in entries.iter().enumerate() {
            entry.check(&shown, index).map_err(Fatal)?;
            let key = (&entry.target, &entry.verification, entry.rule_id());
            if !keys.insert(key) {
                return Err(Fatal(format!(
                    "{shown}: entry {} lists {} again",
                    index + 1,
                    entry.describe()
                )));
            }
        }
        Ok(Baseline {
            path,
            shown,
            entries,
        })
    }

    /// Every entry names a rule test the crate has (or a rule the
    /// catalogue knows), before anything runs.
    pub fn check_tests(&self, planned: &[Planned]) -> Result<(), Fatal> {
        for entry in &self.entries {
            let verification = entry.verification.as_deref().and_then(verification_named);
            let in_crate = planned.iter().any(|p| {
                verification.is_none_or(|v| v == p.test.verification)
                    && match &entry.test {
                        Some(test) => &p.test.test == test,
                        None => p.test.rule == entry.rule_id(),
                    }
            });
            let known_rule =
                entry.test.is_none() && reactive_streams::rules::find(&entry.rule_id()).is_some();
            if !in_crate && !known_rule {
                return Err(Fatal(format!(
                    "the baseline {} lists {}, but the crate has no such rule test{}",
                    self.shown,
                    entry.describe(),
                    if entry.test.is_none() {
                        " and the catalogue no such rule"
                    } else {
                        ""
                    }
                )));
            }
        }
        Ok(())
    }

    /// Every entry names a target the run reported: checked on a run of
    /// every rule test only (a share may hold none of a target's tests).
    pub fn check_targets(&self, report: &Report) -> Result<(), Fatal> {
        for entry in &self.entries {
            if !report.sections.iter().any(|s| s.target == entry.target) {
                let mut targets: Vec<&str> =
                    report.sections.iter().map(|s| s.target.as_str()).collect();
                targets.dedup();
                return Err(Fatal(format!(
                    "the baseline {} lists {}, but no rule test reported the target `{}` (the targets are {})",
                    self.shown,
                    entry.describe(),
                    entry.target,
                    targets
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        Ok(())
    }

    /// The entries for every row that fails `report` (or warns, when
    /// `strict`), keeping the reasons of the entries that listed them.
    pub fn updated(&self, report: &Report, strict: bool) -> Baseline {
        let mut entries: Vec<Entry> = Vec::new();
        for section in &report.sections {
            for (row, rule) in section.rows() {
                let fails = rule.verdict == Conclusion::Failed
                    || (strict && rule.verdict == Conclusion::Warned);
                if !fails {
                    continue;
                }
                let reason = self
                    .entries
                    .iter()
                    .find(|e| e.lists(row))
                    .map_or_else(|| TODO_REASON.to_owned(), |e| e.reason.clone());
                let entry = Entry {
                    target: row.target.clone(),
                    verification: Some(section.verification.as_str().to_owned()),
                    test: (!row.test.is_empty()).then(|| row.test.clone()),
                    rule: row.test.is_empty().then(|| row.rule.clone()),
                    reason,
                };
                if !entries
                    .iter()
                    .any(|e| e.lists(row) && e.verification == entry.verification)
                {
                    entries.push(entry);
                }
            }
        }
        Baseline {
            path: self.path.clone(),
            shown: self.shown.clone(),
            entries,
        }
    }

    /// Writes the file (atomically).
    pub fn write(&self) -> Result<(), Fatal> {
        let body = toml::to_string(&File {
            known: self.entries.clone(),
        })
        .map_err(|error| Fatal(format!("cannot write the baseline: {error}")))?;
        let text = format!(
            "# Known failures of this crate's TCK run (`cargo rs-tck`, docs/reports.md):\n# each is reported as `known` and does not fail the run; a new failure,\n# or an entry that no longer fails, does. Written by --update-baseline,\n# which keeps the reasons.\n\n{body}"
        );
        super::output::write(Some(&self.path), &text)
    }
}

impl Report {
    /// Holds the report to `baseline`: rows it lists that broke become
    /// `known`; when the report covers every rule test (`judge`), entries
    /// whose rows all hold are stale.
    pub fn hold_to(&mut self, shown: String, entries: &[Entry], judge: bool) {
        let mut listed_rows = vec![0usize; entries.len()];
        let mut broke = vec![false; entries.len()];
        for section in &mut self.sections {
            for (row, verdict) in section.rows.iter().zip(section.verdicts.iter_mut()) {
                let Some(index) = entries.iter().position(|e| e.lists(row)) else {
                    continue;
                };
                listed_rows[index] += 1;
                verdict.listed = Some(entries[index].reason.clone());
                if verdict.verdict.broke() {
                    broke[index] = true;
                    verdict.verdict = Conclusion::Known;
                }
            }
        }
        let stale = entries
            .iter()
            .enumerate()
            .filter(|(index, _)| judge && listed_rows[*index] > 0 && !broke[*index])
            .map(|(_, e)| e.clone())
            .collect();
        self.recount();
        self.baseline = Some(Held {
            file: shown,
            entries: entries.to_vec(),
            stale,
        });
    }

    /// The rows that fail the run: broken and not listed.
    pub fn unlisted_failures(&self, strict: bool) -> Vec<(&Section, &RuleResult)> {
        self.sections
            .iter()
            .flat_map(|s| s.rows().map(move |(row, rule)| (s, row, rule)))
            .filter(|(_, _, rule)| {
                rule.verdict == Conclusion::Failed || (strict && rule.verdict == Conclusion::Warned)
            })
            .map(|(s, row, _)| (s, row))
            .collect()
    }
}

/// Says on stderr, one line each, what fails the run against its
/// baseline: failures it does not list, and stale entries.
pub fn tell(report: &Report, strict: bool) {
    let Some(held) = &report.baseline else { return };
    for (section, row) in report.unlisted_failures(strict) {
        let test = if row.test.is_empty() {
            String::new()
        } else {
            format!(" (test {})", row.test)
        };
        eprintln!(
            "baseline: new failure: `{}` ({}) rule {}{test} is not listed in {}; fix it, or add it with --update-baseline",
            row.target, section.verification, row.rule, held.file
        );
    }
    for entry in &held.stale {
        eprintln!(
            "baseline: stale entry: {} lists {}, which no longer fails; remove the entry (--update-baseline does)",
            held.file,
            entry.describe()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::samples;

    fn entry(test: Option<&str>, rule: Option<&str>) -> Entry {
        Entry {
            target: "my_crate::Range".into(),
            verification: None,
            test: test.map(str::to_owned),
            rule: rule.map(str::to_owned),
            reason: "upstream issue 1".into(),
        }
    }

    fn verdict_of(report: &Report, rule: &str) -> Conclusion {
        report
            .sections
            .iter()
            .flat_map(|s| s.rows())
            .find(|(row, _)| row.rule == rule)
            .map(|(_, v)| v.verdict)
            .unwrap()
    }

    #[test]
    fn a_listed_failure_is_known_and_an_unlisted_one_still_fails() {
        let mut report = samples::broken();
        let failed = report.summary.failed;
        report.hold_to("b.toml".into(), &[entry(Some("spec_3_09"), None)], true);
        assert_eq!(verdict_of(&report, "3.9"), Conclusion::Known);
        assert_eq!(verdict_of(&report, "1.1"), Conclusion::Failed);
        assert_eq!(report.summary.known, 1);
        assert_eq!(report.summary.failed, failed - 1);
        assert!(report.fails(false), "§1.1 and the sink still fail");
        assert_eq!(report.unlisted_failures(false).len(), failed - 1);
    }

    #[test]
    fn an_entry_by_rule_lists_a_rule_seen_broken_in_another_test() {
        let mut report = samples::broken();
        report.hold_to("b.toml".into(), &[entry(None, Some("1.1"))], true);
        assert_eq!(verdict_of(&report, "1.1"), Conclusion::Known);
    }

    /// §3.8's rule held: its entry is stale on a whole run, and a share
    /// (which may lack the test that broke it) does not say so.
    #[test]
    fn an_entry_whose_rule_holds_is_stale_only_on_a_whole_run() {
        let entries = [entry(Some("spec_3_08"), None)];
        let mut whole = samples::broken();
        whole.hold_to("b.toml".into(), &entries, true);
        assert_eq!(whole.baseline.as_ref().unwrap().stale, entries);
        let mut share = samples::broken();
        share.hold_to("b.toml".into(), &entries, false);
        assert!(share.baseline.as_ref().unwrap().stale.is_empty());
        assert_eq!(verdict_of(&share, "3.8"), Conclusion::Passed);
    }

    #[test]
    fn updating_keeps_reasons_and_lists_every_failure() {
        let report = samples::broken();
        let old = Baseline {
            path: "b.toml".into(),
            shown: "b.toml".into(),
            entries: vec![entry(None, Some("3.9")), entry(Some("spec_3_08"), None)],
        };
        let new = old.updated(&report, false);
        let listed: Vec<(Option<&str>, Option<&str>, &str)> = new
            .entries
            .iter()
            .map(|e| (e.test.as_deref(), e.rule.as_deref(), e.reason.as_str()))
            .collect();
        assert_eq!(
            listed,
            [
                (None, Some("1.1"), TODO_REASON),
                (Some("spec_3_09"), None, "upstream issue 1"),
                (Some("streamlet_3_c"), None, TODO_REASON),
            ]
        );
        let strict = old.updated(&report, true);
        assert_eq!(strict.entries.len(), 4, "with §3.10's warning");
    }

    #[test]
    fn malformed_entries_are_refused_with_their_place() {
        let check = |entries: Vec<Entry>| {
            Baseline::checked("b.toml".into(), "b.toml".into(), entries).map_err(|Fatal(m)| m)
        };
        assert!(
            check(vec![entry(Some("spec_3_09"), Some("3.9"))])
                .unwrap_err()
                .contains("entry 1 (`my_crate::Range`): give either `test` or `rule`")
        );
        assert!(
            check(vec![entry(Some("spec_39"), None)])
                .unwrap_err()
                .contains("is not a rule test's name")
        );
        assert!(
            check(vec![
                entry(Some("spec_3_09"), None),
                entry(None, Some("3.9"))
            ])
            .unwrap_err()
            .contains("entry 2 lists `my_crate::Range` rule 3.9 again")
        );
        let mut no_reason = entry(None, Some("3.9"));
        no_reason.reason = " ".into();
        assert!(
            check(vec![no_reason])
                .unwrap_err()
                .contains("`reason` is empty")
        );
        let mut verification = entry(None, Some("3.9"));
        verification.verification = Some("publsher".into());
        assert!(
            check(vec![verification])
                .unwrap_err()
                .contains("is not a verification")
        );
    }
}
