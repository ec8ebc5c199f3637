//! The sink rule tests, one function per test, named as the test.
//!
//! Every scenario connects the sink under test to a [`SourceProbe`], which
//! judges each start, request and stop as it arrives (rules 3, 5 and 6),
//! so a sink breaking a rule the current test does not target still fails,
//! naming the condition it broke. The probe itself keeps rules 1, 2 and 4:
//! it greets once, emits only while the stream is live (pushing, as a
//! listenable source may; requests are counted, not required) and ends only
//! a live stream.

use reactive_streams::StreamError;

use super::SinkFactory;
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::streamlet::probe::SourceProbe;
use crate::streamlet::suite::RuleDef;

type Probe<F> = SourceProbe<<F as SinkFactory>::Element>;

/// How many elements the TCK feeds a sink to watch it.
const FEED: u64 = 8;

fn stopping<F: SinkFactory>(f: &F) -> Option<String> {
    f.stops_after().is_none().then(|| {
        String::from("needs a sink that stops by itself; the factory's stops_after() is None")
    })
}

/// A fresh sink from the factory, connected to a fresh probe and greeted.
fn greeted<F: SinkFactory>(cx: &RuleCx, f: &F) -> Result<Probe<F>, Failure> {
    let sink = cx.try_step(cx.rule(), "create_sink()", || f.create_sink())?;
    let probe = Probe::<F>::new(cx, "source");
    probe.connect_sink(sink);
    probe.greet()?;
    Ok(probe)
}

/// A sink that did not start the stream within the timeout of its greet.
/// Rule 5 only says a sink MAY start, so a test needing a started stream
/// is skipped, saying so, unless the factory declared `starts_on_greet()`:
/// then the sink broke that promise, and the test fails `tck.starts`.
fn never_started<F: SinkFactory>(cx: &RuleCx, f: &F) -> RuleBody {
    let waited = cx.env().timeout().as_millis();
    if f.starts_on_greet() {
        return Err(cx.failure_of(
            "tck.starts",
            "the sink to start the stream once greeted (the factory's starts_on_greet())",
            format!("no start within {waited} ms of its greet"),
        ));
    }
    Ok(Outcome::Skipped(format!(
        "needs a started stream: the sink did not start it within {waited} ms of its greet, as rule 5 allows (a sink MAY start)"
    )))
}

/// Emits up to `n` elements from `from`, while the stream is live. A sink
/// whose factory declares `stops_after(k)` stops for good only once it
/// has received `k` elements: a stop before that is a pause (rule 5 lets
/// it start again), so the feed waits for the new start (up to the
/// timeout) and goes on. Returns how many it emitted.
fn feed<F: SinkFactory>(f: &F, probe: &Probe<F>, from: u64, n: u64) -> Result<u64, Failure> {
    let mut emitted = 0;
    for index in from..from + n {
        while !probe.emit(f.create_element(index))? {
            if !(paused(f, probe) && probe.wait_live()) {
                return Ok(emitted);
            }
        }
        emitted += 1;
    }
    Ok(emitted)
}

/// Whether the sink has the stream stopped before the element its
/// factory's `stops_after()` says it stops for good at: a pause, by that
/// declaration, which a start will end.
fn paused<F: SinkFactory>(f: &F, probe: &Probe<F>) -> bool {
    let life = probe.lifecycle();
    life.started
        && !life.live
        && !life.ended
        && f.stops_after().is_some_and(|n| probe.emitted() < n)
}

/// `tck.starts`: the sink starts the stream once greeted. The TCK can
/// verify little else of a sink that never does; but rule 5 only says a
/// sink MAY start, so one that does not is skipped, not failed, unless its
/// factory declares `starts_on_greet()`.
pub fn tck_starts<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::always(|cx, f| {
        cx.scenario("greeted");
        let probe = greeted(cx, f)?;
        if !probe.wait_started() {
            return never_started(cx, f);
        }
        Ok(Outcome::Passed)
    })
}

/// `tck.stops_after`: a sink declaring `stops_after(n)` starts the stream
/// once greeted and stops it for good when it has received `n` elements,
/// not before. A stop followed by a start (a pause, rule 5) is not that
/// stop: the final one is judged. A sink that never starts breaks no rule
/// (rule 5: a sink MAY start), but it cannot keep that declaration, so
/// here it fails.
pub fn tck_stops_after<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::needing(stopping, |cx, f| {
        fed_until_stopped(cx, f, |n| format!("greeted, fed {n} elements"))?;
        Ok(Outcome::Passed)
    })
}

/// What `stops_after()` = `n` means, as failures quote it: the
/// declaration and its meaning.
fn meaning(n: u64) -> String {
    let plural = if n == 1 { "" } else { "s" };
    format!(
        "as the factory's stops_after() is {n} (the sink starts the stream once greeted, may pause it — stop, then start again — and stops it for good once it has received {n} element{plural})"
    )
}

