//! The HTML report: one self-contained page (its style and script inline, a
//! content security policy that forbids loading anything else), to publish
//! as a CI artifact and read in a browser.
//!
//! It opens with the summary matrix: one row per target and verification,
//! one column per rule section (§1 … §4, Streamlet, the lifecycle, Stream,
//! Sink and adapter rules, the TCK's own checks), each cell coloured by the
//! worst verdict among its rules and linked to them; every cell carries its
//! counts as `data-<verdict>` attributes. Then, per target, the rule table
//! and every failure (and known failure, and warning) folded in a
//! `<details>`: the scenario, expected and actual, the whole message, where
//! else the rule was seen broken, and the signal trace.

use std::fmt::Write;

use reactive_streams_tck::outcome::RuleResult;

use super::{Conclusion, Report, RuleVerdict, Section, Summary, describe};

/// The matrix's columns: a title and the rule-id prefix it gathers.
const GROUPS: [(&str, &str); 10] = [
    ("§1 Publisher", "1."),
    ("§2 Subscriber", "2."),
    ("§3 Subscription", "3."),
    ("§4 Processor", "4."),
    ("Streamlet", "streamlet."),
    ("Lifecycle", "done."),
    ("Stream", "stream."),
    ("Sink", "sink."),
    ("Adapter", "adapter."),
    ("TCK checks", "tck."),
];

/// Verdicts from the worst, which colours a cell.
const WORST_FIRST: [Conclusion; 7] = [
    Conclusion::Failed,
    Conclusion::Known,
    Conclusion::Warned,
    Conclusion::Passed,
    Conclusion::Skipped,
    Conclusion::EnforcedByTypes,
    Conclusion::Untested,
];

