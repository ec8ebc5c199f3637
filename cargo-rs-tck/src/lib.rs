//! `cargo rs-tck` (and `cargo xtask tck` in the TCK's own repository): build
//! a crate's TCK rule tests, run each in its own process, and report rule by
//! rule.
//!
//! The library is the whole runner; the `cargo-rs-tck` binary and the TCK's
//! `cargo xtask tck` only parse [`Args`] and call [`run`]:
//!
//! ```no_run
//! use clap::Parser;
//!
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     tck: cargo_rs_tck::Args,
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     match Cli::try_parse() {
//!         Ok(cli) => cargo_rs_tck::run(&cli.tck),
//!         Err(error) => cargo_rs_tck::usage_error(error),
//!     }
//! }
//! ```
//!
//! The pipeline, one module per step:
//! `target` (which crate) → `compat` (it depends on a `reactive-streams-tck`
//! whose results this runner reads) → `discover` (build, list, keep the
//! tests that follow the `naming` contract, filter by `pattern`, take a
//! `partition`'s share) → `run` (one process per rule test, `diagnose` what
//! went wrong, with `progress`) → `report` (complete from the catalogue,
//! held to the `baseline` of known failures, render) → `output`. `merge`
//! joins the JSON reports of several runs into one.

mod args;
mod baseline;
mod compat;
mod diagnose;
mod discover;
mod known;
mod merge;
mod naming;
mod output;
mod partition;
mod pattern;
mod progress;
mod report;
mod run;
mod target;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use reactive_streams_tck::outcome::RuleResult;

pub use args::{Args, Command, Format, MergeArgs, usage_error};
use baseline::Baseline;
pub use partition::Partition;
pub use pattern::RulePattern;
use report::{Report, Scope};

/// A reason the target cannot be verified, as one line for stderr (exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fatal(pub String);

/// Runs the command; prints `error: …` and exits 2 when it cannot.
pub fn run(args: &Args) -> ExitCode {
    let done = match &args.command {
        Some(Command::Merge(merge)) => merge::merge(merge),
        None => verify(args),
    };
    match done {
        Ok(code) => code,
        Err(Fatal(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn verify(args: &Args) -> Result<ExitCode, Fatal> {
    check_output_folder(args.output.as_deref())?;
    let cargo = cargo_binary();
    let manifest = match &args.manifest_path {
        Some(manifest) => manifest.clone(),
        None => target::current_manifest()?,
    };
    let krate = target::resolve(&cargo, &manifest)?;
    let baseline = Baseline::find(
        args.baseline.as_deref(),
        krate.dir(),
        args.no_baseline,
        args.update_baseline,
    )?;
    compat::check(&cargo, &krate)?;
    let scratch = Scratch::create()?;
    let planned = discover::discover(&cargo, &krate, scratch.path(), args.test_deadline())?;
    if planned.is_empty() {
        return Err(compat::no_tck_tests(&krate.name));
    }
    if let Some(baseline) = &baseline {
        baseline.check_tests(&planned)?;
    }
    let planned = extended(planned, args.extended, &krate.name)?;
    let planned = select(planned, args, &krate.name)?;
    let planned = match args.partition {
        Some(partition) => partition.select(planned),
        None => planned,
    };

    let settings = run::Settings {
        deadline: args.test_deadline(),
        timeout_ms: args.timeout_ms,
        no_signal_ms: args.no_signal_ms,
        strict: args.strict,
        dir: krate.dir().to_path_buf(),
        scratch: scratch.path().to_path_buf(),
        jobs: args.jobs(),
    };
    let mut progress = progress::Progress::start(planned.len(), &krate.name);
    let ran = run::run_all(planned, &settings, |ran| progress.finished(ran));
    progress.finish();
    drop(scratch);

    let results = name_targets(ran);
    // A share may hold no rule test (more shares than tests): its empty
    // report still joins the others.
    if results.is_empty() && args.partition.is_none() {
        return Err(Fatal(format!(
            "zero rules executed: no rule test of {} reported anything",
            krate.name
        )));
    }
    let mut report = Report::assemble(&krate.name, results, args.rules.as_ref());
    report.scope = Scope {
        partition: args.partition,
        rules: args.rules.clone(),
    };
    if let Some(mut baseline) = baseline {
        let whole = report.scope.is_whole();
        if args.update_baseline {
            baseline = baseline.updated(&report, args.strict);
            baseline.write()?;
            eprintln!(
                "wrote the baseline {}: {} known failures",
                baseline.shown,
                baseline.entries.len()
            );
        } else if whole {
            baseline.check_targets(&report)?;
        }
        report.hold_to(baseline.shown.clone(), &baseline.entries, whole);
    }
    finish(&report, args.format, args.output.as_deref(), args.strict)
}

/// Renders and writes the report, says what breaks a baseline, and gives
/// the exit status.
fn finish(
    report: &Report,
    format: Format,
    output: Option<&Path>,
    strict: bool,
) -> Result<ExitCode, Fatal> {
    output::write(output, &report::render(report, format))?;
    baseline::tell(report, strict);
    Ok(if report.fails(strict) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Keeps the extended verification's tests only with `--extended`; an
/// error when that leaves nothing, or when `--extended` finds none.
fn extended(
    planned: Vec<discover::Planned>,
    extended: bool,
    krate: &str,
) -> Result<Vec<discover::Planned>, Fatal> {
    if extended {
        if !planned.iter().any(|p| p.test.is_extended()) {
            return Err(Fatal(format!(
                "--extended: {krate} has no extended TCK tests; add `publisher_extended_verification!(…)` next to `publisher_verification!(…)`, then run again"
            )));
        }
        return Ok(planned);
    }
    let quick: Vec<_> = planned
        .into_iter()
        .filter(|p| !p.test.is_extended())
        .collect();
    if quick.is_empty() {
        return Err(Fatal(format!(
            "zero rules executed: {krate} has only extended TCK tests; run with --extended"
        )));
    }
    Ok(quick)
}

/// Keeps the rule tests `--rules` selects; an error when it selects none.
fn select(
    planned: Vec<discover::Planned>,
    args: &Args,
    krate: &str,
) -> Result<Vec<discover::Planned>, Fatal> {
    let Some(pattern) = &args.rules else {
        return Ok(planned);
    };
    let mut found: Vec<String> = planned.iter().map(|p| p.test.rule.clone()).collect();
    found.sort_by_key(|id| report::order(id));
    found.dedup();
    let selected: Vec<_> = planned
        .into_iter()
        .filter(|p| pattern.matches(&p.test.rule))
        .collect();
    if selected.is_empty() {
        let mut ids: Vec<&str> = found.iter().map(String::as_str).take(12).collect();
        if found.len() > ids.len() {
            ids.push("…");
        }
        return Err(Fatal(format!(
            "--rules '{pattern}' matches none of the rule tests of {krate} (they cover {}); use ids or globs like '3.9', '3.*', 'streamlet.2'",
            ids.join(", ")
        )));
    }
    Ok(selected)
}

/// The results of every rule test; a result made up for a test that wrote
/// none takes the target name its sibling tests (same executable and
/// module) reported, so it lands in their section.
fn name_targets(ran: Vec<run::Ran>) -> Vec<RuleResult> {
    let mut names: HashMap<(PathBuf, String), String> = HashMap::new();
    for ran in ran.iter().filter(|r| !r.synthesised) {
        if let Some(result) = ran.results.first() {
            names
                .entry((ran.planned.exe.clone(), ran.planned.test.user_mod.clone()))
                .or_insert_with(|| result.target.clone());
        }
    }
    let mut results = Vec::new();
    for mut ran in ran {
        if ran.synthesised {
            let key = (ran.planned.exe.clone(), ran.planned.test.user_mod.clone());
            if let Some(name) = names.get(&key) {
                for result in &mut ran.results {
                    result.target = name.clone();
                }
            }
        }
        results.extend(ran.results);
    }
    results
}

/// The cargo that runs us (it sets `CARGO` for `cargo rs-tck` and
/// `cargo xtask`), else `cargo`.
fn cargo_binary() -> PathBuf {
    std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
}

/// Fails early, before any build, when `--output` cannot be written.
fn check_output_folder(output: Option<&Path>) -> Result<(), Fatal> {
    let Some(output) = output else { return Ok(()) };
    let folder = output.parent().filter(|p| !p.as_os_str().is_empty());
    match folder {
        Some(folder) if !folder.is_dir() => Err(Fatal(format!(
            "the folder of --output {} does not exist; create it or write the report elsewhere",
            output.display()
        ))),
        _ if output.is_dir() => Err(Fatal(format!(
            "--output {} is a folder; give a file path",
            output.display()
        ))),
        _ => Ok(()),
    }
}

/// A fresh folder for test listings, report folders and the output of the
/// rule tests; removed when dropped, whichever way the run ends.
struct Scratch(PathBuf);

impl Scratch {
    fn create() -> Result<Scratch, Fatal> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let folder = std::env::temp_dir().join(format!("rs-tck-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&folder).map_err(|error| {
            Fatal(format!(
                "cannot create a scratch folder {}: {error}",
                folder.display()
            ))
        })?;
        Ok(Scratch(folder))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
