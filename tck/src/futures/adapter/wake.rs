//! `adapter_1`: a wake-up of an inner stream reaches the task polling the
//! adapter.

use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

use super::AdapterFactory;
use super::inner::Woke;
use super::rules::{Adapted, ITEMS, plural};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::wakers::WakeProbe;

const RULE: &str = "adapter.1";

/// Two wakers of adapter polls that both returned `Pending`, the second
/// in poll `#epoch`.
struct TwoPolls {
    first: Arc<WakeProbe>,
    second: Arc<WakeProbe>,
    epoch: u64,
}

/// Polls with a new waker, then again with another, until both polls
/// return `Pending` (items on the way are taken); `None` if the adapter
/// ends.
fn pending_twice<F: AdapterFactory>(
    a: &mut Adapted<F>,
    factory: &F,
) -> Result<Option<TwoPolls>, Failure> {
    let deadline = Instant::now() + a.cx().env().timeout();
    loop {
        let first = a.d.fresh_waker();
        match a.poll(factory, &first, RULE)?.0 {
            Poll::Ready(None) => return Ok(None),
            Poll::Ready(Some(_)) => continue,
            Poll::Pending => {}
        }
        let second = a.d.fresh_waker();
        match a.poll(factory, &second, RULE)? {
            (Poll::Ready(None), _) => return Ok(None),
            (Poll::Ready(Some(_)), _) => {}
            (Poll::Pending, epoch) => {
                return Ok(Some(TwoPolls {
                    first,
                    second,
                    epoch,
                }));
            }
        }
        if Instant::now() >= deadline {
            return Err(a.cx().failure(
                "the adapter to return Pending with nothing pushed into its inner streams",
                format!(
                    "it kept yielding items for {} ms",
                    a.cx().env().timeout().as_millis()
                ),
            ));
        }
    }
}

/// `adapter.1`: after the adapter returned `Pending`, an inner stream it
/// left `Pending` in that run of polls wakes its waker; the adapter's most
/// recent waker must be woken.
pub(crate) fn adapter_1<F: AdapterFactory>(cx: &RuleCx, factory: &F) -> RuleBody {
    let inputs = factory.inputs();
    cx.scenario(format!(
        "{inputs} inner stream{}, the adapter polled twice with new wakers before each of {ITEMS} items per inner stream is pushed, then before each end",
        plural(inputs as u64)
    ));
    let mut a = Adapted::new(cx, factory, RULE)?;
    let mut owed_any = false;
    let events = (0..ITEMS * inputs as u64)
        .map(|k| (k as usize % inputs, true))
        .chain((0..inputs).map(|j| (j, false)));
    for (j, push) in events {
        let Some(polls) = pending_twice(&mut a, factory)? else {
            break;
        };
        let (woke, why) = if push {
            let (value, woke) = a.inners.push(j);
            (woke, format!("item {value} was pushed"))
        } else {
            (a.inners.end(j), String::from("it was ended"))
        };
        if a.owes(woke) {
            owed_any = true;
            let timeout = cx.env().timeout();
            if !polls.second.wait_woken(0, timeout) {
                let Woke::AtPoll(at) = woke else {
                    unreachable!("owed only for a waker woken")
                };
                let stale = if polls.first.wakes() > 0 {
                    format!(
                        ", though {} (the waker of an earlier poll) was woken",
                        polls.first.name()
                    )
                } else {
                    String::new()
                };
                return Err(cx.failure(
                    format!(
                        "a wake-up of {} (the waker of the adapter's poll #{}, which returned Pending) once inner {j}, left Pending in the adapter's poll #{at}, woke the waker it was given then ({why})",
                        polls.second.name(),
                        polls.epoch
                    ),
                    format!(
                        "no wake-up of {} within {} ms{stale}",
                        polls.second.name(),
                        timeout.as_millis()
                    ),
                ));
            }
        }
        a.settle(factory, RULE)?;
    }
    a.drain(factory, RULE)?;
    if owed_any {
        Ok(Outcome::Passed)
    } else {
        Ok(Outcome::Skipped(String::from(
            "no wake-up was owed: in no run of Pending polls did the adapter leave an inner stream Pending that was then pushed into or ended",
        )))
    }
}
