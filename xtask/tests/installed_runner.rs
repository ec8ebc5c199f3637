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

#[test]
fn the_installed_runner_reports_what_cargo_xtask_tck_reports() {
    let acme = example("acme-streams");
    // The prompt bound lifted: a loaded machine cannot turn a slow call
    // into a warning in one of the two runs only.
    let vars = [("RS_TCK_PROMPT_MS", "60000")];
    runner();
    let (installed, xtask) = std::thread::scope(|scope| {
        let installed =
            scope.spawn(|| rs_tck(acme.parent().unwrap(), &["--format", "json"], &vars));
        let xtask = tck_with_env(
            &[
                "--manifest-path",
                acme.to_str().unwrap(),
                "--format",
                "json",
            ],
            &vars,
        );
        (installed.join().unwrap(), xtask)
    });
    assert_exit(&installed, 0);
    assert_exit(&xtask, 0);
    let report = |output: &Output| -> serde_json::Value {
        without_durations(serde_json::from_slice(&output.stdout).expect("a JSON report"))
    };
    let installed = report(&installed);
    assert_eq!(installed["crate"], "acme-streams");
    assert_eq!(installed, report(&xtask));
    the_third_party_example_crate_passes_every_verification_it_declares(&installed);
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

#[cfg(unix)]
#[test]
fn the_ci_snippets_of_docs_ci_md_run_as_written() {
    let doc = std::fs::read_to_string(workspace().join("docs/ci.md")).unwrap();
    // In the crate's own folder, where CI runs them: a copy would share
    // the names of its test executables in the shared target folder (cargo
    // names them by the path within their workspace) and rebuild them under
    // the other tests' feet. The report they write there is removed.
    let crate_dir = example("acme-streams").parent().unwrap().to_path_buf();
    let junit_report = Written(crate_dir.join("tck-report.xml"));
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
    for first_line in ["# .github/workflows/tck.yml", "# .gitlab-ci.yml"] {
        let (installs, runs): (Vec<String>, Vec<String>) = commands(block(&doc, first_line))
            .into_iter()
            .partition(|command| command.starts_with("cargo install "));
        assert!(
            installs.len() == 1 && installs[0].ends_with(" cargo-rs-tck"),
            "{first_line}: one install of cargo-rs-tck, which the runner installed from this workspace stands in for: {installs:?}"
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
            .output()
            .unwrap();
            assert_exit(&output, 0);
            let progress = stderr(&output);
            assert!(
                progress.contains("acme-streams: running ")
                    && progress.contains("] passed ")
                    && !progress.contains('\r'),
                "{first_line}: `{run}` shows plain progress lines in CI:\n{progress}"
            );
        }
        let junit = std::fs::read_to_string(&junit_report.0).unwrap();
        assert!(junit.starts_with("<?xml"), "{first_line}: {junit}");
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
}
