//! The JUnit XML report, for CI systems: one `<testsuite>` per target and
//! verification (named `target::verification`), one `<testcase>` per rule
//! with `classname` = `target::verification` and `name` = rule id and test
//! name. Failed rules carry a `<failure>` with the message and signal trace;
//! skipped, enforced-by-types and uncovered rules carry a `<skipped>` with
//! the reason; a known failure (listed in the baseline) a `<skipped>`
//! starting `known failure (<reason>): `, with the message and trace as its
//! output.

use std::fmt::Write;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};
use reactive_streams_tck::outcome::{RuleResult, Verdict};

use super::{Conclusion, Report, RuleVerdict};

/// Renders the report as JUnit XML, through `quick-junit` (the data model
/// cargo-nextest uses; it escapes the text and counts the verdicts).
pub fn render(report: &Report) -> String {
    let mut junit = quick_junit::Report::new(format!("reactive-streams-tck: {}", report.krate));
    junit.set_time(seconds(report.results().map(|r| r.duration_ms).sum()));
    for section in &report.sections {
        let class = format!("{}::{}", section.target, section.verification);
        let mut suite = TestSuite::new(class.as_str());
        suite.set_time(seconds(section.rows.iter().map(|r| r.duration_ms).sum()));
        for (row, rule) in section.rows() {
            suite.add_test_case(testcase(&class, row, rule));
        }
        junit.add_test_suite(suite);
    }
    junit.to_string().unwrap_or_else(|error| {
        format!("<!-- the JUnit report could not be written: {error} -->\n")
    })
}

fn testcase(class: &str, row: &RuleResult, rule: &RuleVerdict) -> TestCase {
    let name = if row.test.is_empty() {
        row.rule.clone()
    } else {
        format!("{} {}", row.rule, row.test)
    };
    let own = row.message.as_deref().unwrap_or("");
    // Where the rule was seen broken by other tests, after its own message.
    let mut seen = String::new();
    for place in &rule.seen_in {
        let _ = writeln!(seen, "seen in {}: {}", place.test, place.violation.message);
    }
    let message = if seen.is_empty() || !rule.verdict.broke() {
        own.to_owned()
    } else if matches!(row.verdict, Verdict::Failed | Verdict::Warned) && !row.test.is_empty() {
        format!("{own}\n{seen}")
    } else {
        seen.trim_end().to_owned()
    };
    let first_line = message.lines().next().unwrap_or("").to_owned();
    let mut body = message.clone();
    if !row.trace.is_empty() {
        body.push_str("\n\nsignal trace:\n");
        for event in &row.trace {
            let _ = writeln!(body, "{event}");
        }
    }
    let status = match rule.verdict {
        Conclusion::Passed | Conclusion::Warned => TestCaseStatus::success(),
        Conclusion::Known => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(format!(
                "known failure ({}): {first_line}",
                rule.listed.as_deref().unwrap_or("listed in the baseline")
            ));
            status
        }
        Conclusion::Failed => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status
                .set_message(first_line.as_str())
                .set_type("rule failed")
                .set_description(body.clone());
            status
        }
        Conclusion::Skipped | Conclusion::EnforcedByTypes | Conclusion::Untested => {
            // Catalogue rows' messages already start with what they are
            // ("not covered: …", "enforced by types; …").
            let reason = if row.verdict == Verdict::Skipped {
                format!("skipped: {message}")
            } else {
                message.clone()
            };
            let mut status = TestCaseStatus::skipped();
            status.set_message(reason);
            status
        }
    };
    let mut case = TestCase::new(name, status);
    case.set_classname(class).set_time(seconds(row.duration_ms));
    if rule.verdict == Conclusion::Known {
        case.set_system_out(body);
    }
    if rule.verdict == Conclusion::Warned {
        // A warning passes: JUnit has no warning state, so it is a
        // property and the test's output.
        case.add_property(Property::new("warning", first_line));
        case.set_system_out(format!("warning: {message}"));
    }
    case
}

fn seconds(ms: f64) -> Duration {
    Duration::from_secs_f64(ms.max(0.0) / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;

    #[test]
    fn a_broken_set() {
        insta::assert_snapshot!(render(&samples::broken()));
    }

    /// The sample's §3.9 message ends in `<&>`: escaped by `quick-junit`,
    /// never written raw.
    #[test]
    fn special_characters_are_escaped() {
        let text = render(&samples::broken());
        assert!(text.contains("| &lt;&amp;&gt;"), "{text}");
        assert!(!text.contains("<&>"), "{text}");
    }

    #[test]
    fn counts_match_the_verdicts() {
        let text = render(&samples::broken());
        assert_eq!(
            text.matches("<testcase ").count(),
            samples::broken().summary.total
        );
        // §3.9 failed, §1.1 seen broken in spec_3_08, the killed sink test.
        assert_eq!(text.matches("<failure ").count(), 3);
        assert!(
            text.contains("tests=\"7\" skipped=\"2\" failures=\"3\""),
            "{text}"
        );
    }
}
