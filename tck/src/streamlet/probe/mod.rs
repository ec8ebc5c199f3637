//! The Streamlet probes: the TCK's end of a stream.
//!
//! * [`SinkProbe`] is the sink the source verification connects to the
//!   source under test; it judges every greet, emission and end (rules 1,
//!   2, 4).
//! * [`SourceProbe`] is the source (and talkback) the sink verification
//!   connects the sink under test to; it judges every start, request and
//!   stop (rules 3, 5, 6).
//!
//! Both record into the rule's [`RuleCx`](crate::context::RuleCx), like the
//! Reactive Streams [probes](crate::probe): every call is traced, and a
//! broken condition is recorded as a failure of its own id
//! (`streamlet.2.d`) on whichever thread saw it. Waits for something that
//! must happen use [`TestEnv::timeout`](crate::env::TestEnv::timeout);
//! showing that nothing happens uses the short
//! [`TestEnv::no_signal_timeout`](crate::env::TestEnv::no_signal_timeout).
//!
//! What "after" means with threads: a call is judged against the state the
//! TCK's end had when the call arrived. The TCK stops a source from inside
//! an emission, so the source's next emission on that thread is after the
//! stop for certain. On the sink side, a talkback call that arrives on
//! another thread *while* the TCK is inside `end` raced with it and is not
//! judged; one that arrives after `end` returned is. A stop the sink makes
//! on another thread than an emission in flight waits (at most the
//! timeout) for that emission to return, as a conforming threaded source's
//! stop does: no emission of the probe's begins after a stop returned.

mod sink;
mod source;

use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use reactive_streams::StreamError;

pub use sink::{Mode, Progress, SinkProbe};
pub use source::SourceProbe;

/// How many rule-breaking calls a probe accepts before it unwinds the
/// caller with [`RUNAWAY_STOP`]: a synchronous source that ignores `stop`
/// would otherwise never return to the test.
pub const RUNAWAY_LIMIT: u64 = 1024;

/// The panic payload a probe unwinds a runaway source or sink with.
pub const RUNAWAY_STOP: &str = "rs-tck: unwinding a stream that kept breaking the Streamlet rules";

/// `None`, or the reason's message.
pub(crate) fn describe_reason(reason: Option<&StreamError>) -> String {
    match reason {
        None => String::new(),
        Some(error) => format!("{error}"),
    }
}

/// Waits under `state`'s lock until `ready` yields, or `timeout` passes
/// (then `ready` gets one last look).
pub(crate) fn wait_for<S, R>(
    state: &Mutex<S>,
    changed: &Condvar,
    timeout: Duration,
    mut ready: impl FnMut(&mut S) -> Option<R>,
) -> Option<R> {
    let deadline = Instant::now() + timeout;
    let mut guard = state.lock();
    loop {
        if let Some(result) = ready(&mut guard) {
            return Some(result);
        }
        if changed.wait_until(&mut guard, deadline).timed_out() {
            return ready(&mut guard);
        }
    }
}
