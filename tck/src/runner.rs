//! Runs one rule test in isolation and turns whatever happens into a
//! [`RuleResult`].
//!
//! Each rule runs on a dedicated, named thread (`rs-tck:<test>`) with an
//! explicit stack of [`RULE_STACK_SIZE`] bytes, under `catch_unwind`, while
//! the calling thread waits at most [`TestEnv::watchdog`] — longer, up to
//! [`WATCHDOG_PROGRESS_CAP`] watchdogs, only while signals keep arriving or
//! a call into the code under test that began recently is still running (a
//! slow but progressing publisher on a loaded machine, or one whose
//! `request` takes seconds once, is not stuck). So:
//!
//! * a publisher that panics in `subscribe`, `request` or `cancel` yields
//!   `Failed` with "expected request(1) to return normally; actual: it
//!   panicked: `payload`", against the rule that forbids it (§1.9, §3.16,
//!   §3.15);
//! * one that deadlocks or never returns yields `Failed` with
//!   "watchdog: the rule did not finish within N ms — request(1) never
//!   returned: still running at the watchdog, on thread T; that thread's last
//!   recorded step: …": the [context](crate::context::RuleCx) knows the
//!   steps still running (a step that panicked is no longer one). A
//!   publisher still signalling then is "kept emitting: N signals in the
//!   last M ms". The stuck thread is left behind, detached;
//! * a publisher that keeps signalling from a leaked thread after the rule
//!   ended writes into that rule's sealed context and disturbs no other rule.
//!
//! A failure recorded on any thread (a probe callback, a helper thread)
//! counts even if the body returned `Ok`. Failures of the test's own rule
//! decide its verdict; failures of other rules become the result's
//! [`violations`](RuleResult::violations), so a §1.1 overflow seen while
//! testing §3.7 is reported against §1.1, not §3.7. SHOULD/MAY rules and
//! timing bounds give `Warned` instead of `Failed`.
//!
//! ```
//! use reactive_streams_tck::context::{Outcome, RuleCx};
//! use reactive_streams_tck::env::TestEnv;
//! use reactive_streams_tck::outcome::{Verdict, Verification};
//! use reactive_streams_tck::runner::{run_rule, RuleMeta};
//!
//! let meta = RuleMeta::new(Verification::Publisher, "doc", "3.16", "spec_3_16");
//! let result = run_rule(&meta, &TestEnv::default(), |cx: &RuleCx| {
//!     cx.step("3.16", "request(1)", || panic!("boom"));
//!     Ok(Outcome::Passed)
//! });
//! assert_eq!(result.verdict, Verdict::Failed);
//! assert_eq!(
//!     result.message.as_deref(),
//!     Some("§3.16: expected request(1) to return normally; actual: it panicked: boom")
//! );
//! ```

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use crate::context::{
    Failure, Outcome, RuleBody, RuleCx, panic_message, quietly, rule_label, take_panic_location,
};
use crate::env::TestEnv;
use crate::outcome::{RuleResult, Verdict, Verification, Violation, strict_from_env};

/// The stack given to each rule thread: roomy, so that a publisher recursing
/// a little deeper than it should is caught by the probes' depth bound
/// (§3.3) long before the stack runs out.
pub const RULE_STACK_SIZE: usize = 16 * 1024 * 1024;

/// Which rule test of which target: everything a [`RuleResult`] needs
/// besides the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMeta {
    /// Which verification.
    pub verification: Verification,
    /// The verified type, as the user named it.
    pub target: String,
    /// The catalogue id or `tck.<name>`.
    pub rule: String,
    /// The generated test's name.
    pub test: String,
    /// The module path of the generated test (`module_path!()`), empty
    /// when the rule test was not run by a generated test.
    pub module: String,
}

impl RuleMeta {
    /// Metadata for one rule test.
    pub fn new(
        verification: Verification,
        target: impl Into<String>,
        rule: impl Into<String>,
        test: impl Into<String>,
    ) -> Self {
        RuleMeta {
            verification,
            target: target.into(),
            rule: rule.into(),
            test: test.into(),
            module: String::new(),
        }
    }

    /// The same metadata, recording the generated test's module path.
    pub fn in_module(mut self, module: impl Into<String>) -> Self {
        self.module = module.into();
        self
    }
}

