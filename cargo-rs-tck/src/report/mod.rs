//! The report: every result of a run, completed from the rule catalogue,
//! grouped by verified target, in spec order; rendered as Markdown, JSON,
//! JUnit XML or HTML from the same data.

pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;

use std::collections::BTreeMap;
use std::fmt;

use reactive_streams::rules::{Check, RULES, Rule, Subject};
use reactive_streams_tck::outcome::{RuleResult, Verdict, Verification, Violation};
use serde::{Deserialize, Serialize};

use super::known::Entry;
use super::partition::Partition;
use super::pattern::RulePattern;

/// The report in `format`.
pub fn render(report: &Report, format: super::Format) -> String {
    match format {
        super::Format::Md => markdown::render(report),
        super::Format::Json => json::render(report),
        super::Format::Junit => junit::render(report),
        super::Format::Html => html::render(report),
    }
}

/// A finished run, ready to render.
#[derive(Debug, Clone)]
pub struct Report {
    /// The verified crate's package name.
    pub krate: String,
    /// One section per target and verification, ordered by both.
    pub sections: Vec<Section>,
    /// Counts over every row of every section.
    pub summary: Summary,
    /// Which share of the crate's rule tests ran.
    pub scope: Scope,
    /// The known failures the report was held to, if any.
    pub baseline: Option<Held>,
}

/// Which share of the crate's rule tests a report covers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scope {
    /// `--partition k/n`: one share of n.
    pub partition: Option<Partition>,
    /// `--rules`: only these rules.
    pub rules: Option<RulePattern>,
}

impl Scope {
    /// Whether every rule test of the crate ran: then a rule's verdict
    /// counts every test of its target, and a baseline entry that no longer
    /// fails is stale. (In a share, a rule broken in a test of another
    /// share looks as if it held.)
    pub fn is_whole(&self) -> bool {
        self.partition.is_none() && self.rules.is_none()
    }
}

/// A baseline as the report was held to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    /// The file, as given (or found at the crate's root).
    pub file: String,
    /// Its entries.
    pub entries: Vec<Entry>,
    /// The entries whose rows all hold now (judged on whole runs only).
    pub stale: Vec<Entry>,
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
    /// For each row (same index), the rule's verdict for this target: a
    /// rule broken during any test of the section fails (or warns) even if
    /// its own test passed; a failure the baseline lists is `known`.
    pub verdicts: Vec<RuleVerdict>,
}

/// The verdict of a row's rule for its target, counting every test of the
/// section.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleVerdict {
    /// `failed` if the row's own test failed or a test saw the rule broken
    /// (a MUST rule); `warned` likewise for a SHOULD/MAY rule or a timing
    /// bound; `known` instead of either when the baseline lists it;
    /// otherwise the row's own verdict.
    pub verdict: Conclusion,
    /// Where the rule was seen broken by tests other than its own.
    pub seen_in: Vec<Seen>,
    /// The reason of the baseline entry that lists the row, if one does
    /// (whether it still fails or not).
    pub listed: Option<String>,
}

/// What the report concludes about a rule for a target: a test's
/// [`Verdict`], or `known`, a failure (or warning) the baseline lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Conclusion {
    /// See [`Verdict::Passed`].
    Passed,
    /// See [`Verdict::Failed`].
    Failed,
    /// See [`Verdict::Warned`].
    Warned,
    /// See [`Verdict::Skipped`].
    Skipped,
    /// See [`Verdict::EnforcedByTypes`].
    EnforcedByTypes,
    /// See [`Verdict::Untested`].
    Untested,
    /// A failure or warning listed in the baseline: it does not fail the
    /// run, and is never counted as passed.
    Known,
}

impl Conclusion {
    /// The name used in the JSON report.
    pub const fn as_str(self) -> &'static str {
        match self {
            Conclusion::Known => "known",
            Conclusion::Passed => Verdict::Passed.as_str(),
            Conclusion::Failed => Verdict::Failed.as_str(),
            Conclusion::Warned => Verdict::Warned.as_str(),
            Conclusion::Skipped => Verdict::Skipped.as_str(),
            Conclusion::EnforcedByTypes => Verdict::EnforcedByTypes.as_str(),
            Conclusion::Untested => Verdict::Untested.as_str(),
        }
    }

    /// Whether the rule broke: failed, warned, or a known failure.
    pub fn broke(self) -> bool {
        matches!(
            self,
            Conclusion::Failed | Conclusion::Warned | Conclusion::Known
        )
    }
}

impl From<Verdict> for Conclusion {
    fn from(verdict: Verdict) -> Conclusion {
        match verdict {
            Verdict::Passed => Conclusion::Passed,
            Verdict::Failed => Conclusion::Failed,
            Verdict::Warned => Conclusion::Warned,
            Verdict::Skipped => Conclusion::Skipped,
            Verdict::EnforcedByTypes => Conclusion::EnforcedByTypes,
            Verdict::Untested => Conclusion::Untested,
        }
    }
}

