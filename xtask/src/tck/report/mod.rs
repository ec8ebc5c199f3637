//! The report: every result of a run, completed from the rule catalogue,
//! grouped by verified target, in spec order; rendered as Markdown, JSON or
//! JUnit XML from the same data.

pub mod json;
pub mod junit;
pub mod markdown;

use std::collections::BTreeMap;

use reactive_streams::rules::{Check, Rule, Subject, RULES};
use reactive_streams_tck::outcome::{RuleResult, Verdict, Verification};
use serde::Serialize;

use super::pattern::RulePattern;

/// A finished run, ready to render.
#[derive(Debug, Clone)]
pub struct Report {
    /// The verified crate's package name.
    pub krate: String,
    /// One section per target and verification, ordered by both.
    pub sections: Vec<Section>,
    /// Counts over every row of every section.
    pub summary: Summary,
}

/// The rows of one verification of one target.
#[derive(Debug, Clone)]
pub struct Section {
    /// The verified type, as the verification macro names it.
    pub target: String,
    /// Which verification ran.
    pub verification: Verification,
    /// One row per result, in spec order, then `tck.*` checks, then ids the
    /// catalogue does not know.
    pub rows: Vec<RuleResult>,
}

/// How many rows have each verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Rows that passed.
    pub passed: usize,
    /// Rows that failed.
    pub failed: usize,
    /// Rows a test skipped.
    pub skipped: usize,
    /// Catalogue rules that Rust's types enforce.
    pub enforced_by_types: usize,
    /// Catalogue rules no test of this run covered.
    pub untested: usize,
    /// All rows.
    pub total: usize,
}

impl Summary {
    fn count(results: impl IntoIterator<Item = Verdict>) -> Summary {
        let mut summary = Summary::default();
        for verdict in results {
            match verdict {
                Verdict::Passed => summary.passed += 1,
                Verdict::Failed => summary.failed += 1,
                Verdict::Skipped => summary.skipped += 1,
                Verdict::EnforcedByTypes => summary.enforced_by_types += 1,
                Verdict::Untested => summary.untested += 1,
            }
            summary.total += 1;
        }
        summary
    }
}

impl Report {
    /// Groups `results` by target and verification and completes each group
    /// with the catalogue rules it applies to that no result covers (those
    /// selected by `rules`, when given): `enforced_by_types` with the proof,
    /// or `untested` with the catalogue's reason.
    pub fn assemble(krate: &str, results: Vec<RuleResult>, rules: Option<&RulePattern>) -> Report {
        let mut groups: BTreeMap<(String, Verification), Vec<RuleResult>> = BTreeMap::new();
        for result in results {
            groups
                .entry((result.target.clone(), result.verification))
                .or_default()
                .push(result);
        }
        let sections: Vec<Section> = groups
            .into_iter()
            .map(|((target, verification), mut rows)| {
                let missing: Vec<RuleResult> = RULES
                    .iter()
                    .filter(|rule| applies(rule.subject, verification))
                    .filter(|rule| rules.map_or(true, |p| p.matches(rule.id)))
                    .filter(|rule| !rows.iter().any(|row| covers(&row.rule, rule)))
                    .map(|rule| from_catalogue(rule, &target, verification))
                    .collect();
                rows.extend(missing);
                rows.sort_by(|a, b| {
                    order(&a.rule)
                        .cmp(&order(&b.rule))
                        .then_with(|| a.test.cmp(&b.test))
                });
                Section {
                    target,
                    verification,
                    rows,
                }
            })
            .collect();
        let summary = Summary::count(
            sections
                .iter()
                .flat_map(|s| s.rows.iter().map(|r| r.verdict)),
        );
        Report {
            krate: krate.to_owned(),
            sections,
            summary,
        }
    }

    /// Every row of every section.
    pub fn results(&self) -> impl Iterator<Item = &RuleResult> {
        self.sections.iter().flat_map(|s| s.rows.iter())
    }
}

/// Which catalogue subjects a verification checks.
fn applies(subject: Subject, verification: Verification) -> bool {
    use Subject as S;
    use Verification as V;
    match verification {
        V::Publisher => matches!(subject, S::Publisher | S::Subscription),
        V::SubscriberBlackbox | V::SubscriberWhitebox => subject == S::Subscriber,
        V::Processor => matches!(
            subject,
            S::Publisher | S::Subscriber | S::Subscription | S::Processor
        ),
        V::StreamletSource => subject == S::Source,
        V::StreamletSink => subject == S::Sink,
        // Its rules (`done.*`) are an extension outside the 49; each of its
        // rule tests reports its own result.
        V::DatumLifecycle => false,
        // Their rules (`stream.*`, `sink.*`) are outside the 49 too.
        V::FuturesStream | V::FuturesSink => false,
    }
}

