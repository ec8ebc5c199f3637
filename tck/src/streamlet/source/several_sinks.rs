//! Several sinks on one source (issue 27): what one sink does with its
//! stream — stopping it, starting it again, consuming it to the end — is
//! that sink's business. Every other sink goes on receiving what it is
//! owed, in order, and its stream ends only when its own elements are out.
//!
//! No Streamlet rule says so: the protocol only bounds when a source may
//! emit or end, and lets a source shut down at its first stop. The promise
//! is the factory's: `create_source(n)` delivers `n` elements to *each*
//! sink that starts the stream and then ends it, and
//! `supports_multiple_sinks()` says one source serves several at once. A
//! sink left waiting, ended early, or handed an element again (a rewind,
//! by the declared `element_index`, or by the count) fails
//! `tck.create_n`; a signal that breaks a Streamlet condition (an emission
//! to the sink that stopped, an end while it is stopped) fails that
//! condition, as the probes judge every signal.
//!
//! A source may serve only so many sinks (`max_sinks_at_once()`): rule 1
//! says it MAY greet a connected sink, so a sink A it never greets is a
//! refusal, and the test is "not concluded", never failed.
//!
//! Each scenario is deterministic for a synchronous pullable source: sink B
//! takes its first element and holds back (no request outstanding), sink A
//! does its part to the end, then B asks for the rest. Nothing is left to
//! a no-signal window: the scenarios cost no more than their signals.

use super::SourceFactory;
use super::rules::{Probe, after_restart, create, greeted, modes, refused, sinks_at_once, up_to};
use crate::context::{Failure, Outcome, RuleCx};
use crate::streamlet::probe::{Mode, Progress};
use reactive_streams::StreamError;

/// What sink A does while sink B holds back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Other {
    /// Leaves: stops with a reason inside emission #1 and never starts
    /// again.
    Leaves,
    /// Stops inside emission #1 and starts again.
    Restarts,
    /// Consumes its stream to the end.
    Ends,
}

impl Other {
    fn describe(self) -> &'static str {
        match self {
            Other::Leaves => "stops (leaves) inside its emission #1",
            Other::Restarts => "stops inside its emission #1 and starts again",
            Other::Ends => "is consumed to its end",
        }
    }
}

/// The several-sinks scenarios, for factories declaring
/// `supports_multiple_sinks()` (and at least two `max_sinks_at_once()`)
/// whose sources end and have two elements or more; restarts only where
/// `supports_restart()`.
/// `Some` outcome if the source refused sink A (see [`refused`]).
pub(super) fn several_sinks<F: SourceFactory>(
    cx: &RuleCx,
    f: &F,
) -> Result<Option<Outcome>, Failure> {
    if sinks_at_once(f, 2) < 2 || !f.ends() || f.max_elements() < 2 {
        return Ok(None);
    }
    let n = up_to(f, 3);
    for &mode in modes(f) {
        for other in [Other::Leaves, Other::Ends, Other::Restarts] {
            if other == Other::Restarts && !f.supports_restart() {
                continue;
            }
            if let Some(refusal) = one_of_two(cx, f, mode, n, other)? {
                return Ok(Some(refusal));
            }
        }
    }
    Ok(None)
}

/// Sinks A and B on one source of `n`: B starts and takes emission #1,
/// A does `other`, then B asks for the rest and must get exactly `n`
/// elements, then its end.
fn one_of_two<F: SourceFactory>(
    cx: &RuleCx,
    f: &F,
    mode: Mode,
    n: u64,
    other: Other,
) -> Result<Option<Outcome>, Failure> {
    cx.scenario(format!(
        "{}: source of {n}, sinks A and B; B takes emission #1, then A {}, then B asks for the rest",
        mode.as_str(),
        other.describe()
    ));
    let source = create(cx, f, n)?;
    // One request for now: B holds back until A is done.
    let b = greeted(
        Probe::<F>::new(cx, "sink B").mode(mode).request_limit(1),
        &*source,
    )?;
    let a = Probe::<F>::new(cx, "sink A").mode(mode);
    let a = match other {
        Other::Leaves => a.stop_at(1, Some(StreamError::msg("sink A leaves"))),
        Other::Restarts => a.stop_at(1, None),
        Other::Ends => a.request_limit(n + 2),
    };
    a.connect_to(&*source)?;
    if let Some(refusal) = refused(cx, f, &a, "sink A", 2)? {
        return Ok(Some(refusal));
    }
    b.start()?;
    b.wait_received(1, "sink B: emission #1 after its start")?;
    a.start()?;
    match other {
        Other::Leaves => {
            a.wait_received(1, "sink A: emission #1 after its start")?;
        }
        Other::Restarts => {
            if a.wait_received(1, "sink A: emission #1 after its start")? == Progress::Received {
                a.start()?;
                after_restart(
                    cx,
                    a.wait_received(2, "sink A: an emission or its end after its new start"),
                )?;
            }
        }
        Other::Ends => a.wait_end(&format!("sink A: its {n} elements, then its end"))?,
    }
    b.request_more(n + 2)?;
    b.wait_end(&format!(
        "sink B: the rest of its {n} elements, then its end, whatever sink A does \
         (the factory declares supports_multiple_sinks())"
    ))?;
    let received = b.received();
    if received != n {
        return Err(cx.failure_of(
            "tck.create_n",
            format!(
                "sink B: exactly {n} elements before its end, whatever sink A does \
                 (the factory declares supports_multiple_sinks())"
            ),
            format!("sink B ended after {received} element(s)"),
        ));
    }
    Ok(None)
}