/// The rule id a test name stands for: `spec_3_09` → `3.9`,
/// `tck_create_n` → `tck.create_n`, `streamlet_2_c` → `streamlet.2.c`,
/// `done_3` → `done.3`, `stream_1` → `stream.1`, `sink_2` → `sink.2`.
///
/// ```
/// use reactive_streams_tck::runner::rule_of_test;
/// assert_eq!(rule_of_test("spec_3_09"), "3.9");
/// assert_eq!(rule_of_test("spec_1_10"), "1.10");
/// assert_eq!(rule_of_test("tck_configuration"), "tck.configuration");
/// assert_eq!(rule_of_test("streamlet_2_c"), "streamlet.2.c");
/// assert_eq!(rule_of_test("done_3"), "done.3");
/// assert_eq!(rule_of_test("stream_1"), "stream.1");
/// assert_eq!(rule_of_test("sink_2"), "sink.2");
/// ```
pub fn rule_of_test(test: &str) -> String {
    if let Some(rest) = test.strip_prefix("spec_") {
        let mut parts = rest.splitn(2, '_');
        let section = parts.next().unwrap_or_default();
        let number = parts.next().unwrap_or_default().trim_start_matches('0');
        format!("{section}.{number}")
    } else if let Some(rest) = test.strip_prefix("tck_") {
        format!("tck.{rest}")
    } else if let Some(rest) = test.strip_prefix("streamlet_") {
        format!("streamlet.{}", rest.replace('_', "."))
    } else if let Some(rest) = test.strip_prefix("done_") {
        format!("done.{rest}")
    } else if let Some(rest) = test.strip_prefix("stream_") {
        format!("stream.{rest}")
    } else if let Some(rest) = test.strip_prefix("sink_") {
        format!("sink.{rest}")
    } else if let Some(rest) = test.strip_prefix("adapter_") {
        format!("adapter.{rest}")
    } else {
        test.to_string()
    }
}

/// `RS_TCK_PROFILE=1`: every rule test prints where its time went, one
/// line per scenario on stderr (`print_profile`); `cargo xtask bench
/// --profile` reads them. Off by default: no verdict depends on it.
pub const PROFILE_ENV: &str = "RS_TCK_PROFILE";

fn profile_from_env() -> bool {
    std::env::var_os(PROFILE_ENV).is_some_and(|value| value != "0" && !value.is_empty())
}

/// The prefix of a profile line: `rs-tck-profile<TAB>target<TAB>test<TAB>
/// milliseconds<TAB>scenario`.
pub const PROFILE_LINE: &str = "rs-tck-profile";

fn print_profile(meta: &RuleMeta, cx: &RuleCx) {
    let mut lines = String::new();
    for (scenario, took) in cx.scenario_times() {
        lines.push_str(&format!(
            "{PROFILE_LINE}\t{}\t{}\t{:.1}\t{}\n",
            meta.target,
            meta.test,
            took.as_secs_f64() * 1000.0,
            scenario.replace(['\t', '\n'], " ")
        ));
    }
    eprint!("{lines}");
}

