//! One sink never moves another's stream (issue 39 §3). Rules 2 and 4 are
//! about *a* stream: whether its sink was greeted, started it, stopped it
//! since, whether its source ended it. With several sinks on one source
//! each stream's state is its own, so another sink's `start` does not
//! make it live, another sink's `stop` does not pause it, another sink's
//! end does not end it, and another sink's `request` does not take what
//! it asked for.
//!
//! The scenarios: sinks A and B on one source; B stands somewhere (never
//! started, holding with nothing asked, stopped, ended), then A acts
//! (starts, requests, stops, is consumed to its end, starts again) — with
//! A connected only once B stands, and with A connected (and idle) before
//! B gets there, so that B's own moves are judged against A's stream too.
//! Then:
//!
//! * B gets nothing it may not (the probe judges every signal: an emission
//!   to B never started fails `streamlet.2.c`, to B stopped `.2.d`, to B
//!   ended `.2.e`; an end `streamlet.4.c` / `.4.d` / `.4.e`);
//! * A gets what it asked for, and B what it asks for next: a sink left
//!   waiting fails `tck.create_n` (the factory's promise: `create_source(n)`
//!   serves each sink that starts, answering its requests if pullable).
//!
//! Each rule test runs the scenarios of the state it is about
//! (`streamlet_2_c`: B never started; `.2_d`: stopped; `.2_e`: ended;
//! `tck_create_n`: holding). Every step waits on a condition, so a
//! synchronous source is judged exactly at the step that broke it, and no
//! no-signal window is spent (the scenarios add a few milliseconds to a
//! verification, more only for a source with a pace of its own). Every
//! stream of a test stays attached until the test ends, so a signal a
//! source sends from its own thread is judged whenever it arrives
//! meanwhile; the single-sink scenarios of each rule give those their
//! no-signal windows.

use super::SourceFactory;
use super::rules::{Probe, Src, after_restart, create, modes, refused, sinks_at_once, up_to};
use crate::context::{Failure, Outcome, RuleCx};
use crate::streamlet::probe::{Mode, Progress};

/// Where sink B stands when sink A acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Standing {
    /// Greeted, never started.
    Idle,
    /// Started, took emission #1, asked for nothing since (pulling only:
    /// a pushed stream does not hold).
    Holding,
    /// Started and stopped inside emission #1.
    Stopped,
    /// Consumed to its end.
    Ended,
}

impl Standing {
    fn describe(self) -> &'static str {
        match self {
            Standing::Idle => "greeted and never started",
            Standing::Holding => "took emission #1 and asks for nothing",
            Standing::Stopped => "stopped inside its emission #1",
            Standing::Ended => "consumed to its end",
        }
    }
}

/// What sink A does while B stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    /// Starts its stream (pulling, without a request).
    Start,
    /// Took emission #1; asks for one more (pulling only).
    Request,
    /// Pulling: took emission #1 and stops from the test's thread.
    /// Pushed: starts and stops inside emission #1.
    Stop,
    /// Took emission #1; asks for the rest and gets its end (pulling
    /// only: pushed, a start is consumed to the end).
    End,
    /// Stopped inside emission #1; starts again (where the factory
    /// supports restarts).
    Restart,
}

impl Act {
    fn describe(self, mode: Mode) -> &'static str {
        match (self, mode) {
            (Act::Start, Mode::Pull) => "starts its stream, asking for nothing",
            (Act::Start, Mode::Push) => "starts its stream",
            (Act::Request, _) => "(holding at emission #1) requests one more",
            (Act::Stop, Mode::Pull) => "(holding at emission #1) stops from the test's thread",
            (Act::Stop, Mode::Push) => "starts and stops inside its emission #1",
            (Act::End, _) => {
                "(holding at emission #1) asks for the rest and is consumed to its end"
            }
            (Act::Restart, _) => "(stopped inside its emission #1) starts again",
        }
    }

    /// The acts a sink in `mode` has, for a factory that restarts or not.
    fn all(mode: Mode, restart: bool) -> Vec<Act> {
        let mut acts = vec![Act::Start];
        if mode == Mode::Pull {
            acts.extend([Act::Request, Act::End]);
        }
        acts.push(Act::Stop);
        if restart {
            acts.push(Act::Restart);
        }
        acts
    }
}

