//! `cargo rs-tck` installed from this workspace into a temporary root, as a
//! user installs it (issue 29): its report equals `cargo xtask tck`'s but for
//! durations, the CI snippets of docs/ci.md run as written, and bad input
//! gets one line, exit 2 and nothing written.
//!
//! The runner is installed once per test binary, a debug build into the
//! workspace's own target folder, so it reuses what `cargo test` built.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use support::*;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The installed `cargo-rs-tck` binary.
fn runner() -> &'static Path {
    static RUNNER: OnceLock<PathBuf> = OnceLock::new();
    RUNNER.get_or_init(|| {
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let root = tmp.join("cargo-rs-tck-root");
        let _ = std::fs::remove_dir_all(&root);
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        // `--offline` holds on a fresh machine too: `cargo-rs-tck` is a
        // member of this workspace and a dependency of `xtask`, so building
        // this test binary already fetched every crate it needs, at the
        // versions of the workspace's lock file (`--locked`); the install
        // resolves features for `cargo-rs-tck` alone, which needs no crate
        // the workspace build did not.
        let output = Command::new(cargo)
            .args(["install", "--debug", "--locked", "--offline", "--path"])
            .arg(workspace().join("cargo-rs-tck"))
            .arg("--root")
            .arg(&root)
            .env("CARGO_TARGET_DIR", tmp.parent().unwrap())
            .output()
            .expect("cargo install runs");
        assert_exit(&output, 0);
        let bin = root
            .join("bin")
            .join(format!("cargo-rs-tck{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.is_file(), "{} is installed", bin.display());
        bin
    })
}

/// `cargo rs-tck ARGS` in `dir`, run as cargo runs the subcommand:
/// `cargo-rs-tck rs-tck ARGS`.
fn rs_tck(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    isolated(Command::new(runner()).arg("rs-tck").args(args))
        .envs(vars.iter().copied())
        .current_dir(dir)
        .output()
        .expect("cargo-rs-tck runs")
}

/// A report with every `duration_ms` blanked.
fn without_durations(mut value: serde_json::Value) -> serde_json::Value {
    match &mut value {
        serde_json::Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                *field = if key == "duration_ms" {
                    serde_json::Value::Null
                } else {
                    without_durations(field.take())
                };
            }
        }
        serde_json::Value::Array(items) => {
            for item in items.iter_mut() {
                *item = without_durations(item.take());
            }
        }
        _ => {}
    }
    value
}

/// The prompt bound lifted: a loaded machine cannot turn a slow call into
/// a warning in one of two runs only.
const UNLOADED: [(&str, &str); 1] = [("RS_TCK_PROMPT_MS", "60000")];

/// The installed runner's JSON report of `examples/acme-streams`, every
/// rule test, durations blanked: made once, for the two tests that
/// compare other reports with it.
fn whole_acme_report() -> &'static serde_json::Value {
    static REPORT: OnceLock<serde_json::Value> = OnceLock::new();
    REPORT.get_or_init(|| {
        let acme = example("acme-streams");
        let installed = rs_tck(acme.parent().unwrap(), &["--format", "json"], &UNLOADED);
        assert_exit(&installed, 0);
        without_durations(serde_json::from_slice(&installed.stdout).expect("a JSON report"))
    })
}

#[test]
fn the_installed_runner_reports_what_cargo_xtask_tck_reports() {
    let acme = example("acme-streams");
    runner();
    let (installed, xtask) = std::thread::scope(|scope| {
        let installed = scope.spawn(whole_acme_report);
        let xtask = tck_with_env(
            &[
                "--manifest-path",
                acme.to_str().unwrap(),
                "--format",
                "json",
            ],
            &UNLOADED,
        );
        (installed.join().unwrap(), xtask)
    });
    assert_exit(&xtask, 0);
    assert_eq!(installed["crate"], "acme-streams");
    assert_eq!(
        installed,
        &without_durations(serde_json::from_slice(&xtask.stdout).expect("a JSON report"))
    );
    the_third_party_example_crate_passes_every_verification_it_declares(installed);
}

