//! `cargo xtask tck` on bad input: one line on stderr saying what is wrong
//! and what to do, exit status 2, no report (and no report file).

mod support;

use support::*;

#[test]
fn a_path_that_does_not_exist() {
    let output = tck(&["--manifest-path", "no/such/crate/Cargo.toml"]);
    assert_exit(&output, 2);
    let line = only_line(&output);
    assert!(
        line.contains("no/such/crate/Cargo.toml does not exist"),
        "{line}"
    );
    assert!(line.contains("--manifest-path"), "{line}");
    assert!(output.stdout.is_empty());
}

#[test]
fn a_workspace_manifest_is_not_a_crate() {
    let output = tck_on("workspace-only", &[]);
    assert_exit(&output, 2);
    let line = only_line(&output);
    assert!(
        line.contains("is a workspace manifest, not a crate"),
        "{line}"
    );
}

#[test]
fn a_file_that_is_not_toml_is_not_a_crate() {
    let output = tck_on("not-toml", &[]);
    assert_exit(&output, 2);
    let line = only_line(&output);
    assert!(line.contains("is not a crate's Cargo.toml"), "{line}");
    assert!(
        line.contains("not-toml/Cargo.toml:1:"),
        "cargo's error and its place: {line}"
    );
}

#[test]
fn an_unknown_format() {
    let output = tck(&["--format", "xml"]);
    assert_exit(&output, 2);
    let line = only_line(&output);
    assert!(line.contains("invalid value 'xml' for '--format"), "{line}");
    assert!(line.contains("md, json, junit"), "{line}");
}

#[test]
fn an_empty_rule_pattern() {
    let output = tck(&["--rules", "3.9,"]);
    assert_exit(&output, 2);
    let line = only_line(&output);
    assert!(line.contains("empty part"), "{line}");
}

#[test]
fn an_output_folder_that_does_not_exist() {
    let output = tck_on("passing", &["--output", "no/such/folder/report.md"]);
    assert_exit(&output, 2);
    let line = only_line(&output);
    assert!(line.contains("does not exist"), "{line}");
}

#[test]
fn a_crate_that_does_not_compile_shows_the_compiler_error() {
    let report = scratch("broken-build").join("report.md");
    let output = tck_on("broken-build", &["--output", report.to_str().unwrap()]);
    assert_exit(&output, 2);
    let text = stderr(&output);
    assert!(
        text.contains("error[E0308]"),
        "the compiler's error is shown:\n{text}"
    );
    let last = last_stderr_line(&output);
    assert!(
        last.starts_with("error: the tests of fixture-broken-build do not build"),
        "{last}"
    );
    assert!(!report.exists(), "no report is written");
    assert!(output.stdout.is_empty());
}

#[test]
fn a_crate_without_tck_tests_executes_zero_rules() {
    let report = scratch("no-tests").join("report.json");
    let output = tck_on(
        "no-tests",
        &["--format", "json", "--output", report.to_str().unwrap()],
    );
    assert_exit(&output, 2);
    // Refused before any build: nothing but the line.
    let line = only_line(&output);
    assert!(
        line.starts_with("error: zero rules executed: fixture-no-tests has no TCK tests"),
        "{line}"
    );
    assert!(line.contains("[dev-dependencies]"), "{line}");
    assert!(line.contains("publisher_verification!(…)"), "{line}");
    assert!(!report.exists(), "no report is written");
    assert!(output.stdout.is_empty());
}

#[test]
fn a_tck_whose_result_format_differs() {
    let report = scratch("other-tck-version").join("report.json");
    let output = tck_on(
        "other-tck-version",
        &["--format", "json", "--output", report.to_str().unwrap()],
    );
    assert_exit(&output, 2);
    let line = only_line(&output);
    assert!(
        line.starts_with(
            "error: fixture-other-tck-version uses reactive-streams-tck 0.2.0, but this runner reads the results of reactive-streams-tck 0.1.*"
        ),
        "{line}"
    );
    assert!(
        line.contains("depend on reactive-streams-tck = \"0.1\""),
        "{line}"
    );
    assert!(!report.exists(), "no report is written");
    assert!(output.stdout.is_empty());
}

#[test]
fn a_rule_pattern_that_matches_nothing() {
    let report = scratch("pattern").join("report.md");
    let output = tck_on(
        "passing",
        &["--rules", "2.*", "--output", report.to_str().unwrap()],
    );
    assert_exit(&output, 2);
    let last = last_stderr_line(&output);
    assert!(
        last.starts_with("error: --rules '2.*' matches none of the rule tests of fixture-passing"),
        "{last}"
    );
    assert!(
        last.contains("1.1, 1.4, 1.5, 3.9, streamlet.3.c, tck.timeouts"),
        "{last}"
    );
    assert!(!report.exists(), "no report is written");
}

#[test]
fn the_reference_implementation_is_verified_by_default() {
    let output = tck(&["--rules", "3.9"]);
    assert_exit(&output, 0);
    let report = stdout(&output);
    assert!(
        report.contains("## `range_publisher` (publisher verification)"),
        "{report}"
    );
    assert!(report.contains("| 3.9 | MUST |"), "{report}");
    assert!(
        report
            .lines()
            .last()
            .unwrap()
            .ends_with(" 0 failed, 0 skipped"),
        "{report}"
    );
}
