//! Finding the rule tests: build the crate's test executables with cargo,
//! then ask each for its tests and keep those that follow the naming
//! contract ([`super::naming`]).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::naming::RuleTest;
use super::target::Crate;
use super::Fatal;

/// A rule test and the executable that holds it.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The test executable.
    pub exe: PathBuf,
    /// The rule test in it.
    pub test: RuleTest,
}

/// Builds the crate's tests (`cargo test --no-run`) and lists their rule
/// tests. cargo's own output (progress, warnings, compiler errors) goes to
/// our stderr as cargo renders it.
pub fn discover(cargo: &Path, krate: &Crate) -> Result<Vec<Planned>, Fatal> {
    let exes = build(cargo, krate)?;
    let mut planned = Vec::new();
    for exe in exes {
        for path in list(&exe, krate.dir())? {
            if let Some(test) = RuleTest::parse(&path) {
                planned.push(Planned {
                    exe: exe.clone(),
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

/// The test paths of one executable (`--list --format terse`).
fn list(exe: &Path, dir: &Path) -> Result<Vec<String>, Fatal> {
    let output = Command::new(exe)
        .args(["--list", "--format", "terse"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|error| Fatal(format!("cannot run {}: {error}", exe.display())))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(Fatal(format!(
            "cannot list the tests of {} ({}): {}",
            exe.display(),
            output.status,
            stderr.lines().last().unwrap_or("no message")
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
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