/// `examples/acme-streams`, a crate of its own using the real macros,
/// passes every verification it declares. Checked on the report above
/// rather than on a run of its own: one run of the crate's rule tests
/// fewer in `cargo test` (issue 30).
fn the_third_party_example_crate_passes_every_verification_it_declares(report: &serde_json::Value) {
    assert_eq!(report["summary"]["failed"], 0, "{report}");
    let results = report["results"].as_array().unwrap();
    for verification in [
        "publisher",
        "subscriber_blackbox",
        "subscriber_whitebox",
        "processor",
    ] {
        assert!(
            results
                .iter()
                .any(|r| r["verification"] == verification && r["verdict"] == "passed"),
            "no passed {verification} rule in {report}"
        );
    }
    assert!(
        report["summary"]["passed"].as_u64().unwrap() >= 90,
        "{report}"
    );
}

#[test]
fn bad_input_gets_one_line_exit_2_and_nothing_written() {
    let written = scratch("installed-bad-input");
    let no_crate = std::env::temp_dir().join(format!("rs-tck-no-crate-{}", std::process::id()));
    std::fs::create_dir_all(&no_crate).unwrap();
    assert!(
        no_crate
            .ancestors()
            .all(|folder| !folder.join("Cargo.toml").exists()),
        "{} must have no Cargo.toml above it",
        no_crate.display()
    );
    let output = |name: &str| written.join(name).to_str().unwrap().to_owned();
    let fixture_dir = |name: &str| fixture(name).parent().unwrap().to_path_buf();
    let cases: [(&str, PathBuf, Vec<String>, &str); 4] = [
        (
            "no crate",
            no_crate.clone(),
            vec!["--output".into(), output("no-crate.md")],
            "error: no crate here: there is no Cargo.toml in",
        ),
        (
            "no TCK tests",
            fixture_dir("no-tests"),
            vec![],
            "error: zero rules executed: fixture-no-tests has no TCK tests; add `reactive-streams-tck = \"0.1\"` under [dev-dependencies]",
        ),
        (
            "mismatched versions",
            fixture_dir("other-tck-version"),
            vec![
                "--format".into(),
                "junit".into(),
                "--output".into(),
                output("other.xml"),
            ],
            "error: fixture-other-tck-version uses reactive-streams-tck 0.2.0, but this runner reads the results of reactive-streams-tck 0.1.*",
        ),
        (
            "unknown flag",
            example("acme-streams").parent().unwrap().to_path_buf(),
            vec!["--frobnicate".into(), "--output".into(), output("flag.md")],
            "error: unexpected argument '--frobnicate' found",
        ),
    ];
    runner();
    let outputs: Vec<Output> = std::thread::scope(|scope| {
        let running: Vec<_> = cases
            .iter()
            .map(|(_, dir, args, _)| {
                scope.spawn(move || {
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    rs_tck(dir, &args, &[])
                })
            })
            .collect();
        running.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let _ = std::fs::remove_dir_all(&no_crate);
    for ((name, _, _, expected), output) in cases.iter().zip(&outputs) {
        assert_exit(output, 2);
        let line = only_line(output);
        assert!(line.starts_with(expected), "{name}: {line}");
        assert!(output.stdout.is_empty(), "{name}: {}", stdout(output));
    }
    let left: Vec<_> = std::fs::read_dir(&written).unwrap().collect();
    assert!(left.is_empty(), "nothing is written: {left:?}");
}

/// The fenced block of `doc` whose first line is `first_line`.
fn block<'a>(doc: &'a str, first_line: &str) -> &'a str {
    let start = doc
        .find(&format!("```yaml\n{first_line}\n"))
        .unwrap_or_else(|| panic!("docs/ci.md has no yaml block opening with {first_line}"));
    let body = &doc[start + "```yaml\n".len()..];
    &body[..body.find("\n```").expect("the block ends")]
}

