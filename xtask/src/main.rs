//! `cargo xtask`: project automation.
//!
//! * `cargo xtask rules [--format md|json]` prints the rule catalogue.
//! * `cargo xtask tck` runs the TCK (see `tck.rs`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod rules;

#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "Reactive Streams TCK automation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the rule catalogue: every rule, its level, summary and how it is checked.
    Rules(rules::Args),
    /// Verify the reference implementation (or another crate) and report rule by rule.
    Tck(cargo_rs_tck::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap's help and version go to stdout with success; usage
            // errors exit 2 with clap's message folded into one line.
            if !error.use_stderr() {
                let _ = error.print();
                return ExitCode::SUCCESS;
            }
            eprintln!("{}", one_line(&error.render().to_string()));
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Rules(args) => rules::run(&args),
        Command::Tck(args) => cargo_rs_tck::run(&args),
    }
}

/// A clap error message as one line: its lines joined, the usage summary
/// dropped (`--help` shows it), the closing hint after a semicolon.
fn one_line(message: &str) -> String {
    let mut line = String::new();
    for part in message.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if part.starts_with("Usage:") {
            continue;
        }
        if let Some(hint) = part.strip_prefix("For more information") {
            line.push_str("; for more information");
            line.push_str(hint);
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(part);
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_fold_into_one_line() {
        let error = Cli::try_parse_from(["cargo xtask", "tck", "--format", "xml"]).unwrap_err();
        assert_eq!(
            one_line(&error.render().to_string()),
            "error: invalid value 'xml' for '--format <FORMAT>' [possible values: md, json, junit]; for more information, try '--help'."
        );
    }
}
