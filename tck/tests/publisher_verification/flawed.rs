//! A synchronous range publisher with one optional, deliberate flaw, most
//! of which only the extended verification sees.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::ThreadId;

use reactive_streams::demand::{self, EFFECTIVELY_UNBOUNDED};
use reactive_streams::{Publisher, Subscriber, Subscription};
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::testkit::{RangeState, Signal, Trampoline, Turn};

/// What is wrong with a [`FlawedRange`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flaw {
    /// Nothing: a conforming publisher.
    None,
    /// A "fast path" for unbounded demand that, when `request(n ≥ 2^63−1)`
    /// arrives after some elements went out, emits the last one again:
    /// one element too many, only under that schedule.
    ReplayAfterUnbounded,
    /// A request of more than one element made on a thread other than the
    /// one that subscribed adds only 1 to the demand (a per-thread batch
    /// cache gone wrong): demand is lost when several threads request in
    /// turn (§3.8; §2.7 lets calls come from any thread, one after the
    /// other). The quick verification requests only 1 at a time from other
    /// threads.
    ForeignBatchDemand,
    /// `request(0)` made from inside `on_next` is dropped (a fast path for
    /// re-entrant requests that only adds): no `on_error` (§3.9). The
    /// mutant `drain.rs` `request`: `n != 0` → `n == 0` (issue 31).
    ZeroLostInside,
    /// A request made from inside `on_next` counts twice (a re-entrant
    /// top-up added to a burst already sized for it): one element too many
    /// per element so requested, seen only when the subscriber stops
    /// refilling (§1.1). The mutant `drain.rs` `emit_bursts`:
    /// `allowed - sent` → `allowed + sent` (issue 31).
    InsideCountedTwice,
}

thread_local! {
    /// This thread is inside a [`FlawedRange`]'s `on_next`.
    static INSIDE_ON_NEXT: Cell<bool> = const { Cell::new(false) };
}

/// Makes [`FlawedRange`]s with one flaw.
pub struct Flawed(pub Flaw);

impl PublisherFactory for Flawed {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(FlawedRange {
            count: elements,
            flaw: self.0,
        })
    }
}

/// `0..count` (`u64::MAX`: infinite), emitted on the requesting thread
/// with a trampolining drain loop.
pub struct FlawedRange {
    count: u64,
    flaw: Flaw,
}

impl Publisher<u64> for FlawedRange {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let subscription = Arc::new(FlawedSubscription {
            flaw: self.flaw,
            demand: AtomicU64::new(0),
            subscriber_thread: std::thread::current().id(),
            state: Trampoline::new(State {
                range: RangeState::new(0, self.count),
                replay: false,
            }),
        });
        subscriber.on_subscribe(subscription.clone());
        subscription.state.attach(subscriber);
        subscription.drain();
    }
}

struct FlawedSubscription {
    flaw: Flaw,
    demand: AtomicU64,
    subscriber_thread: ThreadId,
    state: Trampoline<State, Box<dyn Subscriber<u64>>>,
}

struct State {
    range: RangeState,
    /// Emit the last element again ([`Flaw::ReplayAfterUnbounded`]).
    replay: bool,
}

impl FlawedSubscription {
    fn add_demand(&self, n: u64) {
        let foreign = std::thread::current().id() != self.subscriber_thread;
        let n = if self.flaw == Flaw::ForeignBatchDemand && n > 1 && foreign {
            1
        } else if self.flaw == Flaw::InsideCountedTwice && INSIDE_ON_NEXT.with(Cell::get) {
            demand::add(n, n)
        } else {
            n
        };
        {
            let _ = self
                .demand
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |d| {
                    Some(demand::add(d, n))
                });
        }
    }

    fn take_one(&self) -> bool {
        self.demand
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |d| match d {
                0 => None,
                u64::MAX => Some(u64::MAX),
                d => Some(d - 1),
            })
            .is_ok()
    }

    /// The demand lives outside the trampoline's lock: a `request` racing
    /// the drain's last look at it makes the drain take another turn.
    fn drain(&self) {
        self.state.drain(
            |state| {
                if let Some(end) = state.range.ending() {
                    return end;
                }
                if std::mem::take(&mut state.replay) {
                    Turn::Signal(Signal::Next(state.range.next - 1))
                } else if self.take_one() {
                    Turn::Signal(Signal::Next(state.range.take_next()))
                } else {
                    Turn::Wait
                }
            },
            |subscriber, signal| {
                INSIDE_ON_NEXT.with(|inside| inside.set(true));
                Signal::deliver(subscriber, signal);
                INSIDE_ON_NEXT.with(|inside| inside.set(false));
            },
        );
    }
}

impl Subscription for FlawedSubscription {
    fn request(&self, n: u64) {
        if self.flaw == Flaw::ZeroLostInside && n == 0 && INSIDE_ON_NEXT.with(Cell::get) {
            return;
        }
        {
            let mut state = self.state.state();
            if !state.range.takes(n) {
                return;
            }
            if self.flaw == Flaw::ReplayAfterUnbounded
                && n >= EFFECTIVELY_UNBOUNDED
                && state.range.next > 0
            {
                state.replay = true;
            }
        }
        if n > 0 {
            self.add_demand(n);
        }
        self.drain();
    }

    fn cancel(&self) {
        self.state.release(|state| {
            state.range.cancelled = true;
            true
        });
    }
}
