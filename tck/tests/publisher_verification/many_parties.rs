//! Issue 27 §2: several subscribers of one publisher.
//!
//! Four correct-but-unusual publishers, written from the spec text:
//!
//! - [`HotMulticasts`]: one source shared by every subscriber present, at
//!   the pace of the slowest one (§1.1 holds per subscriber: an element
//!   goes out once every subscriber present has demand); a subscriber
//!   joining later misses what went before; a subscription whose handle
//!   was dropped is treated as cancelled (the spec neither asks nor
//!   forbids it).
//! - [`LazyHotMulticasts`]: the same, finding its end only when asked
//!   for one more element, at that same pace: a subscriber waits for its
//!   `on_complete` until every subscriber present has asked for more than
//!   the stream holds (it once failed §1.5 falsely in four scenarios).
//! - [`Prefetchers`]: a hot publisher whose source starts on the first
//!   subscribe, filling a small buffer per subscriber before any request,
//!   so a second subscriber, even one subscribed before anyone requested,
//!   may start a few elements into the stream.
//! - [`ThreadHoppers`]: a cold range that makes each signal on a thread of
//!   its own, started by the thread of the signal before once that signal
//!   has returned: serial (§1.3) with a happens-before edge, never on the
//!   same thread twice; it keeps serving a subscription whose handle was
//!   dropped.
//!
//! And broken multicasts, each failing exactly the rule it breaks: one
//! whose new subscriber resets the others' demand, one that addresses its
//! subscriptions by position and shifts them when it lets a dropped one
//! go, one that hands its subscribers back to their old places after one
//! of them left in the middle of a delivery, one whose failure reaches its
//! first subscriber only, one that acts on a cancel only at the next
//! request (issue 39 §3).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription, demand};
use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::publisher::{PublisherFactory, PublisherVerification};
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

use crate::self_test_env;

/// What is wrong with a [`Hub`], if anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flaw {
    /// Conforming.
    None,
    /// A new subscriber "starts everyone afresh": the demand of every
    /// subscriber present is reset to 0 (§3.8: demand registered is owed
    /// to the subscriber that asked).
    LateJoinerResets,
    /// Subscriptions are addressed by their position in the hub's list;
    /// ended ones keep their place, but one whose handle was dropped is
    /// removed, shifting the later ones: their calls then reach a
    /// neighbour's place or none (§3.8).
    ShiftsOnDrop,
    /// A subscriber that cancels while an element is on its way to the
    /// others leaves the list at once, and the subscribers of that element
    /// are handed back to the places they held when it went out: every
    /// later one lands one place too low, the last nowhere (§3.8: their
    /// demand no longer reaches them).
    HandsBackByPlace,
    /// Its failed publisher hands its error to the first subscriber only
    /// (taken, not copied); later ones get `on_complete` (§1.4: a
    /// publisher that fails signals `on_error`, to each subscriber).
    FailsOnlyTheFirst,
    /// A cancel while others stay is acted on only at the next request: a
    /// subscriber that held the others back (it had no demand) and cancels
    /// keeps them waiting, demand registered, until one of them asks again
    /// (§3.8; issue 39 §3).
    StallsOnCancel,
}

/// Hot multicasts of `0..n` (see the [module](self) docs).
pub struct HotMulticasts(pub Flaw);

impl PublisherFactory for HotMulticasts {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(Hub::new(elements, self.0, false))
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Failed::publisher(false, self.0 == Flaw::FailsOnlyTheFirst)
    }
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

/// A conforming [`HotMulticasts`] whose source finds its end late: it
/// learns that there is no element `n` only when asked for it, and it is
/// asked only once every subscriber present wants one more (its pace).
/// So a subscriber that got exactly what it asked for waits for its
/// `on_complete` until every other one present asks for more too (§1.5
/// binds only once the publisher has terminated).
pub struct LazyHotMulticasts;

