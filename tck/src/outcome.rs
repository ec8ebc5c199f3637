//! The result of one rule test, as data.
//!
//! Every verification produces [`RuleResult`]s; reports (Markdown, JSON,
//! JUnit) are rendered from them by `cargo xtask tck`. A result is never
//! invented or lost: each macro-generated `#[test]` produces exactly one, and
//! when the environment variable [`REPORT_DIR_ENV`] names a folder the test
//! also writes it there as one JSON file ([`RuleResult::write_to_report_dir`]),
//! which is how `cargo xtask tck` collects results across processes.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The environment variable naming the folder where each rule test writes
/// its [`RuleResult`] as JSON. Unset: nothing is written.
pub const REPORT_DIR_ENV: &str = "RS_TCK_REPORT_DIR";

/// The environment variable that makes SHOULD and MAY rules count like
/// MUST rules: `RS_TCK_STRICT=1` (what `cargo xtask tck --strict` sets).
pub const STRICT_ENV: &str = "RS_TCK_STRICT";

/// Whether [`STRICT_ENV`] asks for a strict run (`1`, `true`, `yes`).
pub fn strict_from_env() -> bool {
    std::env::var(STRICT_ENV).is_ok_and(|value| {
        matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes"
        )
    })
}

/// Whether a broken `rule` only warns: SHOULD and MAY rules (and their
/// conditions) do, unless the run is strict. MUST rules, `tck.*` checks
/// and ids the catalogue does not know always fail.
pub fn only_warns(rule: &str, strict: bool) -> bool {
    use reactive_streams::rules::Level;
    !strict
        && reactive_streams::rules::find(rule)
            .is_some_and(|found| matches!(found.level, Level::Should | Level::May))
}

/// The file a process writes into [`REPORT_DIR_ENV`] when its first rule
/// test starts: a runner that finds it but no result knows the process
/// ended in the middle of a rule test (`std::process::exit` in the code
/// under test), not that it ran none.
pub const STARTED_FILE: &str = "started.mark";

/// The version of this crate, which names the result format it speaks
/// (the [`RuleResult`] JSON, [`REPORT_DIR_ENV`], [`STARTED_FILE`]): a
/// runner (`cargo rs-tck`) reads the results of any `reactive-streams-tck`
/// semver-compatible with the one it is built with.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Writes [`STARTED_FILE`] into the folder named by [`REPORT_DIR_ENV`], if
/// it is set; once per process.
pub fn mark_started() {
    static MARKED: std::sync::Once = std::sync::Once::new();
    MARKED.call_once(|| {
        if let Some(dir) = std::env::var_os(REPORT_DIR_ENV).filter(|d| !d.is_empty()) {
            let dir = Path::new(&dir);
            let _ = std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(dir.join(STARTED_FILE), b""));
        }
    });
}

/// What a rule test concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The implementation obeyed the rule in every scenario the test ran.
    Passed,
    /// The implementation broke the rule; the message says how.
    Failed,
    /// The implementation broke a SHOULD or MAY rule: reported, but the
    /// run still passes unless it is strict ([`STRICT_ENV`]).
    Warned,
    /// The test did not run; the message says why (for example, the factory
    /// declared no failed publisher).
    Skipped,
    /// The rule cannot be broken in safe Rust; the catalogue names the proof.
    EnforcedByTypes,
    /// No test covers the rule; the catalogue says why.
    Untested,
}

