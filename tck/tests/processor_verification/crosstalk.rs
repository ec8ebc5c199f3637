//! Issue 39 §3: one party never moves another's stream. With two
//! subscribers, one's `request` or `cancel` leaves the other's demand as
//! it was.
//!
//! [`Lockstep`] is correct but lax, written from the spec text: a
//! multicast that asks upstream for one element at a time (§3.8 only
//! registers demand; nothing says how a processor passes it on), at the
//! pace of its slowest subscriber or of its hungriest ([`Pace`]: §1.11
//! leaves the pace to the publisher), and serves a subscriber only from
//! elements that arrive after it joined (a hot multicast, §1.11). Both
//! paces pass the whole verification.
//!
//! Its broken twins ([`Flaw`]), one per cross-talk kind, each fail the
//! rule they break:
//! - `ReplacesTarget`: a request from another subscriber than the last
//!   one to ask sets how far upstream is asked to "what arrived plus this
//!   request", replacing what the others, and the requester itself, still
//!   lack (§3.8; with one subscriber it adds up, as it should);
//! - `ResetsOthers`: a request forgets the other subscribers' demand when
//!   pacing upstream (§3.8);
//! - `ResetsOnLeave`: a cancel forgets the others' demand (§3.8);
//! - `NoRefillOnLeave`: at its slowest subscriber's pace, a cancel by the
//!   subscriber holding the others back does not ask upstream for them:
//!   they wait for a request they already made (§3.8);
//! - `LatestOwnsUpstream`: the latest subscriber's cancel cancels
//!   upstream, as if it were the only one (§3.8);
//! - `FeedsTheOther`: a request also grants its demand to every other
//!   subscriber (§1.1; the earlier scenarios that then wait for the
//!   elements the probe set aside file them as lost, §3.8).

use std::sync::Arc;

use parking_lot::{Mutex, ReentrantMutex};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::processor::testkit::MulticastProcessor;
use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
use reactive_streams_tck::testkit::broken_rules;

use crate::factories::{generous, patient};
use crate::seats::{Paced, Pacing, Seat, SeatSubscription};

/// Whose demand a [`Lockstep`] stage asks upstream for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pace {
    /// What its slowest subscriber still lacks.
    Slowest,
    /// What its hungriest subscriber still lacks.
    Hungriest,
}

/// How a [`Lockstep`] moves one subscriber's stream by another's action,
/// if it does (see the [module](self) docs).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flaw {
    None,
    ReplacesTarget,
    ResetsOthers,
    ResetsOnLeave,
    NoRefillOnLeave,
    LatestOwnsUpstream,
    FeedsTheOther,
}

/// [`Lockstep`]s at a pace, with a flaw.
pub struct Locksteps(pub Pace, pub Flaw);

impl ProcessorFactory for Locksteps {
    type Input = u64;
    type Output = u64;
    type Processor = Lockstep;

    fn create_processor(&self) -> Lockstep {
        Lockstep::new(self.0, self.1)
    }

    fn input(&self, index: u64) -> u64 {
        index
    }

    /// One element at a time, and only for demand a subscriber made.
    fn max_upstream_demand(&self) -> u64 {
        1
    }

    fn element_index(&self, output: &u64) -> Option<u64> {
        Some(*output)
    }
}

/// A handle on one stage (see the [module](self) docs).
#[derive(Clone)]
pub struct Lockstep {
    queues: MulticastProcessor<u64>,
    stage: Arc<Stage>,
}

struct Stage {
    pace: Pace,
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
    /// How far upstream is to be asked, and who asked last
    /// (`ReplacesTarget` only).
    target: u64,
    last_requester: Option<Arc<Mutex<Member>>>,
    /// Upstream ended or cancelled: nothing more is asked.
    shut: bool,
    members: Vec<Arc<Mutex<Member>>>,
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

impl Member {
    fn lacking(&self) -> u64 {
        self.requested.saturating_sub(self.arrived)
    }
}

impl Lockstep {
    fn new(pace: Pace, flaw: Flaw) -> Self {
        Lockstep {
            queues: MulticastProcessor::new(),
            stage: Arc::new(Stage {
                pace,
                flaw,
                state: Mutex::new(StageState::default()),
                upstream_calls: ReentrantMutex::new(()),
            }),
        }
    }
}

impl Stage {
    /// Asks upstream for one more element, if none is outstanding and a
    /// subscriber (the slowest, or the hungriest) still lacks one.
    fn refill(&self) {
        let upstream = {
            let mut state = self.state.lock();
            let Some(upstream) = state.upstream.clone() else {
                return;
            };
            if state.shut || state.asked > state.arrived {
                return;
            }
            let wanted = if self.flaw == Flaw::ReplacesTarget {
                state.target > state.arrived
            } else {
                let lacking = state
                    .members
                    .iter()
                    .map(|m| m.lock())
                    .filter(|m| !m.left)
                    .map(|m| m.lacking());
                let lacking = match self.pace {
                    Pace::Slowest => lacking.min(),
                    Pace::Hungriest => lacking.max(),
                };
                lacking.is_some_and(|n| n > 0)
            };
            if !wanted {
                return;
            }
            state.asked += 1;
            upstream
        };
        let _turn = self.upstream_calls.lock();
        upstream.request(1);
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

    /// Every member but `member` forgets its demand (the flawed twins).
    fn reset_others(&self, member: &Arc<Mutex<Member>>) {
        let state = self.state.lock();
        for other in state.members.iter().filter(|m| !Arc::ptr_eq(m, member)) {
            let mut other = other.lock();
            other.requested = other.arrived;
        }
    }
}

impl Subscriber<u64> for Lockstep {
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
        self.stage.refill();
    }