/// The streams of one test, kept attached (and judged) until it ends.
type Kept<F> = Vec<(Src<F>, Probe<F>, Probe<F>)>;

/// The scenarios where B stands `standing`, for factories serving two
/// sinks at once whose sources end and have two elements or more.
/// `Some` outcome if the source refused the second sink (see [`refused`]).
pub(super) fn while_other_stands<F: SourceFactory>(
    cx: &RuleCx,
    f: &F,
    standing: Standing,
) -> Result<Option<Outcome>, Failure> {
    if sinks_at_once(f, 2) < 2 || !f.ends() || f.max_elements() < 2 {
        return Ok(None);
    }
    let mut kept: Kept<F> = Vec::new();
    for &mode in modes(f) {
        if standing == Standing::Holding && mode == Mode::Push {
            continue;
        }
        for act in Act::all(mode, f.supports_restart()) {
            for b_first in [true, false] {
                let scenario = Scenario {
                    mode,
                    standing,
                    act,
                    b_first,
                };
                if let Some(refusal) = scenario.run(cx, f, &mut kept)? {
                    return Ok(Some(refusal));
                }
                if cx.has_failed() {
                    return Ok(None);
                }
            }
        }
    }
    Ok(None)
}

/// One scenario: B stands, then A acts.
struct Scenario {
    mode: Mode,
    standing: Standing,
    act: Act,
    /// B connected first (else A).
    b_first: bool,
}

impl Scenario {
    fn run<F: SourceFactory>(
        &self,
        cx: &RuleCx,
        f: &F,
        kept: &mut Kept<F>,
    ) -> Result<Option<Outcome>, Failure> {
        let n = up_to(f, 3);
        let (mode, act) = (self.mode, self.act);
        cx.scenario(format!(
            "{}: source of {n}, sinks A and B ({}); B {}, then A {}",
            mode.as_str(),
            if self.b_first {
                "A connected once B stands"
            } else {
                "A connected first"
            },
            self.standing.describe(),
            act.describe(mode)
        ));
        let source = create(cx, f, n)?;
        let b = Probe::<F>::new(cx, "sink B").mode(mode);
        let b = match self.standing {
            Standing::Idle => b.request_limit(0),
            Standing::Holding => b.request_limit(1),
            Standing::Stopped => b.stop_at(1, None),
            Standing::Ended => b.request_limit(n + 2),
        };
        let a = Probe::<F>::new(cx, "sink A").mode(mode);
        let a = match (act, mode) {
            (Act::Start, _) => a.request_limit(0),
            (Act::Request | Act::End, _) | (Act::Stop, Mode::Pull) => a.request_limit(1),
            (Act::Stop | Act::Restart, _) => a.stop_at(1, None),
        };
        // B first: B gets where it stands before A is there at all. A
        // first: B gets there with A connected and idle, which B's own
        // moves must leave alone too.
        let (first, second, label) = if self.b_first {
            (&b, &a, "sink A")
        } else {
            (&a, &b, "sink B")
        };
        first.connect_to(&*source)?;
        first.expect_greet()?;
        let stood = !self.b_first || self.stand::<F>(&b, n)?;
        second.connect_to(&*source)?;
        if let Some(refusal) = refused(cx, f, second, label, 2)? {
            return Ok(Some(refusal));
        }
        let stood = stood && (self.b_first || self.stand::<F>(&b, n)?);
        if stood && self.prepare::<F>(&a)? {
            self.act::<F>(cx, &a, n)?;
            self.then_b(cx, f, (&a, &b), n)?;
        }
        kept.push((source, a, b));
        Ok(None)
    }

    /// Brings B where it stands; whether it got there (a source may push
    /// a pulled stream to its end at once, say).
    fn stand<F: SourceFactory>(&self, b: &Probe<F>, n: u64) -> Result<bool, Failure> {
        match self.standing {
            Standing::Idle => Ok(true),
            Standing::Holding | Standing::Stopped => {
                b.start()?;
                let took = b.wait_received(1, "sink B: emission #1 after its start")?;
                Ok(took == Progress::Received && b.received() == 1 && !b.lifecycle().ended)
            }
            Standing::Ended => {
                b.start()?;
                b.wait_end(&format!("sink B: its {n} elements, then its end"))?;
                Ok(true)
            }
        }
    }

