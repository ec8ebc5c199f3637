//! Adopting the TCK on a crate that fails today (issue 41): a baseline of
//! known failures turns the run red on change, not on presence, and the
//! HTML report, looked at in a real headless browser.
//!
//! The fixture `known-failures` fails §1.7 and §3.9, both listed in its
//! `tck-baseline.toml`; `FIXTURE_FIXED=1.7` fixes the first (its entry is
//! then stale) and `FIXTURE_BROKEN=1.3` breaks a rule the file does not
//! list.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use support::*;

const FIXTURE: &str = "known-failures";

fn run(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let manifest = fixture(FIXTURE);
    let mut all = vec!["--manifest-path", manifest.to_str().unwrap()];
    all.extend_from_slice(args);
    tck_with_env(&all, vars)
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).expect("a JSON report")
}

/// The `rule_verdict` of each rule the fixture's tests report.
fn verdicts(report: &serde_json::Value) -> Vec<(String, String)> {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["test"] != "")
        .map(|r| {
            (
                r["rule"].as_str().unwrap().to_owned(),
                r["rule_verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn baseline_lines(output: &Output) -> Vec<String> {
    stderr(output)
        .lines()
        .filter(|l| l.starts_with("baseline: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn two_known_failures_listed_exit_0_and_are_reported_known() {
    let (held, ignored) = std::thread::scope(|scope| {
        let ignored = scope.spawn(|| run(&["--format", "json", "--no-baseline"], &[]));
        (run(&["--format", "json"], &[]), ignored.join().unwrap())
    });
    assert_exit(&held, 0);
    let report = json(&held);
    assert_eq!(report["summary"]["known"], 2, "{report}");
    assert_eq!(report["summary"]["failed"], 0, "{report}");
    assert_eq!(report["summary"]["passed"], 4, "{report}");
    assert_eq!(
        verdicts(&report),
        [
            ("1.1", "passed"),
            ("1.3", "passed"),
            ("1.7", "known"),
            ("3.9", "known"),
            ("tck.factory", "passed"),
            ("streamlet.3.c", "passed"),
        ]
        .map(|(r, v)| (r.to_owned(), v.to_owned()))
    );
    let row = |rule: &str| {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["rule"] == rule)
            .unwrap()
            .clone()
    };
    assert_eq!(
        row("1.7")["verdict"],
        "failed",
        "the test's own verdict stays"
    );
    assert_eq!(
        row("1.7")["known_reason"],
        "https://example.org/channel/issues/12: on_next after on_complete"
    );
    assert_eq!(row("1.1")["known_reason"], serde_json::Value::Null);
    assert_eq!(report["baseline"]["file"], "tck-baseline.toml");
    assert_eq!(report["baseline"]["stale"], serde_json::json!([]));
    assert!(baseline_lines(&held).is_empty(), "{}", stderr(&held));

    // Without the baseline, the same run is red with the two failures.
    assert_exit(&ignored, 1);
    let report = json(&ignored);
    assert_eq!(report["summary"]["failed"], 2, "{report}");
    assert_eq!(report["summary"]["known"], 0, "{report}");
    assert_eq!(report["baseline"], serde_json::Value::Null);
}

#[test]
fn the_markdown_and_junit_reports_count_the_known_failures() {
    let (markdown, junit) = std::thread::scope(|scope| {
        let junit = scope.spawn(|| run(&["--format", "junit"], &[]));
        (run(&["--format", "md"], &[]), junit.join().unwrap())
    });
    assert_exit(&markdown, 0);
    let text = stdout(&markdown);
    assert!(
        text.contains("| `fixture::Channel` | publisher | 3 | 0 | 0 | 0 | 2 | — |"),
        "{text}"
    );
    assert!(text.contains("\n### Known failures\n"), "{text}");
    assert!(
        text.contains("\n2 known: failures the baseline `tck-baseline.toml` lists"),
        "{text}"
    );
    assert_eq!(text.lines().last(), Some("4 passed, 0 failed, 0 skipped"));
    assert_exit(&junit, 0);
    let xml = stdout(&junit);
    assert!(xml.contains("failures=\"0\""), "{xml}");
    assert!(
        xml.contains("<skipped message=\"known failure (a reproduction: tests/rules.rs, spec_3_09): §3.9: [publisher of 3] expected on_error(illegal demand) after request(0); actual: on_next(0) &lt;&amp;&gt;\"/>"),
        "{xml}"
    );
}

#[test]
fn an_entry_that_no_longer_fails_is_stale_and_named() {
    let output = run(&["--format", "json"], &[("FIXTURE_FIXED", "1.7")]);
    assert_exit(&output, 1);
    assert_eq!(
        baseline_lines(&output),
        [
            "baseline: stale entry: tck-baseline.toml lists `fixture::Channel` (publisher) test spec_1_07, which no longer fails; remove the entry (--update-baseline does)"
        ]
    );
    let report = json(&output);
    assert_eq!(report["summary"]["known"], 1, "{report}");
    assert_eq!(report["summary"]["failed"], 0, "{report}");
    assert_eq!(report["baseline"]["stale"][0]["test"], "spec_1_07");
}

#[test]
fn a_failure_the_baseline_does_not_list_is_named() {
    let output = run(&["--format", "json"], &[("FIXTURE_BROKEN", "1.3")]);
    assert_exit(&output, 1);
    assert_eq!(
        baseline_lines(&output),
        [
            "baseline: new failure: `fixture::Channel` (publisher) rule 1.3 (test spec_1_03) is not listed in tck-baseline.toml; fix it, or add it with --update-baseline"
        ]
    );
    let report = json(&output);
    assert_eq!(report["summary"]["known"], 2, "{report}");
    assert_eq!(report["summary"]["failed"], 1, "{report}");
}

#[test]
fn update_baseline_round_trips_and_keeps_the_reasons() {
    let folder = scratch("update-baseline");
    let file = folder.join("baseline.toml");
    std::fs::copy(fixture(FIXTURE).with_file_name("tck-baseline.toml"), &file).unwrap();
    let path = file.to_str().unwrap();
    // §1.7 fixed, §1.3 broken: the update drops one entry and adds one.
    let vars = [("FIXTURE_FIXED", "1.7"), ("FIXTURE_BROKEN", "1.3")];
    let updated = run(
        &["--baseline", path, "--update-baseline", "--format", "json"],
        &vars,
    );
    assert_exit(&updated, 0);
    assert!(
        stderr(&updated).contains(&format!("wrote the baseline {path}: 2 known failures")),
        "{}",
        stderr(&updated)
    );
    let written = std::fs::read_to_string(&file).unwrap();
    let entries: toml::Table = toml::from_str(&written).unwrap();
    let entries = entries["known"].as_array().unwrap();
    let fields = |index: usize, field: &str| entries[index][field].as_str().unwrap().to_owned();
    assert_eq!(entries.len(), 2, "{written}");
    assert_eq!(fields(0, "test"), "spec_1_03");
    assert_eq!(
        fields(0, "reason"),
        "TODO: why it fails (a link to the upstream issue, a reproduction file)"
    );
    assert_eq!(fields(1, "test"), "spec_3_09");
    assert_eq!(fields(1, "verification"), "publisher");
    assert_eq!(
        fields(1, "reason"),
        "a reproduction: tests/rules.rs, spec_3_09",
        "the reason of the entry that stays is kept"
    );
    assert_eq!(json(&updated)["summary"]["known"], 2);

    // The written file holds the same run green, and writing it again
    // changes nothing.
    let (held, again) = std::thread::scope(|scope| {
        let held = scope.spawn(|| run(&["--baseline", path, "--format", "json"], &vars));
        let again = run(
            &["--baseline", path, "--update-baseline", "--format", "json"],
            &vars,
        );
        (held.join().unwrap(), again)
    });
    assert_exit(&held, 0);
    assert_exit(&again, 0);
    assert!(baseline_lines(&held).is_empty(), "{}", stderr(&held));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written);
}

#[test]
fn a_bad_baseline_gets_one_line_exit_2_and_nothing_written() {
    let folder = scratch("bad-baseline");
    let write = |name: &str, text: &str| -> String {
        let path = folder.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let entry = |target: &str, test: &str| {
        format!("[[known]]\ntarget = \"{target}\"\ntest = \"{test}\"\nreason = \"r\"\n")
    };
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "not TOML",
            write("not-toml.toml", "[[known]\ntarget = "),
            "is not a list of [[known]] entries (line 1)",
        ),
        (
            "no reason",
            write(
                "no-reason.toml",
                "[[known]]\ntarget = \"fixture::Channel\"\ntest = \"spec_3_09\"\n",
            ),
            "missing field `reason`",
        ),
        (
            "a test the crate does not have",
            write("no-test.toml", &entry("fixture::Channel", "spec_2_05")),
            "lists `fixture::Channel` test spec_2_05, but the crate has no such rule test",
        ),
        (
            "a target no test reported",
            write("no-target.toml", &entry("fixture::Chanel", "spec_3_09")),
            "lists `fixture::Chanel` test spec_3_09, but no rule test reported the target `fixture::Chanel` (the targets are `fixture::Channel`, `fixture::Sink`)",
        ),
        (
            "a file that does not exist",
            folder.join("missing.toml").to_str().unwrap().to_owned(),
            "missing.toml does not exist; give an existing file, or write one with --update-baseline",
        ),
    ];
    let report = folder.join("report.md");
    let outputs: Vec<Output> = std::thread::scope(|scope| {
        let running: Vec<_> = cases
            .iter()
            .map(|(_, file, _)| {
                let report = report.to_str().unwrap();
                scope.spawn(move || run(&["--baseline", file, "--output", report], &[]))
            })
            .collect();
        running.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for ((name, _, expected), output) in cases.iter().zip(&outputs) {
        assert_exit(output, 2);
        let last = last_stderr_line(output);
        assert!(last.starts_with("error: "), "{name}: {last}");
        assert!(last.contains(expected), "{name}: {last}");
        let errors = stderr(output)
            .lines()
            .filter(|l| l.starts_with("error"))
            .count();
        assert_eq!(errors, 1, "{name}: {}", stderr(output));
        assert!(output.stdout.is_empty(), "{name}");
    }
    assert!(!report.exists(), "nothing is written");
    let partial = run(&["--update-baseline", "--partition", "1/2"], &[]);
    assert_exit(&partial, 2);
    assert!(
        only_line(&partial).contains("cannot be used with"),
        "{}",
        stderr(&partial)
    );
}

/// The browser: `RS_TCK_CHROMIUM`, else the first of `chromium`,
/// `chromium-browser`, `google-chrome` on PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("RS_TCK_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Runs headless Chromium on `page` with `action` (`--dump-dom`,
/// `--screenshot=…`); returns its stdout and stderr.
fn in_browser(browser: &Path, page: &Path, profile: &Path, action: &str) -> (String, String) {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1280,2400",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(action)
        .arg(format!("file://{}", page.display()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("chromium starts");
    // A browser that hangs fails the test instead of holding the suite.
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium {action} ran past 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (out.join().unwrap(), err.join().unwrap())
}

/// Put into the page under test: the first script collects script errors
/// and content-security-policy violations; the last one checks the matrix
/// against the counts the page states, unfolds the first failure, and
/// writes what it found into `<pre id="probe">`.
const PROBE_FIRST: &str = r#"<script>window.probeErrors=[];window.addEventListener("error",function(e){probeErrors.push(String(e.message))});document.addEventListener("securitypolicyviolation",function(e){probeErrors.push("blocked: "+e.blockedURI)});</script>"#;
const PROBE_LAST: &str = r##"<script>(function(){
var sums={},cells=document.querySelectorAll("#matrix td.cell[data-verdict]");
cells.forEach(function(c){["passed","failed","known","warned","skipped","enforced-by-types","untested"].forEach(function(v){sums[v]=(sums[v]||0)+Number(c.getAttribute("data-"+v))})});
var failure=document.querySelector("details.failure.v-failed"),before=failure.open;
failure.querySelector("summary").click();
var trace=failure.querySelector("pre.trace");
var result={errors:probeErrors,rows:document.querySelectorAll("#matrix tbody tr").length,sums:sums,
 totals:Array.prototype.map.call(document.querySelectorAll("#totals span"),function(s){return s.textContent}),
 foldedBefore:!before,open:failure.open,traceHeight:trace.getBoundingClientRect().height,traceText:trace.textContent,
 failures:document.querySelectorAll("details.failure").length,
 firstCell:getComputedStyle(cells[0]).backgroundColor};
var pre=document.createElement("pre");pre.id="probe";pre.textContent=JSON.stringify(result);document.body.appendChild(pre);
})();</script>"##;

/// The HTML report of a run with two known failures and a new one, in
/// headless Chromium: it loads with no console message and nothing
/// blocked, its matrix has one row per target and verification and counts
/// what the JSON report of the same run counts, a failure is folded and
/// unfolds on a click, and a screenshot is taken
/// (`target/tmp/xtask-tck-scratch/html-report/report.png`).
///
/// Needs Chromium (`.ci/run` installs it); `RS_TCK_SKIP_BROWSER=1` skips.
#[test]
fn the_html_report_in_a_headless_browser() {
    if std::env::var_os("RS_TCK_SKIP_BROWSER").is_some() {
        eprintln!("skipped: RS_TCK_SKIP_BROWSER is set");
        return;
    }
    let browser = chromium().unwrap_or_else(|| {
        panic!("no Chromium: install it with `apt-get install -y chromium` (as .ci/run does), point RS_TCK_CHROMIUM at it, or set RS_TCK_SKIP_BROWSER=1 to skip this test")
    });
    let folder = scratch("html-report");
    let html = folder.join("report.html");
    let vars = [("FIXTURE_BROKEN", "1.3")];
    let (page, counts) = std::thread::scope(|scope| {
        let counts = scope.spawn(|| run(&["--format", "json"], &vars));
        let page = run(
            &["--format", "html", "--output", html.to_str().unwrap()],
            &vars,
        );
        (page, counts.join().unwrap())
    });
    assert_exit(&page, 1);
    assert_exit(&counts, 1);
    let summary = json(&counts)["summary"].clone();

    let text = std::fs::read_to_string(&html).unwrap();
    let probed = text
        .replacen("<head>", &format!("<head>{PROBE_FIRST}"), 1)
        .replacen("</body>", &format!("{PROBE_LAST}</body>"), 1);
    let probe_page = folder.join("probed.html");
    std::fs::write(&probe_page, probed).unwrap();
    let screenshot = folder.join("report.png");
    let started = Instant::now();
    let ((dom, log), (_, shot_log)) = std::thread::scope(|scope| {
        let shot = scope.spawn(|| {
            in_browser(
                &browser,
                &probe_page,
                &folder.join("profile-shot"),
                &format!("--screenshot={}", screenshot.display()),
            )
        });
        let dom = in_browser(
            &browser,
            &probe_page,
            &folder.join("profile-dom"),
            "--dump-dom",
        );
        (dom, shot.join().unwrap())
    });
    eprintln!("the browser took {} ms", started.elapsed().as_millis());

    for log in [&log, &shot_log] {
        let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(console.is_empty(), "the page logged: {console:#?}");
    }
    let probe = dom
        .split_once("<pre id=\"probe\">")
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .map(|(json, _)| {
            json.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .unwrap_or_else(|| panic!("the probe wrote no result; the DOM:\n{dom}\nthe log:\n{log}"));
    let probe: serde_json::Value = serde_json::from_str(&probe).unwrap();
    assert_eq!(probe["errors"], serde_json::json!([]), "{probe}");
    assert_eq!(probe["rows"], 2, "two targets: {probe}");
    for (verdict, field) in [
        ("passed", "passed"),
        ("failed", "failed"),
        ("known", "known"),
        ("warned", "warned"),
        ("skipped", "skipped"),
        ("enforced-by-types", "enforced_by_types"),
        ("untested", "untested"),
    ] {
        assert_eq!(probe["sums"][verdict], summary[field], "{verdict}: {probe}");
    }
    assert_eq!(
        probe["totals"],
        serde_json::json!([
            "1 failed",
            "2 known",
            "3 passed",
            "1 enforced by types",
            "24 not covered"
        ]),
        "{probe}"
    );
    assert_eq!(probe["failures"], 3, "{probe}");
    assert_eq!(probe["foldedBefore"], true, "{probe}");
    assert_eq!(probe["open"], true, "{probe}");
    assert!(probe["traceHeight"].as_f64().unwrap() > 0.0, "{probe}");
    assert!(
        probe["traceText"]
            .as_str()
            .unwrap()
            .contains("[main] request(1)"),
        "{probe}"
    );
    assert_eq!(
        probe["firstCell"], "rgb(247, 198, 198)",
        "§1 of fixture::Channel is red (a failure): {probe}"
    );
    let png = std::fs::read(&screenshot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
}
