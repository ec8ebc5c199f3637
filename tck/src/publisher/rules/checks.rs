//! Checks of the factory itself (`tck.*`): no catalogue rule owns them, but
//! every other test relies on them.

use super::{def, fresh, show, up_to};
use crate::context::Outcome;
use crate::publisher::{table, Needs, PublisherFactory, RuleDef};

/// `tck.configuration`: the factory's declarations let at least one rule
/// test run (a run where everything skips proves nothing).
pub fn tck_configuration<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |cx, f| {
        let unmet: Vec<Option<String>> = table::<F>()
            .into_iter()
            .filter(|(name, _)| !matches!(*name, "tck_configuration" | "spec_1_10"))
            .map(|(name, def)| def.needs.unmet(f).map(|reason| format!("{name}: {reason}")))
            .collect();
        if unmet.iter().all(Option::is_some) {
            let reasons: Vec<String> = unmet.into_iter().flatten().collect();
            return Err(cx.failure(
                "a factory whose declarations let at least one rule test run",
                format!(
                    "every rule test would be skipped:\n  - {}",
                    reasons.join("\n  - ")
                ),
            ));
        }
        Ok(Outcome::Passed)
    })
}

/// `tck.create_n_gives_exactly_n`: `create_publisher(n)` emits exactly `n`
/// elements, then `on_complete`, when more are requested.
pub fn tck_create_n_gives_exactly_n<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |cx, f| {
        for n in [0, 1, 3] {
            if up_to(f, n) < n {
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
