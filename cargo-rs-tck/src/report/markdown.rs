//! The Markdown report: readable in a terminal and as a CI job summary.
//!
//! One section per target and verification with one row per rule in spec
//! order, then the failures with their messages and signal traces, and a
//! closing line `N passed, N failed, N skipped` (CI tooling reads that line:
//! keep its format). A run held to a baseline also counts its `known`
//! failures (a column of the summary table, a line before the closing one)
//! and names the stale entries.

use std::fmt::Write;

use reactive_streams_tck::outcome::{RuleResult, Verdict};

use super::{Conclusion, Report, RuleVerdict, Section, describe};

/// Renders the report as Markdown.
pub fn render(report: &Report) -> String {
    let mut out = format!("# Reactive Streams TCK report: `{}`\n", report.krate);
    summary_table(&mut out, report);
    for section in &report.sections {
        let _ = write!(
            out,
            "\n## `{}` ({} verification)\n\n| rule | level | summary | verdict | time | note |\n|---|---|---|---|---|---|\n",
            section.target, section.verification
        );
        for (row, rule) in section.rows() {
            let (level, summary) =
                describe(&row.rule).unwrap_or(("", "A check of the verification's factory."));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                row.rule,
                level,
                cell(summary),
                verdict(rule.verdict),
                time(row),
                cell(&note(row, rule))
            );
        }
        failures(&mut out, section);
    }
    let summary = &report.summary;
    let _ = write!(
        out,
        "\nNot run: {} enforced by types, {} not covered by any test.\n",
        summary.enforced_by_types, summary.untested
    );
    if let Some(held) = &report.baseline {
        let _ = write!(
            out,
            "\n{} known: failures the baseline `{}` lists; they do not fail the run.\n",
            summary.known, held.file
        );
        for entry in &held.stale {
            let _ = write!(
                out,
                "\nStale baseline entry: {} no longer fails; remove it (`--update-baseline` does).\n",
                entry.describe()
            );
        }
    }
    if summary.warned > 0 {
        let _ = write!(
            out,
            "\n{} warned: SHOULD/MAY rules or timing bounds that did not hold; they fail the run only with `--strict`.\n",
            summary.warned
        );
    }
    let _ = write!(
        out,
        "\n{} passed, {} failed, {} skipped\n",
        summary.passed, summary.failed, summary.skipped
    );
    out
}

/// The table a newcomer reads first: one row per target and
/// verification, its counts, and the rules that failed.
fn summary_table(out: &mut String, report: &Report) {
    let known = report.baseline.is_some();
    if known {
        out.push_str(
            "\n| target | verification | passed | failed | warned | skipped | known | failed rules |\n|---|---|---|---|---|---|---|---|\n",
        );
    } else {
        out.push_str(
            "\n| target | verification | passed | failed | warned | skipped | failed rules |\n|---|---|---|---|---|---|---|\n",
        );
    }
    for section in &report.sections {
        let counts = section.summary();
        let failed: Vec<String> = section
            .failed_rules()
            .iter()
            .map(|id| format!("`{id}`"))
            .collect();
        let known = if known {
            format!(" {} |", counts.known)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} |{known} {} |",
            section.target,
            section.verification,
            counts.passed,
            counts.failed,
            counts.warned,
            counts.skipped,
            if failed.is_empty() {
                "—".to_owned()
            } else {
                failed.join(", ")
            }
        );
    }
}

/// The failures and warnings of a section, then its known failures: each
/// row whose rule broke, with its own message and trace, and where else the
/// rule was seen broken.
fn failures(out: &mut String, section: &Section) {
    for (heading, known) in [("Failures and warnings", false), ("Known failures", true)] {
        let broken: Vec<(&RuleResult, &RuleVerdict)> = section
            .rows()
            .filter(|(_, rule)| match rule.verdict {
                Conclusion::Failed | Conclusion::Warned => !known,
                Conclusion::Known => known,
                _ => false,
            })
            .collect();
        if !broken.is_empty() {
            let _ = write!(out, "\n### {heading}\n");
            broken_rows(out, section, broken);
        }
    }
}

