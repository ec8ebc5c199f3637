//! Running the built `xtask` binary against the fixture crates.

#![allow(dead_code)] // each test file uses a different part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The Cargo.toml of the fixture crate `name` (under `tests/fixtures/`).
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .join("Cargo.toml")
}

/// The Cargo.toml of the example crate `name` (under the repository's
/// `examples/`): a real crate using the real verification macros.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
        .join("Cargo.toml")
}

/// A scratch folder of this test binary, fresh for `name`.
pub fn scratch(name: &str) -> PathBuf {
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("xtask-tck-scratch")
        .join(name);
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

/// `xtask tck ARGS`, [`isolated`].
pub fn tck(args: &[&str]) -> Output {
    tck_with_env(args, &[])
}

/// `xtask tck ARGS` with the environment variables `vars` set for it (and
/// so for the rule tests it runs).
pub fn tck_with_env(args: &[&str], vars: &[(&str, &str)]) -> Output {
    isolated(Command::new(env!("CARGO_BIN_EXE_xtask")).arg("tck"))
        .envs(vars.iter().copied())
        .args(args)
        .output()
        .expect("xtask runs")
}

/// `command` (a runner, or a shell running one) set up as every test runs
/// a runner: every crate it builds goes into one shared target folder (so
/// their dependencies are built once), without debug info (nothing here
/// reads it, and the reference implementation's test executables, which
/// the folder rebuilds after every change to the TCK, then compile and link
/// much faster), and no TCK settings leak in.
pub fn isolated(command: &mut Command) -> &mut Command {
    command
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("xtask-tck-fixtures"),
        )
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RS_TCK_TIMEOUT_MS")
        .env_remove("RS_TCK_NO_SIGNAL_MS")
        .env_remove("RS_TCK_REPORT_DIR")
}

/// `xtask tck --manifest-path <fixture> ARGS`.
pub fn tck_on(fixture_name: &str, args: &[&str]) -> Output {
    tck_on_manifest(&fixture(fixture_name), args)
}

/// `xtask tck --manifest-path <manifest> ARGS`.
pub fn tck_on_manifest(manifest: &Path, args: &[&str]) -> Output {
    let mut all = vec!["--manifest-path", manifest.to_str().unwrap()];
    all.extend_from_slice(args);
    tck(&all)
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The exit code, with stderr shown when it is not the expected one.
pub fn assert_exit(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stderr:\n{}\nstdout:\n{}",
        stderr(output),
        stdout(output)
    );
}

/// stderr is exactly one line, starting with `error:`; returns it.
pub fn only_line(output: &Output) -> String {
    let text = stderr(output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "expected one line on stderr, got:\n{text}");
    assert!(lines[0].starts_with("error:"), "{}", lines[0]);
    lines[0].to_owned()
}

/// The last line of stderr: the command's own message after whatever cargo
/// printed while building.
pub fn last_stderr_line(output: &Output) -> String {
    stderr(output).lines().last().unwrap_or("").to_owned()
}

/// Durations vary from run to run: `| 12 ms |` becomes `| [ms] |`.
pub fn redact_durations(markdown: &str) -> String {
    markdown
        .lines()
        .map(|line| {
            line.split(" | ")
                .map(|cell| {
                    let is_duration = cell
                        .strip_suffix(" ms")
                        .is_some_and(|n| n == "<1" || n.bytes().all(|b| b.is_ascii_digit()));
                    if is_duration { "[ms]" } else { cell }
                })
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}
