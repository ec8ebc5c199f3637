//! The JSON report (a public contract: fields are added, never renamed or
//! dropped).
//!
//! ```json
//! {
//!   "crate": "my-crate",
//!   "summary": {
//!     "passed": 40, "failed": 1, "warned": 1, "skipped": 2, "known": 1,
//!     "enforced_by_types": 1, "untested": 5, "total": 50
//!   },
//!   "results": [
//!     {
//!       "target": "my_crate::Range",
//!       "verification": "publisher",
//!       "rule": "3.9",
//!       "test": "spec_3_09",
//!       "verdict": "failed",
//!       "message": "request(0) was answered with on_next(1)",
//!       "duration_ms": 2.4,
//!       "trace": [{ "at_micros": 1234, "thread": "main", "event": "request(0)" }],
//!       "violations": [
//!         { "rule": "1.1", "message": "§1.1: …", "scenario": "publisher of 3", "warning": false }
//!       ],
//!       "module": "my_crate::range::publisher",
//!       "rule_verdict": "failed",
//!       "violated_in": [],
//!       "known_reason": null
//!     }
//!   ],
//!   "partition": null,
//!   "rules": null,
//!   "baseline": {
//!     "file": "tck-baseline.toml",
//!     "entries": [{ "target": "my_crate::Range", "test": "spec_1_03", "reason": "…" }],
//!     "stale": []
//!   }
//! }
//! ```
//!
//! * `crate`: the verified package.
//! * `summary`: how many `results` have each `rule_verdict`; `total` is
//!   their number.
//! * `results`: one object per rule and target (and verification), grouped
//!   by target and verification, in spec order, `tck.*` checks last:
//!   * `target`: the verified type as the verification macro names it;
//!   * `verification`: `publisher`, `subscriber_blackbox`,
//!     `subscriber_whitebox`, `processor`, `streamlet_source` or
//!     `streamlet_sink`;
//!   * `rule`: the catalogue id (`3.9`, `streamlet.2.c`) or `tck.<name>`;
//!   * `test`: the generated test's name; empty for rules no test covered;
//!   * `verdict`: the test's own rule: `passed`, `failed`, `warned` (a
//!     SHOULD/MAY rule or a timing bound did not hold; fails the run only
//!     with `--strict`), `skipped` (also "not concluded: …" when another
//!     rule broke first), `enforced_by_types` or `untested` (a catalogue
//!     rule that applies to the verification but that no test of the whole
//!     run covered; `message` says why);
//!   * `message`: why it failed, was skipped or is not tested; `null` when it
//!     passed;
//!   * `duration_ms`: wall time of the test (0 for rules no test ran);
//!   * `trace`: the signals that led to a failure, each with `at_micros`
//!     (since the test started), `thread` and `event`; empty otherwise;
//!   * `violations`: other rules broken while this test ran, each with
//!     `rule`, `message`, `scenario` (or `null`) and `warning`;
//!   * `module`: the Rust module path of the generated test, telling two
//!     verifications of one target apart (empty if unknown);
//!   * `rule_verdict`: the rule's verdict for the target, counting every
//!     test: `failed` when a test saw the rule broken even if its own test
//!     passed;
//!   * `violated_in`: the tests (other than the rule's own) that saw it
//!     broken;
//!   * `known_reason`: the reason of the baseline entry that lists the
//!     row, `null` when none does. Its `rule_verdict` is then `known` (a
//!     listed failure or warning, which does not fail the run) or, when the
//!     rule held, its own (the entry is stale).
//! * `partition`: `"k/n"` for a run of one share (`--partition`), else
//!   `null`.
//! * `rules`: the `--rules` pattern, else `null`.
//! * `baseline`: the known failures the run was held to (`null` without a
//!   baseline): its `file`, its `entries` (`target`, optional
//!   `verification`, `test` or `rule`, `reason`) and the `stale` ones
//!   (listed, no longer failing; judged on runs of every rule test).
//!
//! `summary.known` counts the `known` rows; they are never counted as
//! `passed` or `failed`. `cargo rs-tck merge` reads these reports back.

use reactive_streams_tck::outcome::RuleResult;
use serde::Serialize;

use super::{Conclusion, Report, Summary};
use crate::known::Entry;

#[derive(Serialize)]
struct Document<'a> {
    #[serde(rename = "crate")]
    krate: &'a str,
    summary: Summary,
    results: Vec<Row<'a>>,
    partition: Option<String>,
    rules: Option<String>,
    baseline: Option<Baseline<'a>>,
}

#[derive(Serialize)]
struct Baseline<'a> {
    file: &'a str,
    entries: &'a [Entry],
    stale: &'a [Entry],
}

/// A result with what the report concluded about its rule.
#[derive(Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    result: &'a RuleResult,
    rule_verdict: Conclusion,
    violated_in: Vec<&'a str>,
    known_reason: Option<&'a str>,
}

/// Renders the report as pretty-printed JSON.
pub fn render(report: &Report) -> String {
    let results = report
        .sections
        .iter()
        .flat_map(|section| section.rows())
        .map(|(result, rule)| {
            let mut violated_in: Vec<&str> =
                rule.seen_in.iter().map(|seen| seen.test.as_str()).collect();
            violated_in.dedup();
            Row {
                result,
                rule_verdict: rule.verdict,
                violated_in,
                known_reason: rule.listed.as_deref(),
            }
        })
        .collect();
    let document = Document {
        krate: &report.krate,
        summary: report.summary,
        results,
        partition: report.scope.partition.map(|p| p.to_string()),
        rules: report.scope.rules.as_ref().map(|r| r.to_string()),
        baseline: report.baseline.as_ref().map(|held| Baseline {
            file: &held.file,
            entries: &held.entries,
            stale: &held.stale,
        }),
    };
    let mut text = serde_json::to_string_pretty(&document).expect("a report serialises");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;

    fn value(report: &Report) -> serde_json::Value {
        serde_json::from_str(&render(report)).unwrap()
    }

    #[test]
    fn a_passing_set() {
        insta::assert_json_snapshot!(value(&samples::passing()), {
            ".results[].duration_ms" => "[duration]",
        });
    }

    #[test]
    fn a_broken_set() {
        insta::assert_json_snapshot!(value(&samples::broken()), {
            ".results[].duration_ms" => "[duration]",
            ".results[].trace[].at_micros" => "[at]",
        });
    }

    #[test]
    fn every_result_has_the_public_fields() {
        let value = value(&samples::broken());
        for field in [
            "passed",
            "failed",
            "warned",
            "skipped",
            "known",
            "enforced_by_types",
            "untested",
            "total",
        ] {
            assert!(value["summary"][field].is_u64(), "summary.{field}");
        }
        for result in value["results"].as_array().unwrap() {
            for field in [
                "target",
                "verification",
                "rule",
                "test",
                "verdict",
                "message",
                "duration_ms",
                "trace",
                "violations",
                "module",
                "rule_verdict",
                "violated_in",
                "known_reason",
            ] {
                assert!(result.get(field).is_some(), "{field} in {result}");
            }
        }
    }
}
