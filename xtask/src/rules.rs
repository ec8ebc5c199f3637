//! `cargo xtask rules`: the catalogue as Markdown or JSON.

use std::io::Write;
use std::process::ExitCode;

use clap::ValueEnum;
use reactive_streams::rules::{
    ADAPTER_RULES, Check, LIFECYCLE_RULES, RULES, Rule, SINK_RULES, STREAM_RULES,
};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    format: Format,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// A Markdown table.
    Md,
    /// A JSON array of rule objects.
    Json,
}

pub fn run(args: &Args) -> ExitCode {
    let text = match args.format {
        Format::Md => {
            let mut text = markdown(RULES);
            text.push_str("\n## Datum lifecycle (extension)\n\n");
            text.push_str(&markdown(LIFECYCLE_RULES));
            text.push_str("\n## futures::Stream (extension)\n\n");
            text.push_str(&markdown(STREAM_RULES));
            text.push_str("\n## futures::Sink (extension; not the Streamlet sink)\n\n");
            text.push_str(&markdown(SINK_RULES));
            text.push_str("\n## Stream adapters (extension)\n\n");
            text.push_str(&markdown(ADAPTER_RULES));
            text
        }
        Format::Json => json(&every_rule()),
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: cannot write the catalogue: {error}");
            ExitCode::from(2)
        }
    }
}

/// Every catalogued rule, in the order the Markdown lists them: Reactive
/// Streams and Streamlet, then the datum-lifecycle, `futures::Stream` and
/// `futures::Sink` and stream-adapter extensions.
pub fn every_rule() -> Vec<Rule> {
    RULES
        .iter()
        .chain(LIFECYCLE_RULES)
        .chain(STREAM_RULES)
        .chain(SINK_RULES)
        .chain(ADAPTER_RULES)
        .copied()
        .collect()
}

pub fn json(rules: &[Rule]) -> String {
    let mut text = serde_json::to_string_pretty(rules).expect("the catalogue serialises");
    text.push('\n');
    text
}

pub fn markdown(rules: &[Rule]) -> String {
    let mut out =
        String::from("| id | subject | level | summary | check |\n|---|---|---|---|---|\n");
    for rule in rules {
        out.push_str(&format!(
            "| [{}]({}) | {:?} | {} | {} | {} |\n",
            rule.id,
            rule.link,
            rule.subject,
            rule.level.keyword(),
            rule.summary,
            describe(&rule.check)
        ));
        for condition in rule.conditions {
            out.push_str(&format!(
                "| {} | | | {} | {} |\n",
                condition.id,
                condition.summary,
                describe(&condition.check)
            ));
        }
    }
    let count = |kind: &str| rules.iter().filter(|r| r.check.kind() == kind).count();
    out.push_str(&format!(
        "\n{} rules: {} tested, {} enforced by types, {} untested\n",
        rules.len(),
        count("tested"),
        count("enforced_by_types"),
        count("untested")
    ));
    out
}

fn describe(check: &Check) -> String {
    match check {
        Check::Tested { tests } => format!("tested: `{}`", tests.join("`, `")),
        Check::EnforcedByTypes { proof } => format!("enforced by types: `{proof}`"),
        Check::Untested { reason } => format!("untested: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lists_exactly_the_catalogue_ids_with_the_named_fields() {
        let value: serde_json::Value = serde_json::from_str(&json(&every_rule())).unwrap();
        let rules = value.as_array().unwrap();
        // 43 Reactive Streams + 6 Streamlet rules, 6 done.*, 7 stream.*,
        // 5 sink.*, 6 adapter.*.
        assert_eq!(rules.len(), 49 + 6 + 7 + 5 + 6);
        let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
        for id in [
            "1.1",
            "streamlet.6",
            "done.1",
            "stream.7",
            "sink.5",
            "adapter.6",
        ] {
            assert!(ids.contains(&id), "{id} is missing");
        }
        for rule in rules {
            for field in ["id", "subject", "level", "summary", "check", "link"] {
                assert!(rule.get(field).is_some(), "{rule} lacks {field}");
            }
            let check = rule["check"].as_str().unwrap();
            assert!(["tested", "enforced_by_types", "untested"].contains(&check));
        }
    }

    #[test]
    fn markdown_has_one_row_per_rule_and_condition() {
        let text = markdown(RULES);
        let conditions: usize = RULES.iter().map(|r| r.conditions.len()).sum();
        let rows = text.lines().filter(|l| l.starts_with("| ")).count();
        assert_eq!(rows, 1 + RULES.len() + conditions);
    }
}
