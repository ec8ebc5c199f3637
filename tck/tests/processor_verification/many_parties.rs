//! Issue 27 §2 and §3 for processors: several subscribers at different
//! paces, and a cancel from inside `on_next` while another element is in
//! flight.
//!
//! [`Fanouts`] is correct but unusual, written from the spec text: a
//! multicast with a buffer per subscriber, serving each at its own pace (no
//! slowest-subscriber lock-step). Once a subscriber has asked, it asks
//! upstream for what its hungriest subscriber still lacks plus a prefetch
//! of [`PREFETCH`], so slower subscribers' buffers fill; an upstream error reaches every subscriber at
//! once (§4.2), completion follows each buffer; a subscriber arriving later
//! gets what arrives from then on. When its last subscriber cancels, it
//! cancels upstream.
//!
//! Its broken twin keeps a cancelled subscriber's buffer until it drains
//! (which never happens: nothing is delivered after a cancel) and cancels
//! upstream only once no subscriber is left: with an element still in
//! flight, the cancel never reaches upstream (`tck.cancel_propagates`).

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::{Mutex, ReentrantMutex};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::testkit::broken_rules;

use crate::factories::{generous, patient};

/// How far each subscriber's buffer is filled beyond its demand.
pub const PREFETCH: u64 = 2;

/// [`Fanout`]s; `forgets_cancel_in_flight` makes the broken twin.
pub struct Fanouts {
    pub forgets_cancel_in_flight: bool,
}

impl ProcessorFactory for Fanouts {
    type Input = u64;
    type Output = u64;
    type Processor = Fanout;

    fn create_processor(&self) -> Fanout {
        Fanout::new(self.forgets_cancel_in_flight)
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn element_index(&self, output: &u64) -> Option<u64> {
        Some(*output)
    }
}

/// [`Fanout`]s serving at most [`CAPACITY`] subscribers at once, refusing
/// the next with `on_subscribe`, then `on_error` (issue 38 §2: §1.11 "A
/// Publisher MAY support multiple Subscribers"; §1.9 "the only legal way
/// to signal failure (or reject the Subscriber) is by calling onError
/// (after calling onSubscribe)"). `declared`: whether the factory says so
/// (`max_subscribers()`). `later`: the `on_error` comes from another
/// thread once `subscribe` has returned (§1.9 sets no deadline for it).
pub struct CappedFanouts {
    pub declared: bool,
    pub later: bool,
}

/// How many subscribers a [`CappedFanouts`] stage serves at once.
pub const CAPACITY: usize = 2;

impl ProcessorFactory for CappedFanouts {
    type Input = u64;
    type Output = u64;
    type Processor = Fanout;

    fn create_processor(&self) -> Fanout {
        Fanout::serving(false, CAPACITY, self.later)
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn element_index(&self, output: &u64) -> Option<u64> {
        Some(*output)
    }

    fn max_subscribers(&self) -> Option<usize> {
        self.declared.then_some(CAPACITY)
    }
}

/// [`Fanout`]s serving one subscriber at a time while declaring several
/// (`supports_multiple_subscribers()` left at its default): every second
/// subscriber is refused with `on_subscribe`, then `on_error`, which §1.9
/// allows, whatever the declaration says. `.0`: the `on_error` comes from
/// another thread once `subscribe` has returned.
pub struct SoloFanouts(pub bool);

impl ProcessorFactory for SoloFanouts {
    type Input = u64;
    type Output = u64;
    type Processor = Fanout;

