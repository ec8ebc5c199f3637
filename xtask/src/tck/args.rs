//! The command line of `cargo xtask tck` (a public contract: flag names do
//! not change).

use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;

use super::pattern::RulePattern;

/// The smallest deadline a rule test process gets when no
/// `--test-deadline-ms` is given.
pub const DEFAULT_DEADLINE_MS: u64 = 60_000;

/// How many times the timeouts given on the command line a rule test
/// process may run before it is killed, when no `--test-deadline-ms` is
/// given.
pub const DEADLINE_FACTOR: u64 = 20;

/// Arguments of `cargo xtask tck`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 when no rule failed, 1 when a rule failed, \
2 for bad usage or when the target cannot be verified."
)]
pub struct Args {
    /// The Cargo.toml of the crate to verify (a crate whose tests invoke the
    /// verification macros). Default: the reference implementation.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,

    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Md)]
    pub format: Format,

    /// Write the report to FILE (atomically, only when the run completes)
    /// instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Verify only these rules: comma-separated rule ids or globs where `*`
    /// matches anything, e.g. `3.9`, `3.*`, `1.*,3.9`, `streamlet.2`, `tck.*`.
    /// An id also selects its conditions (`streamlet.2` → `streamlet.2.a`…).
    #[arg(long, value_name = "PATTERN", value_parser = RulePattern::parse)]
    pub rules: Option<RulePattern>,

    /// How long a rule test waits for an expected signal, in milliseconds
    /// (passed to each test as RS_TCK_TIMEOUT_MS). Default: the TCK's own.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_ms: Option<u64>,

    /// How long a rule test waits to show that no signal comes, in
    /// milliseconds (passed as RS_TCK_NO_SIGNAL_MS). Default: the TCK's own.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub no_signal_ms: Option<u64>,

    /// Kill a rule test process that runs longer than this, in milliseconds,
    /// and report the rule as failed. Default: 20 × (timeout + no-signal
    /// time) when those are given, but at least 60000.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub test_deadline_ms: Option<u64>,

    /// How many rule test processes run at once. Default: the number of CPUs.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
}

impl Args {
    /// The hard deadline of one rule test process.
    pub fn test_deadline(&self) -> Duration {
        let ms = self.test_deadline_ms.unwrap_or_else(|| {
            let timeouts = self.timeout_ms.unwrap_or(0) + self.no_signal_ms.unwrap_or(0);
            (timeouts.saturating_mul(DEADLINE_FACTOR)).max(DEFAULT_DEADLINE_MS)
        });
        Duration::from_millis(ms)
    }

    /// How many rule test processes run at once.
    pub fn jobs(&self) -> usize {
        match self.jobs {
            Some(jobs) => usize::try_from(jobs).unwrap_or(usize::MAX),
            None => std::thread::available_parallelism().map_or(1, usize::from),
        }
    }
}

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown: a table per target, failures with their signal trace.
    Md,
    /// JSON: `{ "summary": {…}, "results": […] }`.
    Json,
    /// JUnit XML: one testcase per rule and target.
    Junit,
}
