//! Whether the crate can be verified by this runner at all, before anything
//! is built: it depends on a `reactive-streams-tck` (else it has no TCK
//! tests), and that one speaks the result format this runner reads.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

use reactive_streams_tck::outcome::VERSION;

use super::Fatal;
use super::target::{Crate, first_error};

/// The package whose rule tests write the results this runner reads.
const TCK: &str = "reactive-streams-tck";

/// Fails when the crate's dependency graph (dev-dependencies included)
/// holds no `reactive-streams-tck`, or one this runner cannot read.
pub fn check(cargo: &Path, krate: &Crate) -> Result<(), Fatal> {
    let versions = tck_versions(cargo, krate)?;
    if versions.is_empty() {
        return Err(no_tck_tests(&krate.name));
    }
    match versions.iter().find(|v| !compatible(v, VERSION)) {
        Some(found) => Err(Fatal(format!(
            "{} uses {TCK} {found}, but this runner reads the results of {TCK} {} (it is built with {VERSION}); align the versions: depend on {TCK} = \"{}\", or use the runner of {found} (`cargo install cargo-rs-tck --version '^{}'`)",
            krate.name,
            series(VERSION) + ".*",
            series(VERSION),
            series(found),
        ))),
        None => Ok(()),
    }
}

/// The one line for a crate without TCK tests: what to add.
pub fn no_tck_tests(krate: &str) -> Fatal {
    Fatal(format!(
        "zero rules executed: {krate} has no TCK tests; add `{TCK} = \"{}\"` under [dev-dependencies] in its Cargo.toml and a verification macro such as `reactive_streams_tck::publisher_verification!(…)` to a test file such as tests/tck.rs, then run again",
        series(VERSION)
    ))
}

/// The versions of `reactive-streams-tck` the crate depends on, directly
/// or not, as cargo resolves them.
fn tck_versions(cargo: &Path, krate: &Crate) -> Result<Vec<String>, Fatal> {
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(&krate.manifest_path)
        .output()
        .map_err(|error| Fatal(format!("cannot run cargo ({}): {error}", cargo.display())))?;
    if !output.status.success() {
        return Err(Fatal(format!(
            "cannot resolve the dependencies of {}: cargo says \"{}\"; fix its Cargo.toml, then run again",
            krate.name,
            first_error(&String::from_utf8_lossy(&output.stderr))
        )));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|error| Fatal(format!("cannot read `cargo metadata` output: {error}")))?;
    Ok(versions_in(&metadata, &krate.id))
}

/// The `reactive-streams-tck` versions reachable from `root` in a
/// `cargo metadata` resolve graph, sorted.
fn versions_in(metadata: &serde_json::Value, root: &str) -> Vec<String> {
    let deps: HashMap<&str, Vec<&str>> = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|node| {
            let id = node["id"].as_str()?;
            let deps = node["dependencies"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d.as_str())
                .collect();
            Some((id, deps))
        })
        .collect();
    let mut seen = HashSet::from([root]);
    let mut todo = vec![root];
    while let Some(id) = todo.pop() {
        for &dep in deps.get(id).into_iter().flatten() {
            if seen.insert(dep) {
                todo.push(dep);
            }
        }
    }
    let mut versions: Vec<String> = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["name"] == TCK && p["id"].as_str().is_some_and(|id| seen.contains(id)))
        .filter_map(|p| p["version"].as_str().map(str::to_owned))
        .collect();
    versions.sort();
    versions.dedup();
    versions
}

/// `major.minor.patch`, pre-release and build metadata ignored.
fn numbers(version: &str) -> Option<[u64; 3]> {
    let core = version.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let numbers = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(numbers)
}

/// Whether cargo would accept `found` for the requirement `^ours`: the
/// same major version, or the same `0.minor`, or the same `0.0.patch`.
fn compatible(found: &str, ours: &str) -> bool {
    match (numbers(found), numbers(ours)) {
        (Some(found), Some(ours)) => {
            let significant = found.iter().position(|&n| n != 0).unwrap_or(2);
            found[..=significant] == ours[..=significant]
        }
        _ => found == ours,
    }
}

/// The semver-compatible series of a version: `1`, `0.2`, `0.0.3`.
fn series(version: &str) -> String {
    match numbers(version) {
        Some([0, 0, patch]) => format!("0.0.{patch}"),
        Some([0, minor, _]) => format!("0.{minor}"),
        Some([major, _, _]) => major.to_string(),
        None => version.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compatible_is_cargos_caret() {
        assert!(compatible("0.1.0", "0.1.7"));
        assert!(compatible("0.1.3-rc.1", "0.1.0"));
        assert!(!compatible("0.2.0", "0.1.0"));
        assert!(!compatible("0.0.1", "0.0.2"));
        assert!(compatible("1.4.0", "1.0.2"));
        assert!(!compatible("2.0.0", "1.9.0"));
        assert!(!compatible("1.0.0", "0.1.0"));
    }

    #[test]
    fn series_names_what_to_depend_on() {
        assert_eq!(series("0.1.4"), "0.1");
        assert_eq!(series("0.0.3"), "0.0.3");
        assert_eq!(series("2.3.1"), "2");
    }

    #[test]
    fn versions_are_those_reachable_from_the_crate() {
        let metadata = serde_json::json!({
            "packages": [
                { "name": "me", "id": "me", "version": "0.1.0" },
                { "name": TCK, "id": "tck-a", "version": "0.1.0" },
                { "name": TCK, "id": "tck-b", "version": "0.3.0" },
                { "name": "helper", "id": "helper", "version": "1.0.0" },
            ],
            "resolve": { "nodes": [
                { "id": "me", "dependencies": ["helper"] },
                { "id": "helper", "dependencies": ["tck-a"] },
                { "id": "tck-a", "dependencies": [] },
                { "id": "tck-b", "dependencies": [] },
            ] }
        });
        assert_eq!(versions_in(&metadata, "me"), ["0.1.0"]);
        // The TCK verifying itself uses itself.
        assert_eq!(versions_in(&metadata, "tck-b"), ["0.3.0"]);
    }
}