    /// Brings A where its act starts from; whether it got there.
    fn prepare<F: SourceFactory>(&self, a: &Probe<F>) -> Result<bool, Failure> {
        let holds = matches!(self.act, Act::Request | Act::End)
            || self.act == Act::Stop && self.mode == Mode::Pull;
        if !holds && self.act != Act::Restart {
            return Ok(true);
        }
        a.start()?;
        let took = a.wait_received(1, "sink A: emission #1 after its start")?;
        let life = a.lifecycle();
        Ok(took == Progress::Received && a.received() == 1 && !life.ended)
    }

    /// A's act, and what A is owed for it.
    fn act<F: SourceFactory>(&self, cx: &RuleCx, a: &Probe<F>, n: u64) -> Result<(), Failure> {
        match (self.act, self.mode) {
            (Act::Start, Mode::Pull) => a.start(),
            (Act::Start, Mode::Push) => {
                a.start()?;
                a.wait_end(&format!(
                    "sink A: its elements, then its end, once it started, whatever sink B's stream is ({})",
                    self.standing.describe()
                ))
            }
            (Act::Request, _) => {
                a.request_more(2)?;
                a.wait_received(
                    2,
                    &format!(
                        "sink A: emission #2 in answer to its request, whatever sink B's stream is ({})",
                        self.standing.describe()
                    ),
                )
                .map(drop)
            }
            (Act::Stop, Mode::Pull) => a.stop(),
            (Act::Stop, Mode::Push) => {
                a.start()?;
                a.wait_received(1, "sink A: emission #1 after its start")
                    .map(drop)
            }
            (Act::End, _) => {
                a.request_more(n + 2)?;
                a.wait_end(&format!(
                    "sink A: the rest of its {n} elements, then its end, whatever sink B's stream is ({})",
                    self.standing.describe()
                ))
            }
            (Act::Restart, _) => {
                a.request_more(3)?;
                a.start()?;
                after_restart(
                    cx,
                    a.wait_received(2, "sink A: an emission or its end after its new start"),
                )
                .map(drop)
            }
        }
    }

    /// What B is owed after A's act: its stream goes on as B drives it.
    fn then_b<F: SourceFactory>(
        &self,
        cx: &RuleCx,
        f: &F,
        (a, b): (&Probe<F>, &Probe<F>),
        n: u64,
    ) -> Result<(), Failure> {
        let whatever = format!("whatever sink A does (it {})", self.act.describe(self.mode));
        match self.standing {
            Standing::Idle => {
                b.request_more(n + 2)?;
                b.start()?;
                b.wait_end(&format!(
                    "sink B: its elements, then its end, once it starts, {whatever}"
                ))?;
                // A sink starting after another may miss what went by (a
                // hot source), never get more.
                let received = b.received();
                if received > n {
                    return Err(cx.failure_of(
                        "tck.create_n",
                        format!("sink B: at most {n} elements before its end, {whatever}"),
                        format!("sink B ended after {received} element(s)"),
                    ));
                }
            }
            Standing::Holding => {
                b.request_more(n + 2)?;
                b.wait_end(&format!(
                    "sink B: the rest of its {n} elements, then its end, {whatever}"
                ))?;
                let received = b.received();
                if received != n {
                    return Err(cx.failure_of(
                        "tck.create_n",
                        format!("sink B: exactly {n} elements before its end, {whatever}"),
                        format!("sink B ended after {received} element(s)"),
                    ));
                }
            }
            Standing::Stopped if f.supports_restart() => {
                let wanted =
                    format!("sink B: an emission or its end after its new start, {whatever}");
                let a_before = a.received();
                b.request_more(n + 2)?;
                b.start()?;
                let waited = b.wait_received(2, &wanted);
                // Nothing came to B, but A got what it did not ask for:
                // B's restart went through and its request went to A.
                if waited.is_err() && self.mode == Mode::Pull && a.received() > a_before {
                    return Err(cx.failure_of(
                        "tck.create_n",
                        format!("{wanted}, in answer to B's request"),
                        format!(
                            "sink B had 1 emission(s) and no end after {} ms; sink A, which asked for nothing more, got {} meanwhile",
                            cx.env().timeout().as_millis(),
                            a.received() - a_before
                        ),
                    ));
                }
                after_restart(cx, waited)?;
            }
            Standing::Stopped | Standing::Ended => {}
        }
        Ok(())
    }
}