impl PublisherFactory for LazyHotMulticasts {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(Hub::new(elements, Flaw::None, true))
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Failed::publisher(false, false)
    }
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

/// A conforming [`HotMulticasts`] that serves at most
/// [`CAPACITY`] subscribers at once and refuses the next with
/// `on_subscribe`, then `on_error` (§1.11: "A Publisher MAY support
/// multiple Subscribers"; §1.9: "the only legal way to signal failure (or
/// reject the Subscriber) is by calling onError (after calling
/// onSubscribe)"). `declared`: whether its factory says so
/// (`max_subscribers()`); undeclared, the scenarios with a third
/// subscriber are not concluded, never failed.
pub struct CappedMulticasts {
    pub declared: bool,
}

/// How many subscribers a [`CappedMulticasts`] serves at once.
pub const CAPACITY: usize = 2;

impl PublisherFactory for CappedMulticasts {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(Hub::serving(elements, Flaw::None, true, CAPACITY))
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Failed::publisher(false, false)
    }
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
    fn max_subscribers(&self) -> Option<usize> {
        self.declared.then_some(CAPACITY)
    }
}

/// One source, many subscribers.
struct Hub {
    shared: Arc<HubShared>,
}

struct HubShared {
    flaw: Flaw,
    /// How many subscribers it serves at once; the next is refused.
    capacity: usize,
    state: Mutex<HubState>,
}

struct HubState {
    /// The source's length and the next element.
    count: u64,
    next: u64,
    members: Vec<Member>,
    next_id: u64,
    /// The source has found its end (at once, unless it finds it late:
    /// [`LazyHotMulticasts`]).
    end_found: bool,
    /// A thread is draining; `again`: look once more before letting go.
    draining: bool,
    again: bool,
}

struct Member {
    id: u64,
    /// `None` while a thread is signalling it (or greeting it).
    subscriber: Option<Box<dyn Subscriber<u64>>>,
    /// Who still holds the subscription.
    handle: Weak<MemberSubscription>,
    demand: u64,
    cancelled: bool,
    /// `request(0)` was made (§3.9).
    illegal: bool,
    /// Ended (kept in place only by [`Flaw::ShiftsOnDrop`]).
    gone: bool,
}

impl Hub {
    fn new(count: u64, flaw: Flaw, lazy_end: bool) -> Self {
        Hub::serving(count, flaw, lazy_end, usize::MAX)
    }

    fn serving(count: u64, flaw: Flaw, lazy_end: bool, capacity: usize) -> Self {
        Hub {
            shared: Arc::new(HubShared {
                flaw,
                capacity,
                state: Mutex::new(HubState {
                    count,
                    next: 0,
                    end_found: !lazy_end,
                    members: Vec::new(),
                    next_id: 0,
                    draining: false,
                    again: false,
                }),
            }),
        }
    }
}

impl Publisher<u64> for Hub {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let full = {
            let state = self.shared.state.lock();
            let present = state.members.iter().filter(|m| !m.gone && !m.cancelled);
            present.count() >= self.shared.capacity
        };
        if full {
            // §1.9: "the only legal way to signal failure (or reject the
            // Subscriber) is by calling onError (after calling
            // onSubscribe)"; its explanation names "bounded by a finite
            // number of underlying resources".
            subscriber.on_subscribe(Arc::new(Refused));
            subscriber.on_error(StreamError::msg(format!(
                "this multicast serves at most {} subscribers at once",
                self.shared.capacity
            )));
            return;
        }
        let subscription = {
            let mut state = self.shared.state.lock();
            let id = state.next_id;
            state.next_id += 1;
            let position = state.members.len() as u64;
            let subscription = Arc::new(MemberSubscription {
                hub: self.shared.clone(),
                key: if self.shared.flaw == Flaw::ShiftsOnDrop {
                    Key::Position(position)
                } else {
                    Key::Id(id)
                },
            });
            if self.shared.flaw == Flaw::LateJoinerResets {
                for member in &mut state.members {
                    member.demand = 0;
                }
            }
            state.members.push(Member {
                id,
                subscriber: None,
                handle: Arc::downgrade(&subscription),
                demand: 0,
                cancelled: false,
                illegal: false,
                gone: false,
            });
            subscription
        };
        let key = subscription.key;
        subscriber.on_subscribe(subscription);
        {
            let mut state = self.shared.state.lock();
            if let Some(member) = self.shared.find(&mut state, key) {
                member.subscriber = Some(subscriber);
            }
        }
        self.shared.drain();
    }
}

