//! The source rule tests, one function per test, named as the test.
//!
//! Every scenario connects [`SinkProbe`]s, which judge each greet,
//! emission and end as it arrives (rules 1, 2 and 4), so a source breaking
//! a rule the current test does not target still fails, naming the
//! condition it broke. Each test sets up the situation its condition is
//! about and then gives the source one no-signal window to break it.

use reactive_streams::{Source, StreamError};

use super::SourceFactory;
use super::crosstalk::{self, Standing};
use crate::context::{Failure, Outcome, RuleCx};
use crate::streamlet::probe::{Mode, Progress, SinkProbe};
use crate::streamlet::suite::{RuleDef, show};

pub(super) type Src<F> = Box<dyn Source<<F as SourceFactory>::Element>>;
pub(super) type Probe<F> = SinkProbe<<F as SourceFactory>::Element>;

fn elements<F: SourceFactory>(f: &F, n: u64) -> Option<String> {
    let max = f.max_elements();
    let plural = if n == 1 { "" } else { "s" };
    (max < n).then(|| {
        format!("needs a source of {n} element{plural}; the factory's max_elements() is {max}")
    })
}

fn ending<F: SourceFactory>(f: &F) -> Option<String> {
    (!f.ends()).then(|| String::from("needs a source that ends; the factory's ends() is false"))
}

/// `min(n, max_elements())`.
pub(super) fn up_to<F: SourceFactory>(f: &F, n: u64) -> u64 {
    n.min(f.max_elements())
}

/// `create_source(n)` as a step: a panic fails the rule under test.
pub(super) fn create<F: SourceFactory>(cx: &RuleCx, f: &F, n: u64) -> Result<Src<F>, Failure> {
    cx.try_step(cx.rule(), format!("create_source({})", show(n)), || {
        f.create_source(n)
    })
}

/// `create_failed_source()` as a step.
fn create_failed<F: SourceFactory>(cx: &RuleCx, f: &F) -> Result<Option<Src<F>>, Failure> {
    cx.try_step(cx.rule(), "create_failed_source()", || {
        f.create_failed_source()
    })
}

/// `probe` connected to `source` and greeted.
pub(super) fn greeted<T: std::fmt::Debug + Send + 'static>(
    probe: SinkProbe<T>,
    source: &dyn Source<T>,
) -> Result<SinkProbe<T>, Failure> {
    probe.connect_to(source)?;
    probe.expect_greet()?;
    Ok(probe)
}

/// How many sinks the several-sinks scenarios may connect to one source:
/// up to `wanted`, within the factory's declarations (0 or 1: none).
pub(super) fn sinks_at_once<F: SourceFactory>(f: &F, wanted: usize) -> usize {
    if f.supports_multiple_sinks() {
        wanted.min(f.max_sinks_at_once())
    } else {
        1
    }
}

/// Waits for the greet of `probe`, already connected as the `nth` sink on
/// one source at once: `None` if it came, else the outcome of a test that
/// could not conclude. Rule 1 says a source MAY greet a connected sink, so
/// one that leaves an extra sink alone refused it; that is never a
/// failure, unless the factory declares `greets_sinks()` (see
/// [`greeting`](super::greeting)).
pub(super) fn refused<F: SourceFactory>(
    cx: &RuleCx,
    f: &F,
    probe: &Probe<F>,
    label: &str,
    nth: usize,
) -> Result<Option<Outcome>, Failure> {
    if probe.wait_greet() {
        return Ok(None);
    }
    let ordinal = match nth {
        2 => String::from("second"),
        3 => String::from("third"),
        n => format!("{n}th"),
    };
    let message = format!(
        "not concluded: the source refused {label}, the {ordinal} sink connected to it at once (no greet within {} ms; rule 1 allows it: a source MAY greet a connected sink); a factory declaring max_sinks_at_once() gets scenarios within it",
        cx.env().timeout().as_millis()
    );
    super::greeting::refused(cx, f, label, message).map(Some)
}

/// What a wait after a restart (stop, then start again) did not get is
/// owed by the factory's `supports_restart()`, not by its count: a
/// `tck.create_n` failure of that wait is filed under `tck.restart`, so
/// the test that waited is "not concluded: tck.restart was broken first".
pub(super) fn after_restart<T>(cx: &RuleCx, waited: Result<T, Failure>) -> Result<T, Failure> {
    waited.map_err(|failure| {
        if failure.rule == "tck.create_n" {
            cx.failure_of(
                "tck.restart",
                format!(
                    "{} (the factory declares supports_restart())",
                    failure.expected
                ),
                failure.actual,
            )
        } else {
            failure
        }
    })
}

