//! Checks of the factory itself (`tck.*`): no catalogue rule owns them, but
//! every other test relies on them.

use super::{can_make, create, def, fresh, show, subscribed, up_to};
use crate::context::Outcome;
use crate::publisher::{everything_skipped, Needs, PublisherFactory, RuleDef};

/// `tck.configuration`: the factory's declarations let the rule tests run
/// (a run where everything that needs an element skips proves nothing).
pub fn tck_configuration<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |cx, f| match everything_skipped(f) {
        None => Ok(Outcome::Passed),
        Some(reasons) => Err(cx.failure(
            "a factory whose declarations let the rule tests run",
            format!(
                "every rule test that needs an element would be skipped:\n  - {}",
                reasons.join("\n  - ")
            ),
        )),
    })
}

/// `tck.create_n_gives_exactly_n`: `create_publisher(n)` emits exactly `n`
/// elements, then `on_complete`, when more are requested — finitely more,
/// unboundedly more, and one at a time. An element beyond `n` makes the
/// probe cancel at once (see [`Probe::created_for`](crate::probe::Probe::created_for)); the
/// rule then waits for the signals to stop, so a publisher that ignores
/// that cancel is judged under §1.8 (and unwound) before the rule ends.
/// Where the factory declares
/// [`element_index`](PublisherFactory::element_index), every probe also
/// checks each element comes once and in order.
///
/// Beside these scenarios, one subscription is left untouched after its
/// demand was met, for [`TestEnv::idle`](crate::env::TestEnv::idle): an
/// element arriving unasked breaks §1.1 (the probe reports it).
pub fn tck_create_n_gives_exactly_n<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |cx, f| {
        let idle = idle::watch(cx, f)?;
        for (n, more) in [(3, u64::MAX), (0, 10), (1, 10), (3, 10)] {
            if !can_make(cx, f, n) {
                continue;
            }
            let demand = n.saturating_add(more);
            cx.scenario(format!("create_publisher({n}), request({})", show(demand)));
            let (probe, _publisher) = fresh(cx, f, n)?;
            let exact = probe.request(demand).and_then(|()| {
                probe.expect_next_n(n)?;
                probe.expect_complete()
            });
            if let Err(failure) = exact {
                if probe.cancelled_beyond_n() {
                    // Any §1.8 verdict is recorded by the probe itself.
                    let _ = probe.expect_quiet("the probe's cancel()");
                }
                return Err(failure);
            }
        }
        let n = up_to(f, ONE_AT_A_TIME);
        if n > 1 {
            cx.scenario(format!(
                "create_publisher({n}), request(1) after each element arrived"
            ));
            let (probe, _publisher) = fresh(cx, f, n)?;
            for _ in 0..n {
                probe.request(1)?;
                probe.expect_next()?;
            }
            probe.expect_complete_at_end()?;
        }
        if let Some(idle) = idle {
            idle.finish()?;
        }
        Ok(Outcome::Passed)
    })
}

/// How many elements the one-at-a-time scenario asks for.
const ONE_AT_A_TIME: u64 = 8;

mod idle {
    use std::time::Instant;

    use super::{can_make, create, subscribed, up_to};
    use crate::context::{Failure, RuleCx};
    use crate::probe::Probe;
    use crate::publisher::PublisherFactory;

    /// A subscription whose demand was met, left untouched.
    pub(super) struct Watch<T: std::fmt::Debug + Send + 'static> {
        cx: RuleCx,
        scenario: String,
        probe: Probe<T>,
        since: Instant,
        _publisher: Box<dyn reactive_streams::Publisher<T>>,
    }

    /// Starts the watch: a publisher of (up to) 3, `request(1)`, its element
    /// taken; `None` when the factory cannot make a publisher of 2 or more.
    pub(super) fn watch<F: PublisherFactory>(
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
        pub(super) fn finish(self) -> Result<(), Failure> {
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
}
