//! `cargo xtask`: project automation.
//!
//! * `cargo xtask rules [--format md|json]` prints the rule catalogue.
//! * `cargo xtask bench [--profile]` times the verifications issue 42
//!   tracks against a baseline commit's, or profiles their rule tests.
//! * `cargo xtask tck` runs the TCK on the reference implementation or
//!   another crate: `cargo rs-tck` (the `cargo-rs-tck` crate) with the
//!   reference implementation as its default.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

mod bench;
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
    /// Time four reference verifications against a baseline commit's build, as ratios (or --profile them).
    Bench(bench::Args),
    /// Verify the reference implementation (or another crate) and report rule by rule.
    Tck(Box<cargo_rs_tck::Args>),
}

fn main() -> ExitCode {
    // `cargo xtask tck` is `cargo rs-tck` with the reference implementation
    // as its default crate.
    let command = Cli::command().mut_subcommand("tck", |tck| {
        tck.mut_arg("manifest_path", |arg| {
            arg.help(
                "The Cargo.toml (or its folder) of the crate to verify: a crate whose tests invoke the verification macros. Default: the reference implementation",
            )
        })
    });
    let cli = match command
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(error) => return cargo_rs_tck::usage_error(error),
    };
    match cli.command {
        Command::Rules(args) => rules::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Tck(mut args) => {
            args.manifest_path.get_or_insert_with(reference_manifest);
            cargo_rs_tck::run(&args)
        }
    }
}

/// The reference implementation, verified by `cargo xtask tck` when no
/// `--manifest-path` is given.
fn reference_manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../reference-impl/Cargo.toml")
}
