//! Checks of the factory itself (`tck.*`): no catalogue rule owns them, but
//! every other test relies on them.

use super::{can_make, def, fresh, show, up_to};
use crate::context::Outcome;
use crate::publisher::{Needs, PublisherFactory, RuleDef, everything_skipped};

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
pub fn tck_create_n_gives_exactly_n<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |cx, f| {
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
        Ok(Outcome::Passed)
    })
}

/// How many elements the one-at-a-time scenario asks for.
const ONE_AT_A_TIME: u64 = 8;