/// The subscription of a refused subscriber: already ended, so its calls
/// do nothing (§1.6, §3.6).
struct Refused;

impl Subscription for Refused {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

#[derive(Debug, Clone, Copy)]
enum Key {
    Id(u64),
    Position(u64),
}

impl HubShared {
    /// Whether more than one subscriber is still present (one of them the
    /// one cancelling).
    fn others_stay(&self) -> bool {
        let state = self.state.lock();
        state
            .members
            .iter()
            .filter(|m| !m.gone && !m.cancelled)
            .count()
            > 0
    }

    fn find<'a>(&self, state: &'a mut HubState, key: Key) -> Option<&'a mut Member> {
        match key {
            Key::Id(id) => state.members.iter_mut().find(|m| m.id == id),
            Key::Position(at) => state.members.get_mut(at as usize),
        }
        .filter(|m| !m.gone)
    }

    /// [`Flaw::ShiftsOnDrop`] tidies up on every call: subscriptions
    /// nobody holds are removed from the list, shifting the later ones.
    fn tidy(&self, state: &mut HubState) {
        if self.flaw == Flaw::ShiftsOnDrop {
            state
                .members
                .retain(|m| m.gone || m.subscriber.is_none() || m.handle.strong_count() > 0);
        }
    }

    /// Ends `member` at `at`: removed, or left in place as gone.
    fn remove(&self, state: &mut HubState, at: usize) -> Option<Box<dyn Subscriber<u64>>> {
        if self.flaw == Flaw::ShiftsOnDrop {
            let member = &mut state.members[at];
            member.gone = true;
            member.subscriber.take()
        } else {
            state.members.remove(at).subscriber
        }
    }

    /// One signal the drain loop makes, decided under the lock.
    fn decide(&self, state: &mut HubState) -> Option<Step> {
        // Subscriptions nobody holds any more are let go, as cancelled.
        let mut at = 0;
        while at < state.members.len() {
            let member = &state.members[at];
            if !member.gone && member.subscriber.is_some() && member.handle.strong_count() == 0 {
                if self.flaw == Flaw::ShiftsOnDrop {
                    state.members.remove(at);
                    continue;
                }
                let subscriber = self.remove(state, at);
                return Some(Step::Drop(subscriber));
            }
            at += 1;
        }
        let ready = |m: &Member| !m.gone && m.subscriber.is_some();
        if let Some(at) = state.members.iter().position(|m| ready(m) && m.cancelled) {
            return Some(Step::Drop(self.remove(state, at)));
        }
        if let Some(at) = state.members.iter().position(|m| ready(m) && m.illegal) {
            let subscriber = self.remove(state, at);
            return Some(Step::Error(subscriber));
        }
        if state.next == state.count {
            if !state.end_found {
                // Asked for element `count` only at the pace of the
                // slowest subscriber present, like every other element.
                let asked = state
                    .members
                    .iter()
                    .filter(|m| !m.gone)
                    .all(|m| m.subscriber.is_some() && m.demand > 0);
                if !asked || state.members.iter().all(|m| m.gone) {
                    return None;
                }
                state.end_found = true;
            }
            if let Some(at) = state.members.iter().position(ready) {
                return Some(Step::Complete(self.remove(state, at)));
            }
            return None;
        }
        let present: Vec<&Member> = state.members.iter().filter(|m| !m.gone).collect();
        if present.is_empty()
            || present
                .iter()
                .any(|m| m.subscriber.is_none() || m.demand == 0)
        {
            return None;
        }
        let element = state.next;
        state.next += 1;
        let mut taken = Vec::new();
        for (at, member) in state.members.iter_mut().enumerate() {
            if member.gone {
                continue;
            }
            if member.demand != u64::MAX {
                member.demand -= 1;
            }
            taken.push((member.id, at, member.subscriber.take()));
        }
        Some(Step::Next(element, taken))
    }

    fn drain(&self) {
        {
            let mut state = self.state.lock();
            if state.draining {
                state.again = true;
                return;
            }
            state.draining = true;
        }
        loop {
            let step = {
                let mut state = self.state.lock();
                state.again = false;
                match self.decide(&mut state) {
                    Some(step) => step,
                    None => {
                        state.draining = false;
                        return;
                    }
                }
            };
            match step {
                Step::Drop(subscriber) => drop(subscriber),
                Step::Error(subscriber) => {
                    if let Some(mut subscriber) = subscriber {
                        subscriber.on_error(StreamError::illegal_demand(0));
                    }
                }
                Step::Complete(subscriber) => {
                    if let Some(mut subscriber) = subscriber {
                        subscriber.on_complete();
                    }
                }
                Step::Next(element, taken) => {
                    let mut back = Vec::new();
                    for (id, at, subscriber) in taken {
                        if let Some(mut subscriber) = subscriber {
                            let cancelled = {
                                let state = self.state.lock();
                                state.members.iter().any(|m| m.id == id && m.cancelled)
                            };
                            if !cancelled {
                                subscriber.on_next(element);
                            }
                            back.push((id, at, subscriber));
                        }
                    }
                    let mut state = self.state.lock();
                    for (id, at, subscriber) in back {
                        let Some(found) = state.members.iter().position(|m| m.id == id) else {
                            continue;
                        };
                        let place = if self.flaw == Flaw::HandsBackByPlace {
                            at
                        } else {
                            found
                        };
                        if let Some(member) = state.members.get_mut(place) {
                            member.subscriber = Some(subscriber);
                        }
                    }
                }
            }
        }
    }
}