/// Runs `body` as the rule test `meta` under `env`'s watchdog and returns
/// its result. Never panics and never hangs longer than the watchdog, or
/// [`WATCHDOG_PROGRESS_CAP`] watchdogs while signals keep arriving.
///
/// The verdict is about the test's own rule (`meta.rule`, or one of its
/// conditions): `failed` if it was broken, `warned` if only a SHOULD/MAY
/// rule or a timing bound was, `passed` if its check held. Rules broken
/// along the way that are not the test's own become
/// [`violations`](RuleResult::violations); if one of them stopped the test
/// before its own check concluded, the verdict is `skipped` with
/// "not concluded".
pub fn run_rule<B>(meta: &RuleMeta, env: &TestEnv, body: B) -> RuleResult
where
    B: FnOnce(&RuleCx) -> RuleBody + Send + 'static,
{
    crate::outcome::mark_started();
    let started = Instant::now();
    let cx = RuleCx::new(meta.rule.clone(), meta.test.clone(), *env);
    let (sender, receiver) = crossbeam_channel::bounded(1);
    let thread_cx = cx.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("rs-tck:{}", meta.test))
        .stack_size(RULE_STACK_SIZE)
        .spawn(move || {
            let result = quietly(|| catch_unwind(AssertUnwindSafe(|| body(&thread_cx))));
            if result.is_err() {
                if let Some(location) = take_panic_location() {
                    thread_cx.trace(format!("panicked at {location}"));
                }
            }
            let _ = sender.send(result.map_err(|payload| panic_message(&*payload)));
        });

    let verdict: Result<Outcome, Failure> = match spawned {
        Err(error) => Err(cx.failure("the TCK to start the rule thread", error.to_string())),
        Ok(handle) => match wait_watched(&cx, env, &receiver) {
            Ok(Ok(result)) => {
                let _ = handle.join();
                result
            }
            Ok(Err(payload)) => {
                let _ = handle.join();
                Err(match cx.unwound_step() {
                    Some((rule, what)) => cx.failure_of(
                        cx.panic_rule(&rule, &payload),
                        format!("{what} to return normally"),
                        format!("it panicked: {payload}"),
                    ),
                    None => cx.failure(
                        "the rule test to run to its end",
                        format!("it panicked: {payload}"),
                    ),
                })
            }
            // The rule thread is stuck; it is left behind, detached.
            Err(stuck) => Err(watchdog_failure(&cx, env, &stuck)),
        },
    };

    if let Err(failure) = &verdict {
        cx.record(failure.clone());
    }
    let failures = cx.failures();
    let deferred = cx.take_deferred();
    if profile_from_env() {
        print_profile(meta, &cx);
    }
    let trace = cx.seal();
    if !deferred.is_empty() {
        // Cleanup (cancelling what the rule left open) must not delay or
        // fail the rule, and may hang on a broken publisher: detach it.
        let _ = std::thread::Builder::new()
            .name(format!("rs-tck-cleanup:{}", meta.test))
            .spawn(move || {
                for cleanup in deferred {
                    let _ = quietly(|| catch_unwind(AssertUnwindSafe(cleanup)));
                    let _ = take_panic_location();
                }
            });
    }
    let (own, others): (Vec<Failure>, Vec<Failure>) = failures
        .into_iter()
        .partition(|failure| is_own(&meta.rule, &failure.rule));
    let mut violations: Vec<Violation> = Vec::new();
    for failure in others {
        let violation = Violation {
            rule: failure.rule.clone(),
            message: failure.to_string(),
            scenario: failure.scenario.clone(),
            warning: failure.warns(),
        };
        if !violations.contains(&violation) {
            violations.push(violation);
        }
    }
    let (verdict, message) = if !own.is_empty() {
        // A failure that fails outranks one that only warns.
        let first = own.iter().find(|f| !f.warns()).unwrap_or(&own[0]);
        let verdict = if first.warns() {
            Verdict::Warned
        } else {
            Verdict::Failed
        };
        (verdict, Some(first.to_string()))
    } else {
        match verdict {
            Ok(Outcome::Passed) => (Verdict::Passed, None),
            Ok(Outcome::Skipped(reason)) => (Verdict::Skipped, Some(reason)),
            Ok(Outcome::EnforcedByTypes(proof)) => (Verdict::EnforcedByTypes, Some(proof)),
            Err(failure) => (
                Verdict::Skipped,
                Some(format!(
                    "not concluded: {} was broken first (see the violations)",
                    failure.rule_label()
                )),
            ),
        }
    };
    let keep_trace = matches!(verdict, Verdict::Failed | Verdict::Warned) || !violations.is_empty();
    RuleResult {
        target: meta.target.clone(),
        verification: meta.verification,
        rule: meta.rule.clone(),
        test: meta.test.clone(),
        verdict,
        message,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        trace: if keep_trace { trace } else { Vec::new() },
        violations,
        module: if meta.module.is_empty() {
            generated_module()
        } else {
            meta.module.clone()
        },
    }
}

/// Whether a failure of `failed` is one of the test's own rule `own`: the
/// rule itself, one of its conditions, or the rule a condition belongs to.
///
/// The extended tests' rules (`tck.extended_schedules`, `…_stress`,
/// `…_upstream`) say "every generated case holds every rule", so any broken
/// rule is theirs; the message names the rule the case broke.
fn is_own(own: &str, failed: &str) -> bool {
    if own.starts_with("tck.extended_") {
        return true;
    }
    let within = |id: &str, parent: &str| {
        id.strip_prefix(parent)
            .is_some_and(|rest| rest.starts_with('.'))
    };
    own == failed || within(failed, own) || within(own, failed)
}

/// The rule thread did not report within the watchdog.
struct Stuck {
    /// Whether the runner waited past the watchdog.
    extended: bool,
    /// Signals traced during the last stretch before the watchdog fired.
    signals_late: u64,
    /// How long that stretch was, in milliseconds.
    late_ms: u128,
    /// How long the runner waited in all, in milliseconds.
    waited_ms: u128,
}

/// How many watchdogs a rule test that is still receiving signals, or
/// still inside a call that began recently, may run for in all: a correct
/// but slow publisher on a loaded machine (a thread hop per element, a few
/// hundred signals a second), or one whose `request` takes seconds once, is
/// making progress, not stuck, and slowness alone must not fail a rule that
/// is not about timing (§3.4's own test warns about it). The cap keeps a
/// run finite whatever the code under test does.
pub const WATCHDOG_PROGRESS_CAP: u32 = 3;

