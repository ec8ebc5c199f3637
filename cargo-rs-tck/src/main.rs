//! `cargo rs-tck`: verify the crate in the current folder (or the one given
//! with `--manifest-path`) against the Reactive Streams TCK and report rule
//! by rule. Install it with `cargo install cargo-rs-tck` (or `--path` from a
//! checkout); see the library for what it does.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "cargo rs-tck",
    bin_name = "cargo rs-tck",
    version,
    about = "Run a crate's Reactive Streams TCK rule tests, one process each, and report rule by rule"
)]
struct Cli {
    #[command(flatten)]
    args: cargo_rs_tck::Args,
}

fn main() -> ExitCode {
    match Cli::try_parse_from(subcommand_args(std::env::args_os())) {
        Ok(cli) => cargo_rs_tck::run(&cli.args),
        Err(error) => cargo_rs_tck::usage_error(error),
    }
}

/// The arguments without the `rs-tck` cargo passes first when it runs
/// `cargo rs-tck …` as `cargo-rs-tck rs-tck …`; run directly, the binary
/// takes the same flags.
fn subcommand_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    if args.get(1).is_some_and(|first| first == "rs-tck") {
        args.remove(1);
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_and_direct_invocations_take_the_same_flags() {
        let via_cargo = ["cargo-rs-tck", "rs-tck", "--format", "json"].map(OsString::from);
        let direct = ["cargo-rs-tck", "--format", "json"].map(OsString::from);
        assert_eq!(subcommand_args(via_cargo), subcommand_args(direct.clone()));
        assert_eq!(subcommand_args(direct.clone()), direct);
    }
}