/// A member's subscriber, taken out to be signalled (if it was there).
type Taken = Option<Box<dyn Subscriber<u64>>>;

enum Step {
    Drop(Taken),
    Error(Taken),
    Complete(Taken),
    /// One element to every member present: its id, its place, its
    /// subscriber.
    Next(u64, Vec<(u64, usize, Taken)>),
}

struct MemberSubscription {
    hub: Arc<HubShared>,
    key: Key,
}

impl Subscription for MemberSubscription {
    fn request(&self, n: u64) {
        {
            let mut state = self.hub.state.lock();
            self.hub.tidy(&mut state);
            let Some(member) = self.hub.find(&mut state, self.key) else {
                return;
            };
            if member.cancelled {
                return;
            }
            if n == 0 {
                member.illegal = true;
            } else {
                member.demand = demand::add(member.demand, n);
            }
        }
        self.hub.drain();
    }

    fn cancel(&self) {
        {
            let mut state = self.hub.state.lock();
            self.hub.tidy(&mut state);
            if let Some(member) = self.hub.find(&mut state, self.key) {
                member.cancelled = true;
                if self.hub.flaw == Flaw::HandsBackByPlace && member.subscriber.is_none() {
                    // Out being signalled: it leaves the list at once.
                    let id = member.id;
                    state.members.retain(|m| m.id != id);
                }
            }
        }
        if self.hub.flaw == Flaw::StallsOnCancel && self.hub.others_stay() {
            return;
        }
        self.hub.drain();
    }
}

/// How many elements a [`Prefetchers`] publisher pulls into each
/// subscriber's buffer before anyone asks.
const PREFETCH: usize = 2;

