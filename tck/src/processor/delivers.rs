//! The precondition of the publisher rule tests run against a processor:
//! it delivers an element for downstream demand at all.
//!
//! A processor that never passes downstream demand upstream never delivers,
//! and every publisher rule test that waits for an element would time out
//! and fail its own rule (§1.1, §3.2, … some 25 rules) for one defect. That
//! defect breaks §4.1 (a processor obeys the subscriber contract too, and
//! demand from downstream is how its subscriber side learns to request),
//! which `spec_4_01` checks. So each such test first asks a fresh processor
//! for one element; if none comes within the timeout, the test is not run:
//! it reports a §4.1 violation ("could not run") and its own verdict says
//! it was not concluded. A processor that delivers passes this at once and
//! every test runs as before; slowness alone is judged by the timeout the
//! tests themselves would wait.

use reactive_streams::Publisher;

use super::ProcessorFactory;
use super::as_publisher::AsPublisher;
use crate::context::{Failure, RuleCx};
use crate::probe::{Probe, Signal};
use crate::publisher::PublisherFactory;

/// The publisher rule tests that declare no need of elements but adapt to
/// what the factory can make, and wait for elements all the same.
const WAITING_FOR_ELEMENTS: [&str; 2] = ["spec_1_05", "tck_create_n_gives_exactly_n"];

/// Whether the publisher rule test `test`, needing publishers of `elements`,
/// waits for elements from the processor (and so needs it to deliver).
pub(crate) fn needs_delivery(test: &str, elements: u64) -> bool {
    elements > 0 || WAITING_FOR_ELEMENTS.contains(&test)
}

/// Requests one element from a fresh processor fed one passing input; a
/// §4.1 failure if nothing arrives within the timeout.
pub(crate) fn delivers<F: ProcessorFactory>(
    cx: &RuleCx,
    subject: &AsPublisher<F>,
) -> Result<(), Failure> {
    // Its own scenario: a processor that breaks a rule here (an element
    // before any demand, §1.1) is reported as breaking it here, not in the
    // test's first scenario.
    cx.scenario(
        "precondition: a fresh processor of 1 delivers an element for request(1) downstream",
    );
    let delivered = ask_for_one(cx, subject);
    cx.end_scenario();
    delivered
}

fn ask_for_one<F: ProcessorFactory>(cx: &RuleCx, subject: &AsPublisher<F>) -> Result<(), Failure> {
    let publisher: Box<dyn Publisher<F::Output>> = subject.create_publisher(1);
    let probe = Probe::new(cx, "precondition");
    probe.subscribe_to(&*publisher)?;
    probe.request(1)?;
    match probe.poll_signal(cx.env().timeout()) {
        Some(Signal::Next(_)) | Some(Signal::Complete) | Some(Signal::Error(_)) => Ok(()),
        None => Err(cx.failure_of(
            "4.1",
            "request(1) downstream to bring an element through the processor (its subscriber side requests upstream for downstream demand), so that this publisher rule test can run",
            format!(
                "nothing arrived within {} ms: the test could not run",
                cx.env().timeout().as_millis()
            ),
        )),
    }
}
