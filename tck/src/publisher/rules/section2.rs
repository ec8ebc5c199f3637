//! §2 rules that bind the publisher: the caller of the subscriber's
//! signal methods.

use std::time::Instant;

use super::{can_make, create_failed, def, fresh, show, subscribed, up_to};
use crate::context::Outcome;
use crate::probe::Probe;
use crate::publisher::{Needs, PublisherFactory, RuleDef};

/// §2.12: `on_subscribe` at most once on a given subscriber. The types
/// stop a caller handing one subscriber to `subscribe` twice (§1.10), not
/// a publisher calling `on_subscribe` again on the subscriber it owns — at
/// once, on a request, after `cancel` or after its terminal signal. The
/// probe counts every `on_subscribe` (in every rule test); here each
/// scenario also reads the stream to its end and one no-signal window
/// beyond, expecting nothing of the other signals (their rules judge them).
pub fn spec_2_12<F: PublisherFactory>() -> RuleDef<F> {
    def(Needs::NOTHING, |cx, f| {
        let n = up_to(f, 3);
        cx.scenario(format!(
            "publisher of {}, request(1) {} times, then to its end",
            show(n),
            n + 1
        ));
        let (probe, _publisher) = fresh(cx, f, n)?;
        for _ in 0..=n {
            probe.request(1)?;
        }
        read_to_the_end(&probe);
        let m = f.max_elements();
        if m > 0 {
            cx.scenario(format!("publisher of {}, request(1), cancel()", show(m)));
            let (probe, _publisher) = fresh(cx, f, m)?;
            probe.request(1)?;
            probe.cancel()?;
            read_to_the_end(&probe);
        }
        if m > 0 && can_make(cx, f, 0) {
            cx.scenario("publisher of 0, request(1)");
            let (probe, _publisher) = fresh(cx, f, 0)?;
            probe.request(1)?;
            read_to_the_end(&probe);
        }
        if let Some(publisher) = create_failed(cx, f)? {
            cx.scenario("failed publisher, request(1)");
            let probe = subscribed(Probe::new(cx, "probe"), &*publisher)?;
            probe.request(1)?;
            read_to_the_end(&probe);
        }
        Ok(Outcome::Passed)
    })
}

/// Consumes signals until none came for one no-signal window, at most for
/// the timeout: whatever they are, a second `on_subscribe` among or after
/// them is what the probe reports.
fn read_to_the_end<T: std::fmt::Debug + Send + 'static>(probe: &Probe<T>) {
    let env = probe.cx().env();
    let deadline = Instant::now() + env.timeout();
    while Instant::now() < deadline && probe.poll_signal(env.no_signal_timeout()).is_some() {}
}
