//! Issue 31: a subscriber leaves a multicast processor (`cancel()`, or
//! `request(0)`) while another stays, or while upstream still owes the
//! processor an element.
//!
//! [`Laggard`] is correct but unusual, written from the spec text: a
//! multicast that asks upstream only for what its slowest subscriber still
//! lacks, with no buffer (a subscriber asking for nothing holds the others
//! back). It queues for each subscriber what arrives (the TCK's
//! [`MulticastProcessor`] does that part) and paces upstream itself, so
//! that a subscriber may leave with demand left while upstream owes the
//! processor nothing.
//!
//! Its broken twins ([`Flaw`]) each mishandle a leave:
//! - `AbandonsOthers` cancels upstream when any subscriber leaves, so the
//!   ones that stay are never served again (§3.8);
//! - `DefersLeave` acts on a leave by a subscriber with demand left, while
//!   another stays, only at upstream's next signal (which, with upstream
//!   owing nothing, never comes): no `on_error` for its `request(0)`
//!   (§3.9), and it is never dropped after its `cancel()` (§3.13);
//! - `LosesError`: the only subscriber's `request(0)` with an element
//!   still owed cancels upstream at once and owes the `on_error` to
//!   upstream's next signal, lost when upstream drops the processor
//!   instead (§3.9).

use std::sync::Arc;

use parking_lot::{Mutex, ReentrantMutex};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::processor::testkit::MulticastProcessor;
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::testkit::broken_rules;

use crate::factories::{generous, patient};
use crate::seats::{Paced, Pacing, Seat, SeatSubscription};

/// How a [`Laggard`] mishandles a leave, if it does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flaw {
    None,
    AbandonsOthers,
    DefersLeave,
    LosesError,
    /// When a subscriber joins, the earlier ones are granted their whole
    /// demand again (§1.1 once the newcomer asks for more).
    RegrantsOnJoin,
    /// A request from a subscriber that received elements beyond its
    /// demand (it joined with elements in flight) doubles that debt
    /// instead of paying it, so the request never reaches upstream (§3.8
    /// once it is the slowest).
    DoublesDebt,
}

/// [`Laggard`]s with a [`Flaw`].
pub struct Laggards(pub Flaw);

impl ProcessorFactory for Laggards {
    type Input = u64;
    type Output = u64;
    type Processor = Laggard;

    fn create_processor(&self) -> Laggard {
        Laggard::new(self.0)
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    /// No buffer: upstream demand is the slowest subscriber's.
    fn max_upstream_demand(&self) -> u64 {
        0
    }
}

/// A handle on one stage (see the [module](self) docs).
#[derive(Clone)]
pub struct Laggard {
    queues: MulticastProcessor<u64>,
    stage: Arc<Stage>,
}

struct Stage {
    flaw: Flaw,
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
    asked: u64,
    arrived: u64,
    /// Upstream ended or cancelled: nothing more is asked.
    shut: bool,
    members: Vec<Arc<Mutex<Member>>>,
    /// Leaves held until upstream's next signal (the flawed twins).
    deferred: Vec<(Arc<dyn Subscription>, bool)>,
}

/// One downstream subscriber's demand, as the stage paces upstream.
#[derive(Default)]
struct Member {
    /// Its subscription on the queues, once given.
    queue: Option<Arc<dyn Subscription>>,
    requested: u64,
    /// Elements that arrived while it was subscribed.
    arrived: u64,
    left: bool,
}

impl Laggard {
    fn new(flaw: Flaw) -> Self {
        Laggard {
            queues: MulticastProcessor::new(),
            stage: Arc::new(Stage {
                flaw,
                state: Mutex::new(StageState::default()),
                upstream_calls: ReentrantMutex::new(()),
            }),
        }
    }
}

impl Stage {
    /// Asks upstream for what the slowest subscriber still lacks.
    fn refill(&self) {
        let (upstream, n) = {
            let mut state = self.state.lock();
            let Some(upstream) = state.upstream.clone() else {
                return;
            };
            if state.shut || demand::is_unbounded(state.asked) {
                return;
            }
            let lacking = state
                .members
                .iter()
                .map(|m| m.lock())
                .filter(|m| !m.left)
                .map(|m| m.requested.saturating_sub(m.arrived))
                .min();
            let Some(lacking) = lacking else {
                return;
            };
            let outstanding = state.asked - state.arrived;
            if lacking <= outstanding {
                return;
            }
            let n = lacking - outstanding;
            state.asked = demand::add(state.asked, n);
            (upstream, n)
        };
        let _turn = self.upstream_calls.lock();
        upstream.request(n);
    }

