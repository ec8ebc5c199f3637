//! Running rule tests, each in its own process with a hard deadline, a few
//! at a time, and turning whatever happened into [`RuleResult`]s.
//!
//! A process of its own per rule test means a deadlock, an abort or a stack
//! overflow costs one rule, not the run: the process is killed or dies, the
//! rule is reported as failed with what happened, and the other rules still
//! run.

use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use reactive_streams_tck::outcome::{REPORT_DIR_ENV, RuleResult, STARTED_FILE, Verdict};
use wait_timeout::ChildExt;

use super::diagnose::{self, Ending};
use super::discover::Planned;

/// The variable a rule test reads its "wait for a signal" timeout from.
pub const TIMEOUT_ENV: &str = "RS_TCK_TIMEOUT_MS";
/// The variable a rule test reads its "show no signal comes" wait from.
pub const NO_SIGNAL_ENV: &str = "RS_TCK_NO_SIGNAL_MS";

/// How every rule test process is run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Kill a process that runs longer than this.
    pub deadline: Duration,
    /// Passed as [`TIMEOUT_ENV`] when given.
    pub timeout_ms: Option<u64>,
    /// Passed as [`NO_SIGNAL_ENV`] when given.
    pub no_signal_ms: Option<u64>,
    /// Passed as `RS_TCK_STRICT=1` when set.
    pub strict: bool,
    /// The working folder of the processes (the crate's folder).
    pub dir: PathBuf,
    /// A fresh folder for the report folders and output of the processes.
    pub scratch: PathBuf,
    /// How many processes run at once.
    pub jobs: usize,
}

/// What one rule test process left behind.
#[derive(Debug, Clone)]
pub struct Ran {
    /// The rule test.
    pub planned: Planned,
    /// Its results: the ones it wrote, or one made up from how the process
    /// ended when it wrote none.
    pub results: Vec<RuleResult>,
    /// Whether `results` was made up here rather than written by the test.
    pub synthesised: bool,
}