/// A source of `n` consumed to the end by a sink in `mode` that starts it
/// when greeted and requests up to `n + 2`: the scenario
/// `"<mode>: source of <n>, <what>"`, waiting for the end `expecting`.
/// Returns the source (kept alive until the caller is done) and the probe.
fn consumed_to_the_end<F: SourceFactory>(
    cx: &RuleCx,
    f: &F,
    mode: Mode,
    n: u64,
    what: &str,
    expecting: &str,
) -> Result<(Src<F>, Probe<F>), Failure> {
    cx.scenario(format!("{}: source of {n}, {what}", mode.as_str()));
    let source = create(cx, f, n)?;
    let probe = Probe::<F>::new(cx, "sink")
        .mode(mode)
        .start_on_greet()
        .request_limit(n + 2);
    let probe = greeted(probe, &*source)?;
    probe.wait_end(expecting)?;
    Ok((source, probe))
}

fn stop_reason() -> StreamError {
    StreamError::msg("the TCK stops the stream")
}

pub(super) fn modes<F: SourceFactory>(f: &F) -> &'static [Mode] {
    f.kind().modes()
}

/// `tck.configuration`: the factory's declarations let the rule tests
/// that need something from it run (a source of no elements that never
/// ends leaves next to nothing to verify).
pub fn tck_configuration<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::always(|cx, f| match super::everything_skipped(f) {
        None => Ok(Outcome::Passed),
        Some(reasons) => Err(cx.failure(
            "a factory whose declarations let the rule tests run",
            format!(
                "every rule test that needs something from the factory would be skipped:\n  - {}",
                reasons.join("\n  - ")
            ),
        )),
    })
}

/// `tck.greets`: the source greets a connected sink. The TCK can verify
/// nothing else of a source that never does; but rule 1 only says a source
/// MAY greet, so one that does not is "not concluded", not failed, unless
/// its factory declares `greets_sinks()` (see [`greeting`](super::greeting)).
pub fn tck_greets<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::always(|cx, f| {
        let n = up_to(f, 1);
        cx.scenario(format!("source of {n}, one sink connected"));
        let source = create(cx, f, n)?;
        greeted(Probe::<F>::new(cx, "sink"), &*source)?;
        Ok(Outcome::Passed)
    })
}

/// `tck.create_n`: `create_source(n)` delivers exactly `n` elements, then
/// ends, as the factory promises — to each sink of a source serving
/// several, whatever another sink does with its own stream (see
/// `several_sinks`), and whatever another sink does while this one holds
/// with nothing asked: another's request is not served to it, another's
/// stop does not pause it (see `crosstalk`).
pub fn tck_create_n<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::needing(ending, |cx, f| {
        for &mode in modes(f) {
            for n in [0, up_to(f, 3)] {
                let (_source, probe) = consumed_to_the_end(
                    cx,
                    f,
                    mode,
                    n,
                    "consumed to the end",
                    &format!("create_source({n}) to deliver {n} elements, then end"),
                )?;
                let received = probe.received();
                if received != n {
                    return Err(cx.failure_of(
                        "tck.create_n",
                        format!("exactly {n} elements from create_source({n}) before its end"),
                        format!("{received} elements"),
                    ));
                }
            }
        }
        if let Some(refusal) = super::several_sinks::several_sinks(cx, f)? {
            return Ok(refusal);
        }
        if let Some(refusal) = crosstalk::while_other_stands(cx, f, Standing::Holding)? {
            return Ok(refusal);
        }
        Ok(Outcome::Passed)
    })
}