    /// Cancels upstream, once.
    fn shut(&self) {
        let upstream = {
            let mut state = self.state.lock();
            if state.shut {
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

    /// Acts on the leaves held back, before upstream's signal.
    fn run_deferred(&self) {
        let deferred = std::mem::take(&mut self.state.lock().deferred);
        for (subscription, cancel) in deferred {
            if cancel {
                subscription.cancel();
            } else {
                subscription.request(0);
            }
        }
    }
}

impl Subscriber<u64> for Laggard {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        {
            let mut state = self.stage.state.lock();
            if state.upstream.is_some() || state.shut {
                drop(state);
                // A second upstream is refused (§2.5).
                let _turn = self.stage.upstream_calls.lock();
                return subscription.cancel();
            }
            state.upstream = Some(subscription);
        }
        self.queues
            .on_subscribe(Arc::new(Paced(self.stage.clone())));
        self.stage.refill();
    }

    fn on_next(&mut self, element: u64) {
        self.stage.run_deferred();
        {
            let mut state = self.stage.state.lock();
            state.arrived += 1;
            for member in &state.members {
                let mut member = member.lock();
                if !member.left {
                    member.arrived += 1;
                }
            }
        }
        self.queues.on_next(element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.stage.run_deferred();
        self.stage.state.lock().shut = true;
        self.queues.on_error(error);
    }

    fn on_complete(&mut self) {
        self.stage.run_deferred();
        self.stage.state.lock().shut = true;
        self.queues.on_complete();
    }
}

impl Publisher<u64> for Laggard {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        let member = Arc::new(Mutex::new(Member::default()));
        let regrants = {
            let mut state = self.stage.state.lock();
            let regrants: Vec<(Arc<dyn Subscription>, u64)> =
                if self.stage.flaw == Flaw::RegrantsOnJoin {
                    state
                        .members
                        .iter()
                        .filter_map(|m| {
                            let mut m = m.lock();
                            let again = m.requested;
                            m.requested = demand::add(m.requested, again);
                            let queue = m.queue.clone()?;
                            (!m.left && again > 0).then_some((queue, again))
                        })
                        .collect()
                } else {
                    Vec::new()
                };
            state.members.push(member.clone());
            regrants
        };
        for (queue, again) in regrants {
            queue.request(again);
        }
        self.queues.subscribe(Box::new(Seat::<Stage> {
            subscriber,
            member,
            stage: self.stage.clone(),
        }));
    }
}

/// A seat of a [`Laggard`].
type LaggardSeat = SeatSubscription<Stage>;

impl Pacing for Stage {
    type Member = Member;

    fn refill(&self) {
        Stage::refill(self);
    }

    fn shut(&self) {
        Stage::shut(self);
    }

    fn seated(member: &mut Member, queue: Arc<dyn Subscription>) {
        member.queue = Some(queue);
    }

    fn request(seat: &LaggardSeat, n: u64) {
        if n == 0 {
            return leave(seat, false);
        }
        {
            let mut member = seat.member.lock();
            if !member.left {
                let debt = member.arrived.saturating_sub(member.requested);
                if seat.stage.flaw == Flaw::DoublesDebt && debt > 0 {
                    member.arrived = demand::add(member.arrived, debt);
                }
                member.requested = demand::add(member.requested, n);
            }
        }
        seat.queue.request(n);
        seat.stage.refill();
    }

    fn cancel(seat: &LaggardSeat) {
        leave(seat, true);
    }
}

fn leave(seat: &LaggardSeat, cancel: bool) {
    let with_demand = {
        let mut member = seat.member.lock();
        if member.left {
            drop(member);
            // Already left: the queues answer (a no-op).
            return seat.call(cancel);
        }
        member.left = true;
        member.requested > member.arrived
    };
    let others = {
        let state = seat.stage.state.lock();
        state.members.iter().any(|m| !m.lock().left)
    };
    let deferred = match seat.stage.flaw {
        Flaw::DefersLeave => with_demand && others,
        Flaw::LosesError => with_demand && !others && !cancel,
        _ => false,
    };
    if deferred {
        seat.stage
            .state
            .lock()
            .deferred
            .push((seat.queue.clone(), cancel));
        if !others {
            seat.stage.shut();
        }
        return;
    }
    seat.call(cancel);
    if seat.stage.flaw == Flaw::AbandonsOthers {
        seat.stage.shut();
    } else {
        // The slowest subscriber may have left.
        seat.stage.refill();
    }
}

fn quick(flaw: Flaw) -> Vec<RuleResult> {
    ProcessorVerification::new(Laggards(flaw))
        .env(if flaw == Flaw::None {
            generous()
        } else {
            patient()
        })
        .run_all()
        .unwrap()
}

#[test]
fn a_multicast_at_its_slowest_subscribers_pace_passes() {
    let results = quick(Flaw::None);
    crate::verdicts::assert_no_failure_and_skips_explained("laggard", &results);
}

#[test]
fn a_multicast_abandoning_the_others_when_one_leaves_fails_3_08() {
    insta::assert_snapshot!(broken_rules(&quick(Flaw::AbandonsOthers)));
}

#[test]
fn a_multicast_deferring_a_leave_to_the_next_upstream_signal_fails_3_09_and_3_13() {
    insta::assert_snapshot!(broken_rules(&quick(Flaw::DefersLeave)));
}

#[test]
fn a_processor_losing_the_error_for_request_0_when_upstream_drops_it_fails_3_09() {
    insta::assert_snapshot!(broken_rules(&quick(Flaw::LosesError)));
}

#[test]
fn a_multicast_granting_the_early_subscriber_its_demand_again_fails_1_01() {
    insta::assert_snapshot!(broken_rules(&quick(Flaw::RegrantsOnJoin)));
}

#[test]
fn a_multicast_doubling_a_late_subscribers_debt_fails_3_08() {
    insta::assert_snapshot!(broken_rules(&quick(Flaw::DoublesDebt)));
}
