//! What the census shares: target names with the crate's locked version,
//! the census entries and their table, and the adapters that let tokio's
//! timers run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use futures::Stream;
use reactive_streams_tck::outcome::{RuleResult, Verdict};

/// `<crate> <version> <type>`: a census target's name in reports.
pub fn target(krate: &str, what: &str) -> String {
    format!("{krate} {} {what}", version(krate))
}

/// The version of `krate` in the workspace's Cargo.lock (the one verified).
pub fn version(krate: &str) -> String {
    static LOCK: OnceLock<String> = OnceLock::new();
    let lock = LOCK.get_or_init(|| {
        std::fs::read_to_string(workspace().join("Cargo.lock")).expect("Cargo.lock")
    });
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{krate}\"") {
            if let Some(version) = lines.next().and_then(|l| l.strip_prefix("version = ")) {
                return version.trim_matches('"').to_string();
            }
        }
    }
    panic!("{krate} is not in Cargo.lock")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One census target.
pub struct Entry {
    pub krate: &'static str,
    pub what: &'static str,
    pub verification: &'static str,
    /// The rules it is known to break (findings).
    pub breaks: BTreeSet<&'static str>,
    /// Its quick verification, as data.
    pub run: fn() -> Vec<RuleResult>,
}

pub fn breaks(rules: &[&[&'static str]]) -> BTreeSet<&'static str> {
    rules.iter().flat_map(|r| r.iter().copied()).collect()
}

pub fn verification_name(macro_name: &str) -> &'static str {
    match macro_name {
        "stream_verification" => "Stream",
        "sink_verification" => "Sink",
        "stream_adapter_verification" => "stream adapter",
        other => panic!("no census verification {other}"),
    }
}

/// The quick verification of `$factory` by the verification `$verify`
/// names, as data.
macro_rules! quick {
    (stream_verification, $factory:expr, $breaks:expr; $name:ident) => {
        crate::support::quick_isolated(
            concat!(module_path!(), "::", stringify!($name), "::stream")
                .split_once("::")
                .unwrap()
                .1,
        )
    };
    ($verify:ident, $factory:expr; $name:ident) => {
        crate::support::quick!($verify, $factory)
    };
    (stream_verification, $factory:expr) => {
        reactive_streams_tck::futures::stream::StreamVerification::new($factory)
            .env(reactive_streams_tck::env::TestEnv::default())
            .run_all()
            .unwrap()
    };
    (sink_verification, $factory:expr) => {
        reactive_streams_tck::futures::sink::FuturesSinkVerification::new($factory)
            .env(reactive_streams_tck::env::TestEnv::default())
            .run_all()
            .unwrap()
    };
    (stream_adapter_verification, $factory:expr) => {
        reactive_streams_tck::futures::adapter::AdapterVerification::new($factory)
            .env(reactive_streams_tck::env::TestEnv::default())
            .run_all()
            .unwrap()
    };
}
pub(crate) use quick;

/// The verification macro's tests for one census target; for a stream that
/// breaks rules (`breaks`), the same tests written out here, each run in a
/// process of its own ([`isolated`]): such a crate may corrupt memory and
/// abort the process.
macro_rules! census_tests {
    ($verify:ident, $name:ident, $factory:expr, $target:expr) => {
        reactive_streams_tck::$verify!($name, $factory, $target);
    };
    (stream_verification, $name:ident, $factory:expr, $target:expr, $breaks:expr) => {
        // Named as the macro names them, so `cargo xtask tck` runs them:
        // the reference report lists their failures as `known`
        // (`reference-impl/tck-baseline.toml`, with the reproductions).
        mod $name {
            mod stream {
                #[allow(unused_imports)]
                use super::super::*;

                fn verify(test: &'static str) {
                    crate::support::isolated(module_path!(), test, &$breaks, || {
                        reactive_streams_tck::futures::stream::StreamVerification::new($factory)
                            .target($target)
                            .run(test)
                            .unwrap()
                    });
                }

                #[test]
                fn stream_1() {
                    verify("stream_1")
                }
                #[test]
                fn stream_2() {
                    verify("stream_2")
                }
                #[test]
                fn stream_3() {
                    verify("stream_3")
                }
                #[test]
                fn stream_4() {
                    verify("stream_4")
                }
                #[test]
                fn stream_5() {
                    verify("stream_5")
                }
                #[test]
                fn stream_6() {
                    verify("stream_6")
                }
                #[test]
                fn stream_7() {
                    verify("stream_7")
                }
                #[test]
                fn tck_configuration() {
                    verify("tck_configuration")
                }
                #[test]
                fn tck_stream_gives_exactly_n() {
                    verify("tck_stream_gives_exactly_n")
                }
                #[test]
                fn tck_extended_schedules() {
                    verify("tck_extended_schedules")
                }
            }
        }
    };
}
pub(crate) use census_tests;

/// What a census target that aborts its process is pinned with.
pub const ABORTS: &str = "process abort";
/// Set in the child process [`isolated`] starts.
const CHILD: &str = "RS_CENSUS_CHILD";
const RESULT_LINE: &str = "census-result: ";

/// Runs one rule test of a target with findings in a process of its own:
/// under `cargo xtask tck` (which already gives each test one) as the
/// verification macros do; under `cargo test` in a child process whose
/// result must break nothing but the pinned rules (`breaks`, [`ABORTS`]
/// included).
pub fn isolated(module: &str, test: &str, breaks: &[&str], run: impl FnOnce() -> RuleResult) {
    use reactive_streams_tck::outcome::REPORT_DIR_ENV;
    if std::env::var_os(CHILD).is_some() {
        let result = run();
        println!("{RESULT_LINE}{}", serde_json::to_string(&result).unwrap());
        return;
    }
    if std::env::var_os(REPORT_DIR_ENV).is_some() {
        reactive_streams_tck::runner::conclude(&run());
        return;
    }
    let path = format!(
        "{}::{test}",
        module.split_once("::").map_or(module, |(_, p)| p)
    );
    let result = in_child(&path, test);
    let seen = broken(&result);
    let unpinned: Vec<&String> = seen
        .iter()
        .filter(|rule| !breaks.contains(&rule.as_str()))
        .collect();
    assert!(
        unpinned.is_empty(),
        "{path} broke {unpinned:?}, not pinned ({breaks:?}): {:?}",
        result.message
    );
}

/// The result of the test at `path` of this executable, run alone in a
/// child process; a made-up failed result if the process died.
fn in_child(path: &str, test: &str) -> RuleResult {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", path, "--nocapture", "--test-threads", "1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    // libtest may have printed the test's name on the same line.
    if let Some(line) = stdout
        .lines()
        .find_map(|l| l.split_once(RESULT_LINE).map(|(_, json)| json))
    {
        return serde_json::from_str(line).unwrap();
    }
    RuleResult {
        target: String::new(),
        verification: reactive_streams_tck::outcome::Verification::FuturesStream,
        rule: ABORTS.to_string(),
        test: test.to_string(),
        verdict: Verdict::Failed,
        message: Some(format!("the process died: {}", output.status)),
        duration_ms: 0.0,
        trace: Vec::new(),
        violations: Vec::new(),
        module: path.to_string(),
    }
}

/// The quick tests of a target with findings, each in a child process:
/// `module` is its tests' module (`streams::kanal_bounded::stream`).
pub fn quick_isolated(module: &str) -> Vec<RuleResult> {
    reactive_streams_tck::futures::stream::TESTS
        .iter()
        .filter(|t| **t != "tck_extended_schedules")
        .map(|test| in_child(&format!("{module}::{test}"), test))
        .collect()
}

/// The rules `result` shows broken.
fn broken(result: &RuleResult) -> BTreeSet<String> {
    let mut rules: BTreeSet<String> = result.violations.iter().map(|v| v.rule.clone()).collect();
    if matches!(result.verdict, Verdict::Failed | Verdict::Warned) {
        rules.insert(result.rule.clone());
    }
    rules
}

/// The census as the Markdown table of `docs/ecosystem.md`.
pub fn render(entries: &[Entry]) -> String {
    let mut out = String::from(
        "| crate | version | type | verification | verdict |\n|---|---|---|---|---|\n",
    );
    let mut broken_unpinned = Vec::new();
    for entry in entries {
        let results = (entry.run)();
        let mut failed = BTreeSet::new();
        let mut warned = BTreeSet::new();
        let mut skipped = Vec::new();
        for result in &results {
            match result.verdict {
                Verdict::Failed => {
                    failed.insert(result.rule.clone());
                }
                Verdict::Warned => {
                    warned.insert(result.rule.clone());
                }
                Verdict::Skipped => skipped.push(result.rule.clone()),
                _ => {}
            }
            for violation in &result.violations {
                if violation.warning {
                    warned.insert(violation.rule.clone());
                } else {
                    failed.insert(violation.rule.clone());
                }
            }
            if result.verdict != Verdict::Passed && result.verdict != Verdict::Skipped {
                println!(
                    "{} {}: {}",
                    entry.what,
                    result.rule,
                    result.message.as_deref().unwrap_or_default()
                );
            }
        }
        let broken: BTreeSet<&str> = failed.iter().chain(&warned).map(String::as_str).collect();
        // kanal's quick verification aborts too since the stream rules poll
        // again at once after a wake-up (issue 28 §3) and twice per wake-up
        // (issue 26 §4): the pinned set is the quick set.
        let pinned = &entry.breaks;
        if &broken != pinned {
            broken_unpinned.push(format!(
                "{} {}: breaks {broken:?}, pinned {:?}",
                entry.krate, entry.what, entry.breaks
            ));
        }
        let mut verdict = if failed.is_empty() && warned.is_empty() {
            String::from("passes")
        } else {
            let mut parts = Vec::new();
            if !failed.is_empty() {
                parts.push(format!("**fails** {}", join(&failed)));
            }
            if !warned.is_empty() {
                parts.push(format!("**warns** {}", join(&warned)));
            }
            format!("{} (finding, see below)", parts.join(", "))
        };
        if !skipped.is_empty() {
            verdict.push_str(&format!("; skips {}", skipped.join(", ")));
        }
        out.push_str(&format!(
            "| {} | {} | {} | {} | {verdict} |\n",
            entry.krate,
            version(entry.krate),
            entry.what,
            entry.verification
        ));
    }
    assert!(
        broken_unpinned.is_empty(),
        "census targets breaking other rules than pinned:\n{}",
        broken_unpinned.join("\n")
    );
    out
}

fn join(rules: &BTreeSet<String>) -> String {
    rules.iter().cloned().collect::<Vec<_>>().join(", ")
}

const START: &str = "<!-- census:start (generated by reference-impl/tests/ecosystem) -->\n";
const END: &str = "<!-- census:end -->";

/// Holds `docs/ecosystem.md` to `table`; rewrites it with
/// `RS_UPDATE_DOCS=1`.
pub fn check_docs(table: &str) {
    let path = workspace().join("docs/ecosystem.md");
    let text = std::fs::read_to_string(&path).expect("docs/ecosystem.md");
    let (before, rest) = text.split_once(START).expect("the census start marker");
    let (current, after) = rest.split_once(END).expect("the census end marker");
    if current == table {
        return;
    }
    if std::env::var_os("RS_UPDATE_DOCS").is_some() {
        std::fs::write(&path, format!("{before}{START}{table}{END}{after}")).unwrap();
        return;
    }
    panic!(
        "docs/ecosystem.md's table is not the census's result; run `RS_UPDATE_DOCS=1 cargo test -p reactive-streams-reference --test ecosystem the_census_is_the_docs_table` and review the diff. The census says:\n{table}"
    );
}

/// One tokio runtime for every census target that needs tokio's timers.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_time()
            .build()
            .unwrap()
    })
}

/// A stream polled inside the census runtime's context, as tokio's timers
/// need; it changes nothing else.
pub struct InRuntime<S>(pub S);

impl<S> InRuntime<S> {
    /// Makes the stream inside the runtime's context too (a timer is
    /// registered when it is made).
    pub fn make(make: impl FnOnce() -> S) -> Self {
        let _context = runtime().enter();
        InRuntime(make())
    }
}

impl<S: Stream + Unpin> Stream for InRuntime<S> {
    type Item = S::Item;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = self.get_mut();
        let _context = runtime().enter();
        Pin::new(&mut this.0).poll_next(cx)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}
