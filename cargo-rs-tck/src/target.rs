//! Which crate to verify: the crate named by `--manifest-path`, or the one
//! in the current folder, as cargo sees it.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Fatal;

/// The crate whose TCK tests are built and run.
#[derive(Debug, Clone)]
pub struct Crate {
    /// The package name.
    pub name: String,
    /// cargo's package id, as in its `compiler-artifact` messages.
    pub id: String,
    /// Its Cargo.toml.
    pub manifest_path: PathBuf,
}

impl Crate {
    /// The crate's folder: rule tests run there, as under `cargo test`.
    pub fn dir(&self) -> &Path {
        self.manifest_path.parent().unwrap_or(Path::new("."))
    }
}

/// The manifest of the crate in the current folder, verified when no
/// `--manifest-path` is given: the nearest `Cargo.toml` in it or a parent
/// folder, as cargo finds it.
pub fn current_manifest() -> Result<PathBuf, Fatal> {
    let here = std::env::current_dir().map_err(|error| {
        Fatal(format!(
            "cannot read the current folder: {error}; pass --manifest-path"
        ))
    })?;
    here.ancestors()
        .map(|folder| folder.join("Cargo.toml"))
        .find(|manifest| manifest.is_file())
        .ok_or_else(|| {
            Fatal(format!(
                "no crate here: there is no Cargo.toml in {} or any parent folder; run in the folder of the crate to verify, or pass --manifest-path with its Cargo.toml",
                here.display()
            ))
        })
}

/// Asks cargo which package `manifest` is; one-line errors for a missing
/// path, a file cargo cannot read and a workspace-only manifest.
pub fn resolve(cargo: &Path, manifest: &Path) -> Result<Crate, Fatal> {
    let shown = manifest.display();
    let manifest = if manifest.is_dir() {
        manifest.join("Cargo.toml")
    } else {
        manifest.to_path_buf()
    };
    if !manifest.exists() {
        return Err(Fatal(format!(
            "{shown} does not exist; pass --manifest-path with the Cargo.toml of the crate to verify"
        )));
    }
    let manifest = manifest.canonicalize().map_err(|error| {
        Fatal(format!(
            "cannot read {shown}: {error}; pass a readable Cargo.toml"
        ))
    })?;
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .map_err(|error| Fatal(format!("cannot run cargo ({}): {error}", cargo.display())))?;
    if !output.status.success() {
        return Err(Fatal(format!(
            "{shown} is not a crate's Cargo.toml: cargo says \"{}\"; pass the Cargo.toml of the crate whose tests invoke the verification macros",
            first_error(&String::from_utf8_lossy(&output.stderr))
        )));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|error| Fatal(format!("cannot read `cargo metadata` output: {error}")))?;
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let same_file = |path: &serde_json::Value| {
        path.as_str()
            .and_then(|p| Path::new(p).canonicalize().ok())
            .is_some_and(|p| p == manifest)
    };
    match packages.iter().find(|p| same_file(&p["manifest_path"])) {
        Some(package) => Ok(Crate {
            name: package["name"].as_str().unwrap_or_default().to_owned(),
            id: package["id"].as_str().unwrap_or_default().to_owned(),
            manifest_path: manifest,
        }),
        None => {
            let members: Vec<String> = packages
                .iter()
                .filter_map(|p| p["manifest_path"].as_str())
                .map(|p| p.to_owned())
                .collect();
            let hint = if members.is_empty() {
                "it has no member crates".to_owned()
            } else {
                format!("pass one of its members' manifests: {}", members.join(", "))
            };
            Err(Fatal(format!(
                "{shown} is a workspace manifest, not a crate (it has no [package]); {hint}"
            )))
        }
    }
}

/// cargo's error in one line: its `error:` line and the first cause.
pub fn first_error(stderr: &str) -> String {
    let mut lines = stderr.lines().map(str::trim).filter(|l| !l.is_empty());
    let error = lines
        .by_ref()
        .find(|l| l.starts_with("error"))
        .map(|l| l.trim_start_matches("error:").trim().to_owned())
        .unwrap_or_else(|| "no error message".to_owned());
    let rest: Vec<&str> = lines.collect();
    let cause = rest
        .iter()
        .skip_while(|l| !l.starts_with("Caused by"))
        .nth(1)
        .map(|l| format!(": {l}"))
        .unwrap_or_default();
    // Newer cargo points at the place instead: ` --> path:line:column`.
    let place = rest
        .iter()
        .find_map(|l| l.strip_prefix("-->"))
        .map(|p| format!(" at {}", p.trim()))
        .unwrap_or_default();
    format!("{error}{cause}{place}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_errors_name_the_place() {
        let stderr =
            "error: key with no value, expected `=`\n --> x/Cargo.toml:1:6\n  |\n1 | This is\n";
        assert_eq!(
            first_error(stderr),
            "key with no value, expected `=` at x/Cargo.toml:1:6"
        );
    }

    #[test]
    fn cargo_errors_fold_into_one_line() {
        let stderr = "error: failed to parse manifest at `/x/Cargo.toml`\n\nCaused by:\n  TOML parse error at line 1, column 5\n    |\n  1 | this is not toml\n";
        assert_eq!(
            first_error(stderr),
            "failed to parse manifest at `/x/Cargo.toml`: TOML parse error at line 1, column 5"
        );
    }
}
