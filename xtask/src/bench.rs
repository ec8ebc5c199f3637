//! `cargo xtask bench`: the four verifications issue 42 tracks, timed as
//! libtest runs them (default threads), each as a ratio against the same
//! verification built from a baseline commit in the same run; and
//! `--profile`: where each of their rule tests spends its time, scenario by
//! scenario.
//!
//! The machine is shared and its speed drifts, so only ratios taken within
//! one run mean anything: the two builds run alternately, pair by pair,
//! and the median of the per-pair ratios is the figure to quote.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

mod build;
mod profile;

use build::Binaries;

/// A verification: the test target of `reactive-streams-reference` that
/// holds it, and the libtest filter that selects its rule tests.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Verification {
    pub(crate) target: &'static str,
    pub(crate) filter: &'static str,
}

/// The verifications issue 42 measures.
pub(crate) const VERIFICATIONS: [Verification; 4] = [
    Verification {
        target: "tck",
        filter: "range_publisher::publisher::",
    },
    Verification {
        target: "tck",
        filter: "thread_pool_publisher::publisher::",
    },
    Verification {
        target: "tck_subscribers",
        filter: "map_processor::processor::",
    },
    Verification {
        target: "tck_subscribers",
        filter: "callback_subscriber_whitebox::",
    },
];

/// Arguments of `cargo xtask bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The commit to compare against: its test binaries are built in a
    /// git worktree under `target/bench-base/<REV>/` (with a target folder
    /// of its own, kept for the next run).
    #[arg(long, value_name = "REV", default_value = "13d1e43")]
    baseline: String,

    /// Timed pairs (baseline, then this tree, alternating which goes
    /// first) per verification, after one warm-up pair.
    #[arg(long, value_name = "N", default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..))]
    pairs: u32,

    /// Instead of timing against the baseline: run every rule test of the
    /// four verifications alone (`RS_TCK_PROFILE=1`) and print where the
    /// time goes, test by test and scenario by scenario.
    #[arg(long)]
    profile: bool,

    /// How many of the slowest tests and scenarios `--profile` lists.
    #[arg(long, value_name = "N", default_value_t = 15)]
    top: usize,
}

/// Runs `cargo xtask bench`.
pub fn run(args: &Args) -> ExitCode {
    match try_run(args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

fn try_run(args: &Args) -> Result<ExitCode, String> {
    let root = workspace_root();
    let now = Binaries::of_tree(&root)?;
    if args.profile {
        return profile::run(&now, args.top);
    }
    let base = Binaries::of_commit(&root, &args.baseline)?;
    println!(
        "{} pairs per verification, libtest default threads; ratio = this tree / {} (median of per-pair ratios, min–max)",
        args.pairs, args.baseline
    );
    let mut failed = false;
    for verification in VERIFICATIONS {
        let line = compare(&now, &base, verification, args.pairs)?;
        failed |= line.failed;
        println!(
            "{:<36} now {:>6.3} s  {} {:>6.3} s  ratio {:.2} ({:.2}–{:.2})",
            verification.filter,
            line.now.as_secs_f64(),
            args.baseline,
            line.base.as_secs_f64(),
            line.ratio,
            line.min,
            line.max,
        );
    }
    if failed {
        eprintln!("error: a verification failed in at least one run (see above)");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// One verification's medians and ratios.
struct Line {
    now: Duration,
    base: Duration,
    ratio: f64,
    min: f64,
    max: f64,
    failed: bool,
}

fn compare(
    now: &Binaries,
    base: &Binaries,
    verification: Verification,
    pairs: u32,
) -> Result<Line, String> {
    let (now_exe, base_exe) = (now.exe(verification)?, base.exe(verification)?);
    let mut times = (Vec::new(), Vec::new());
    let mut ratios = Vec::new();
    let mut failed = false;
    // The first pair warms caches and is not counted.
    for pair in 0..=pairs {
        let (first, second) = if pair % 2 == 0 {
            (&base_exe, &now_exe)
        } else {
            (&now_exe, &base_exe)
        };
        let a = time_once(first, verification.filter)?;
        let b = time_once(second, verification.filter)?;
        let ((base_time, _), (now_time, now_ok)) = if pair % 2 == 0 { (a, b) } else { (b, a) };
        if !now_ok {
            eprintln!("{}: a run of this tree failed", verification.filter);
        }
        failed |= !now_ok;
        if pair == 0 {
            continue;
        }
        ratios.push(now_time.as_secs_f64() / base_time.as_secs_f64());
        times.0.push(now_time);
        times.1.push(base_time);
    }
    let (min, max) = min_max(&ratios);
    Ok(Line {
        now: median_duration(&mut times.0),
        base: median_duration(&mut times.1),
        ratio: median(&mut ratios),
        min,
        max,
        failed,
    })
}

/// Runs one test binary on `filter` in its crate's folder, as `cargo test`
/// would; its wall time and whether it passed.
fn time_once(exe: &(PathBuf, PathBuf), filter: &str) -> Result<(Duration, bool), String> {
    let (binary, dir) = exe;
    let started = Instant::now();
    let status = Command::new(binary)
        .arg(filter)
        .arg("-q")
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|error| format!("cannot run {}: {error}", binary.display()))?;
    Ok((started.elapsed(), status.success()))
}

pub(crate) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

fn median_duration(values: &mut [Duration]) -> Duration {
    let mut seconds: Vec<f64> = values.iter().map(Duration::as_secs_f64).collect();
    Duration::from_secs_f64(median(&mut seconds))
}

fn min_max(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

/// The workspace this xtask belongs to.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}
