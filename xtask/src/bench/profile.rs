//! `cargo xtask bench --profile`: every rule test of the tracked
//! verifications run alone with `RS_TCK_PROFILE=1`, and where its time
//! went: the whole process, the rule test inside it, each scenario.

use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use super::build::Binaries;
use super::{VERIFICATIONS, Verification};

/// The prefix of the lines a rule test prints under `RS_TCK_PROFILE=1`
/// (`reactive_streams_tck::runner::PROFILE_LINE`).
const PROFILE_LINE: &str = "rs-tck-profile";

/// One rule test run alone.
struct TestTime {
    test: String,
    process_ms: f64,
    scenarios: Vec<(String, f64)>,
    passed: bool,
}

impl TestTime {
    fn rule_ms(&self) -> f64 {
        self.scenarios.iter().map(|(_, ms)| ms).sum()
    }
}

pub(super) fn run(now: &Binaries, top: usize) -> Result<ExitCode, String> {
    let mut failed = false;
    for verification in VERIFICATIONS {
        let exe = now.exe(verification)?;
        let mut times = Vec::new();
        for test in list(&exe, verification)? {
            times.push(run_alone(&exe, &test)?);
        }
        failed |= times.iter().any(|t| !t.passed);
        print(verification, &mut times, top);
    }
    if failed {
        eprintln!("error: a rule test failed (marked FAILED above)");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn list(exe: &(PathBuf, PathBuf), verification: Verification) -> Result<Vec<String>, String> {
    let output = Command::new(&exe.0)
        .args([verification.filter, "--list", "--format", "terse"])
        .current_dir(&exe.1)
        .stderr(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run {}: {error}", exe.0.display()))?;
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_string)
        .collect())
}

fn run_alone(exe: &(PathBuf, PathBuf), test: &str) -> Result<TestTime, String> {
    let started = Instant::now();
    let output = Command::new(&exe.0)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("RS_TCK_PROFILE", "1")
        .current_dir(&exe.1)
        .stdout(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run {}: {error}", exe.0.display()))?;
    let process_ms = started.elapsed().as_secs_f64() * 1000.0;
    let scenarios = String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter_map(|line| {
            let mut fields = line
                .strip_prefix(PROFILE_LINE)?
                .trim_start()
                .splitn(4, '\t');
            let (_target, _test) = (fields.next()?, fields.next()?);
            let ms = fields.next()?.parse().ok()?;
            Some((fields.next()?.to_string(), ms))
        })
        .collect();
    Ok(TestTime {
        test: test.to_string(),
        process_ms,
        scenarios,
        passed: output.status.success(),
    })
}

fn print(verification: Verification, times: &mut [TestTime], top: usize) {
    let process: f64 = times.iter().map(|t| t.process_ms).sum();
    let rule: f64 = times.iter().map(TestTime::rule_ms).sum();
    println!(
        "\n{}: {} rule tests; run alone, processes {:.0} ms in all, rule tests {:.0} ms (spawn and start {:.1} ms a test)",
        verification.filter,
        times.len(),
        process,
        rule,
        (process - rule) / times.len().max(1) as f64
    );
    times.sort_by(|a, b| b.rule_ms().total_cmp(&a.rule_ms()));
    for time in times.iter().take(top) {
        println!(
            "  {:>7.1} ms  {}{}",
            time.rule_ms(),
            time.test.rsplit("::").next().unwrap_or(&time.test),
            if time.passed { "" } else { "  FAILED" }
        );
        let mut scenarios = time.scenarios.clone();
        scenarios.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (scenario, ms) in scenarios.iter().take(3).filter(|(_, ms)| *ms >= 1.0) {
            println!("      {ms:>7.1} ms  {}", shorten(scenario));
        }
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 110;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}