/// Hot publishers of `0..n` that start on the first subscribe: the source
/// fills every present subscriber's buffer up to [`PREFETCH`] elements
/// before any request, and moves on only while every buffer has room. A subscriber arriving once the first's buffer
/// holds elements 0 and 1 starts at element 2: it misses them, as a late
/// joiner of a hot publisher does (the spec does not say where a
/// subscriber starts; §1.1 per subscriber and §3.8 hold). Each buffer is
/// delivered within its subscriber's own demand; `on_complete` follows the
/// source's end once a buffer is empty.
pub struct Prefetchers;

impl PublisherFactory for Prefetchers {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(Prefetcher {
            shared: Arc::new(Mutex::new(Prefetch {
                count: elements,
                next: 0,
                members: Vec::new(),
                next_id: 0,
                draining: false,
            })),
        })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Failed::publisher(false, false)
    }
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

struct Prefetcher {
    shared: Arc<Mutex<Prefetch>>,
}

struct Prefetch {
    count: u64,
    /// The source's next element.
    next: u64,
    members: Vec<Buffered>,
    next_id: u64,
    /// One thread signals at a time; others leave their change behind.
    draining: bool,
}

struct Buffered {
    id: u64,
    /// `None` until `on_subscribe` returned, and while being signalled.
    subscriber: Option<Box<dyn Subscriber<u64>>>,
    buffer: std::collections::VecDeque<u64>,
    demand: u64,
    cancelled: bool,
    illegal: bool,
}

/// One signal, decided under the lock.
enum Prefetched {
    Drop(Box<dyn Subscriber<u64>>),
    Error(Box<dyn Subscriber<u64>>),
    Complete(Box<dyn Subscriber<u64>>),
    Next(u64, u64, Box<dyn Subscriber<u64>>),
}

impl Prefetch {
    fn decide(&mut self) -> Option<Prefetched> {
        let ready = |m: &Buffered| m.subscriber.is_some();
        if let Some(at) = self.members.iter().position(|m| ready(m) && m.cancelled) {
            let member = self.members.remove(at);
            return member.subscriber.map(Prefetched::Drop);
        }
        if let Some(at) = self.members.iter().position(|m| ready(m) && m.illegal) {
            let member = self.members.remove(at);
            return member.subscriber.map(Prefetched::Error);
        }
        loop {
            if let Some(member) = self
                .members
                .iter_mut()
                .find(|m| m.subscriber.is_some() && m.demand > 0 && !m.buffer.is_empty())
            {
                if member.demand != u64::MAX {
                    member.demand -= 1;
                }
                let element = member.buffer.pop_front()?;
                return Some(Prefetched::Next(
                    member.id,
                    element,
                    member.subscriber.take()?,
                ));
            }
            if let Some(at) = self
                .members
                .iter()
                .position(|m| ready(m) && m.buffer.is_empty() && self.next == self.count)
            {
                let member = self.members.remove(at);
                return member.subscriber.map(Prefetched::Complete);
            }
            // The source moves on while every buffer has room.
            let room = |m: &Buffered| m.buffer.len() < PREFETCH;
            if self.next == self.count || self.members.is_empty() || !self.members.iter().all(room)
            {
                return None;
            }
            let element = self.next;
            self.next += 1;
            for member in &mut self.members {
                member.buffer.push_back(element);
            }
        }
    }
}

fn prefetch_drain(shared: &Arc<Mutex<Prefetch>>) {
    {
        let mut state = shared.lock();
        if std::mem::replace(&mut state.draining, true) {
            return;
        }
    }
    loop {
        let step = {
            let mut state = shared.lock();
            match state.decide() {
                Some(step) => step,
                None => {
                    state.draining = false;
                    return;
                }
            }
        };
        match step {
            Prefetched::Drop(subscriber) => drop(subscriber),
            Prefetched::Error(mut subscriber) => {
                subscriber.on_error(StreamError::illegal_demand(0))
            }
            Prefetched::Complete(mut subscriber) => subscriber.on_complete(),
            Prefetched::Next(id, element, mut subscriber) => {
                subscriber.on_next(element);
                let mut state = shared.lock();
                if let Some(member) = state.members.iter_mut().find(|m| m.id == id) {
                    member.subscriber = Some(subscriber);
                }
            }
        }
    }
}