/// Waits for the rule thread's report: at least the watchdog, in stretches
/// of a fifth of it so that a publisher still emitting at the end can be
/// told from one that is stuck. Past the watchdog, waiting goes on one
/// stretch at a time while every stretch brings new signals, a call into
/// the code under test that returned, or one still running that began less
/// than four fifths of a watchdog ago (a call is named stuck only once it
/// alone has run for most of a watchdog), up to [`WATCHDOG_PROGRESS_CAP`]
/// watchdogs in all; the first stretch with none of these (or the cap)
/// ends it.
fn wait_watched<T>(
    cx: &RuleCx,
    env: &TestEnv,
    receiver: &crossbeam_channel::Receiver<T>,
) -> Result<T, Stuck> {
    let watchdog = env.watchdog();
    let last = watchdog / 5;
    if let Ok(report) = receiver.recv_timeout(watchdog - last) {
        return Ok(report);
    }
    let cap = watchdog * WATCHDOG_PROGRESS_CAP;
    let mut waited = watchdog - last;
    loop {
        let before = cx.signals();
        let returned_before = cx.steps_ended();
        if let Ok(report) = receiver.recv_timeout(last) {
            return Ok(report);
        }
        waited += last;
        let signals_late = cx.signals() - before;
        let now = cx.elapsed();
        // A call that returned in the stretch, or one running that began
        // recently: the rule is between or inside slow calls, not stuck.
        let call_progress = cx.steps_ended() != returned_before
            || cx
                .running_steps()
                .iter()
                .any(|step| now.saturating_sub(step.started) < watchdog - last);
        if (signals_late == 0 && !call_progress) || waited + last > cap {
            return Err(Stuck {
                extended: waited > watchdog,
                signals_late,
                late_ms: last.as_millis(),
                waited_ms: waited.as_millis(),
            });
        }
        if waited <= watchdog {
            cx.trace(format!(
                "watchdog: {} ms passed with {signals_late} signals in the last {} ms{}: \
                 waiting on, up to {} ms",
                watchdog.as_millis(),
                last.as_millis(),
                if call_progress {
                    " and calls returning or a call that began recently still running"
                } else {
                    ""
                },
                cap.as_millis()
            ));
        }
    }
}

/// What the watchdog reports, against the rule under test: the call still
/// running (with when it started and its thread's last event), or a
/// publisher that kept emitting, or the bare timeout.
fn watchdog_failure(cx: &RuleCx, env: &TestEnv, stuck: &Stuck) -> Failure {
    let Stuck {
        extended,
        signals_late,
        late_ms,
        waited_ms,
    } = *stuck;
    let ms = env.watchdog().as_millis();
    let head = if extended {
        // Signals were still arriving, or a recent call still running, at
        // the watchdog: the runner waited on while the rule made progress.
        format!(
            "watchdog: the rule did not finish within {waited_ms} ms \
             (the {ms} ms watchdog, RS_TCK_WATCHDOG_MS, extended while signals \
             kept arriving or calls kept returning or running, \
             up to {WATCHDOG_PROGRESS_CAP}×)"
        )
    } else {
        format!("watchdog: the rule did not finish within {ms} ms")
    };
    let steps = cx.running_steps();
    // The rule thread's own innermost call blocks the body; a helper
    // thread's call is named when the rule thread has none.
    let rule_thread = format!("rs-tck:{}", cx.test());
    let stuck = steps
        .iter()
        .rev()
        .find(|s| s.thread == rule_thread)
        .or(steps.last());
    let emitting = (signals_late > 0)
        .then(|| format!("kept emitting: {signals_late} signals in the last {late_ms} ms"));
    match (stuck, emitting) {
        (Some(step), emitting) => {
            // When it started goes to the trace: the message stays
            // deterministic.
            cx.trace(format!(
                "watchdog: {} still running, called at +{} ms",
                step.what,
                step.started.as_millis()
            ));
            let mut actual = format!(
                "{head} — {} never returned: still running at the watchdog, on thread {}",
                step.what, step.thread
            );
            if let Some(emitting) = emitting {
                let _ = write!(actual, "; {emitting}");
            } else if let Some(event) = &step.last_event {
                let _ = write!(actual, "; that thread's last recorded step: {event}");
            }
            let expected = format!("{} to return", step.what);
            match rule_of_stuck_call(&step.what) {
                Some(rule) => cx.failure_of(rule, expected, actual),
                None => cx.failure(expected, actual),
            }
        }
        (None, Some(emitting)) => {
            cx.failure("the rule test to finish", format!("{head} — {emitting}"))
        }
        (None, None) => cx.failure("the rule test to finish", head),
    }
}

/// The rule a call that never returns breaks, where the call itself says,
/// whichever rule test made it: a probe's `request` from inside `on_next`
/// or `on_subscribe` is the synchronous call §3.2 obliges a publisher to
/// allow, and its `cancel` from inside a signal must return in a timely
/// manner (§3.5). Other calls are filed under the rule under test.
fn rule_of_stuck_call(what: &str) -> Option<&'static str> {
    // A probe other than the test's first names itself: "second: cancel() …".
    let call = match what.split_once(": ") {
        Some((label, call)) if !label.contains([' ', '(']) => call,
        _ => what,
    };
    let request_from_signal = call.starts_with("request(")
        && (call.ends_with(" from on_next") || call.ends_with(" from on_subscribe"));
    if request_from_signal {
        Some("3.2")
    } else if call.starts_with("cancel() from on_") {
        Some("3.5")
    } else {
        None
    }
}