fn broken_rows(out: &mut String, section: &Section, broken: Vec<(&RuleResult, &RuleVerdict)>) {
    for (row, rule) in broken {
        // A row made for a rule seen broken only in other tests has no
        // message of its own: the places it was seen say it all.
        if matches!(row.verdict, Verdict::Failed | Verdict::Warned) && !row.test.is_empty() {
            failure_block(out, row, rule.verdict);
        }
        if let (Conclusion::Known, Some(reason)) = (rule.verdict, &rule.listed) {
            let _ = write!(out, "\nKnown: {}\n", reason.replace('\n', " "));
        }
        for seen in &rule.seen_in {
            let _ = write!(
                out,
                "\n#### {} seen in `{}::{}`{}\n\n```text\n{}\n```\n",
                row.rule,
                section.verification,
                seen.test,
                if seen.violation.warning {
                    " (warning)"
                } else {
                    ""
                },
                seen.violation.message.replace("```", "'''")
            );
        }
    }
}

fn failure_block(out: &mut String, failure: &RuleResult, verdict: Conclusion) {
    let mark = if verdict == Conclusion::Warned || failure.verdict == Verdict::Warned {
        " (warning)"
    } else {
        ""
    };
    let test = if failure.test.is_empty() {
        String::new()
    } else {
        format!(" `{}::{}`", failure.verification, failure.test)
    };
    let _ = write!(
        out,
        "\n#### {}{test}{mark}\n\n```text\n{}\n```\n",
        failure.rule,
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

fn verdict(verdict: Conclusion) -> &'static str {
    match verdict {
        Conclusion::Passed => "passed",
        Conclusion::Failed => "**FAILED**",
        Conclusion::Warned => "*warned*",
        Conclusion::Skipped => "skipped",
        Conclusion::EnforcedByTypes => "enforced by types",
        Conclusion::Untested => "not covered",
        Conclusion::Known => "known",
    }
}

fn time(row: &RuleResult) -> String {
    match row.verdict {
        _ if row.test.is_empty() => String::new(),
        Verdict::EnforcedByTypes | Verdict::Untested => String::new(),
        _ if row.duration_ms < 1.0 => "<1 ms".to_owned(),
        _ => format!("{:.0} ms", row.duration_ms),
    }
}

/// The first line of the message (for failures the whole one is below
/// the table), or where the rule was seen broken when its own test did not
/// break it.
fn note(row: &RuleResult, rule: &RuleVerdict) -> String {
    let message = row.message.as_deref().unwrap_or("");
    let message = match row.verdict {
        Verdict::EnforcedByTypes => message.trim_start_matches("enforced by types; "),
        Verdict::Untested => message.trim_start_matches("not covered: "),
        _ => message,
    };
    let own_broke = matches!(row.verdict, Verdict::Failed | Verdict::Warned);
    if !own_broke && !row.test.is_empty() && !rule.seen_in.is_empty() {
        let mut tests: Vec<&str> = rule.seen_in.iter().map(|s| s.test.as_str()).collect();
        tests.dedup();
        return format!(
            "its own test {}; seen broken in {}",
            row.verdict,
            tests.join(", ")
        );
    }
    message.lines().next().unwrap_or("").to_owned()
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

    /// The summary table alone, as a newcomer reads it first: its shape
    /// (columns, one row per target and verification, counts including
    /// warnings, the failed rule ids) is locked here on its own.
    #[test]
    fn the_summary_table() {
        let mut table = String::new();
        summary_table(&mut table, &samples::broken());
        insta::assert_snapshot!(table);
    }

    #[test]
    fn the_closing_line_is_the_counts() {
        let text = render(&samples::broken());
        assert_eq!(text.lines().last(), Some("1 passed, 3 failed, 0 skipped"));
    }
}