    fn create_processor(&self) -> Fanout {
        Fanout::serving(false, 1, self.0)
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    fn element_index(&self, output: &u64) -> Option<u64> {
        Some(*output)
    }
}

/// A handle on one stage (see the [module](self) docs).
#[derive(Clone)]
pub struct Fanout {
    stage: Arc<Stage>,
}

struct Stage {
    forgets_cancel_in_flight: bool,
    /// How many subscribers it serves at once; the next is refused.
    capacity: usize,
    /// The refusal's `on_error` comes from another thread, later.
    refuses_later: bool,
    state: Mutex<StageState>,
    /// Held around every call on the upstream subscription, so that they
    /// are serial (§2.7); reentrant for an upstream delivering inside
    /// `request`.
    upstream_calls: ReentrantMutex<()>,
}

#[derive(Default)]
struct StageState {
    upstream: Option<Arc<dyn Subscription>>,
    /// Asked for upstream, and received, so far.
    requested: u64,
    received: u64,
    /// Upstream's terminal signal (`Some(None)`: completed).
    ended: Option<Option<StreamError>>,
    /// Cancelled upstream: nothing more comes.
    shut: bool,
    slots: Vec<Arc<Slot>>,
}

struct Slot {
    state: Mutex<SlotState>,
}

#[derive(Default)]
struct SlotState {
    /// `None` while a signal runs (or before `on_subscribe` returned).
    subscriber: Option<Box<dyn Subscriber<u64>>>,
    queue: VecDeque<u64>,
    demand: u64,
    /// A `request` was made.
    asked: bool,
    /// The terminal signal owed once the queue is empty (an error: at once).
    terminal: Option<Option<StreamError>>,
    cancelled: bool,
    illegal: bool,
    /// Nothing more is signalled.
    over: bool,
    draining: bool,
    again: bool,
}

impl Fanout {
    fn new(forgets_cancel_in_flight: bool) -> Self {
        Fanout::serving(forgets_cancel_in_flight, usize::MAX, false)
    }

    fn serving(forgets_cancel_in_flight: bool, capacity: usize, refuses_later: bool) -> Self {
        Fanout {
            stage: Arc::new(Stage {
                forgets_cancel_in_flight,
                capacity,
                refuses_later,
                state: Mutex::new(StageState::default()),
                upstream_calls: ReentrantMutex::new(()),
            }),
        }
    }
}

impl Stage {
    /// Asks upstream for what the hungriest subscriber lacks.
    fn refill(&self) {
        let (upstream, n) = {
            let mut state = self.state.lock();
            let Some(upstream) = state.upstream.clone() else {
                return;
            };
            if state.ended.is_some() || state.shut {
                return;
            }
            let mut wanted = 0;
            for slot in &state.slots {
                let slot = slot.state.lock();
                // No prefetch before a subscriber has asked: subscribers
                // arriving together all see the stream from its start.
                if slot.cancelled || slot.over || !slot.asked {
                    continue;
                }
                let want =
                    demand::add(slot.demand, PREFETCH).saturating_sub(slot.queue.len() as u64);
                wanted = wanted.max(want);
            }
            let outstanding = state.requested.saturating_sub(state.received);
            if state.requested == u64::MAX || wanted <= outstanding {
                return;
            }
            let n = wanted - outstanding;
            state.requested = demand::add(state.requested, n);
            (upstream, n)
        };
        let _turn = self.upstream_calls.lock();
        upstream.request(n);
    }

    /// Cancels upstream once no subscriber is left.
    fn maybe_shut(&self) {
        let upstream = {
            let mut state = self.state.lock();
            if !state.slots.is_empty() || state.ended.is_some() || state.shut {
                return;
            }
            state.shut = true;
            state.upstream.clone()
        };
        if let Some(upstream) = upstream {
            let _turn = self.upstream_calls.lock();
            upstream.cancel();
        }
    }

    fn forget(&self, slot: &Arc<Slot>) {
        self.state.lock().slots.retain(|s| !Arc::ptr_eq(s, slot));
    }

    /// Signals what `slot` is owed, one thread at a time.
    fn drain(&self, slot: &Arc<Slot>) {
        {
            let mut state = slot.state.lock();
            if state.draining {
                state.again = true;
                return;
            }
            state.draining = true;
        }
        let mut delivered = false;
        loop {
            let mut state = slot.state.lock();
            state.again = false;
            if state.over || state.subscriber.is_none() {
                state.draining = false;
                return self.after_drain(delivered);
            }
            if state.cancelled {
                state.over = true;
                let subscriber = state.subscriber.take();
                let in_flight = !state.queue.is_empty();
                state.queue.clear();
                state.draining = false;
                drop(state);
                drop(subscriber);
                if !(self.forgets_cancel_in_flight && in_flight) {
                    self.forget(slot);
                    self.maybe_shut();
                }
                return;
            }
            let error = if state.illegal {
                Some(StreamError::illegal_demand(0))
            } else {
                match &state.terminal {
                    Some(Some(error)) => Some(error.clone()),
                    _ => None,
                }
            };
            if let Some(error) = error {
                state.over = true;
                state.queue.clear();
                let mut subscriber = state.subscriber.take().expect("checked above");
                state.draining = false;
                drop(state);
                subscriber.on_error(error);
                self.forget(slot);
                self.maybe_shut();
                return;
            }
            if state.queue.is_empty() && state.terminal.is_some() {
                state.over = true;
                let mut subscriber = state.subscriber.take().expect("checked above");
                state.draining = false;
                drop(state);
                subscriber.on_complete();
                self.forget(slot);
                return;
            }
            if state.demand > 0 && !state.queue.is_empty() {
                let element = state.queue.pop_front().expect("checked above");
                if state.demand != u64::MAX {
                    state.demand -= 1;
                }
                let mut subscriber = state.subscriber.take().expect("checked above");
                drop(state);
                subscriber.on_next(element);
                delivered = true;
                slot.state.lock().subscriber = Some(subscriber);
                continue;
            }
            if state.again {
                continue;
            }
            state.draining = false;
            drop(state);
            return self.after_drain(delivered);
        }
    }

