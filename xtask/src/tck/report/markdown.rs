//! The Markdown report: readable in a terminal and as a CI job summary.
//!
//! One section per target and verification with one row per rule in spec
//! order, then the failures with their messages and signal traces, and a
//! closing line `N passed, N failed, N skipped` (CI tooling reads that line:
//! keep its format).

use std::fmt::Write;

use reactive_streams_tck::outcome::{RuleResult, Verdict};

use super::{describe, Report};

/// Renders the report as Markdown.
pub fn render(report: &Report) -> String {
    let mut out = format!("# Reactive Streams TCK report: `{}`\n", report.krate);
    for section in &report.sections {
        let _ = write!(
            out,
            "\n## `{}` ({} verification)\n\n| rule | level | summary | verdict | time | note |\n|---|---|---|---|---|---|\n",
            section.target, section.verification
        );
        for row in &section.rows {
            let (level, summary) =
                describe(&row.rule).unwrap_or(("", "A check of the verification's factory."));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                row.rule,
                level,
                cell(summary),
                verdict(row.verdict),
                time(row),
                cell(note(row))
            );
        }
        let failures: Vec<&RuleResult> = section
            .rows
            .iter()
            .filter(|r| r.verdict == Verdict::Failed)
            .collect();
        if !failures.is_empty() {
            out.push_str("\n### Failures\n");
        }
        for failure in failures {
            failure_block(&mut out, failure);
        }
    }
    let summary = &report.summary;
    let _ = write!(
        out,
        "\nNot run: {} enforced by types, {} not covered by any test.\n\n{} passed, {} failed, {} skipped\n",
        summary.enforced_by_types, summary.untested, summary.passed, summary.failed, summary.skipped
    );
    out
}

fn failure_block(out: &mut String, failure: &RuleResult) {
    let _ = write!(
        out,
        "\n#### {} `{}::{}`\n\n```text\n{}\n```\n",
        failure.rule,
        failure.verification,
        failure.test,
        failure
            .message
            .as_deref()
            .unwrap_or("(no message)")
            .replace("```", "'''")
    );
    if !failure.trace.is_empty() {
        let _ = write!(
            out,
            "\n<details><summary>signal trace ({} events)</summary>\n\n```text\n",
            failure.trace.len()
        );
        for event in &failure.trace {
            let _ = writeln!(out, "{}", event.to_string().replace("```", "'''"));
        }
        out.push_str("```\n\n</details>\n");
    }
}

fn verdict(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Passed => "passed",
        Verdict::Failed => "**FAILED**",
        Verdict::Skipped => "skipped",
        Verdict::EnforcedByTypes => "enforced by types",
        Verdict::Untested => "not covered",
    }
}

fn time(row: &RuleResult) -> String {
    match row.verdict {
        Verdict::EnforcedByTypes | Verdict::Untested => String::new(),
        _ if row.duration_ms < 1.0 => "<1 ms".to_owned(),
        _ => format!("{:.0} ms", row.duration_ms),
    }
}

/// The first line of the message; for failures the whole one is below the
/// table.
fn note(row: &RuleResult) -> &str {
    let message = row.message.as_deref().unwrap_or("");
    let message = match row.verdict {
        Verdict::EnforcedByTypes => message.trim_start_matches("enforced by types; "),
        Verdict::Untested => message.trim_start_matches("not covered: "),
        _ => message,
    };
    message.lines().next().unwrap_or("")
}

/// Text that cannot break a table row.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;

    #[test]
    fn a_passing_set() {
        insta::assert_snapshot!(render(&samples::passing()));
    }

    #[test]
    fn a_broken_set() {
        insta::assert_snapshot!(render(&samples::broken()));
    }

    #[test]
    fn the_closing_line_is_the_counts() {
        let text = render(&samples::broken());
        assert_eq!(text.lines().last(), Some("1 passed, 2 failed, 0 skipped"));
    }
}
