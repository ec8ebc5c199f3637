//! The laxest conforming relay for the datum-lifecycle rules (issue 38
//! §5): written from the rule texts, it holds every datum as long as they
//! allow, releases late and from another thread, and takes every freedom
//! Reactive Streams grants a processor. It passes every `done` rule.
//!
//! The freedoms, and the sentences they rest on:
//!
//! * It keeps a clone of every datum's tokens (a cache) until the stream
//!   ends — done.3: "before that, a datum downstream has consumed is done
//!   at once unless the stage still holds it (a stage may declare which of
//!   its inputs' latest data it keeps)"; declaring nothing, it may hold
//!   them all.
//! * It lets go of that cache on a thread of its own after the end, not
//!   inside the terminal signal — done.3/4/5: "every datum is done once
//!   downstream has dropped its outputs" (no deadline but the TCK's
//!   timeout).
//! * Declared ([`LaxRelays::keeps`]), it keeps exactly the latest `k`
//!   delivered data of its input and drops older tokens only when the next
//!   output goes out — done.3's "(a stage may declare which of its inputs'
//!   latest data it keeps)".
//! * It delivers every output from a worker thread, after the call that
//!   made it owed returned — §1.3 and §2.2 let signals come from any
//!   thread, serially.
//! * It pulls upstream one element at a time, only when downstream's
//!   demand is unmet and nothing is queued (lock-step) — §3.1 and §2.1
//!   leave how much a subscriber requests to it.
//! * It finds the end lazily: it completes downstream only when asked for
//!   more than it has (outstanding demand) — §1.5 sets no deadline.
//! * After `cancel` its worker still delivers the output in hand, tokens
//!   and all — §1.8: signals "eventually" stop; §3.12 does not require an
//!   immediate effect. done.1 holds: that datum's tokens travel with it.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use reactive_streams::done::{Tokens, Tracked};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::lifecycle::LifecycleFactory;

/// Lax relays; `keeps`: `None` holds every datum until the end, `Some(k)`
/// the latest `k` delivered, and declares it.
#[derive(Debug, Clone, Copy)]
pub struct LaxRelays {
    pub keeps: Option<usize>,
}

impl LifecycleFactory for LaxRelays {
    type Output = Tracked<u64>;

    fn create_stage(
        &self,
        mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Tracked<u64>>> {
        Box::new(LaxRelay {
            input: inputs.remove(0),
            keeps: self.keeps,
        })
    }

    fn keeps_delivered(&self) -> Option<usize> {
        self.keeps
    }

    /// Output `i` is the input's datum `i`.
    fn element_index(&self, output: &Tracked<u64>) -> Option<u64> {
        Some(output.value)
    }
}

struct LaxRelay {
    input: Box<dyn Publisher<Tracked<u64>>>,
    keeps: Option<usize>,
}

impl Publisher<Tracked<u64>> for LaxRelay {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<Tracked<u64>>>) {
        self.input.subscribe(Box::new(Intake {
            shared: Arc::new(Shared::default()),
            downstream: Some(subscriber),
            keeps: self.keeps,
        }));
    }
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    woken: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Tracked<u64>>,
    /// Clones of the tokens of what arrived (all, or the latest delivered).
    cache: VecDeque<Tokens>,
    demand: u64,
    /// One upstream request is out and unanswered.
    pulling: bool,
    events: u64,
    cancelled: bool,
    ended: Option<Option<StreamError>>,
}

impl Shared {
    fn wake(&self, change: impl FnOnce(&mut State)) {
        let mut state = self.state.lock();
        change(&mut state);
        state.events += 1;
        self.woken.notify_all();
    }
}

struct Intake {
    shared: Arc<Shared>,
    downstream: Option<Box<dyn Subscriber<Tracked<u64>>>>,
    keeps: Option<usize>,
}

impl Subscriber<Tracked<u64>> for Intake {
    fn on_subscribe(&mut self, upstream: Arc<dyn Subscription>) {
        let Some(mut downstream) = self.downstream.take() else {
            upstream.cancel();
            return;
        };
        downstream.on_subscribe(Arc::new(LaxSubscription(self.shared.clone())));
        let (shared, keeps) = (self.shared.clone(), self.keeps);
        std::thread::Builder::new()
            .name("lax-relay".into())
            .spawn(move || work(&shared, downstream, upstream, keeps))
            .expect("the worker thread starts");
    }

    fn on_next(&mut self, element: Tracked<u64>) {
        let keeps = self.keeps;
        self.shared.wake(|state| {
            if keeps.is_none() {
                state.cache.push_back(element.tokens.clone());
            }
            state.queue.push_back(element);
            state.pulling = false;
        });
    }

    fn on_error(&mut self, error: StreamError) {
        self.shared.wake(|state| state.ended = Some(Some(error)));
    }

    fn on_complete(&mut self) {
        self.shared.wake(|state| state.ended = Some(None));
    }
}

/// Lets go of `held` on a thread of its own: late, but eventually.
fn release_later<T: Send + 'static>(held: T) {
    let _ = std::thread::Builder::new()
        .name("lax-relay-cleanup".into())
        .spawn(move || drop(held));
}