    fn after_drain(&self, delivered: bool) {
        if delivered {
            self.refill();
        }
    }
}

impl Publisher<u64> for Fanout {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let present = (self.stage.state.lock().slots.iter())
            .filter(|slot| {
                let slot = slot.state.lock();
                !slot.cancelled && !slot.over
            })
            .count();
        if present >= self.stage.capacity {
            // §1.9: "the only legal way to signal failure (or reject the
            // Subscriber) is by calling onError (after calling
            // onSubscribe)".
            subscriber.on_subscribe(Arc::new(Refused));
            let error = StreamError::msg(format!(
                "this stage serves at most {} subscribers at once",
                self.stage.capacity
            ));
            if self.stage.refuses_later {
                // §1.9 asks for `on_error` after `on_subscribe`, from no
                // particular thread and by no deadline.
                std::thread::spawn(move || subscriber.on_error(error));
            } else {
                subscriber.on_error(error);
            }
            return;
        }
        let slot = Arc::new(Slot {
            state: Mutex::new(SlotState::default()),
        });
        {
            let mut stage = self.stage.state.lock();
            if let Some(ended) = &stage.ended {
                slot.state.lock().terminal = Some(ended.clone());
            } else if stage.shut {
                slot.state.lock().terminal = Some(None);
            } else {
                stage.slots.push(slot.clone());
            }
        }
        subscriber.on_subscribe(Arc::new(FanoutSubscription {
            stage: self.stage.clone(),
            slot: slot.clone(),
        }));
        slot.state.lock().subscriber = Some(subscriber);
        self.stage.drain(&slot);
        self.stage.refill();
    }
}

impl Subscriber<u64> for Fanout {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        {
            let mut state = self.stage.state.lock();
            if state.upstream.is_some() || state.shut {
                drop(state);
                // A second upstream is refused (§2.5); one arriving after
                // every subscriber left is not needed.
                let _turn = self.stage.upstream_calls.lock();
                subscription.cancel();
                return;
            }
            state.upstream = Some(subscription);
        }
        self.stage.refill();
    }

    fn on_next(&mut self, element: u64) {
        let slots = {
            let mut state = self.stage.state.lock();
            state.received += 1;
            state.slots.clone()
        };
        for slot in &slots {
            {
                let mut state = slot.state.lock();
                if state.cancelled || state.over {
                    continue;
                }
                state.queue.push_back(element);
            }
            self.stage.drain(slot);
        }
        self.stage.refill();
    }

    fn on_error(&mut self, error: StreamError) {
        self.end(Some(error));
    }

    fn on_complete(&mut self) {
        self.end(None);
    }
}

impl Fanout {
    fn end(&self, error: Option<StreamError>) {
        let slots = {
            let mut state = self.stage.state.lock();
            state.ended = Some(error.clone());
            state.upstream = None;
            state.slots.clone()
        };
        for slot in &slots {
            slot.state.lock().terminal = Some(error.clone());
            self.stage.drain(slot);
        }
    }
}

/// A refused subscriber's subscription: already over, its calls do
/// nothing (§1.6, §3.6).
struct Refused;

impl Subscription for Refused {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

struct FanoutSubscription {
    stage: Arc<Stage>,
    slot: Arc<Slot>,
}

impl Subscription for FanoutSubscription {
    fn request(&self, n: u64) {
        {
            let mut state = self.slot.state.lock();
            if state.over || state.cancelled {
                return;
            }
            if n == 0 {
                state.illegal = true;
            } else {
                state.demand = demand::add(state.demand, n);
                state.asked = true;
            }
        }
        self.stage.drain(&self.slot);
        self.stage.refill();
    }