    fn on_error(&mut self, error: StreamError) {
        self.stage.state.lock().shut = true;
        self.queues.on_error(error);
    }

    fn on_complete(&mut self) {
        self.stage.state.lock().shut = true;
        self.queues.on_complete();
    }
}

impl Publisher<u64> for Lockstep {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        let member = Arc::new(Mutex::new(Member::default()));
        self.stage.state.lock().members.push(member.clone());
        self.queues.subscribe(Box::new(Seat::<Stage> {
            subscriber,
            member,
            stage: self.stage.clone(),
        }));
    }
}

/// A seat of a [`Lockstep`].
type LockstepSeat = SeatSubscription<Stage>;

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

    fn request(seat: &LockstepSeat, n: u64) {
        if n == 0 {
            return leave(seat, false);
        }
        {
            let mut member = seat.member.lock();
            if !member.left {
                member.requested = demand::add(member.requested, n);
            }
        }
        let others = {
            // The stage before its members, as everywhere.
            let mut state = seat.stage.state.lock();
            if seat.stage.flaw == Flaw::ReplacesTarget {
                let same = state
                    .last_requester
                    .as_ref()
                    .is_some_and(|m| Arc::ptr_eq(m, &seat.member));
                state.target = if same {
                    demand::add(state.target, n)
                } else {
                    demand::add(state.arrived, n)
                };
                state.last_requester = Some(seat.member.clone());
            }
            state
                .members
                .iter()
                .filter(|m| !Arc::ptr_eq(m, &seat.member))
                .filter_map(|m| {
                    let m = m.lock();
                    if m.left { None } else { m.queue.clone() }
                })
                .collect::<Vec<_>>()
        };
        if seat.stage.flaw == Flaw::ResetsOthers {
            seat.stage.reset_others(&seat.member);
        }
        if seat.stage.flaw == Flaw::FeedsTheOther {
            for other in others {
                other.request(n);
            }
        }
        seat.queue.request(n);
        seat.stage.refill();
    }

    fn cancel(seat: &LockstepSeat) {
        leave(seat, true);
    }
}

fn leave(seat: &LockstepSeat, cancel: bool) {
    let first_leave = {
        let mut member = seat.member.lock();
        !std::mem::replace(&mut member.left, true)
    };
    seat.call(cancel);
    if !first_leave {
        return;
    }
    let latest = {
        let state = seat.stage.state.lock();
        state
            .members
            .last()
            .is_some_and(|m| Arc::ptr_eq(m, &seat.member))
    };
    match seat.stage.flaw {
        Flaw::LatestOwnsUpstream if latest => return seat.stage.shut(),
        Flaw::ResetsOnLeave => seat.stage.reset_others(&seat.member),
        Flaw::NoRefillOnLeave => return,
        _ => {}
    }
    // The slowest subscriber may have left.
    seat.stage.refill();
}

fn quick(pace: Pace, flaw: Flaw) -> Vec<RuleResult> {
    ProcessorVerification::new(Locksteps(pace, flaw))
        .env(if flaw == Flaw::None {
            generous()
        } else {
            patient()
        })
        .run_all()
        .unwrap()
}

#[test]
fn a_lock_step_multicast_at_its_slowest_subscribers_pace_passes() {
    let results = quick(Pace::Slowest, Flaw::None);
    crate::verdicts::assert_no_failure_and_skips_explained("lock-step, slowest", &results);
}

#[test]
fn a_lock_step_multicast_at_its_hungriest_subscribers_pace_passes() {
    let results = quick(Pace::Hungriest, Flaw::None);
    crate::verdicts::assert_no_failure_and_skips_explained("lock-step, hungriest", &results);
}

#[test]
fn a_request_replacing_what_the_others_lack_fails_3_08() {
    insta::assert_snapshot!(broken_rules(&quick(Pace::Hungriest, Flaw::ReplacesTarget)));
}

#[test]
fn a_request_resetting_the_others_demand_fails_3_08() {
    insta::assert_snapshot!(broken_rules(&quick(Pace::Hungriest, Flaw::ResetsOthers)));
}

#[test]
fn a_cancel_resetting_the_others_demand_fails_3_08() {
    insta::assert_snapshot!(broken_rules(&quick(Pace::Hungriest, Flaw::ResetsOnLeave)));
}

#[test]
fn a_cancel_by_the_slowest_not_releasing_the_others_fails_3_08() {
    insta::assert_snapshot!(broken_rules(&quick(Pace::Slowest, Flaw::NoRefillOnLeave)));
}

#[test]
fn the_latest_subscribers_cancel_stopping_upstream_fails_3_08() {
    insta::assert_snapshot!(broken_rules(&quick(
        Pace::Slowest,
        Flaw::LatestOwnsUpstream
    )));
}

#[test]
fn a_request_feeding_the_other_subscriber_fails_1_01_then_3_08() {
    insta::assert_snapshot!(broken_rules(&quick(Pace::Hungriest, Flaw::FeedsTheOther)));
}

/// The twins pass the extended verification too (issue 38 §5).
#[test]
fn a_lock_step_multicast_passes_the_extended_verification_at_either_pace() {
    for pace in [Pace::Slowest, Pace::Hungriest] {
        let results = crate::lax::verified(Locksteps(pace, Flaw::None), true);
        crate::verdicts::assert_no_failure_and_skips_explained(
            &format!("lock-step, {pace:?}"),
            &results,
        );
    }
}
