//! Checks of the factory itself (`tck.*`): no catalogue rule owns them, but
//! every other test relies on them.

use super::{can_make, def, fresh, show};
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
/// elements, then `on_complete`, when more are requested.
pub fn tck_create_n_gives_exactly_n<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |cx, f| {
        for n in [0, 1, 3] {
            if !can_make(cx, f, n) {
                continue;
            }
            cx.scenario(format!(
                "create_publisher({}), request({})",
                show(n),
                n + 10
            ));
            let (probe, _publisher) = fresh(cx, f, n)?;
            probe.request(n + 10)?;
            probe.expect_next_n(n)?;
            probe.expect_complete()?;
        }
        Ok(Outcome::Passed)
    })
}