/// `tck.restart`: a source declaring `supports_restart` delivers again (or
/// ends) after stop then start.
pub fn tck_restart<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::needing(
        |f| {
            elements(f, 2).or_else(|| {
                (!f.supports_restart())
                    .then(|| String::from("the factory's supports_restart() is false"))
            })
        },
        |cx, f| {
            for &mode in modes(f) {
                let n = up_to(f, 3);
                cx.scenario(format!(
                    "{}: source of {}, stop inside emission #1, then start again",
                    mode.as_str(),
                    show(n)
                ));
                let source = create(cx, f, n)?;
                let probe = greeted(
                    Probe::<F>::new(cx, "sink").mode(mode).stop_at(1, None),
                    &*source,
                )?;
                probe.start()?;
                if probe.wait_received(1, "emission #1 after start")? == Progress::Ended {
                    continue;
                }
                probe.quiet();
                probe.start()?;
                let timeout = cx.env().timeout().as_millis();
                if probe.wait_received(2, "").is_err() {
                    return Err(cx.failure_of(
                        "tck.restart",
                        "an emission or an end after stop then start (the factory declares supports_restart())",
                        format!("nothing within {timeout} ms of the new start"),
                    ));
                }
            }
            // The sink may start again as soon as it has stopped (rule 5),
            // also inside the emission it stopped in: the source is then
            // still inside its own emission loop when the start arrives.
            for &mode in modes(f) {
                let n = up_to(f, 3);
                cx.scenario(format!(
                    "{}: source of {}, stop and start again, both inside emission #1",
                    mode.as_str(),
                    show(n)
                ));
                let source = create(cx, f, n)?;
                let probe = greeted(
                    Probe::<F>::new(cx, "sink").mode(mode).restart_at(1),
                    &*source,
                )?;
                probe.start()?;
                if probe.wait_received(1, "emission #1 after start")? == Progress::Ended {
                    continue;
                }
                let timeout = cx.env().timeout().as_millis();
                if probe.wait_received(2, "").is_err() {
                    return Err(cx.failure_of(
                        "tck.restart",
                        "an emission or an end after stop then start (the factory declares supports_restart())",
                        format!(
                            "nothing within {timeout} ms of the new start, made inside emission #1"
                        ),
                    ));
                }
            }
            Ok(Outcome::Passed)
        },
    )
}

/// `streamlet.1.a`: one greet per connected sink — through a whole
/// lifecycle (start, stop, start again), and with several sinks on one
/// source.
pub fn streamlet_1_a<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::needing(
        |f| elements(f, 1),
        |cx, f| {
            for &mode in modes(f) {
                let n = up_to(f, 3);
                cx.scenario(format!(
                    "{}: source of {}, start, stop inside emission #1, start again",
                    mode.as_str(),
                    show(n)
                ));
                let source = create(cx, f, n)?;
                let probe = greeted(
                    Probe::<F>::new(cx, "sink").mode(mode).stop_at(1, None),
                    &*source,
                )?;
                probe.start()?;
                probe.wait_received(1, "emission #1 after start")?;
                probe.quiet();
                probe.start()?;
                probe.quiet();
            }
            let sinks = sinks_at_once(f, 3);
            if sinks >= 2 {
                let n = up_to(f, 3);
                let labels = &["sink A", "sink B", "sink C"][..sinks];
                cx.scenario(format!(
                    "source of {}, {} sinks connected",
                    show(n),
                    if sinks == 3 { "three" } else { "two" }
                ));
                let source = create(cx, f, n)?;
                let probes: Vec<Probe<F>> = labels
                    .iter()
                    .map(|label| Probe::<F>::new(cx, label))
                    .collect();
                for probe in &probes {
                    probe.connect_to(&*source)?;
                }
                probes[0].expect_greet()?;
                for (k, probe) in probes.iter().enumerate().skip(1) {
                    if let Some(refusal) = refused(cx, f, probe, labels[k], k + 1)? {
                        probes[0].quiet();
                        return Ok(refusal);
                    }
                }
                probes[0].quiet();
            }
            Ok(Outcome::Passed)
        },
    )
}

/// `streamlet.2.b`: no emission before the greet. The probe judges every
/// emission as it arrives; the window after the greet lets a source that
/// emitted first and greeted later show it.
pub fn streamlet_2_b<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::always(|cx, f| {
        let n = up_to(f, 2);
        cx.scenario(format!("source of {n}, connected"));
        let source = create(cx, f, n)?;
        greeted(Probe::<F>::new(cx, "sink"), &*source)?.quiet();
        if let Some(failed) = create_failed(cx, f)? {
            cx.scenario("failed source, connected");
            greeted(Probe::<F>::new(cx, "sink"), &*failed)?.quiet();
        }
        Ok(Outcome::Passed)
    })
}