/// Whether a result for `id` covers `rule` (the rule itself or one of its
/// conditions).
fn covers(id: &str, rule: &Rule) -> bool {
    id == rule.id
        || id
            .strip_prefix(rule.id)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// The row for a catalogue rule that no result covers.
fn from_catalogue(rule: &Rule, target: &str, verification: Verification) -> RuleResult {
    let (verdict, message) = match rule.check {
        Check::EnforcedByTypes { proof } => (
            Verdict::EnforcedByTypes,
            format!("enforced by types; proof: {proof}"),
        ),
        Check::Untested { reason } => (Verdict::Untested, format!("not covered: {reason}")),
        Check::Tested { tests } => (
            Verdict::Untested,
            format!(
                "not covered: no test of this run checked it (the catalogue names {})",
                tests.join(", ")
            ),
        ),
    };
    RuleResult {
        target: target.to_owned(),
        verification,
        rule: rule.id.to_owned(),
        test: String::new(),
        verdict,
        message: Some(message),
        duration_ms: 0.0,
        trace: Vec::new(),
    }
}

/// Spec order: catalogue rules (each followed by its conditions), then
/// `tck.*` checks, then ids the catalogue does not know, by name.
pub fn order(id: &str) -> (u8, usize, usize, String) {
    for (index, rule) in RULES.iter().enumerate() {
        if id == rule.id {
            return (0, index, 0, String::new());
        }
        if let Some(position) = rule.conditions.iter().position(|c| c.id == id) {
            return (0, index, position + 1, String::new());
        }
    }
    let group = if id.starts_with("tck.") { 1 } else { 2 };
    (group, 0, 0, id.to_owned())
}

/// The level and summary the catalogue gives an id (a rule or condition);
/// `None` for `tck.*` and unknown ids.
pub fn describe(id: &str) -> Option<(&'static str, &'static str)> {
    let rule = reactive_streams::rules::find(id)?;
    let summary = reactive_streams::rules::condition(id).map_or(rule.summary, |c| c.summary);
    Some((rule.level.keyword(), summary))
}

#[cfg(test)]
pub(crate) mod samples {
    //! Synthetic result sets for the renderers' snapshot tests.

    use reactive_streams_tck::outcome::{RuleResult, TraceEvent, Verdict, Verification};

    use super::Report;
    use crate::tck::pattern::RulePattern;

    fn result(rule: &str, test: &str, verdict: Verdict, message: Option<&str>) -> RuleResult {
        RuleResult {
            target: "my_crate::Range".into(),
            verification: Verification::Publisher,
            rule: rule.into(),
            test: test.into(),
            verdict,
            message: message.map(str::to_owned),
            duration_ms: 12.5,
            trace: Vec::new(),
        }
    }

    /// Everything passes or is skipped; only §1 is selected.
    pub fn passing() -> Report {
        let results = vec![
            result("1.3", "spec_1_03", Verdict::Passed, None),
            result("1.1", "spec_1_01", Verdict::Passed, None),
            result(
                "1.4",
                "spec_1_04",
                Verdict::Skipped,
                Some("the factory declares no failed publisher"),
            ),
            result(
                "tck.factory_makes_fresh_publishers",
                "tck_factory_makes_fresh_publishers",
                Verdict::Passed,
                None,
            ),
        ];
        Report::assemble(
            "my-crate",
            results,
            Some(&RulePattern::parse("1.*,tck.*").unwrap()),
        )
    }

    /// A failure with a trace, a killed process, and a sink section.
    pub fn broken() -> Report {
        let mut failed = result(
            "3.9",
            "spec_3_09",
            Verdict::Failed,
            Some(
                "request(0) was answered with on_next(1), expected on_error(illegal demand) | <&>",
            ),
        );
        failed.trace = vec![
            TraceEvent {
                at_micros: 10,
                thread: "main".into(),
                event: "on_subscribe(…)".into(),
            },
            TraceEvent {
                at_micros: 1234,
                thread: "main".into(),
                event: "request(0)".into(),
            },
            TraceEvent {
                at_micros: 1300,
                thread: "publisher-1".into(),
                event: "on_next(1)".into(),
            },
        ];
        let mut sink = result(
            "streamlet.3.c",
            "streamlet_3_c",
            Verdict::Failed,
            Some("the test process was killed after 5000 ms"),
        );
        sink.target = "sink".into();
        sink.verification = Verification::StreamletSink;
        let results = vec![
            failed,
            result("3.8", "spec_3_08", Verdict::Passed, None),
            sink,
        ];
        Report::assemble(
            "my-crate",
            results,
            Some(&RulePattern::parse("3.8,3.9,3.10,streamlet.*").unwrap()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_spec_order_and_uncovered_rules_are_listed() {
        let report = samples::passing();
        let section = &report.sections[0];
        let ids: Vec<&str> = section.rows.iter().map(|r| r.rule.as_str()).collect();
        let mut expected: Vec<String> = (1..=11).map(|n| format!("1.{n}")).collect();
        expected.push("tck.factory_makes_fresh_publishers".into());
        assert_eq!(ids, expected);
        assert_eq!(section.rows[1].verdict, Verdict::Untested);
        assert_eq!(section.rows[9].verdict, Verdict::EnforcedByTypes);
        assert_eq!(report.summary.passed, 3);
        assert_eq!(report.summary.total, 12);
    }

    #[test]
    fn conditions_cover_their_rule() {
        let report = samples::broken();
        let sink = report
            .sections
            .iter()
            .find(|s| s.verification == Verification::StreamletSink)
            .unwrap();
        let ids: Vec<&str> = sink.rows.iter().map(|r| r.rule.as_str()).collect();
        assert_eq!(ids, ["streamlet.3.c", "streamlet.5", "streamlet.6"]);
    }

    #[test]
    fn describe_knows_rules_and_conditions() {
        assert_eq!(describe("3.9").unwrap().0, "MUST");
        assert!(describe("streamlet.2.c").unwrap().1.contains("started"));
        assert_eq!(describe("tck.x"), None);
    }
}