impl Verdict {
    /// `passed`, `failed`, `warned`, `skipped`, `enforced_by_types` or
    /// `untested`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Warned => "warned",
            Verdict::Skipped => "skipped",
            Verdict::EnforcedByTypes => "enforced_by_types",
            Verdict::Untested => "untested",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which verification a result belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verification {
    /// `publisher_verification!`.
    Publisher,
    /// `subscriber_blackbox_verification!`.
    SubscriberBlackbox,
    /// `subscriber_whitebox_verification!`.
    SubscriberWhitebox,
    /// `processor_verification!`.
    Processor,
    /// `streamlet_source_verification!`.
    StreamletSource,
    /// `streamlet_sink_verification!`.
    StreamletSink,
    /// `datum_lifecycle_verification!`.
    DatumLifecycle,
    /// `stream_verification!`: a `futures::Stream`.
    #[serde(rename = "stream")]
    FuturesStream,
    /// `sink_verification!`: a `futures::Sink` (not a Streamlet sink).
    #[serde(rename = "sink")]
    FuturesSink,
    /// `stream_adapter_verification!`: a `futures::Stream` wrapping streams
    /// the TCK provides.
    StreamAdapter,
}

impl Verification {
    /// The snake_case name used in reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            Verification::Publisher => "publisher",
            Verification::SubscriberBlackbox => "subscriber_blackbox",
            Verification::SubscriberWhitebox => "subscriber_whitebox",
            Verification::Processor => "processor",
            Verification::StreamletSource => "streamlet_source",
            Verification::StreamletSink => "streamlet_sink",
            Verification::DatumLifecycle => "datum_lifecycle",
            Verification::FuturesStream => "stream",
            Verification::FuturesSink => "sink",
            Verification::StreamAdapter => "stream_adapter",
        }
    }
}

impl fmt::Display for Verification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One recorded event of a rule test: a signal, a request, a cancel or a
/// harness step, with where and when it happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// Microseconds since the rule test started.
    pub at_micros: u64,
    /// The name (or id) of the thread it happened on.
    pub thread: String,
    /// What happened, e.g. `on_next(3)`, `request(2)`, `cancel()`.
    pub event: String,
}

impl fmt::Display for TraceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "+{}.{:03}ms [{}] {}",
            self.at_micros / 1000,
            self.at_micros % 1000,
            self.thread,
            self.event
        )
    }
}

/// The result of one rule test against one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleResult {
    /// The verified type, as named in the verification macro.
    pub target: String,
    /// Which verification ran.
    pub verification: Verification,
    /// The catalogue id (`"3.9"`, `"streamlet.2.c"`), or `tck.<name>` for
    /// checks of the user's factory that no rule owns.
    pub rule: String,
    /// The generated test's name, e.g. `spec_3_09`.
    pub test: String,
    /// What the test concluded.
    pub verdict: Verdict,
    /// Why it failed or was skipped; `None` when it passed.
    pub message: Option<String>,
    /// Wall time of the test in milliseconds.
    pub duration_ms: f64,
    /// The signal trace that led to a failure (empty otherwise).
    #[serde(default)]
    pub trace: Vec<TraceEvent>,
    /// Rules other than [`rule`](Self::rule) that the implementation broke
    /// while this test ran (a §1.1 overflow seen while testing §3.7). The
    /// test's own verdict is about its own rule; reports count these
    /// against the rules they name.
    #[serde(default)]
    pub violations: Vec<Violation>,
    /// The Rust module path of the generated test
    /// (`my_crate::range::publisher`), telling two verifications of one
    /// target apart; empty when the result was not made by a generated test.
    #[serde(default)]
    pub module: String,
}

/// A rule broken during a rule test of another rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The rule broken: a catalogue id, a Streamlet condition, `done.N` or
    /// `tck.<name>`.
    pub rule: String,
    /// What the rule required and what happened instead.
    pub message: String,
    /// The scenario it was seen in, if the test named one.
    #[serde(default)]
    pub scenario: Option<String>,
    /// Whether it only warns: a SHOULD or MAY rule, or a timing bound the
    /// TCK chose (see [`Verdict::Warned`]).
    #[serde(default)]
    pub warning: bool,
}

impl Violation {
    /// Whether this violation breaks the run: one that does not only warn,
    /// or any in a strict run.
    pub fn fails(&self, strict: bool) -> bool {
        strict || !self.warning
    }
}