impl fmt::Display for Conclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rule broken during another rule's test.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    /// The test it was seen in.
    pub test: String,
    /// What was seen.
    pub violation: Violation,
}

impl Section {
    /// The rows with their rule verdicts.
    pub fn rows(&self) -> impl Iterator<Item = (&RuleResult, &RuleVerdict)> {
        self.rows.iter().zip(&self.verdicts)
    }

    /// How many rows have each rule verdict.
    pub fn summary(&self) -> Summary {
        Summary::count(self.verdicts.iter().map(|v| v.verdict))
    }

    /// The ids of the rules that failed, in spec order, without repeats.
    pub fn failed_rules(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = Vec::new();
        for (row, verdict) in self.rows() {
            if verdict.verdict == Conclusion::Failed && !ids.contains(&row.rule.as_str()) {
                ids.push(&row.rule);
            }
        }
        ids
    }
}

/// How many rows have each verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Rows that passed.
    pub passed: usize,
    /// Rows that failed.
    pub failed: usize,
    /// Rows whose SHOULD/MAY rule or timing bound did not hold: reported,
    /// failing the run only when it is strict.
    pub warned: usize,
    /// Rows a test skipped.
    pub skipped: usize,
    /// Rows that failed (or warned) as the baseline lists: they do not
    /// fail the run.
    pub known: usize,
    /// Catalogue rules that Rust's types enforce.
    pub enforced_by_types: usize,
    /// Catalogue rules no test of this run covered.
    pub untested: usize,
    /// All rows.
    pub total: usize,
}

impl Summary {
    fn count(results: impl IntoIterator<Item = Conclusion>) -> Summary {
        let mut summary = Summary::default();
        for verdict in results {
            match verdict {
                Conclusion::Passed => summary.passed += 1,
                Conclusion::Failed => summary.failed += 1,
                Conclusion::Warned => summary.warned += 1,
                Conclusion::Skipped => summary.skipped += 1,
                Conclusion::EnforcedByTypes => summary.enforced_by_types += 1,
                Conclusion::Untested => summary.untested += 1,
                Conclusion::Known => summary.known += 1,
            }
            summary.total += 1;
        }
        summary
    }
}

impl Report {
    /// Groups `results` by target and verification and completes each group:
    /// a row for every rule broken during a test whose own rule it is not
    /// (when no test of the group has that rule), then the catalogue rules
    /// the group applies to that no test of the whole run covers (those
    /// selected by `rules`, when given): `enforced_by_types` with the proof,
    /// or `untested` with the catalogue's reason. A rule another
    /// verification of the run covers, or that only other verifications
    /// can check, is not listed as a gap (see `is_gap`).
    pub fn assemble(krate: &str, results: Vec<RuleResult>, rules: Option<&RulePattern>) -> Report {
        let covered_in_run: Vec<String> = results
            .iter()
            .filter(|r| !r.test.is_empty())
            .map(|r| r.rule.clone())
            .collect();
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
                // In report order first, whatever order the results came
                // in (a run's plan, or the shares `merge` joins), so a row
                // for a rule seen broken elsewhere names the same test.
                rows.sort_by(by_report_order);
                let violated = violated_rows(&rows);
                rows.extend(violated);
                let missing: Vec<RuleResult> = RULES
                    .iter()
                    .filter(|rule| applies(rule.subject, verification))
                    .filter(|rule| rules.is_none_or(|p| p.matches(rule.id)))
                    .filter(|rule| !rows.iter().any(|row| covers(&row.rule, rule)))
                    .filter(|rule| is_gap(rule, verification, &covered_in_run))
                    .map(|rule| from_catalogue(rule, &target, verification))
                    .collect();
                rows.extend(missing);
                rows.sort_by(by_report_order);
                let verdicts = rule_verdicts(&rows);
                Section {
                    target,
                    verification,
                    rows,
                    verdicts,
                }
            })
            .collect();
        let summary = Summary::count(
            sections
                .iter()
                .flat_map(|s| s.verdicts.iter().map(|v| v.verdict)),
        );
        Report {
            krate: krate.to_owned(),
            sections,
            summary,
            scope: Scope::default(),
            baseline: None,
        }
    }

    /// Counts the rows again, after their verdicts changed.
    pub fn recount(&mut self) {
        self.summary = Summary::count(
            self.sections
                .iter()
                .flat_map(|s| s.verdicts.iter().map(|v| v.verdict)),
        );
    }

    /// Every row of every section.
    pub fn results(&self) -> impl Iterator<Item = &RuleResult> {
        self.sections.iter().flat_map(|s| s.rows.iter())
    }

    /// Whether the run fails: a rule failed, or (when `strict`) warned,
    /// and the baseline does not list it; or a baseline entry is stale.
    pub fn fails(&self, strict: bool) -> bool {
        self.summary.failed > 0
            || (strict && self.summary.warned > 0)
            || self.baseline.as_ref().is_some_and(|b| !b.stale.is_empty())
    }
}