/// The worker: every signal downstream after `on_subscribe`, and every
/// call upstream after it, comes from here, one at a time (§1.3, §2.7).
fn work(
    shared: &Shared,
    mut downstream: Box<dyn Subscriber<Tracked<u64>>>,
    upstream: Arc<dyn Subscription>,
    keeps: Option<usize>,
) {
    let mut seen = 0;
    loop {
        let mut state = shared.state.lock();
        while state.events == seen {
            shared.woken.wait(&mut state);
        }
        seen = state.events;
        if state.cancelled {
            let in_hand = if state.demand > 0 {
                state.queue.pop_front()
            } else {
                None
            };
            let rest = (
                std::mem::take(&mut state.queue),
                std::mem::take(&mut state.cache),
            );
            drop(state);
            upstream.cancel();
            if let Some(datum) = in_hand {
                downstream.on_next(datum);
            }
            release_later(rest);
            return;
        }
        let mut owed = Vec::new();
        while state.demand > 0 {
            let Some(datum) = state.queue.pop_front() else {
                break;
            };
            state.demand = demand::fulfil(state.demand, 1);
            if let Some(k) = keeps {
                state.cache.push_back(datum.tokens.clone());
                while state.cache.len() > k {
                    state.cache.pop_front();
                }
            }
            owed.push(datum);
        }
        let end = if state.queue.is_empty() && state.demand > 0 {
            state.ended.take()
        } else {
            None
        };
        let pull = end.is_none()
            && state.ended.is_none()
            && state.queue.is_empty()
            && state.demand > 0
            && !state.pulling;
        state.pulling |= pull;
        let cache = if end.is_some() {
            std::mem::take(&mut state.cache)
        } else {
            VecDeque::new()
        };
        drop(state);
        for datum in owed {
            downstream.on_next(datum);
        }
        match end {
            None => {}
            Some(None) => {
                downstream.on_complete();
                return release_later(cache);
            }
            Some(Some(error)) => {
                downstream.on_error(error);
                return release_later(cache);
            }
        }
        if pull {
            upstream.request(1);
        }
    }
}

struct LaxSubscription(Arc<Shared>);

impl Subscription for LaxSubscription {
    fn request(&self, n: u64) {
        self.0
            .wake(|state| state.demand = demand::add(state.demand, n));
    }

    fn cancel(&self) {
        self.0.wake(|state| state.cancelled = true);
    }
}

// What a user writes.
reactive_streams_tck::datum_lifecycle_verification!(lax_relay, LaxRelays { keeps: None });
reactive_streams_tck::datum_lifecycle_verification!(
    lax_relay_keeping_the_latest,
    LaxRelays { keeps: Some(1) }
);

#[cfg(test)]
mod tests {
    use reactive_streams_tck::lifecycle::LifecycleVerification;
    use reactive_streams_tck::outcome::Verdict;
    use rstest::rstest;

    use super::LaxRelays;

    /// Every rule passes (done.6 is enforced by the types), with the
    /// default budget of generated scripts.
    #[rstest]
    #[case::holding_everything(None)]
    #[case::keeping_the_latest(Some(1))]
    #[case::keeping_none(Some(0))]
    fn the_laxest_relay_passes_every_rule(#[case] keeps: Option<usize>) {
        let results = LifecycleVerification::new(LaxRelays { keeps })
            .run_all()
            .unwrap();
        for result in &results {
            let expected = if result.rule == "done.6" {
                Verdict::EnforcedByTypes
            } else {
                Verdict::Passed
            };
            assert_eq!(result.verdict, expected, "{result:#?}");
        }
    }
}

/// Broken, for the self-tests: the lax relay, deaf to its input's
/// `on_complete` (it never completes downstream). No `done` rule is broken
/// by that; §1.5 is.
#[derive(Debug, Clone, Copy)]
pub struct SwallowsCompletion;

impl LifecycleFactory for SwallowsCompletion {
    type Output = Tracked<u64>;

    fn create_stage(
        &self,
        mut inputs: Vec<Box<dyn Publisher<Tracked<u64>>>>,
    ) -> Box<dyn Publisher<Tracked<u64>>> {
        Box::new(Deaf(inputs.remove(0)))
    }
}

struct Deaf(Box<dyn Publisher<Tracked<u64>>>);

impl Publisher<Tracked<u64>> for Deaf {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<Tracked<u64>>>) {
        self.0.subscribe(Box::new(DeafIntake(Intake {
            shared: Arc::new(Shared::default()),
            downstream: Some(subscriber),
            keeps: Some(0),
        })));
    }
}

struct DeafIntake(Intake);

impl Subscriber<Tracked<u64>> for DeafIntake {
    fn on_subscribe(&mut self, upstream: Arc<dyn Subscription>) {
        self.0.on_subscribe(upstream);
    }
    fn on_next(&mut self, element: Tracked<u64>) {
        self.0.on_next(element);
    }
    fn on_error(&mut self, error: StreamError) {
        self.0.on_error(error);
    }
    fn on_complete(&mut self) {}
}