impl RuleResult {
    /// Whether this result makes the run fail: its own rule failed, or a
    /// rule broken during it is one that fails (see [`Violation::fails`]);
    /// in a strict run a warning fails too.
    pub fn fails_run(&self, strict: bool) -> bool {
        self.verdict == Verdict::Failed
            || (strict && self.verdict == Verdict::Warned)
            || self.violations.iter().any(|v| v.fails(strict))
    }

    /// Every rule this result shows broken: its own (when it failed or
    /// warned) and those of its violations, in that order, without repeats.
    pub fn broken_rules(&self) -> Vec<&str> {
        let mut rules: Vec<&str> = Vec::new();
        if matches!(self.verdict, Verdict::Failed | Verdict::Warned) {
            rules.push(&self.rule);
        }
        for violation in &self.violations {
            if !rules.contains(&violation.rule.as_str()) {
                rules.push(&violation.rule);
            }
        }
        rules
    }

    /// The file name this result is written under in the report folder.
    pub fn file_name(&self) -> String {
        let safe = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        format!(
            "{}__{}__{}.json",
            safe(&self.target),
            self.verification.as_str(),
            safe(&self.test)
        )
    }

    /// Writes this result into `dir` as JSON, atomically (a temporary file
    /// renamed into place), so a reader never sees half a result.
    pub fn write_json_into(&self, dir: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(self.file_name());
        let temporary = dir.join(format!(".{}.{}.tmp", self.file_name(), std::process::id()));
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(&temporary, json)?;
        std::fs::rename(&temporary, &path)?;
        Ok(path)
    }

    /// Writes this result into the folder named by [`REPORT_DIR_ENV`], if
    /// it is set.
    pub fn write_to_report_dir(&self) -> std::io::Result<Option<PathBuf>> {
        match std::env::var_os(REPORT_DIR_ENV) {
            Some(dir) if !dir.is_empty() => self.write_json_into(Path::new(&dir)).map(Some),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RuleResult {
        RuleResult {
            target: "my::Range".into(),
            verification: Verification::Publisher,
            rule: "3.9".into(),
            test: "spec_3_09".into(),
            verdict: Verdict::Failed,
            message: Some("expected on_error".into()),
            duration_ms: 1.5,
            trace: vec![TraceEvent {
                at_micros: 1234,
                thread: "main".into(),
                event: "request(0)".into(),
            }],
            violations: vec![Violation {
                rule: "1.1".into(),
                message: "§1.1: expected at most 1 on_next; actual: 2".into(),
                scenario: Some("publisher of 3".into()),
                warning: false,
            }],
            module: "my::tests::range::publisher".into(),
        }
    }

    #[test]
    fn serialises_with_the_public_field_names() {
        let value = serde_json::to_value(sample()).unwrap();
        for field in [
            "target",
            "verification",
            "rule",
            "verdict",
            "message",
            "duration_ms",
            "violations",
            "module",
        ] {
            assert!(value.get(field).is_some(), "{field}");
        }
        assert_eq!(value["violations"][0]["rule"], "1.1");
        assert_eq!(value["verdict"], "failed");
        assert_eq!(value["verification"], "publisher");
    }

    #[test]
    fn round_trips_through_a_report_folder() {
        let dir = std::env::temp_dir().join(format!("rs-tck-outcome-{}", std::process::id()));
        let path = sample().write_json_into(&dir).unwrap();
        let back: RuleResult = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back, sample());
        assert_eq!(
            path.file_name().unwrap(),
            "my__Range__publisher__spec_3_09.json"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn should_rules_only_warn_unless_strict() {
        assert!(only_warns("3.4", false));
        assert!(!only_warns("3.4", true));
        assert!(!only_warns("3.9", false));
        assert!(!only_warns("tck.configuration", false));
        let mut result = sample();
        result.verdict = Verdict::Warned;
        result.violations.clear();
        assert!(!result.fails_run(false));
        assert!(result.fails_run(true));
        assert_eq!(sample().broken_rules(), ["3.9", "1.1"]);
    }

    #[test]
    fn trace_events_print_time_thread_and_event() {
        assert_eq!(sample().trace[0].to_string(), "+1.234ms [main] request(0)");
    }
}