/// Spec order of the rules, then test and module names.
fn by_report_order(a: &RuleResult, b: &RuleResult) -> std::cmp::Ordering {
    order(&a.rule)
        .cmp(&order(&b.rule))
        .then_with(|| a.test.cmp(&b.test))
        .then_with(|| a.module.cmp(&b.module))
}

/// Whether an uncovered catalogue rule is a gap of a `verification`
/// section: enforced by types and untested rules always show; a tested
/// rule shows only when this verification has a test for it and no test of
/// the run covered it (a publisher's §3.1, which only the subscriber
/// verifications can check, is not a publisher gap).
fn is_gap(rule: &Rule, verification: Verification, covered_in_run: &[String]) -> bool {
    match rule.check {
        Check::Tested { tests } => {
            let prefix = format!("{}::", verification.as_str());
            tests.iter().any(|t| t.starts_with(&prefix))
                && !covered_in_run.iter().any(|id| covers(id, rule))
        }
        Check::EnforcedByTypes { .. } | Check::Untested { .. } => true,
    }
}

/// Whether a violation of `broken` counts against a row of `row`: the same
/// rule, or one of its conditions.
fn counts_against(broken: &str, row: &str) -> bool {
    broken == row
        || broken
            .strip_prefix(row)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// A row for each rule broken during the group's tests that no test of the
/// group has as its own: its verdict comes from what was seen, its message
/// says where.
fn violated_rows(rows: &[RuleResult]) -> Vec<RuleResult> {
    let mut added: Vec<RuleResult> = Vec::new();
    for row in rows {
        for violation in &row.violations {
            let has_row = rows
                .iter()
                .chain(&added)
                .any(|r| counts_against(&violation.rule, &r.rule));
            if has_row {
                continue;
            }
            added.push(RuleResult {
                target: row.target.clone(),
                verification: row.verification,
                rule: violation.rule.clone(),
                test: String::new(),
                verdict: if violation.warning {
                    Verdict::Warned
                } else {
                    Verdict::Failed
                },
                message: Some(format!("seen in {}: {}", row.test, violation.message)),
                duration_ms: 0.0,
                trace: row.trace.clone(),
                violations: Vec::new(),
                module: row.module.clone(),
            });
        }
    }
    added
}

/// Each row's rule verdict, counting the violations every test of the
/// section saw.
fn rule_verdicts(rows: &[RuleResult]) -> Vec<RuleVerdict> {
    rows.iter()
        .map(|row| {
            let seen_in: Vec<Seen> = rows
                .iter()
                .filter(|other| !other.test.is_empty())
                .flat_map(|other| {
                    other
                        .violations
                        .iter()
                        .filter(|v| counts_against(&v.rule, &row.rule))
                        .map(|v| Seen {
                            test: other.test.clone(),
                            violation: v.clone(),
                        })
                })
                .collect();
            let fails = seen_in.iter().any(|s| !s.violation.warning);
            let verdict = match row.verdict {
                Verdict::Failed => Conclusion::Failed,
                _ if fails => Conclusion::Failed,
                Verdict::Warned => Conclusion::Warned,
                _ if !seen_in.is_empty() => Conclusion::Warned,
                own => own.into(),
            };
            RuleVerdict {
                verdict,
                seen_in,
                listed: None,
            }
        })
        .collect()
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
        // Their rules (`stream.*`, `sink.*`, `adapter.*`) are outside the 49 too.
        V::FuturesStream | V::FuturesSink | V::StreamAdapter => false,
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
        violations: Vec::new(),
        module: String::new(),
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
    use crate::pattern::RulePattern;

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
            violations: Vec::new(),
            module: String::new(),
        }
    }

    /// A passing publisher result of `rule`.
    pub fn passing_result(rule: &str, test: &str) -> RuleResult {
        result(rule, test, Verdict::Passed, None)
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
        // §3.8's own check held, but it saw §1.1 broken; §3.10 (a MAY
        // rule) only warned.
        let mut saw = result("3.8", "spec_3_08", Verdict::Passed, None);
        saw.violations = vec![reactive_streams_tck::outcome::Violation {
            rule: "1.1".into(),
            message:
                "§1.1: [publisher of 3] expected at most 1 on_next; actual: on_next #2 (value 1)"
                    .into(),
            scenario: Some("publisher of 3".into()),
            warning: false,
        }];
        saw.module = "my_crate::range::publisher".into();
        let warned = result(
            "3.10",
            "spec_3_10",
            Verdict::Warned,
            Some("§3.10: expected on_next within request(1); actual: it came later"),
        );
        let results = vec![failed, saw, warned, sink];
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
    fn a_rule_another_verification_covers_is_not_a_gap() {
        let mut publisher = samples::passing_result("3.9", "spec_3_09");
        publisher.verification = Verification::Publisher;
        let mut subscriber = samples::passing_result("3.1", "spec_3_01");
        subscriber.verification = Verification::SubscriberBlackbox;
        let report = Report::assemble(
            "my-crate",
            vec![publisher, subscriber],
            Some(&RulePattern::parse("3.1,3.9").unwrap()),
        );
        let section = &report.sections[0];
        assert_eq!(section.verification, Verification::Publisher);
        let ids: Vec<&str> = section.rows.iter().map(|r| r.rule.as_str()).collect();
        assert_eq!(
            ids,
            ["3.9"],
            "§3.1 is covered by the subscriber verification"
        );
        assert_eq!(report.summary.untested, 0);
    }

    /// The reference implementation runs every verification, each with its
    /// whole list of rule tests: then the only rules "not covered" are the
    /// catalogue's untested ones (with its reason), never a rule another
    /// verification of the run checks. (The reference run itself, 944 rule
    /// tests, is too long for a unit test; its report says the same.)
    #[test]
    fn a_run_of_every_test_leaves_only_untested_rules_uncovered() {
        use reactive_streams_tck as tck;
        let lists: [(Verification, &[&str]); 10] = [
            (Verification::Publisher, tck::publisher::TESTS),
            (
                Verification::SubscriberBlackbox,
                tck::subscriber::blackbox::TESTS,
            ),
            (
                Verification::SubscriberWhitebox,
                tck::subscriber::whitebox::TESTS,
            ),
            (Verification::Processor, tck::processor::TESTS),
            (Verification::StreamletSource, tck::streamlet::source::TESTS),
            (Verification::StreamletSink, tck::streamlet::sink::TESTS),
            (Verification::DatumLifecycle, tck::lifecycle::TESTS),
            (Verification::FuturesStream, tck::futures::stream::TESTS),
            (Verification::FuturesSink, tck::futures::sink::TESTS),
            (Verification::StreamAdapter, tck::futures::adapter::TESTS),
        ];
        let mut results = Vec::new();
        for (verification, tests) in lists {
            for test in tests {
                let mut result = samples::passing_result(&tck::runner::rule_of_test(test), test);
                result.target = verification.as_str().to_owned();
                result.verification = verification;
                results.push(result);
            }
        }
        let report = Report::assemble("reference", results, None);
        for row in report.results() {
            if row.verdict == Verdict::Untested {
                let rule = RULES.iter().find(|r| r.id == row.rule).unwrap();
                assert!(
                    matches!(rule.check, Check::Untested { .. }),
                    "{} ({}) is listed as not covered: {:?}",
                    row.rule,
                    row.verification.as_str(),
                    row.message
                );
            }
        }
        assert!(report.summary.untested > 0, "§2.2 is untested");
    }

    #[test]
    fn a_rule_seen_broken_elsewhere_fails_and_says_where() {
        let report = samples::broken();
        let section = &report.sections[0];
        let (row, verdict) = section.rows().find(|(r, _)| r.rule == "1.1").unwrap();
        assert_eq!(verdict.verdict, Conclusion::Failed);
        assert_eq!(verdict.seen_in[0].test, "spec_3_08");
        assert!(
            row.message
                .as_deref()
                .unwrap()
                .starts_with("seen in spec_3_08: §1.1")
        );
        let (_, own) = section.rows().find(|(r, _)| r.rule == "3.8").unwrap();
        assert_eq!(own.verdict, Conclusion::Passed, "§3.8's own check held");
        assert_eq!(section.failed_rules(), ["1.1", "3.9"]);
        assert!(report.fails(false));
    }

    #[test]
    fn warnings_fail_only_a_strict_run() {
        let mut warned = samples::passing_result("3.4", "spec_3_04");
        warned.verdict = Verdict::Warned;
        let report = Report::assemble("c", vec![warned], Some(&RulePattern::parse("3.4").unwrap()));
        assert_eq!(report.summary.warned, 1);
        assert!(!report.fails(false));
        assert!(report.fails(true));
    }

    #[test]
    fn describe_knows_rules_and_conditions() {
        assert_eq!(describe("3.9").unwrap().0, "MUST");
        assert!(describe("streamlet.2.c").unwrap().1.contains("started"));
        assert_eq!(describe("tck.x"), None);
    }
}