impl Publisher<u64> for Prefetcher {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let id = {
            let mut state = self.shared.lock();
            let id = state.next_id;
            state.next_id += 1;
            state.members.push(Buffered {
                id,
                subscriber: None,
                buffer: std::collections::VecDeque::new(),
                demand: 0,
                cancelled: false,
                illegal: false,
            });
            id
        };
        // The source starts now, before any request: the buffers fill.
        prefetch_drain(&self.shared);
        subscriber.on_subscribe(Arc::new(PrefetchSubscription {
            shared: self.shared.clone(),
            id,
        }));
        {
            let mut state = self.shared.lock();
            if let Some(member) = state.members.iter_mut().find(|m| m.id == id) {
                member.subscriber = Some(subscriber);
            }
        }
        prefetch_drain(&self.shared);
    }
}

struct PrefetchSubscription {
    shared: Arc<Mutex<Prefetch>>,
    id: u64,
}

impl Subscription for PrefetchSubscription {
    fn request(&self, n: u64) {
        {
            let mut state = self.shared.lock();
            let Some(member) = state.members.iter_mut().find(|m| m.id == self.id) else {
                return;
            };
            if member.cancelled {
                return;
            }
            if n == 0 {
                member.illegal = true;
            } else {
                member.demand = demand::add(member.demand, n);
            }
        }
        prefetch_drain(&self.shared);
    }

    fn cancel(&self) {
        {
            let mut state = self.shared.lock();
            if let Some(member) = state.members.iter_mut().find(|m| m.id == self.id) {
                member.cancelled = true;
            }
        }
        prefetch_drain(&self.shared);
    }
}

/// Cold ranges of `0..n` signalling each time from a new thread (see the
/// [module](self) docs).
pub struct ThreadHoppers;

impl PublisherFactory for ThreadHoppers {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(Hopper { count: elements })
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Failed::publisher(true, false)
    }
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
}

struct Hopper {
    count: u64,
}

impl Publisher<u64> for Hopper {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<u64>>) {
        let hop = Arc::new(Hop {
            state: Mutex::new(HopState {
                subscriber: None,
                greeting: Some(subscriber),
                next: 0,
                count: self.count,
                demand: 0,
                cancelled: false,
                illegal: false,
                running: true,
            }),
            threads: AtomicU64::new(0),
        });
        // on_subscribe too comes from a thread of its own.
        Hop::hop(hop);
    }
}

struct Hop {
    state: Mutex<HopState>,
    /// Threads started so far (each signal's own).
    threads: AtomicU64,
}

struct HopState {
    /// `None` while a thread is signalling.
    subscriber: Option<Box<dyn Subscriber<u64>>>,
    /// The subscriber before `on_subscribe`.
    greeting: Option<Box<dyn Subscriber<u64>>>,
    next: u64,
    count: u64,
    demand: u64,
    cancelled: bool,
    illegal: bool,
    /// A thread is (or is about to be) signalling.
    running: bool,
}

enum HopSignal {
    Subscribe(Box<dyn Subscriber<u64>>),
    Next(u64, Box<dyn Subscriber<u64>>),
    Complete(Box<dyn Subscriber<u64>>),
    Error(Box<dyn Subscriber<u64>>),
}