/// The scenario `scenario(n)`: greets the sink, waits for its start, feeds
/// it its `stops_after()` = `n` elements (waiting out every pause: a stop
/// followed by a start) and waits for its stop. Fails `tck.stops_after` if
/// the sink does not start, does not stop, or stops for good before its
/// `n`-th element (a stop no start follows within the timeout): the
/// factory's declaration, which the rules about a stopped stream need
/// kept.
fn fed_until_stopped<F: SinkFactory>(
    cx: &RuleCx,
    f: &F,
    scenario: impl FnOnce(u64) -> String,
) -> Result<Probe<F>, Failure> {
    let n = f.stops_after().unwrap_or_default();
    cx.scenario(scenario(n));
    let declared = |what: &str| format!("the sink to {what}, {}", meaning(n));
    let waited = cx.env().timeout().as_millis();
    let probe = greeted(cx, f)?;
    if !probe.wait_started() {
        return Err(cx.failure_of(
            "tck.stops_after",
            declared("start the stream once greeted"),
            format!("no start within {waited} ms of its greet"),
        ));
    }
    let fed = feed(f, &probe, 0, n)?;
    if fed < n {
        let stopped_after = probe.emitted_at_last_stop().unwrap_or(fed);
        return Err(cx.failure_of(
            "tck.stops_after",
            declared(&format!("stop the stream for good only after {n} elements")),
            format!(
                "it stopped after {stopped_after} element{} and did not start again within {waited} ms",
                if stopped_after == 1 { "" } else { "s" }
            ),
        ));
    }
    if !probe.wait_halted() {
        return Err(cx.failure_of(
            "tck.stops_after",
            declared(&format!("stop the stream after {n} elements")),
            format!("no stop within {waited} ms"),
        ));
    }
    Ok(probe)
}

/// The scenario of the "before start" conditions: greet, wait for the
/// start, watch one window. A request or stop before the start is judged
/// as it arrives.
fn before_start<F: SinkFactory>(cx: &RuleCx, f: &F) -> RuleBody {
    cx.scenario("greeted, then started by the sink");
    let probe = greeted(cx, f)?;
    if !probe.wait_started() {
        return never_started(cx, f);
    }
    probe.quiet();
    Ok(Outcome::Passed)
}

/// `streamlet.3.c`: no request before the sink starts the stream.
pub fn streamlet_3_c<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::always(before_start)
}

/// `streamlet.6.c`: no stop before the sink starts the stream.
pub fn streamlet_6_c<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::always(before_start)
}

/// `streamlet.5.c`: no start while the stream is started — neither on
/// greet twice nor while data flows.
pub fn streamlet_5_c<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::always(|cx, f| {
        cx.scenario(format!("started, fed up to {FEED} elements"));
        let probe = greeted(cx, f)?;
        if !probe.wait_started() {
            return never_started(cx, f);
        }
        feed(f, &probe, 0, FEED)?;
        probe.quiet();
        Ok(Outcome::Passed)
    })
}

/// The scenario of the "after stop" conditions: feed the sink until it
/// stops, then watch one window.
fn after_stop<F: SinkFactory>(cx: &RuleCx, f: &F) -> RuleBody {
    let scenario = |n| format!("started, fed {n} elements, stopped by the sink");
    let probe = fed_until_stopped(cx, f, scenario)?;
    probe.quiet();
    // Inside the scenario, so a stop from the sink's Drop is judged.
    probe.drop_sink()?;
    Ok(Outcome::Passed)
}

/// `streamlet.3.d`: no request while the sink has the stream stopped.
pub fn streamlet_3_d<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::needing(stopping, after_stop)
}

/// `streamlet.6.d`: no second stop before a new start.
pub fn streamlet_6_d<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::needing(stopping, after_stop)
}

/// The scenarios of the "after end" conditions: the source ends the
/// stream right after the start, and after one element with a reason; then
/// one window. Any talkback call after the end is judged.
fn after_end<F: SinkFactory>(cx: &RuleCx, f: &F) -> RuleBody {
    cx.scenario("started, then ended at once");
    let probe = greeted(cx, f)?;
    if !probe.wait_started() {
        return never_started(cx, f);
    }
    probe.end(None)?;
    probe.quiet();

    cx.scenario("started, fed 1 element, then ended with a reason");
    let probe = greeted(cx, f)?;
    if !probe.wait_started() {
        return never_started(cx, f);
    }
    feed(f, &probe, 0, 1)?;
    if paused(f, &probe) {
        probe.wait_live();
    }
    probe.end(Some(StreamError::msg("the TCK ends the stream")))?;
    probe.quiet();
    // Inside the scenario, so a talkback call from the sink's Drop is judged.
    probe.drop_sink()?;
    Ok(Outcome::Passed)
}

/// `streamlet.3.e`: no request after the source ended the stream.
pub fn streamlet_3_e<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::always(after_end)
}

/// `streamlet.5.d`: no start after the source ended the stream.
pub fn streamlet_5_d<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::always(after_end)
}

/// `streamlet.6.e`: no stop after the source ended the stream.
pub fn streamlet_6_e<F: SinkFactory>() -> RuleDef<F> {
    RuleDef::always(after_end)
}
