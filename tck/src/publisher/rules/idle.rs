//! No unsolicited delivery (issue 27 §1): a subscription whose demand was
//! met, left untouched for [`TestEnv::idle`](crate::env::TestEnv::idle),
//! gets nothing. The watch runs beside a test's other scenarios (those of
//! `spec_3_17`, whose thousand calls of `request(1)` take about as long),
//! so it rarely lengthens the test; an element arriving unasked breaks §1.1
//! (the probe reports it).

use std::time::Instant;

use super::{can_make, create, subscribed, up_to};
use crate::context::{Failure, RuleCx};
use crate::probe::Probe;
use crate::publisher::PublisherFactory;

/// A subscription whose demand was met, left untouched.
pub(crate) struct Watch<T: std::fmt::Debug + Send + 'static> {
    cx: RuleCx,
    scenario: String,
    probe: Probe<T>,
    since: Instant,
    _publisher: Box<dyn reactive_streams::Publisher<T>>,
}

/// Starts the watch: a publisher of (up to) 3, `request(1)`, its element
/// taken; `None` when the factory cannot make a publisher of 2 or more.
pub(crate) fn watch<F: PublisherFactory>(
    cx: &RuleCx,
    f: &F,
) -> Result<Option<Watch<F::Element>>, Failure> {
    let n = up_to(f, 3);
    if n < 2 || !can_make(cx, f, n) {
        return Ok(None);
    }
    let scenario = format!(
        "publisher of {n}, request(1), then untouched for {} ms (RS_TCK_IDLE_MS), watched beside the other scenarios",
        cx.env().idle().as_millis()
    );
    cx.scenario(scenario.clone());
    let publisher = create(cx, f, n)?;
    let probe = subscribed(Probe::new(cx, "idle").created_for(n), &*publisher)?;
    probe.request(1)?;
    probe.expect_next()?;
    Ok(Some(Watch {
        cx: cx.clone(),
        scenario,
        probe,
        since: Instant::now(),
        _publisher: publisher,
    }))
}

impl<T: std::fmt::Debug + Send + 'static> Watch<T> {
    /// Waits out the rest of the window. An element arriving meanwhile
    /// is beyond demand: the probe has reported it under §1.1.
    pub(crate) fn finish(self) -> Result<(), Failure> {
        self.cx.scenario(self.scenario.clone());
        let until = self.since + self.cx.env().idle();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            // Signals within demand (none is owed) end the wait early:
            // a terminal signal is the publisher's business here.
            let _ = self.probe.poll_signal(left);
        }
    }
}