/// `streamlet.2.c`: no emission to a sink that has not started the stream
/// — neither to a greeted sink left alone, nor to the second of two sinks
/// when only the first started, nor to one never started whatever the
/// other sink does (starts, requests, stops, ends, starts again; see
/// `crosstalk`).
pub fn streamlet_2_c<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::always(|cx, f| {
        let n = up_to(f, 2);
        cx.scenario(format!("source of {n}, greeted, never started"));
        let source = create(cx, f, n)?;
        greeted(Probe::<F>::new(cx, "sink"), &*source)?.quiet();
        if sinks_at_once(f, 2) >= 2 && n > 0 {
            for &mode in modes(f) {
                cx.scenario(format!(
                    "{}: source of {n}, two sinks, only sink A started (stop inside emission #1)",
                    mode.as_str()
                ));
                let source = create(cx, f, n)?;
                let a = greeted(
                    Probe::<F>::new(cx, "sink A").mode(mode).stop_at(1, None),
                    &*source,
                )?;
                let b = Probe::<F>::new(cx, "sink B").mode(mode);
                b.connect_to(&*source)?;
                if let Some(refusal) = refused(cx, f, &b, "sink B", 2)? {
                    return Ok(refusal);
                }
                a.start()?;
                a.wait_received(1, "emission #1 to sink A after its start")?;
                b.quiet();
            }
        }
        if let Some(refusal) = crosstalk::while_other_stands(cx, f, Standing::Idle)? {
            return Ok(refusal);
        }
        Ok(Outcome::Passed)
    })
}

/// `streamlet.2.d`: no emission after the sink stopped the stream (from
/// inside an emission), until it starts it again; after a restart, the
/// same for the next stop. Then the same with `stop()` called from the
/// test's thread while the source may be emitting from its own: an
/// emission racing with the call is accepted, one that begins after it
/// returned is not (nor an end, `streamlet.4.d`). Then with two sinks: no
/// emission to the one stopped whatever the other does (see `crosstalk`).
pub fn streamlet_2_d<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::needing(
        |f| elements(f, 2),
        |cx, f| {
            for &mode in modes(f) {
                let n = up_to(f, 3);
                let restart = f.supports_restart();
                cx.scenario(format!(
                    "{}: source of {}, stop inside emission #1{}",
                    mode.as_str(),
                    show(n),
                    if restart {
                        ", start again, stop inside emission #2"
                    } else {
                        ""
                    }
                ));
                let source = create(cx, f, n)?;
                let probe = greeted(
                    Probe::<F>::new(cx, "sink")
                        .mode(mode)
                        .stop_at(1, None)
                        .stop_at(2, None),
                    &*source,
                )?;
                probe.start()?;
                if probe.wait_received(1, "emission #1 after start")? == Progress::Ended {
                    continue;
                }
                probe.quiet();
                if restart && !probe.lifecycle().ended {
                    probe.start()?;
                    after_restart(
                        cx,
                        probe.wait_received(2, "emission #2 after the new start"),
                    )?;
                    probe.quiet();
                }
            }
            for &mode in modes(f) {
                stop_from_another_thread(cx, f, mode)?;
            }
            if let Some(refusal) = crosstalk::while_other_stands(cx, f, Standing::Stopped)? {
                return Ok(refusal);
            }
            Ok(Outcome::Passed)
        },
    )
}

/// `streamlet.2.e`: no emission after the end — also with two sinks, to
/// the one whose stream ended, whatever the other does (see `crosstalk`).
pub fn streamlet_2_e<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::needing(ending, |cx, f| {
        for &mode in modes(f) {
            for n in [up_to(f, 2), 0] {
                let (_source, probe) = consumed_to_the_end(
                    cx,
                    f,
                    mode,
                    n,
                    "started from inside greet, consumed to the end",
                    &format!("create_source({n}) to end after {n} elements"),
                )?;
                probe.quiet();
            }
        }
        if let Some(refusal) = crosstalk::while_other_stands(cx, f, Standing::Ended)? {
            return Ok(refusal);
        }
        Ok(Outcome::Passed)
    })
}

/// `streamlet.4.b`: no end before the greet, even for an empty or a
/// failed source.
pub fn streamlet_4_b<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::always(|cx, f| {
        cx.scenario("source of 0, connected");
        let source = create(cx, f, 0)?;
        greeted(Probe::<F>::new(cx, "sink"), &*source)?.quiet();
        if let Some(failed) = create_failed(cx, f)? {
            cx.scenario("failed source, connected");
            greeted(Probe::<F>::new(cx, "sink"), &*failed)?.quiet();
        }
        Ok(Outcome::Passed)
    })
}