const STYLE: &str = r#"
:root { --passed:#d5f0d5; --failed:#f7c6c6; --warned:#fbe7b5; --known:#dcd3f2; --skipped:#e6e6e6; --enforced_by_types:#d6e6f5; --untested:#f0f0f0; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #1d1d1d; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ccc; }
code, pre { font-family: ui-monospace, monospace; font-size: 12.5px; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: 3px 7px; vertical-align: top; text-align: left; }
.matrix td.cell { text-align: center; white-space: nowrap; } .matrix a { color: inherit; text-decoration: none; display: block; }
.matrix tfoot th { background: #f4f4f4; }
.v-passed { background: var(--passed); } .v-failed { background: var(--failed); } .v-warned { background: var(--warned); }
.v-known { background: var(--known); } .v-skipped { background: var(--skipped); } .v-enforced_by_types { background: var(--enforced_by_types); }
.v-untested { background: var(--untested); }
.totals span { padding: 2px 8px; margin-right: 4px; border-radius: 3px; }
details.failure { margin: .6em 0; border: 1px solid #bbb; border-radius: 4px; }
details.failure > summary { cursor: pointer; padding: 4px 8px; }
details.failure > div { padding: 4px 12px 8px; background: #fff; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; } dt { font-weight: 600; } dd { margin: 0; }
pre { background: #f7f7f7; padding: 6px; overflow-x: auto; white-space: pre-wrap; }
.note { color: #444; } nav { margin: .8em 0; } nav button { margin-right: .5em; }
"#;

const SCRIPT: &str = r#"
(function () {
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.tagName === 'DETAILS') { target.open = true; }
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  document.querySelectorAll('button[data-fold]').forEach(function (button) {
    button.addEventListener('click', function () {
      var open = button.getAttribute('data-fold') === 'open';
      document.querySelectorAll('details.failure').forEach(function (d) { d.open = open; });
    });
  });
})();
"#;

/// Renders the report as one HTML page.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let title = format!("Reactive Streams TCK report: {}", report.krate);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>Reactive Streams TCK report: <code>{}</code></h1>\n",
        escape(&title),
        escape(&report.krate)
    );
    totals(&mut out, report);
    matrix(&mut out, report);
    out.push_str("<nav><button type=\"button\" data-fold=\"open\">Unfold every failure</button><button type=\"button\" data-fold=\"close\">Fold them</button></nav>\n");
    for (index, section) in report.sections.iter().enumerate() {
        section_html(&mut out, index, section);
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

/// The counts of the whole report, and what its baseline says.
fn totals(out: &mut String, report: &Report) {
    out.push_str("<p class=\"totals\" id=\"totals\">");
    for (verdict, count) in counts(&report.summary) {
        if count > 0 || matches!(verdict, Conclusion::Passed | Conclusion::Failed) {
            let _ = write!(
                out,
                "<span class=\"v-{verdict}\" data-verdict=\"{verdict}\">{count} {}</span>",
                label(verdict)
            );
        }
    }
    out.push_str("</p>\n");
    if let Some(scope) = report.scope.partition {
        let _ = writeln!(out, "<p>Share {scope} of the rule tests (--partition).</p>");
    }
    if let Some(rules) = &report.scope.rules {
        let _ = writeln!(
            out,
            "<p>Only the rules <code>{}</code>.</p>",
            escape(&rules.to_string())
        );
    }
    if let Some(held) = &report.baseline {
        let _ = writeln!(
            out,
            "<p>Held to the baseline <code>{}</code> ({} entries): its failures are <span class=\"v-known\">known</span> and do not fail the run.</p>",
            escape(&held.file),
            held.entries.len()
        );
        for entry in &held.stale {
            let _ = writeln!(
                out,
                "<p class=\"v-failed\" data-stale>Stale baseline entry: {} no longer fails; remove it.</p>",
                escape(&entry.describe())
            );
        }
    }
}

/// Every verdict and its count, worst first.
fn counts(summary: &Summary) -> [(Conclusion, usize); 7] {
    WORST_FIRST.map(|verdict| {
        let count = match verdict {
            Conclusion::Passed => summary.passed,
            Conclusion::Failed => summary.failed,
            Conclusion::Warned => summary.warned,
            Conclusion::Skipped => summary.skipped,
            Conclusion::EnforcedByTypes => summary.enforced_by_types,
            Conclusion::Untested => summary.untested,
            Conclusion::Known => summary.known,
        };
        (verdict, count)
    })
}

fn label(verdict: Conclusion) -> &'static str {
    match verdict {
        Conclusion::EnforcedByTypes => "enforced by types",
        Conclusion::Untested => "not covered",
        other => other.as_str(),
    }
}

/// The column of a rule id.
fn group(id: &str) -> usize {
    GROUPS
        .iter()
        .position(|(_, prefix)| id.starts_with(prefix))
        .unwrap_or(GROUPS.len())
}

/// The summary matrix: targets as rows, rule sections as columns.
fn matrix(out: &mut String, report: &Report) {
    let mut present = vec![false; GROUPS.len() + 1];
    for row in report.results() {
        present[group(&row.rule)] = true;
    }
    let columns: Vec<usize> = (0..=GROUPS.len()).filter(|g| present[*g]).collect();
    out.push_str(
        "<table class=\"matrix\" id=\"matrix\">\n<thead><tr><th>target</th><th>verification</th>",
    );
    for column in &columns {
        let title = GROUPS.get(*column).map_or("other", |(title, _)| title);
        let _ = write!(out, "<th>{title}</th>");
    }
    out.push_str("<th>failed rules</th></tr></thead>\n<tbody>\n");
    for (index, section) in report.sections.iter().enumerate() {
        let _ = write!(
            out,
            "<tr><th><a href=\"#s{index}\"><code>{}</code></a></th><td>{}</td>",
            escape(&section.target),
            section.verification
        );
        for column in &columns {
            let rows: Vec<(&RuleResult, &RuleVerdict)> = section
                .rows()
                .filter(|(row, _)| group(&row.rule) == *column)
                .collect();
            cell(out, index, *column, &rows);
        }
        let failed = section.failed_rules().join(", ");
        let _ = writeln!(out, "<td>{}</td></tr>", escape(&failed));
    }
    out.push_str("</tbody>\n</table>\n");
}

/// A matrix cell: its rules' counts, coloured by the worst verdict,
/// linked to the first of them.
fn cell(out: &mut String, section: usize, column: usize, rows: &[(&RuleResult, &RuleVerdict)]) {
    if rows.is_empty() {
        out.push_str("<td class=\"cell empty\"></td>");
        return;
    }
    let count = |verdict: Conclusion| rows.iter().filter(|(_, r)| r.verdict == verdict).count();
    let worst = WORST_FIRST
        .into_iter()
        .find(|v| count(*v) > 0)
        .unwrap_or(Conclusion::Untested);
    let mut data = String::new();
    let mut title = Vec::new();
    for verdict in WORST_FIRST {
        let n = count(verdict);
        let _ = write!(data, " data-{}=\"{n}\"", verdict.as_str().replace('_', "-"));
        if n > 0 {
            title.push(format!("{n} {}", label(verdict)));
        }
    }
    let passed = count(Conclusion::Passed);
    let mut text = format!("{passed}/{}", rows.len());
    for verdict in [Conclusion::Failed, Conclusion::Known, Conclusion::Warned] {
        let n = count(verdict);
        if n > 0 {
            let _ = write!(text, " · {n} {}", verdict.as_str());
        }
    }
    let _ = write!(
        out,
        "<td class=\"cell v-{worst}\" data-verdict=\"{worst}\"{data}><a href=\"#s{section}-g{column}\" title=\"{}\">{text}</a></td>",
        title.join(", ")
    );
}

/// A target's rule table and its failures.
fn section_html(out: &mut String, index: usize, section: &Section) {
    let _ = write!(
        out,
        "<section id=\"s{index}\">\n<h2><code>{}</code> ({} verification)</h2>\n\
         <table class=\"rules\">\n<thead><tr><th>rule</th><th>level</th><th>summary</th><th>verdict</th><th>time</th><th>note</th></tr></thead>\n<tbody>\n",
        escape(&section.target),
        section.verification
    );
    let mut last_group = None;
    for (position, (row, rule)) in section.rows().enumerate() {
        let column = group(&row.rule);
        let anchor = if last_group != Some(column) {
            last_group = Some(column);
            format!(" id=\"s{index}-g{column}\"")
        } else {
            String::new()
        };
        let (level, summary) =
            describe(&row.rule).unwrap_or(("", "A check of the verification's factory."));
        let verdict = if rule.verdict.broke() {
            format!(
                "<a href=\"#s{index}-f{position}\">{}</a>",
                label(rule.verdict)
            )
        } else {
            label(rule.verdict).to_owned()
        };
        let time = if row.test.is_empty() {
            String::new()
        } else if row.duration_ms < 1.0 {
            "&lt;1 ms".to_owned()
        } else {
            format!("{:.0} ms", row.duration_ms)
        };
        let note = row
            .message
            .as_deref()
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("");
        let _ = writeln!(
            out,
            "<tr{anchor} class=\"v-{}\"><td>{}</td><td>{level}</td><td>{}</td><td>{verdict}</td><td>{time}</td><td class=\"note\">{}</td></tr>",
            rule.verdict,
            escape(&row.rule),
            escape(summary),
            escape(note)
        );
    }
    out.push_str("</tbody>\n</table>\n");
    for (position, (row, rule)) in section.rows().enumerate() {
        if rule.verdict.broke() {
            failure(out, index, position, section, row, rule);
        }
    }
    out.push_str("</section>\n");
}

/// One failure, folded: scenario, expected and actual, the message, where
/// else it was seen, the signal trace.
fn failure(
    out: &mut String,
    index: usize,
    position: usize,
    section: &Section,
    row: &RuleResult,
    rule: &RuleVerdict,
) {
    let test = if row.test.is_empty() {
        String::new()
    } else {
        format!(
            " <code>{}::{}</code>",
            section.verification,
            escape(&row.test)
        )
    };
    let message = row.message.as_deref().unwrap_or("(no message)");
    let first = message.lines().next().unwrap_or("");
    let _ = write!(
        out,
        "<details class=\"failure v-{}\" id=\"s{index}-f{position}\" data-rule=\"{}\">\n<summary><b>{}</b>{test} {}: {}</summary>\n<div>\n",
        rule.verdict,
        escape(&row.rule),
        escape(&row.rule),
        label(rule.verdict),
        escape(first)
    );
    if let Some(reason) = &rule.listed {
        let _ = writeln!(out, "<p>Known failure: {}</p>", escape(reason));
    }
    if let Some(parts) = Parts::of(message) {
        out.push_str("<dl>");
        if let Some(scenario) = parts.scenario {
            let _ = write!(out, "<dt>scenario</dt><dd>{}</dd>", escape(scenario));
        }
        let _ = writeln!(
            out,
            "<dt>expected</dt><dd>{}</dd><dt>actual</dt><dd>{}</dd></dl>",
            escape(parts.expected),
            escape(parts.actual)
        );
    }
    let _ = writeln!(out, "<pre class=\"message\">{}</pre>", escape(message));
    for seen in &rule.seen_in {
        let scenario = seen
            .violation
            .scenario
            .as_deref()
            .map(|s| format!(" (scenario: {})", escape(s)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<p>Seen broken in <code>{}::{}</code>{scenario}{}:</p><pre>{}</pre>",
            section.verification,
            escape(&seen.test),
            if seen.violation.warning {
                ", a warning"
            } else {
                ""
            },
            escape(&seen.violation.message)
        );
    }
    if !row.trace.is_empty() {
        let _ = write!(
            out,
            "<p>Signal trace ({} events):</p><pre class=\"trace\">",
            row.trace.len()
        );
        for event in &row.trace {
            let _ = writeln!(out, "{}", escape(&event.to_string()));
        }
        out.push_str("</pre>\n");
    }
    out.push_str("</div>\n</details>\n");
}

/// A failure message as the TCK writes it:
/// `§3.9: [scenario] expected …; actual: …`.
struct Parts<'a> {
    scenario: Option<&'a str>,
    expected: &'a str,
    actual: &'a str,
}

impl<'a> Parts<'a> {
    fn of(message: &'a str) -> Option<Parts<'a>> {
        let line = message.lines().next()?;
        let rest = line.split_once(": ").map_or(line, |(_, rest)| rest);
        let (scenario, rest) = match rest.strip_prefix('[').and_then(|r| r.split_once("] ")) {
            Some((scenario, rest)) => (Some(scenario), rest),
            None => (None, rest),
        };
        let (expected, actual) = rest.strip_prefix("expected ")?.split_once("; actual: ")?;
        Some(Parts {
            scenario,
            expected,
            actual,
        })
    }
}

/// Text safe inside an element or a quoted attribute.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;

    #[test]
    fn the_page_loads_nothing_from_elsewhere() {
        let page = render(&samples::broken());
        assert!(page.contains("default-src 'none'"));
        for outside in ["src=", "<link", "http://", "https://", "@import", "url("] {
            assert!(!page.contains(outside), "{outside} in the page");
        }
    }

    #[test]
    fn the_matrix_counts_every_row_once() {
        let report = samples::broken();
        let page = render(&report);
        let count = |verdict: &str| -> usize {
            page.match_indices(&format!(" data-{verdict}=\""))
                .map(|(at, m)| {
                    let rest = &page[at + m.len()..];
                    rest[..rest.find('"').unwrap()].parse::<usize>().unwrap()
                })
                .sum()
        };
        assert_eq!(count("failed"), report.summary.failed);
        assert_eq!(count("passed"), report.summary.passed);
        assert_eq!(count("warned"), report.summary.warned);
        assert_eq!(page.matches("<details class=\"failure").count(), 4);
    }

    #[test]
    fn messages_split_into_scenario_expected_and_actual() {
        let parts = Parts::of(
            "§1.1: [publisher of 3] expected at most 1 on_next; actual: on_next #2 (value 1)",
        )
        .unwrap();
        assert_eq!(parts.scenario, Some("publisher of 3"));
        assert_eq!(parts.expected, "at most 1 on_next");
        assert_eq!(parts.actual, "on_next #2 (value 1)");
        assert!(Parts::of("the test process was killed after 5000 ms").is_none());
        assert_eq!(
            escape("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }
}