/// The shell commands of a CI file: every `run:` value (GitHub Actions) and
/// every item of a `script:` list (GitLab CI). Block scalars are refused,
/// so a command cannot hide from the test.
fn commands(yaml: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut script_indent = None;
    for line in yaml.lines() {
        let indent = line.len() - line.trim_start().len();
        let text = line.trim_start();
        if let Some(script) = script_indent {
            match text.strip_prefix("- ") {
                Some(item) if indent > script => {
                    commands.push(item.to_owned());
                    continue;
                }
                _ => script_indent = None,
            }
        }
        let key = text.strip_prefix("- ").unwrap_or(text);
        if let Some(command) = key.strip_prefix("run:") {
            let command = command.trim();
            assert!(
                !command.is_empty() && !command.starts_with(['|', '>']),
                "one command per `run:` line in docs/ci.md: {line}"
            );
            commands.push(command.to_owned());
        } else if key == "script:" {
            script_indent = Some(indent);
        }
    }
    commands
}

/// Removes a file the snippets write when dropped, however the test ends.
struct Written(PathBuf);

impl Drop for Written {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A command once per value of the matrix it uses (`${{ matrix.share }}`
/// and the block's `share: [1, 2, 3]`), as the matrix job runs it; other
/// commands as they are.
fn per_matrix_value(yaml: &str, command: &str) -> Vec<String> {
    const SHARE: &str = "${{ matrix.share }}";
    if !command.contains(SHARE) {
        return vec![command.to_owned()];
    }
    let values = yaml
        .lines()
        .find_map(|line| line.trim().strip_prefix("share: ["))
        .and_then(|rest| rest.strip_suffix(']'))
        .expect("a matrix job lists its shares as `share: [1, 2, 3]`");
    values
        .split(',')
        .map(|value| command.replace(SHARE, value.trim()))
        .collect()
}

#[cfg(unix)]
#[test]
fn the_ci_snippets_of_docs_ci_md_run_as_written() {
    let doc = std::fs::read_to_string(workspace().join("docs/ci.md")).unwrap();
    // In the crate's own folder, where CI runs them: a copy would share
    // the names of its test executables in the shared target folder (cargo
    // names them by the path within their workspace) and rebuild them under
    // the other tests' feet. The reports they write there are removed.
    let crate_dir = example("acme-streams").parent().unwrap().to_path_buf();
    let written = |name: &str| Written(crate_dir.join(name));
    let junit_report = written("tck-report.xml");
    let html_report = written("tck-report.html");
    let shares: Vec<Written> = (1..=3).map(|k| written(&format!("tck-{k}.json"))).collect();
    let summary = scratch("ci-snippets").join("github-step-summary.md");
    let bin = runner().parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    // cargo looks for `cargo-rs-tck` in $CARGO_HOME/bin before PATH: one
    // installed there would stand in for the runner under test, so then a
    // shell function routes `cargo rs-tck` to it as cargo would.
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let shadowed = home.is_some_and(|h| h.join("bin/cargo-rs-tck").exists());
    let prelude = if shadowed {
        format!(
            "cargo() {{ if [ \"$1\" = rs-tck ]; then '{}' \"$@\"; else command cargo \"$@\"; fi; }}\n",
            runner().display()
        )
    } else {
        String::new()
    };
    for first_line in [
        "# .github/workflows/tck.yml",
        "# .gitlab-ci.yml",
        "# .github/workflows/tck-shares.yml",
    ] {
        let yaml = block(&doc, first_line);
        let (installs, runs): (Vec<String>, Vec<String>) = commands(yaml)
            .into_iter()
            .flat_map(|command| per_matrix_value(yaml, &command))
            .partition(|command| command.starts_with("cargo install "));
        assert!(
            !installs.is_empty() && installs.iter().all(|i| i.ends_with(" cargo-rs-tck")),
            "{first_line}: installs of cargo-rs-tck, which the runner installed from this workspace stands in for: {installs:?}"
        );
        assert!(
            !runs.is_empty() && runs.iter().all(|r| r.starts_with("cargo rs-tck ")),
            "{first_line}: {runs:?}"
        );
        let _ = std::fs::remove_file(&junit_report.0);
        for run in &runs {
            let output = isolated(
                Command::new("bash")
                    .args(["-e", "-o", "pipefail", "-c"])
                    .arg(format!("{prelude}{run}")),
            )
            .current_dir(&crate_dir)
            .env("PATH", &path)
            .env("CI", "true")
            .env("GITHUB_STEP_SUMMARY", &summary)
            .envs(UNLOADED)
            .output()
            .unwrap();
            assert_exit(&output, 0);
            if run.starts_with("cargo rs-tck merge ") {
                continue;
            }
            let progress = stderr(&output);
            assert!(
                progress.contains("acme-streams: running ")
                    && progress.contains("] passed ")
                    && !progress.contains('\r'),
                "{first_line}: `{run}` shows plain progress lines in CI:\n{progress}"
            );
        }
        if first_line.ends_with("tck-shares.yml") {
            let page = std::fs::read_to_string(&html_report.0).unwrap();
            assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
        } else {
            let junit = std::fs::read_to_string(&junit_report.0).unwrap();
            assert!(junit.starts_with("<?xml"), "{first_line}: {junit}");
        }
    }
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(summary.contains("| target |"), "{summary}");
    assert!(
        summary
            .lines()
            .last()
            .unwrap()
            .contains(" passed, 0 failed, "),
        "{summary}"
    );
    the_shares_cover_every_rule_test_once_and_merge_into_the_whole_report(&crate_dir, &shares);
}

/// The JSON reports of `--partition 1/3` … `3/3` the matrix snippet wrote:
/// every rule test of the whole run is in exactly one of them, and `merge`
/// makes them the whole run's report but for durations (issue 41).
fn the_shares_cover_every_rule_test_once_and_merge_into_the_whole_report(
    crate_dir: &Path,
    shares: &[Written],
) {
    let tests = |report: &serde_json::Value| -> Vec<String> {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["test"] != "")
            .map(|r| {
                format!(
                    "{} {} {} {}",
                    r["target"], r["verification"], r["module"], r["test"]
                )
            })
            .collect()
    };
    let whole = whole_acme_report();
    let mut expected = tests(whole);
    expected.sort();
    let mut dealt = Vec::new();
    for (k, share) in shares.iter().enumerate() {
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&share.0).unwrap()).unwrap();
        assert_eq!(report["partition"], format!("{}/3", k + 1));
        let mine = tests(&report);
        assert!(
            mine.len() * 3 + 3 >= expected.len(),
            "share {}/3 has {} of {} rule tests",
            k + 1,
            mine.len(),
            expected.len()
        );
        dealt.extend(mine);
    }
    dealt.sort();
    assert_eq!(dealt, expected, "every rule test in exactly one share");
    let names: Vec<&str> = shares
        .iter()
        .rev()
        .map(|s| s.0.file_name().unwrap().to_str().unwrap())
        .collect();
    let mut args = vec!["merge"];
    args.extend(&names);
    args.extend(["--format", "json"]);
    let merged = rs_tck(crate_dir, &args, &[]);
    assert_exit(&merged, 0);
    let merged = without_durations(serde_json::from_slice(&merged.stdout).unwrap());
    assert_eq!(&merged, whole, "the merged report is the whole run's");
    let missing = rs_tck(crate_dir, &["merge", names[0], names[1]], &[]);
    assert_exit(&missing, 2);
    assert!(
        only_line(&missing).starts_with("error: the share 1/3 of --partition k/3 is missing"),
        "{}",
        stderr(&missing)
    );
}