    fn cancel(&self) {
        {
            let mut state = self.slot.state.lock();
            if state.over || state.cancelled {
                return;
            }
            state.cancelled = true;
        }
        self.stage.drain(&self.slot);
    }
}

fn quick(forgets_cancel_in_flight: bool) -> Vec<RuleResult> {
    ProcessorVerification::new(Fanouts {
        forgets_cancel_in_flight,
    })
    .env(if forgets_cancel_in_flight {
        patient()
    } else {
        generous()
    })
    .run_all()
    .unwrap()
}

#[test]
fn a_processor_serving_its_subscribers_at_their_own_paces_passes() {
    let results = quick(false);
    crate::verdicts::assert_no_failure_and_skips_explained("fan-out", &results);
}

#[test]
fn a_processor_serving_its_subscribers_at_their_own_paces_passes_the_extended_verification() {
    let results = ProcessorVerification::new(Fanouts {
        forgets_cancel_in_flight: false,
    })
    .env(crate::extended::passing_env())
    .extended(crate::extended::config(200, 10))
    .run_extended()
    .unwrap();
    crate::verdicts::assert_passed_or_skipped_with_reason("fan-out", &results);
}

#[test]
fn a_processor_forgetting_a_cancel_while_an_element_is_in_flight_fails_cancel_propagates() {
    insta::assert_snapshot!(broken_rules(&quick(true)));
}

/// Issue 38 §2: a multicast stage serving two subscribers at once and
/// refusing the third passes, declaring its limit or not: declared, the
/// scenarios fit within two; undeclared, one needing a third is "not
/// concluded", never failed.
#[test]
fn a_processor_serving_two_subscribers_at_once_passes_declared_or_not() {
    capped_fanouts_pass(false);
}

/// Issue 38, left over from §2: the same, refusing the third
/// asynchronously (`on_error` from another thread after `subscribe`
/// returned).
#[test]
fn a_processor_refusing_its_third_subscriber_later_from_another_thread_passes_declared_or_not() {
    capped_fanouts_pass(true);
}

fn capped_fanouts_pass(later: bool) {
    for declared in [true, false] {
        for extended in [false, true] {
            let results = crate::lax::verified(CappedFanouts { declared, later }, extended);
            let skipped = crate::verdicts::assert_clean_and_skips_explained(
                &format!(
                    "capped fan-out, declared {declared}, extended {extended}, refusing later {later}"
                ),
                &results,
            );
            for skip in skipped {
                assert!(
                    skip.ends_with("the publisher refused subscriber 3 (§1.9 allows it)")
                        || skip.contains("needs"),
                    "{skip}"
                );
                assert!(!declared, "declared, every scenario fits: {skip}");
            }
        }
    }
}

/// Issue 38 §2, "whatever k": a stage refusing every second subscriber
/// without declaring it fails nothing; the scenarios needing a second are
/// "not concluded: the publisher refused subscriber 2 (§1.9 allows it)".
#[test]
fn a_processor_refusing_every_second_subscriber_undeclared_is_not_concluded_never_failed() {
    solo_fanouts_not_concluded(false);
}

/// Issue 38, left over from §2: the same, refusing asynchronously
/// (`on_error` from another thread after `subscribe` returned): the
/// processor's own scenarios with a second subscriber (`Rig::another`:
/// late subscribers, leaving ones, bounded demand with a second joining)
/// recognise it as the publisher scenarios do.
#[test]
fn a_processor_refusing_every_second_subscriber_later_undeclared_is_not_concluded_never_failed() {
    solo_fanouts_not_concluded(true);
}

fn solo_fanouts_not_concluded(later: bool) {
    for extended in [false, true] {
        let results = crate::lax::verified(SoloFanouts(later), extended);
        let skipped = crate::verdicts::assert_clean_and_skips_explained(
            &format!("solo fan-out, refusing later {later}"),
            &results,
        );
        for skip in &skipped {
            assert!(skip.contains("(§1.9 allows it)"), "{skip}");
        }
        assert!(
            extended || !skipped.is_empty(),
            "no scenario needed a second?"
        );
    }
}
