//! `tck_configuration`: the factory's declarations hold for the streams it
//! makes. Every other test trusts them: `stream.4` decides from one fresh
//! stream whether the factory's streams are fused, and `stream.3` expects
//! no upper bound from an `endless()` stream.

use super::driver::Driver;
use super::factory::StreamFactory;
use super::rules::{ITEMS, end, push};
use crate::context::{Outcome, RuleBody, RuleCx};

const RULE: &str = "tck.configuration";

/// `tck.configuration`: `is_terminated()` answers `Some` for every stream
/// or for none, before and after its end; an `endless()` stream does not
/// end.
pub(crate) fn tck_configuration<F: StreamFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    cx.scenario("is_terminated() of every kind of stream the factory makes, fresh and ended");
    let mut answers: Vec<(String, Option<bool>)> = Vec::new();
    let mut ask = |d: &Driver<F::Stream>, when: &str| {
        let answer = d.stream().and_then(|s| factory.is_terminated(s));
        cx.trace(format!(
            "is_terminated() of {} {when} → {answer:?}",
            d.label
        ));
        answers.push((format!("{} {when}", d.label), answer));
    };
    for n in [0, ITEMS] {
        let mut d = Driver::new(cx, factory.create_stream(n), format!("create_stream({n})"));
        ask(&d, "fresh");
        if factory.endless() {
            // It must keep yielding: one item more than asked for.
            while d.yielded <= n {
                if d.next_lenient(RULE)?.is_none() {
                    return Err(cx.failure(
                        format!(
                            "create_stream({n}) of a factory declaring endless() to keep yielding"
                        ),
                        format!("Ready(None) after {} items", d.yielded),
                    ));
                }
            }
        } else {
            d.drain_lenient(RULE)?;
            ask(&d, "after Ready(None)");
        }
        d.drop_stream(RULE)?;
    }
    if let Some((stream, mut feeder)) = factory.create_fed_stream() {
        let mut d = Driver::new(cx, stream, "fed stream");
        ask(&d, "fresh");
        push(cx, &mut feeder, RULE, 0)?;
        end(cx, feeder, RULE)?;
        d.drain_lenient(RULE)?;
        ask(&d, "after Ready(None)");
    }
    let fused = answers.iter().filter(|(_, a)| a.is_some()).count();
    if fused == 0 || fused == answers.len() {
        return Ok(Outcome::Passed);
    }
    let listed: Vec<String> = answers
        .iter()
        .map(|(what, answer)| format!("{answer:?} for {what}"))
        .collect();
    Err(cx.failure(
        "the factory's is_terminated() to answer Some for every stream it makes (a FusedStream) or None for every one",
        listed.join(", "),
    ))
}