thread_local! {
    /// The module path of the generated test running on this thread.
    static GENERATED_MODULE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// What a generated `#[test]` calls. Not API: records the test's module
/// path for the results it produces, makes the factory and target with
/// `make` and runs the test with `run`.
#[doc(hidden)]
pub fn __generated<F, R>(
    module: &str,
    make: impl FnOnce() -> (F, String),
    run: impl FnOnce(F, &str) -> R,
) -> R {
    GENERATED_MODULE.with(|slot| *slot.borrow_mut() = module.to_owned());
    let (factory, target) = make();
    run(factory, &target)
}

/// The factory and display name of one macro invocation, evaluated where
/// the macro was invoked. Not API.
///
/// A verification macro generates `mod <name> { struct __Invocation; mod
/// <verification> { #[test] fn <test>() … } }` and implements this trait
/// for `<name>::__Invocation` in an anonymous `const _` block next to the
/// module: the factory expression and the target are evaluated in that
/// block, which sees exactly the names (and `self::`, `super::`) the
/// invocation sees, and each test names its factory by a path
/// (`super::__Invocation`), with no glob import. A user item named like the
/// verification does not clash (the marker lives inside the module).
#[doc(hidden)]
pub trait __Invocation {
    /// Runs `test` of this invocation; `module` is the generated test's
    /// module path, recorded in its results.
    fn __run(module: &'static str, test: &'static str);
}

/// Whether a rule id is one of the extended tests' (`tck.extended_…`):
/// `cargo xtask tck` runs those only with `--extended`.
///
/// ```
/// use reactive_streams_tck::runner::is_extended_rule;
/// assert!(is_extended_rule("tck.extended_schedules"));
/// assert!(!is_extended_rule("3.9"));
/// ```
pub fn is_extended_rule(rule: &str) -> bool {
    rule.starts_with("tck.extended_")
}

/// What a generated `#[test]` does with its result: concludes it (report
/// folder, panic on failure, `skipped:` line), or panics with the
/// configuration error. Not API.
#[doc(hidden)]
pub fn __conclude<E: std::fmt::Display>(result: Result<RuleResult, E>) {
    match result {
        Ok(result) => conclude(&result),
        Err(error) => panic!("{error}"),
    }
}

/// The display name of one macro invocation: the given one, else the
/// module name. Not API.
#[doc(hidden)]
#[macro_export]
macro_rules! __target {
    ($name:ident) => {
        stringify!($name)
    };
    ($name:ident, $target:expr) => {
        $target
    };
}

/// Generates one verification's tests. Not API: every public verification
/// macro expands to `@verified_by <verification type>, <verification>,
/// [<test>, …], <name>, <factory>[, <target>]`; each test runs
/// `<type>::new(factory).target(target).run(test)`.
///
/// `<verification>` is the module of the tests, `<name>` the module of the
/// invocation.
#[doc(hidden)]
#[macro_export]
macro_rules! __verification_tests {
    (@verified_by $ty:ty, $verification:ident, $tests:tt, $name:ident, $factory:expr $(, $target:expr)?) => {
        $crate::__verification_tests! {
            @generate $name, $factory, $crate::__target!($name $(, $target)?), $verification, $tests,
            |test: &str, target: &str, factory| {
                <$ty>::new(factory)
                    .target(target)
                    .run(test)
                    .map_err(|error| ::std::string::ToString::to_string(&error))
            }
        }
    };
    (@generate $name:ident, $factory:expr, $target:expr, $verification:ident, [$($test:ident),* $(,)?], $run:expr) => {
        mod $name {
            /// Names this invocation's factory (see `runner::__Invocation`).
            #[allow(dead_code)]
            pub(super) struct __Invocation;
            mod $verification {
                $(
                    #[test]
                    fn $test() {
                        <super::__Invocation as $crate::runner::__Invocation>::__run(
                            module_path!(),
                            stringify!($test),
                        );
                    }
                )*
            }
        }
        const _: () = {
            impl $crate::runner::__Invocation for $name::__Invocation {
                fn __run(module: &'static str, test: &'static str) {
                    $crate::runner::__conclude($crate::batch::result_of(
                        module,
                        test,
                        &[$(stringify!($test)),*],
                        |module, test| {
                            $crate::runner::__generated(
                                module,
                                || ($factory, ::std::string::String::from($target)),
                                |factory, target| ($run)(test, target, factory),
                            )
                        },
                    ));
                }
            }
        };
    };
}

/// What one subject's test list generates. Not API: a subject's hidden
/// `__<subject>_tests!` hands its list, quick tests then extended ones, and
/// then the request, to this:
/// - `@names`: every name, quick then extended (the subject's `TESTS`);
/// - `@quick_names`, `@extended_names`: the quick, the extended names;
/// - `@table <path of the rules module>`: name and definition of each
///   quick test, for the run-time table;
/// - `@modules <selection> <verification>, <verification type>, <name>,
///   <factory>[, <target>]`: the `#[test]`s, by `__verification_tests!`, of
///   the `quick`, `extended` or `all` tests.
#[doc(hidden)]
#[macro_export]
macro_rules! __test_list {
    ([$($quick:ident),*] [$($extended:ident),*] @names) => {
        [$(stringify!($quick),)* $(stringify!($extended)),*]
    };
    ([$($quick:ident),*] $extended:tt @quick_names) => {
        [$(stringify!($quick)),*]
    };
    ([$($quick:ident),*] [$($extended:ident),*] @extended_names) => {
        [$(stringify!($extended)),*]
    };
    ([$($quick:ident),*] $extended:tt @table $($rules:ident)::+) => {{
        use $crate::$($rules)::+ as rules;
        vec![$((stringify!($quick), rules::$quick())),*]
    }};
    ($quick:tt $extended:tt @modules quick $verification:ident, $ty:ty, $($invocation:tt)*) => {
        $crate::__verification_tests! { @verified_by $ty, $verification, $quick, $($invocation)* }
    };
    ($quick:tt $extended:tt @modules extended $verification:ident, $ty:ty, $($invocation:tt)*) => {
        $crate::__verification_tests! { @verified_by $ty, $verification, $extended, $($invocation)* }
    };
    ([$($quick:ident),*] [$($extended:ident),*] @modules all $verification:ident, $ty:ty, $($invocation:tt)*) => {
        $crate::__verification_tests! {
            @verified_by $ty, $verification, [$($quick,)* $($extended),*], $($invocation)*
        }
    };
}

/// The two forms of every public verification macro: `name, factory[,
/// target]` (the `$default` selection of the subject's list: `quick`, or
/// `all` for the verifications whose schedules were always generated with
/// their rule tests) and `extended name, factory[, target]`. Not API.
#[doc(hidden)]
#[macro_export]
macro_rules! __verification_macro {
    ($list:ident, $default:ident, $verification:ident, $ty:ty; extended $name:ident, $factory:expr $(, $target:expr)? $(,)?) => {
        $crate::$list! { @modules extended $verification, $ty, $name, $factory $(, $target)? }
    };
    ($list:ident, $default:ident, $verification:ident, $ty:ty; $name:ident, $factory:expr $(, $target:expr)? $(,)?) => {
        $crate::$list! { @modules $default $verification, $ty, $name, $factory $(, $target)? }
    };
}

/// The module path recorded by [`__generated`] on this thread, if any.
fn generated_module() -> String {
    GENERATED_MODULE.with(|slot| slot.borrow().clone())
}

/// The full text of a result that broke rules, as a generated test panics
/// (or warns) with it: target, test, rule, the message, every other rule
/// broken during the test, and the trace.
pub fn failure_text(result: &RuleResult) -> String {
    let mut text = String::new();
    let summary = reactive_streams::rules::find(&result.rule)
        .map(|rule| format!(" — {}", rule.summary))
        .unwrap_or_default();
    let verdict = match result.verdict {
        Verdict::Failed => "FAILED",
        Verdict::Warned => "WARNED",
        Verdict::Skipped => "NOT CONCLUDED",
        _ => "PASSED",
    };
    let _ = writeln!(
        text,
        "{} {}::{} {verdict} ({}{summary})",
        result.target,
        result.verification,
        result.test,
        rule_label(&result.rule),
    );
    if let Some(message) = &result.message {
        let _ = writeln!(text, "{message}");
    }
    if !result.violations.is_empty() {
        let _ = writeln!(text, "other rules broken during this test:");
        for violation in &result.violations {
            let mark = if violation.warning { " (warning)" } else { "" };
            let _ = writeln!(text, "  {}{mark}", violation.message);
        }
    }
    if !result.trace.is_empty() {
        let _ = writeln!(text, "trace:");
        for event in &result.trace {
            let _ = writeln!(text, "  {event}");
        }
    }
    text
}

/// What a generated `#[test]` does with a result: writes it to the report
/// folder, panics with [`failure_text`] if it breaks the run (its own MUST
/// rule failed, or a MUST rule was violated during it; with `RS_TCK_STRICT=1`
/// also a SHOULD/MAY rule or a timing bound), prints `warning:` with the
/// text if it only warns, and prints the reason if it was skipped.
pub fn conclude(result: &RuleResult) {
    if let Err(error) = result.write_to_report_dir() {
        eprintln!("rs-tck: could not write the result to the report folder: {error}");
    }
    let strict = strict_from_env();
    if result.fails_run(strict) {
        panic!("{}", failure_text(result));
    }
    if !result.broken_rules().is_empty() {
        println!("warning: {}", failure_text(result));
    }
    match result.verdict {
        Verdict::Skipped => println!(
            "skipped: {}",
            result.message.as_deref().unwrap_or("(no reason)")
        ),
        Verdict::EnforcedByTypes => println!(
            "enforced_by_types: {}",
            result.message.as_deref().unwrap_or("")
        ),
        Verdict::Passed | Verdict::Failed | Verdict::Warned | Verdict::Untested => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn meta() -> RuleMeta {
        RuleMeta::new(Verification::Publisher, "t", "3.5", "spec_3_05")
    }

    #[test]
    fn a_call_stuck_inside_a_signal_is_filed_under_its_own_rule() {
        assert_eq!(rule_of_stuck_call("request(1) from on_next"), Some("3.2"));
        assert_eq!(
            rule_of_stuck_call("request(∞) from on_subscribe"),
            Some("3.2")
        );
        assert_eq!(
            rule_of_stuck_call("first: cancel() from on_next #1 (value 0)"),
            Some("3.5")
        );
        assert_eq!(rule_of_stuck_call("request(1)"), None);
        assert_eq!(rule_of_stuck_call("cancel()"), None);
        assert_eq!(rule_of_stuck_call("second: request(2)"), None);
    }

    #[test]
    fn a_hung_step_is_named_by_the_watchdog() {
        let env = TestEnv::builder()
            .watchdog(Duration::from_millis(50))
            .build();
        let (_keep, never) = crossbeam_channel::bounded::<()>(0);
        let result = run_rule(&meta(), &env, move |cx| {
            cx.step("3.5", "cancel()", || {
                let _ = never.recv();
            });
            Ok(Outcome::Passed)
        });
        assert_eq!(result.verdict, Verdict::Failed);
        let message = result.message.unwrap();
        assert_eq!(
            message,
            "§3.5: expected cancel() to return; actual: watchdog: the rule did not finish within 50 ms — cancel() never returned: still running at the watchdog, on thread rs-tck:spec_3_05; that thread's last recorded step: cancel()"
        );
    }

    #[test]
    fn a_step_that_panicked_is_not_named_as_stuck() {
        let env = TestEnv::builder()
            .watchdog(Duration::from_millis(50))
            .build();
        let (_keep, never) = crossbeam_channel::bounded::<()>(0);
        let result = run_rule(&meta(), &env, move |cx| {
            let _ = cx.try_step("3.5", "cancel()", || panic!("cancel is broken"));
            let inner = cx.clone();
            let _ = crate::context::quietly(|| {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                    inner.step("3.16", "request(1)", || panic!("x"))
                }))
            });
            cx.step("3.5", "cancel() again", || {
                let _ = never.recv();
            });
            Ok(Outcome::Passed)
        });
        let message = result.message.unwrap();
        assert!(
            message.contains("— cancel() again never returned"),
            "{message}"
        );
    }

    #[test]
    fn a_publisher_that_keeps_emitting_is_told_from_a_stuck_one() {
        let env = TestEnv::builder()
            .watchdog(Duration::from_millis(1000))
            .build();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let result = run_rule(&meta(), &env, move |cx| {
            cx.step("3.16", "request(∞)", || {
                while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                    cx.trace("on_next(1)");
                    std::thread::yield_now();
                }
            });
            Ok(Outcome::Passed)
        });
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let message = result.message.unwrap();
        assert!(message.contains("request(∞) never returned"), "{message}");
        assert!(message.contains("; kept emitting: "), "{message}");
        assert!(
            message.contains("within 3000 ms (the 1000 ms watchdog"),
            "{message}"
        );
    }

    /// A body still receiving signals when the watchdog is due is slow, not
    /// stuck: it may finish within the cap and passes.
    #[test]
    fn a_rule_still_receiving_signals_at_the_watchdog_may_finish() {
        let env = TestEnv::builder()
            .watchdog(Duration::from_millis(2000))
            .build();
        let result = run_rule(&meta(), &env, |cx| {
            // Busy, not sleeping: every 400 ms stretch sees signals even
            // on a loaded machine.
            while cx.elapsed() < Duration::from_millis(2600) {
                cx.trace("on_next(1)");
                std::thread::yield_now();
            }
            Ok(Outcome::Passed)
        });
        assert_eq!(result.verdict, Verdict::Passed, "{:?}", result.message);
    }

    /// Signals that stop after the watchdog was extended: stuck from then
    /// on, reported with the whole time waited.
    #[test]
    fn signals_that_stop_after_the_watchdog_end_the_wait() {
        let env = TestEnv::builder()
            .watchdog(Duration::from_millis(2000))
            .build();
        let (_keep, never) = crossbeam_channel::bounded::<()>(0);
        let result = run_rule(&meta(), &env, move |cx| {
            cx.step("3.16", "request(1)", || {
                while cx.elapsed() < Duration::from_millis(2600) {
                    cx.trace("on_next(1)");
                    std::thread::yield_now();
                }
                let _ = never.recv();
            });
            Ok(Outcome::Passed)
        });
        let message = result.message.unwrap();
        assert!(message.contains("(the 2000 ms watchdog"), "{message}");
        assert!(message.contains("request(1) never returned"), "{message}");
        assert!(!message.contains("kept emitting"), "{message}");
    }

    /// A call that began late in the rule and takes long (a `request`
    /// blocking once) is slow, not stuck: the watchdog waits for it.
    #[test]
    fn a_slow_call_still_running_at_the_watchdog_may_finish() {
        let env = TestEnv::builder()
            .watchdog(Duration::from_millis(1000))
            .build();
        let result = run_rule(&meta(), &env, |cx| {
            let (_keep, never) = crossbeam_channel::bounded::<()>(0);
            // Four slow calls, 2.1 s in all, with short waits of the
            // test's own between them (no signal, no call running): no
            // call alone runs for most of a watchdog.
            for _ in 0..4 {
                cx.step("3.16", "request(1)", || {
                    let _ = never.recv_timeout(Duration::from_millis(500));
                });
                let _ = never.recv_timeout(Duration::from_millis(30));
            }
            Ok(Outcome::Passed)
        });
        assert_eq!(result.verdict, Verdict::Passed, "{:?}", result.message);
    }

    /// A call that began late and never returns is named once it alone has
    /// run for most of a watchdog, in the extended message.
    #[test]
    fn a_late_call_that_never_returns_is_named_after_its_own_watchdog() {
        let env = TestEnv::builder()
            .watchdog(Duration::from_millis(500))
            .build();
        let (_keep, never) = crossbeam_channel::bounded::<()>(0);
        let result = run_rule(&meta(), &env, move |cx| {
            cx.step("3.16", "request(1)", || {
                let _ = never.recv_timeout(Duration::from_millis(350));
            });
            cx.step("3.5", "cancel()", || {
                let _ = never.recv();
            });
            Ok(Outcome::Passed)
        });
        let message = result.message.unwrap();
        assert!(message.contains("— cancel() never returned"), "{message}");
        assert!(
            message.contains("calls kept returning or running"),
            "{message}"
        );
    }

    #[test]
    fn a_should_rule_or_a_timing_bound_only_warns() {
        let should = RuleMeta::new(Verification::Publisher, "t", "3.4", "spec_3_04");
        let result = run_rule(&should, &TestEnv::default(), |cx| {
            Err(cx.failure("request(1) to return within 1 ms", "it took 5 ms"))
        });
        assert_eq!(result.verdict, Verdict::Warned);
        assert!(!result.fails_run(false));
        assert!(result.fails_run(true));
        let timing = run_rule(&meta(), &TestEnv::default(), |cx| {
            Err(cx
                .failure("cancel() to return within 1 ms", "it took 5 ms")
                .as_timing())
        });
        assert_eq!(timing.verdict, Verdict::Warned);
    }

    #[test]
    fn another_rule_broken_first_leaves_the_own_rule_not_concluded() {
        let result = run_rule(&meta(), &TestEnv::default(), |cx| {
            Err(cx.failure_of("1.1", "at most 1 on_next", "2"))
        });
        assert_eq!(result.verdict, Verdict::Skipped);
        assert_eq!(
            result.message.as_deref(),
            Some("not concluded: §1.1 was broken first (see the violations)")
        );
        assert_eq!(result.broken_rules(), ["1.1"]);
        assert!(result.fails_run(false));
    }

    #[test]
    fn failures_from_other_threads_fail_a_passing_body() {
        let result = run_rule(&meta(), &TestEnv::default(), |cx| {
            let other = cx.clone();
            std::thread::spawn(move || other.record(other.failure_of("1.1", "x", "y")))
                .join()
                .unwrap();
            Ok(Outcome::Passed)
        });
        // §1.1 is not the test's own rule (§3.5): the test passed, and the
        // violation is recorded against §1.1.
        assert_eq!(result.verdict, Verdict::Passed);
        assert_eq!(result.violations.len(), 1);
        assert_eq!(result.violations[0].rule, "1.1");
        assert_eq!(result.violations[0].message, "§1.1: expected x; actual: y");
        assert!(result.fails_run(false));
        assert!(!result.trace.is_empty());
    }

    #[test]
    fn skips_and_passes_carry_no_trace() {
        let skipped = run_rule(&meta(), &TestEnv::default(), |_| {
            Ok(Outcome::Skipped("no failed publisher".into()))
        });
        assert_eq!(skipped.verdict, Verdict::Skipped);
        assert_eq!(skipped.message.as_deref(), Some("no failed publisher"));
        assert!(skipped.trace.is_empty());
    }
}
