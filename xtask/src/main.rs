//! `cargo xtask`: project automation.
//!
//! * `cargo xtask rules [--format md|json]` prints the rule catalogue.
//! * `cargo xtask tck` runs the TCK (see `tck.rs`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod rules;
mod tck;

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
    Tck(tck::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap's help and version go to stdout with success; real usage
            // errors exit 2 with clap's message (its first line says what is wrong).
            let code = if error.use_stderr() { 2 } else { 0 };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Rules(args) => rules::run(&args),
        Command::Tck(args) => tck::run(&args),
    }
}