/// `streamlet.4.c`: no end before the sink starts the stream, even for an
/// empty or a failed source.
pub fn streamlet_4_c<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::always(|cx, f| {
        for n in [0, up_to(f, 1)] {
            cx.scenario(format!("source of {n}, greeted, never started"));
            let source = create(cx, f, n)?;
            greeted(Probe::<F>::new(cx, "sink"), &*source)?.quiet();
        }
        if let Some(failed) = create_failed(cx, f)? {
            cx.scenario("failed source, greeted, never started");
            greeted(Probe::<F>::new(cx, "sink"), &*failed)?.quiet();
        }
        Ok(Outcome::Passed)
    })
}

/// The foreign-thread half of `streamlet.2.d` (and `4.d`): the test's
/// thread stops the stream halfway between two emissions, where a source
/// emitting from its own thread is most likely between its "started?"
/// check and its emission, then gives the source one no-signal window;
/// then starts again and repeats (where restarts are supported).
fn stop_from_another_thread<F: SourceFactory>(
    cx: &RuleCx,
    f: &F,
    mode: Mode,
) -> Result<(), Failure> {
    // Within the probe's request limit, so a pulled source keeps going.
    let n = up_to(f, 32);
    let rounds = if f.supports_restart() { 5 } else { 1 };
    cx.scenario(format!(
        "{}: source of {}, stop() from the test's thread halfway between two emissions, {rounds} time(s) (start again in between)",
        mode.as_str(),
        show(n),
    ));
    let source = create(cx, f, n)?;
    let probe = greeted(Probe::<F>::new(cx, "sink").mode(mode), &*source)?;
    for round in 0..rounds {
        // A source that never ends (`ends()` false) says nothing once its
        // elements are out: a round needs two more.
        if !f.ends() && probe.received().saturating_add(2) > n {
            break;
        }
        // Counted before the start: a source may emit from inside it.
        let first = probe.received() + 1;
        probe.start()?;
        // From the second round on, the start is a restart.
        let owed = |waited| {
            if round == 0 {
                waited
            } else {
                after_restart(cx, waited)
            }
        };
        if owed(probe.wait_received(first, "an emission after start"))? == Progress::Ended {
            return Ok(());
        }
        let since = std::time::Instant::now();
        if owed(probe.wait_received(first + 1, "a second emission after start"))? == Progress::Ended
        {
            return Ok(());
        }
        probe.linger(since.elapsed() / 2);
        probe.stop()?;
        probe.quiet();
        if probe.lifecycle().ended || cx.has_failed() {
            break;
        }
    }
    Ok(())
}

/// `streamlet.4.d`: no end while the sink has the stream stopped — not even
/// when the element it stopped inside was the last one.
pub fn streamlet_4_d<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::needing(
        |f| elements(f, 1),
        |cx, f| {
            for &mode in modes(f) {
                for n in [1, up_to(f, 3)] {
                    cx.scenario(format!(
                        "{}: source of {n}, stop with a reason inside emission #1",
                        mode.as_str()
                    ));
                    let source = create(cx, f, n)?;
                    let probe = Probe::<F>::new(cx, "sink")
                        .mode(mode)
                        .stop_at(1, Some(stop_reason()));
                    let probe = greeted(probe, &*source)?;
                    probe.start()?;
                    probe.wait_received(1, "emission #1 after start")?;
                    probe.quiet();
                }
            }
            Ok(Outcome::Passed)
        },
    )
}

/// `streamlet.4.e`: one end per stream, whether the source runs out or
/// fails.
pub fn streamlet_4_e<F: SourceFactory>() -> RuleDef<F> {
    RuleDef::needing(ending, |cx, f| {
        for &mode in modes(f) {
            for n in [0, up_to(f, 1)] {
                let (_source, probe) = consumed_to_the_end(
                    cx,
                    f,
                    mode,
                    n,
                    "consumed to the end",
                    &format!("create_source({n}) to end after {n} elements"),
                )?;
                probe.quiet();
            }
            if let Some(failed) = create_failed(cx, f)? {
                cx.scenario(format!("{}: failed source, started", mode.as_str()));
                let probe = greeted(
                    Probe::<F>::new(cx, "sink").mode(mode).request_limit(2),
                    &*failed,
                )?;
                probe.start()?;
                probe.wait_end("the failed source to end once started")?;
                probe.quiet();
            }
        }
        Ok(Outcome::Passed)
    })
}
