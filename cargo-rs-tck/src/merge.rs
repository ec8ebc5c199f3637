//! `cargo rs-tck merge a.json b.json …`: one report from the JSON reports
//! of several runs of one crate, typically the shares of `--partition`.
//!
//! Only the results of rule tests are read back; the report is assembled
//! again from all of them (catalogue rows, rules seen broken in other
//! tests, the baseline), so the shares `1/n` … `n/n` give the report of a
//! run of every rule test, but for durations.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use reactive_streams_tck::outcome::RuleResult;
use serde::Deserialize;

use super::baseline::{Baseline, Entry};
use super::partition::Partition;
use super::pattern::RulePattern;
use super::report::{Report, Scope};
use super::{Fatal, MergeArgs};

/// What a JSON report holds that merging reads.
#[derive(Debug, Deserialize)]
struct Input {
    #[serde(rename = "crate")]
    krate: String,
    results: Vec<RuleResult>,
    #[serde(default)]
    partition: Option<String>,
    #[serde(default)]
    rules: Option<String>,
    #[serde(default)]
    baseline: Option<InputBaseline>,
}

#[derive(Debug, Deserialize)]
struct InputBaseline {
    file: String,
    entries: Vec<Entry>,
}

/// Merges the reports; exit status as a run's.
pub fn merge(args: &MergeArgs) -> Result<ExitCode, Fatal> {
    super::check_output_folder(args.output.as_deref())?;
    let inputs: Vec<(PathBuf, Input)> = args
        .reports
        .iter()
        .map(|path| read(path).map(|input| (path.clone(), input)))
        .collect::<Result<_, _>>()?;
    let (first_path, first) = &inputs[0];
    for (path, input) in &inputs[1..] {
        let differ = |what: &str, a: &dyn std::fmt::Debug, b: &dyn std::fmt::Debug| {
            Fatal(format!(
                "{} and {} differ in {what} ({a:?}, {b:?}): merge the reports of one command run in shares",
                first_path.display(),
                path.display()
            ))
        };
        if input.krate != first.krate {
            return Err(differ("the crate", &first.krate, &input.krate));
        }
        if input.rules != first.rules {
            return Err(differ("--rules", &first.rules, &input.rules));
        }
        let entries = |i: &Input| i.baseline.as_ref().map(|b| b.entries.clone());
        if entries(input) != entries(first) {
            return Err(differ(
                "their baseline",
                &first.baseline.as_ref().map(|b| &b.file),
                &input.baseline.as_ref().map(|b| &b.file),
            ));
        }
    }
    let partition = shares(&inputs)?;
    let rules = first
        .rules
        .as_deref()
        .map(RulePattern::parse)
        .transpose()
        .map_err(|error| Fatal(format!("{}: --rules {error}", first_path.display())))?;
    let baseline = first
        .baseline
        .as_ref()
        .map(|b| (b.file.clone(), b.entries.clone()));
    if let Some((file, entries)) = &baseline {
        Baseline::checked(file.clone(), PathBuf::from(file), entries.clone())?;
    }
    let krate = first.krate.clone();
    let results = rule_test_results(inputs)?;
    let mut report = Report::assemble(&krate, results, rules.as_ref());
    report.scope = Scope { partition, rules };
    if let Some((file, entries)) = baseline {
        let whole = report.scope.is_whole();
        report.hold_to(file, &entries, whole);
    }
    super::finish(&report, args.format, args.output.as_deref(), args.strict)
}

fn read(path: &Path) -> Result<Input, Fatal> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| Fatal(format!("cannot read {}: {error}", path.display())))?;
    serde_json::from_str(&text).map_err(|error| {
        Fatal(format!(
            "{} is not a JSON report of cargo rs-tck (--format json): {error}",
            path.display()
        ))
    })
}

/// The share the merged reports make: `None` (every rule test) when they
/// are the shares 1/n … n/n, each once, or one report of no share; an
/// error when a share is missing, repeated, or of another n.
fn shares(inputs: &[(PathBuf, Input)]) -> Result<Option<Partition>, Fatal> {
    let mut parsed = Vec::new();
    for (path, input) in inputs {
        let share = input
            .partition
            .as_deref()
            .map(Partition::parse)
            .transpose()
            .map_err(|error| Fatal(format!("{}: partition {error}", path.display())))?;
        parsed.push((path, share));
    }
    let partitioned: Vec<(&PathBuf, Partition)> = parsed
        .iter()
        .filter_map(|(p, s)| s.map(|s| (*p, s)))
        .collect();
    if partitioned.is_empty() {
        return Ok(None);
    }
    if partitioned.len() != parsed.len() {
        let whole = parsed.iter().find(|(_, s)| s.is_none()).map(|(p, _)| *p);
        return Err(Fatal(format!(
            "{} is a report of every rule test and {} of one share: merge the shares of one --partition run",
            whole.map(|p| p.display().to_string()).unwrap_or_default(),
            partitioned[0].0.display()
        )));
    }
    let n = partitioned[0].1.n;
    let mut seen: HashMap<usize, &PathBuf> = HashMap::new();
    for (path, share) in &partitioned {
        if share.n != n {
            return Err(Fatal(format!(
                "{} is share {share} and {} share {}: merge the shares of one --partition run",
                path.display(),
                partitioned[0].0.display(),
                partitioned[0].1
            )));
        }
        if let Some(other) = seen.insert(share.k, path) {
            return Err(Fatal(format!(
                "{} and {} are both share {share}",
                other.display(),
                path.display()
            )));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(Fatal(format!(
            "the share{} {} of --partition k/{n} {} missing: merge the reports of every share",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", "),
            if missing.len() > 1 { "are" } else { "is" }
        )));
    }
    Ok(None)
}

/// The results the rule tests wrote (rows with a test), each from one
/// report only.
fn rule_test_results(inputs: Vec<(PathBuf, Input)>) -> Result<Vec<RuleResult>, Fatal> {
    let mut from: HashMap<(String, String, String, String, String), PathBuf> = HashMap::new();
    let mut results = Vec::new();
    for (path, input) in inputs {
        for result in input.results {
            if result.test.is_empty() {
                continue;
            }
            let key = (
                result.target.clone(),
                result.verification.as_str().to_owned(),
                result.module.clone(),
                result.test.clone(),
                result.rule.clone(),
            );
            if let Some(other) = from.insert(key, path.clone()) {
                return Err(Fatal(format!(
                    "{} and {} both hold the result of `{}` ({}) test {}: merge reports of distinct shares",
                    other.display(),
                    path.display(),
                    result.target,
                    result.verification,
                    result.test
                )));
            }
            results.push(result);
        }
    }
    Ok(results)
}