impl Hop {
    /// Starts the thread that makes the next signal, if any.
    fn hop(this: Arc<Hop>) {
        this.threads.fetch_add(1, Ordering::Relaxed);
        std::thread::spawn(move || {
            let signal = {
                let mut state = this.state.lock();
                if let Some(subscriber) = state.greeting.take() {
                    Some(HopSignal::Subscribe(subscriber))
                } else if state.cancelled {
                    drop(state.subscriber.take());
                    state.running = false;
                    None
                } else if state.illegal {
                    state.cancelled = true;
                    state.subscriber.take().map(HopSignal::Error)
                } else if state.next == state.count {
                    state.cancelled = true;
                    state.subscriber.take().map(HopSignal::Complete)
                } else if state.demand > 0 {
                    if state.demand != u64::MAX {
                        state.demand -= 1;
                    }
                    let element = state.next;
                    state.next += 1;
                    state
                        .subscriber
                        .take()
                        .map(|subscriber| HopSignal::Next(element, subscriber))
                } else {
                    state.running = false;
                    None
                }
            };
            let Some(signal) = signal else {
                return;
            };
            let subscriber = match signal {
                HopSignal::Subscribe(mut subscriber) => {
                    let subscription: Arc<dyn Subscription> =
                        Arc::new(HopSubscription { hop: this.clone() });
                    subscriber.on_subscribe(subscription);
                    Some(subscriber)
                }
                HopSignal::Next(element, mut subscriber) => {
                    subscriber.on_next(element);
                    Some(subscriber)
                }
                HopSignal::Complete(mut subscriber) => {
                    subscriber.on_complete();
                    None
                }
                HopSignal::Error(mut subscriber) => {
                    subscriber.on_error(StreamError::illegal_demand(0));
                    None
                }
            };
            let Some(subscriber) = subscriber else {
                this.state.lock().running = false;
                return;
            };
            this.state.lock().subscriber = Some(subscriber);
            // The next signal, if any, on the next thread.
            Hop::hop(this);
        });
    }

    fn wake(this: &Arc<Hop>) {
        let start = {
            let mut state = this.state.lock();
            !std::mem::replace(&mut state.running, true)
        };
        if start {
            Hop::hop(this.clone());
        }
    }
}

/// A dropped handle changes nothing: the threads share the state and
/// serve the demand outstanding.
struct HopSubscription {
    hop: Arc<Hop>,
}

impl Subscription for HopSubscription {
    fn request(&self, n: u64) {
        let hop = &self.hop;
        {
            let mut state = hop.state.lock();
            if state.cancelled {
                return;
            }
            if n == 0 {
                state.illegal = true;
            } else {
                state.demand = demand::add(state.demand, n);
            }
        }
        Hop::wake(hop);
    }

    fn cancel(&self) {
        self.hop.state.lock().cancelled = true;
        Hop::wake(&self.hop);
    }
}

/// A publisher that has failed: every subscriber gets `on_subscribe`,
/// then `on_error` (§1.4, §1.9); from a thread of their own if `hops`.
struct Failed {
    hops: bool,
    error: Mutex<Option<StreamError>>,
    /// [`Flaw::FailsOnlyTheFirst`].
    once: bool,
}

impl Failed {
    /// A failed publisher; `hops`: signals from a new thread; `once`: only
    /// its first subscriber gets the error (the broken twin).
    fn publisher(hops: bool, once: bool) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(Failed {
            hops,
            error: Mutex::new(Some(StreamError::msg("the source failed"))),
            once,
        }))
    }
}

/// Nothing to request or cancel: the error is on its way.
struct Ended;

impl Subscription for Ended {
    fn request(&self, _: u64) {}
    fn cancel(&self) {}
}

impl Publisher<u64> for Failed {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        let error = {
            let mut error = self.error.lock();
            if self.once {
                error.take()
            } else {
                error.clone()
            }
        };
        let fail = move || {
            subscriber.on_subscribe(Arc::new(Ended));
            match error {
                Some(error) => subscriber.on_error(error),
                None => subscriber.on_complete(),
            }
        };
        if self.hops {
            std::thread::spawn(fail);
        } else {
            fail();
        }
    }
}

fn quick<F: PublisherFactory>(factory: F) -> Vec<RuleResult> {
    PublisherVerification::new(factory)
        .env(self_test_env())
        .run_all()
        .expect("the factory is configured to run every rule")
}

