//! The JUnit XML report, for CI systems: one `<testsuite>` per target and
//! verification (named `target::verification`), one `<testcase>` per rule
//! with `classname` = `target::verification` and `name` = rule id and test
//! name. Failed rules carry a `<failure>` with the message and signal trace;
//! skipped, enforced-by-types and uncovered rules carry a `<skipped>` with
//! the reason.

use std::fmt::Write;

use reactive_streams_tck::outcome::{RuleResult, Verdict};

use super::{Report, RuleVerdict, Section};

/// Renders the report as JUnit XML.
pub fn render(report: &Report) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let not_run = |s: &Section| s.verdicts.iter().filter(|r| is_skipped(r.verdict)).count();
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{}\">",
        escape(&format!("reactive-streams-tck: {}", report.krate)),
        report.summary.total,
        report.summary.failed,
        report.sections.iter().map(not_run).sum::<usize>(),
        seconds(report.results().map(|r| r.duration_ms).sum())
    );
    for section in &report.sections {
        let class = escape(&format!("{}::{}", section.target, section.verification));
        let failures = section.summary().failed;
        let _ = writeln!(
            out,
            "  <testsuite name=\"{class}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{}\" time=\"{}\">",
            section.rows.len(),
            not_run(section),
            seconds(section.rows.iter().map(|r| r.duration_ms).sum())
        );
        for (row, rule) in section.rows() {
            testcase(&mut out, &class, row, rule);
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn testcase(out: &mut String, class: &str, row: &RuleResult, rule: &RuleVerdict) {
    let name = if row.test.is_empty() {
        row.rule.clone()
    } else {
        format!("{} {}", row.rule, row.test)
    };
    let _ = write!(
        out,
        "    <testcase classname=\"{class}\" name=\"{}\" time=\"{}\"",
        escape(&name),
        seconds(row.duration_ms)
    );
    let own = row.message.as_deref().unwrap_or("");
    // Where the rule was seen broken by other tests, after its own message.
    let mut seen = String::new();
    for place in &rule.seen_in {
        let _ = writeln!(seen, "seen in {}: {}", place.test, place.violation.message);
    }
    let message = if seen.is_empty() || !matches!(rule.verdict, Verdict::Failed | Verdict::Warned) {
        own.to_owned()
    } else if matches!(row.verdict, Verdict::Failed | Verdict::Warned) && !row.test.is_empty() {
        format!("{own}\n{seen}")
    } else {
        seen.trim_end().to_owned()
    };
    let message = message.as_str();
    match rule.verdict {
        Verdict::Passed => out.push_str("/>\n"),
        Verdict::Warned => {
            // A warning passes: JUnit has no warning state, so it is a
            // property and the test's output.
            let _ = write!(
                out,
                ">\n      <properties>\n        <property name=\"warning\" value=\"{}\"/>\n      </properties>\n      <system-out>warning: {}</system-out>\n    </testcase>\n",
                escape(message.lines().next().unwrap_or("")),
                escape(message)
            );
        }
        Verdict::Failed => {
            let mut body = message.to_owned();
            if !row.trace.is_empty() {
                body.push_str("\n\nsignal trace:\n");
                for event in &row.trace {
                    let _ = writeln!(body, "{event}");
                }
            }
            let _ = write!(
                out,
                ">\n      <failure message=\"{}\" type=\"rule failed\">{}</failure>\n    </testcase>\n",
                escape(message.lines().next().unwrap_or("")),
                escape(&body)
            );
        }
        Verdict::Skipped | Verdict::EnforcedByTypes | Verdict::Untested => {
            // Catalogue rows' messages already start with what they are
            // ("not covered: …", "enforced by types; …").
            let reason = if row.verdict == Verdict::Skipped {
                format!("skipped: {message}")
            } else {
                message.to_owned()
            };
            let _ = write!(
                out,
                ">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                escape(&reason)
            );
        }
    }
}

fn is_skipped(verdict: Verdict) -> bool {
    matches!(
        verdict,
        Verdict::Skipped | Verdict::EnforcedByTypes | Verdict::Untested
    )
}

fn seconds(ms: f64) -> String {
    format!("{:.3}", ms / 1000.0)
}

/// Text safe inside an XML attribute or element: the five special
/// characters escaped, characters XML 1.0 forbids replaced.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;

    #[test]
    fn a_broken_set() {
        insta::assert_snapshot!(render(&samples::broken()));
    }

    #[test]
    fn special_characters_are_escaped() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\u{FFFD}"
        );
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
            text.contains("tests=\"7\" failures=\"3\" skipped=\"2\""),
            "{text}"
        );
    }
}