/// Runs every planned rule test, `settings.jobs` at a time, calling
/// `finished` (on this thread) as each one ends; returns them in plan order.
pub fn run_all(
    planned: Vec<Planned>,
    settings: &Settings,
    mut finished: impl FnMut(&Ran),
) -> Vec<Ran> {
    let total = planned.len();
    let queue = Mutex::new(planned.into_iter().enumerate().collect::<VecDeque<_>>());
    let (sender, receiver) = mpsc::channel();
    let mut done: Vec<Option<Ran>> = vec![None; total];
    std::thread::scope(|scope| {
        for _ in 0..settings.jobs.clamp(1, total.max(1)) {
            let sender = sender.clone();
            let queue = &queue;
            scope.spawn(move || {
                loop {
                    let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                    let Some((index, planned)) = next else { break };
                    let ran = run_one(planned, index, settings);
                    if sender.send((index, ran)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for (index, ran) in receiver {
            finished(&ran);
            done[index] = Some(ran);
        }
    });
    done.into_iter().flatten().collect()
}

/// Runs one rule test in a process of its own.
pub fn run_one(planned: Planned, index: usize, settings: &Settings) -> Ran {
    if planned.ignored {
        let message = format!(
            "the crate marks this rule test #[ignore] (its reason is in the test's source); run it with `cargo test -- --ignored --exact {}`",
            planned.test.path
        );
        let mut result = synthesise(&planned, message, Duration::ZERO);
        result.verdict = Verdict::Skipped;
        return Ran {
            results: vec![result],
            planned,
            synthesised: true,
        };
    }
    let scratch = settings.scratch.join(index.to_string());
    let report_dir = scratch.join("report");
    let started = Instant::now();
    let ending = spawn_and_wait(&planned, settings, &scratch, &report_dir);
    let elapsed = started.elapsed();
    let stderr = std::fs::read(scratch.join("stderr")).unwrap_or_default();
    let stderr = String::from_utf8_lossy(&stderr);
    let problem = match &ending {
        Ok(ending) => diagnose::problem(ending, &stderr),
        Err(error) => Some(diagnose::Problem::abnormal(format!(
            "the test process could not be run: {error}"
        ))),
    };
    let (written, unreadable) = read_results(&report_dir);
    let started = report_dir.join(STARTED_FILE).is_file();
    let _ = std::fs::remove_dir_all(&scratch);

    // Results made up here take their target name from sibling tests later.
    let synthesised = written.is_empty();
    let mut results = written;
    results.extend(
        unreadable
            .into_iter()
            .map(|message| synthesise(&planned, message, elapsed)),
    );
    if results.is_empty() {
        let exited = match (&ending, started) {
            (Ok(ending), true) => diagnose::exit_mid_test(ending, &stderr),
            _ => None,
        };
        let message = match (exited, problem) {
            (Some(exited), _) => exited,
            (None, Some(problem)) => problem.without_result(),
            (None, None) => "the test wrote no result: it returned normally without reporting (is it really a rule test generated by a verification macro?)".to_owned(),
        };
        return Ran {
            results: vec![synthesise(&planned, message, elapsed)],
            planned,
            synthesised: true,
        };
    }
    if let Some(problem) = problem {
        for result in &mut results {
            merge(result, &problem);
        }
    }
    Ran {
        planned,
        results,
        synthesised,
    }
}

fn spawn_and_wait(
    planned: &Planned,
    settings: &Settings,
    scratch: &Path,
    report_dir: &Path,
) -> std::io::Result<Ending> {
    std::fs::create_dir_all(report_dir)?;
    let stdout = File::create(scratch.join("stdout"))?;
    let stderr = File::create(scratch.join("stderr"))?;
    let mut command = Command::new(&planned.exe);
    command
        .args([
            "--exact",
            &planned.test.path,
            "--nocapture",
            "--test-threads=1",
        ])
        .current_dir(&settings.dir)
        .env(REPORT_DIR_ENV, report_dir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    if let Some(ms) = settings.timeout_ms {
        command.env(TIMEOUT_ENV, ms.to_string());
    }
    if settings.strict {
        command.env(reactive_streams_tck::outcome::STRICT_ENV, "1");
    }
    if let Some(ms) = settings.no_signal_ms {
        command.env(NO_SIGNAL_ENV, ms.to_string());
    }
    let mut child = command.spawn()?;
    match child.wait_timeout(settings.deadline)? {
        Some(status) => Ok(Ending::Exited(status)),
        None => {
            // Past the deadline: the rule test hangs. Kill it and reap it so
            // it leaves no zombie; its verdict is the deadline.
            let _ = child.kill();
            let _ = child.wait();
            Ok(Ending::Killed(settings.deadline))
        }
    }
}

/// The results in a report folder, and a message for each file that is not
/// one.
fn read_results(dir: &Path) -> (Vec<RuleResult>, Vec<String>) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or(".");
            // Dot files are results still being written (see RuleResult::write_json_into).
            !name.starts_with('.') && name.ends_with(".json")
        })
        .collect();
    files.sort();
    let mut results = Vec::new();
    let mut unreadable = Vec::new();
    for file in files {
        let parsed = std::fs::read(&file)
            .map_err(|e| e.to_string())
            .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()));
        match parsed {
            Ok(result) => results.push(result),
            Err(error) => unreadable.push(format!(
                "the test wrote a result that cannot be read ({}): {error}",
                file.file_name().unwrap_or_default().to_string_lossy()
            )),
        }
    }
    (results, unreadable)
}

/// A failed result for a rule test that wrote none, from its path.
fn synthesise(planned: &Planned, message: String, elapsed: Duration) -> RuleResult {
    RuleResult {
        target: planned.test.fallback_target(),
        verification: planned.test.verification,
        rule: planned.test.rule.clone(),
        test: planned.test.test.clone(),
        verdict: Verdict::Failed,
        message: Some(message),
        duration_ms: elapsed.as_secs_f64() * 1000.0,
        trace: Vec::new(),
        violations: Vec::new(),
        module: String::new(),
    }
}

/// A written result, corrected by how the process ended: a result that did
/// not fail cannot stand when the process then died, and a failure keeps
/// its message with what happened after it added.
fn merge(result: &mut RuleResult, problem: &diagnose::Problem) {
    // A test panics on purpose when its result breaks the run: its own
    // rule failed, or a rule broken during it is one that fails (any, in a
    // strict run).
    let expected_panic = problem.is_panic && result.fails_run(true);
    if result.verdict == Verdict::Failed || expected_panic {
        if !problem.is_panic {
            let message = result.message.take().unwrap_or_default();
            result.message = Some(format!("{message}; then {}", problem.message));
        }
        return;
    }
    result.message = Some(format!(
        "the test reported `{}`{} but then failed: {}",
        result.verdict,
        result
            .message
            .as_deref()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default(),
        problem.message
    ));
    result.verdict = Verdict::Failed;
}

#[cfg(test)]
mod tests {
    use super::*;
    use reactive_streams_tck::outcome::Verification;

    fn result(verdict: Verdict, message: Option<&str>) -> RuleResult {
        RuleResult {
            target: "t".into(),
            verification: Verification::Publisher,
            rule: "1.1".into(),
            test: "spec_1_01".into(),
            verdict,
            message: message.map(str::to_owned),
            duration_ms: 1.0,
            trace: Vec::new(),
            violations: Vec::new(),
            module: String::new(),
        }
    }

    #[test]
    fn a_failure_then_a_panic_is_just_the_failure() {
        let mut failed = result(Verdict::Failed, Some("broke 1.1"));
        let panic = diagnose::Problem {
            message: "the test panicked: broke 1.1".into(),
            is_panic: true,
        };
        merge(&mut failed, &panic);
        assert_eq!(failed.message.as_deref(), Some("broke 1.1"));
    }

    #[test]
    fn a_failure_then_an_abort_says_both() {
        let mut failed = result(Verdict::Failed, Some("broke 1.1"));
        merge(
            &mut failed,
            &diagnose::Problem::abnormal("the test process aborted".into()),
        );
        assert_eq!(
            failed.message.as_deref(),
            Some("broke 1.1; then the test process aborted")
        );
    }

    #[test]
    fn a_skip_then_a_crash_fails() {
        let mut skipped = result(Verdict::Skipped, Some("no failed publisher"));
        merge(
            &mut skipped,
            &diagnose::Problem::abnormal("stack overflow".into()),
        );
        assert_eq!(skipped.verdict, Verdict::Failed);
        assert_eq!(
            skipped.message.as_deref(),
            Some(
                "the test reported `skipped` (no failed publisher) but then failed: stack overflow"
            )
        );
    }
}