/// The extended verification with the self-tests' timing for conforming
/// publishers.
pub fn extended<F: PublisherFactory>(factory: F) -> Vec<RuleResult> {
    PublisherVerification::new(factory)
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(300, 20))
        .run_extended()
        .unwrap()
}

/// Accepted (nothing failed, nothing only warned) and nothing skipped.
fn passes_with_no_skip(results: &[RuleResult]) {
    let skipped = crate::unusual::assert_accepted(results);
    assert!(skipped.is_empty(), "{skipped:#?}");
}

#[test]
fn a_hot_multicast_at_its_slowest_subscribers_pace_passes() {
    passes_with_no_skip(&quick(HotMulticasts(Flaw::None)));
}

/// The generated schedules once failed it (issue 27): they modelled every
/// subscriber as served on its own from element 0, so
/// "create_publisher(2); first: subscribe; second: subscribe; first:
/// request(1)" was a false §3.8.
#[test]
fn a_hot_multicast_finding_its_end_late_passes() {
    passes_with_no_skip(&quick(LazyHotMulticasts));
}

#[test]
fn a_hot_multicast_finding_its_end_late_passes_the_extended_verification() {
    passes_with_no_skip(&extended(LazyHotMulticasts));
}

#[test]
fn a_hot_multicast_passes_the_extended_verification() {
    passes_with_no_skip(&extended(HotMulticasts(Flaw::None)));
}

/// Issue 38 §2: serving at most two subscribers at once and refusing the
/// third (§1.9, §1.11) is conforming. Declared, every scenario fits
/// within two and concludes; undeclared, those needing a third are "not
/// concluded", never failed.
#[test]
fn a_multicast_serving_two_at_once_passes_when_it_declares_it() {
    passes_with_no_skip(&quick(CappedMulticasts { declared: true }));
    passes_with_no_skip(&extended(CappedMulticasts { declared: true }));
}

#[test]
fn a_multicast_refusing_a_third_subscriber_undeclared_is_not_concluded_never_failed() {
    let results = quick(CappedMulticasts { declared: false });
    let skipped = crate::unusual::assert_accepted(&results);
    for skip in &skipped {
        assert!(
            skip.ends_with("not concluded: the publisher refused subscriber 3 (§1.9 allows it)"),
            "{skip}"
        );
    }
    assert!(
        !skipped.is_empty(),
        "no scenario needed a third subscriber?"
    );
    passes_with_no_skip(&extended(CappedMulticasts { declared: false }));
}

#[test]
fn a_hot_publisher_prefetching_on_the_first_subscribe_passes() {
    passes_with_no_skip(&quick(Prefetchers));
}

#[test]
fn a_hot_publisher_prefetching_on_the_first_subscribe_passes_the_extended_verification() {
    passes_with_no_skip(&extended(Prefetchers));
}

#[test]
fn a_publisher_signalling_from_a_new_thread_each_time_passes() {
    passes_with_no_skip(&quick(ThreadHoppers));
}

#[test]
fn a_publisher_signalling_from_a_new_thread_each_time_passes_the_extended_verification() {
    passes_with_no_skip(&extended(ThreadHoppers));
}

#[rstest]
#[case::late_joiner_resets(Flaw::LateJoinerResets)]
#[case::shifts_on_drop(Flaw::ShiftsOnDrop)]
#[case::hands_back_by_place(Flaw::HandsBackByPlace)]
#[case::fails_only_the_first(Flaw::FailsOnlyTheFirst)]
#[case::stalls_on_cancel(Flaw::StallsOnCancel)]
fn a_flawed_multicast_fails_exactly_the_rule_it_breaks(#[case] flaw: Flaw) {
    let results = quick(HotMulticasts(flaw));
    insta::assert_snapshot!(format!("{flaw:?}_rules"), broken_rules(&results));
}
