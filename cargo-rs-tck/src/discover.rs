//! Finding the rule tests: build the crate's test executables with cargo,
//! then ask each for its tests and keep those that follow the naming
//! contract ([`super::naming`]).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

use super::Fatal;
use super::naming::RuleTest;
use super::target::Crate;

/// A rule test and the executable that holds it.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The test executable.
    pub exe: PathBuf,
    /// The rule test in it.
    pub test: RuleTest,
    /// The crate marks the test `#[ignore]`: it is reported as skipped, not
    /// run (running it would only show libtest skipping it).
    pub ignored: bool,
}

/// Builds the crate's tests (`cargo test --no-run`) and lists their rule
/// tests. cargo's own output (progress, warnings, compiler errors) goes to
/// our stderr as cargo renders it. An executable that cannot list its tests
/// like a libtest harness (a `harness = false` target) is skipped with a
/// warning; `scratch` holds the listings, `deadline` bounds each.
pub fn discover(
    cargo: &Path,
    krate: &Crate,
    scratch: &Path,
    deadline: Duration,
) -> Result<Vec<Planned>, Fatal> {
    let exes = build(cargo, krate)?;
    let mut planned = Vec::new();
    for (index, exe) in exes.iter().enumerate() {
        let listing = scratch.join(format!("list-{index}"));
        let listed = list(exe, krate.dir(), &listing, deadline, false).and_then(|paths| {
            let ignored = list(exe, krate.dir(), &listing, deadline, true)?;
            Ok((paths, ignored))
        });
        let (paths, ignored) = match listed {
            Ok(listed) => listed,
            Err(why) => {
                eprintln!(
                    "warning: skipped {}: it does not list its tests like a libtest harness ({why})",
                    exe.display()
                );
                continue;
            }
        };
        for path in paths {
            if let Some(test) = RuleTest::parse(&path) {
                planned.push(Planned {
                    exe: exe.clone(),
                    ignored: ignored.contains(&path),
                    test,
                });
            }
        }
    }
    Ok(planned)
}

fn build(cargo: &Path, krate: &Crate) -> Result<Vec<PathBuf>, Fatal> {
    let mut child = Command::new(cargo)
        .args([
            "test",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .arg("--manifest-path")
        .arg(&krate.manifest_path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|error| Fatal(format!("cannot run cargo ({}): {error}", cargo.display())))?;
    let mut exes = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line =
                line.map_err(|error| Fatal(format!("cannot read cargo's output: {error}")))?;
            if let Some(exe) = test_executable(&line, &krate.id) {
                exes.push(exe);
            }
        }
    }
    let status = child
        .wait()
        .map_err(|error| Fatal(format!("cannot wait for cargo: {error}")))?;
    if !status.success() {
        return Err(Fatal(format!(
            "the tests of {} do not build: fix the errors cargo printed above, then run again",
            krate.name
        )));
    }
    exes.sort();
    exes.dedup();
    Ok(exes)
}

/// The executable of a `compiler-artifact` message for a test target of the
/// package `package_id`.
fn test_executable(line: &str, package_id: &str) -> Option<PathBuf> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    let is_test = message["reason"] == "compiler-artifact"
        && message["profile"]["test"] == true
        && message["package_id"] == package_id;
    if !is_test {
        return None;
    }
    message["executable"].as_str().map(PathBuf::from)
}

/// The test paths of one executable (`--list --format terse`, with
/// `--ignored`: only the `#[ignore]`d ones), its output kept in the files
/// `<listing>.out` and `<listing>.err` (no pipe to fill up, however many
/// tests it has).
fn list(
    exe: &Path,
    dir: &Path,
    listing: &Path,
    deadline: Duration,
    only_ignored: bool,
) -> Result<Vec<String>, String> {
    let out_path = listing.with_extension("out");
    let err_path = listing.with_extension("err");
    let out = File::create(&out_path).map_err(|e| e.to_string())?;
    let err = File::create(&err_path).map_err(|e| e.to_string())?;
    let mut command = Command::new(exe);
    command.args(["--list", "--format", "terse"]);
    if only_ignored {
        command.arg("--ignored");
    }
    let mut child = command
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| e.to_string())?;
    let status = match child.wait_timeout(deadline).map_err(|e| e.to_string())? {
        Some(status) => status,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("listing ran past {} ms", deadline.as_millis()));
        }
    };
    if !status.success() {
        let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
        return Err(format!(
            "{status}: {}",
            stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
        ));
    }
    let stdout = std::fs::read(&out_path).map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&stdout)
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_owned)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_test_artifacts_of_the_package_count() {
        let id = "path+file:///x#fixture@0.1.0";
        let test = r#"{"reason":"compiler-artifact","package_id":"path+file:///x#fixture@0.1.0","profile":{"test":true},"executable":"/t/rules-1"}"#;
        let lib = r#"{"reason":"compiler-artifact","package_id":"path+file:///x#fixture@0.1.0","profile":{"test":false},"executable":null}"#;
        let dep = r#"{"reason":"compiler-artifact","package_id":"registry+x#serde@1.0.0","profile":{"test":true},"executable":"/t/serde-1"}"#;
        assert_eq!(test_executable(test, id), Some(PathBuf::from("/t/rules-1")));
        assert_eq!(test_executable(lib, id), None);
        assert_eq!(test_executable(dep, id), None);
        assert_eq!(test_executable("not json", id), None);
    }
}
