//! The test binaries a bench runs: this tree's, and a baseline commit's,
//! built in a git worktree of its own under `target/bench-base/<REV>/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{VERIFICATIONS, Verification};

/// The reference implementation's test executables of one checkout, by
/// test target, and the folder they run in.
pub(crate) struct Binaries {
    executables: BTreeMap<String, PathBuf>,
    crate_dir: PathBuf,
}

impl Binaries {
    /// This tree's binaries, built in its own target folder.
    pub(crate) fn of_tree(root: &Path) -> Result<Self, String> {
        Self::build(root, None)
    }

    /// `rev`'s binaries: a detached worktree under
    /// `target/bench-base/<rev>/src` (made once), built into
    /// `target/bench-base/<rev>/target`.
    pub(crate) fn of_commit(root: &Path, rev: &str) -> Result<Self, String> {
        let base = root.join("target").join("bench-base").join(rev);
        let checkout = base.join("src");
        if !checkout.join("Cargo.toml").exists() {
            std::fs::create_dir_all(&base)
                .map_err(|error| format!("cannot create {}: {error}", base.display()))?;
            let status = Command::new("git")
                .args(["worktree", "add", "--detach"])
                .arg(&checkout)
                .arg(rev)
                .current_dir(root)
                .status()
                .map_err(|error| format!("cannot run git: {error}"))?;
            if !status.success() {
                return Err(format!("git worktree add {rev} failed"));
            }
        }
        Self::build(&checkout, Some(&base.join("target")))
    }

    fn build(checkout: &Path, target_dir: Option<&Path>) -> Result<Self, String> {
        let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cargo
            .args(["test", "-p", "reactive-streams-reference", "--no-run"])
            .args(["--message-format", "json-render-diagnostics"])
            .current_dir(checkout)
            .stderr(Stdio::inherit());
        for target in targets() {
            cargo.args(["--test", target]);
        }
        if let Some(dir) = target_dir {
            cargo.env("CARGO_TARGET_DIR", dir);
        }
        eprintln!("building the test binaries of {}", checkout.display());
        let output = cargo
            .output()
            .map_err(|error| format!("cannot run cargo: {error}"))?;
        if !output.status.success() {
            return Err(format!("the build in {} failed", checkout.display()));
        }
        let mut executables = BTreeMap::new();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let (Some(name), Some(exe)) = (
                message["target"]["name"].as_str(),
                message["executable"].as_str(),
            ) else {
                continue;
            };
            executables.insert(name.to_string(), PathBuf::from(exe));
        }
        Ok(Binaries {
            executables,
            crate_dir: checkout.join("reference-impl"),
        })
    }

    /// The executable holding `verification`, and the folder to run it in.
    pub(crate) fn exe(&self, verification: Verification) -> Result<(PathBuf, PathBuf), String> {
        self.executables
            .get(verification.target)
            .map(|exe| (exe.clone(), self.crate_dir.clone()))
            .ok_or_else(|| format!("no test binary `{}` was built", verification.target))
    }
}

/// The test targets holding the verifications, each once.
fn targets() -> Vec<&'static str> {
    let mut targets: Vec<&str> = VERIFICATIONS.iter().map(|v| v.target).collect();
    targets.dedup();
    targets
}
