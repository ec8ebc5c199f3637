//! The laxest conforming subscribers (issue 38 §5), blackbox and
//! whitebox: written from the text of §2 (Subscriber) and the subscriber's
//! side of §3, each does the least the rules require at the latest moment
//! they allow, and passes every quick and extended test. Every freedom
//! cites the sentence of `reactive-streams-spec.md` it rests on.
//!
//! * Everything it does on its subscription it does late, from a worker
//!   thread of its own: the first request, every later one, the cancel of a
//!   second subscription, its own cancel. §2.1 explained: "it is the
//!   responsibility of the Subscriber to decide when and how many elements
//!   it is able and willing to receive"; §2.7 explained: it permits "the
//!   calling of the request and cancel methods (including from multiple
//!   threads) if and only if a serial relation between each of the calls
//!   is established" (here: one lock around every call).
//! * It requests one element at a time (its first demand even in two
//!   calls, a moment apart), or everything at once (greedy,
//!   `u64::MAX` again after every element), as its [`Pace`] says: §2.1
//!   explained, "It is RECOMMENDED that Subscribers request the upper limit
//!   of what they are able to process" (a recommendation, not a duty,
//!   either way); §3.17, demand "equal or greater than 2^63-1 … MAY be
//!   considered by the Publisher as effectively unbounded".
//! * The [`Pace::Inline`] form makes its calls on the signal's own thread,
//!   from inside `on_subscribe` and `on_next` instead: §3.2, "The
//!   Subscription MUST allow the Subscriber to call Subscription.request
//!   synchronously from within onNext or onSubscribe".
//! * It processes its signals on that worker, after the signal method
//!   returned (whitebox: the probe hears of them from there): §2.2, "it is
//!   RECOMMENDED that it asynchronously dispatches its signals"; §2.11 asks
//!   only that "all calls on its signal methods happen-before the
//!   processing of the respective signals" (a channel gives that).
//! * A second subscription it cancels later, from the worker: §2.5, "MUST
//!   call `Subscription.cancel()` on the given `Subscription` after an
//!   `onSubscribe` signal if it already has an active `Subscription`" —
//!   after, not inside.
//! * The stopping variant cancels by itself after its `k`-th element,
//!   from the worker: §2.6, "A `Subscriber` MUST call
//!   `Subscription.cancel()` if the `Subscription` is no longer needed",
//!   and §2.6 explained, "a Subscriber which is only interested in a
//!   specific element, which would then cancel its Subscription" — even
//!   after 0 elements, from `on_subscribe`, with no request at all (§2.1
//!   binds a subscriber only "to receive `onNext` signals"); with or
//!   without declaring it (`stops_after`). After its cancel it still
//!   calls `cancel()` and `request(1)` once more: §3.6, "After the
//!   Subscription is cancelled, additional Subscription.request(long n)
//!   MUST be NOPs", and §3.7, "additional Subscription.cancel() MUST be
//!   NOPs".
//! * The reopening variant, once it has cancelled its subscription by
//!   itself, takes the next one it is given and requests from it: §2.5
//!   binds a subscriber only "if it already has an active
//!   `Subscription`".
//! * After a terminal signal it makes no call at all: that is the least
//!   §2.3 ("MUST NOT call any methods on the `Subscription`") and §2.4
//!   ("MUST consider the Subscription cancelled after having received the
//!   signal") allow; the signal method takes the subscription out of the
//!   worker's reach under the lock every call is made under.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use parking_lot::Mutex;
use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_tck::subscriber::{
    Puppet, SubscriberBlackboxFactory, SubscriberBlackboxVerification, SubscriberWhiteboxFactory,
    SubscriberWhiteboxVerification, WhiteboxProbe,
};

/// How long the worker waits before it acts on anything.
const LATE: Duration = Duration::from_millis(1);

/// How it asks for elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// One `request(1)` from the worker after it processed each element
    /// (and one first).
    OneAtATime,
    /// `request(u64::MAX)` from the worker first and after every element
    /// (§3.17: unbounded; the sum saturates).
    Greedy,
    /// One `request(1)` from inside `on_subscribe` and each `on_next`, on
    /// the signal's thread; its own cancel from there too.
    Inline,
    /// Its first demand in two calls from the worker, `request(1)` and a
    /// moment later `request(1)` again; then one at a time.
    Split,
}

enum Job {
    /// Its first request, on the subscription it keeps.
    Start,
    /// A second subscription, to be cancelled (§2.5).
    Refuse(Arc<dyn Subscription>),
    Next(u64),
    Error(StreamError),
    Complete,
    /// The puppet's `request(n)`.
    Request(u64),
    /// The puppet's `cancel()`.
    Cancel,
    /// The subscriber is dropped (the puppet may outlive it, holding a
    /// sender).
    Stop,
}

/// The subscription it keeps, while it may still call it. Every call on it
/// is made under this lock, so they are serial (§2.7); a terminal signal
/// empties it under the same lock (§2.4).
#[derive(Clone, Default)]
struct Slot(Arc<Mutex<Option<Arc<dyn Subscription>>>>);

impl Slot {
    fn call(&self, call: impl FnOnce(&dyn Subscription)) {
        if let Some(subscription) = self.0.lock().as_deref() {
            call(subscription);
        }
    }

    /// Cancels; the calls after it are the no-ops §3.6 and §3.7 make
    /// them; then it lets the subscription go.
    fn cancel(&self) {
        let mut slot = self.0.lock();
        if let Some(subscription) = slot.take() {
            subscription.cancel();
            subscription.cancel();
            subscription.request(1);
        }
    }

    fn clear(&self) {
        self.0.lock().take();
    }
}

/// What it does, wherever it does it.
#[derive(Debug, Clone, Copy)]
struct Policy {
    pace: Pace,
    stops_after: Option<u64>,
    /// Takes a new subscription once it has cancelled its own.
    reopens: bool,
}

impl Policy {
    fn first_request(self, slot: &Slot) {
        match (self.stops_after, self.pace) {
            (Some(0), _) => slot.cancel(),
            (_, Pace::Greedy) => slot.call(|s| s.request(u64::MAX)),
            (_, Pace::Split) => {
                slot.call(|s| s.request(1));
                std::thread::sleep(LATE);
                slot.call(|s| s.request(1));
            }
            _ => slot.call(|s| s.request(1)),
        }
    }

    /// After the `received`-th element.
    fn after_element(self, slot: &Slot, received: u64) {
        if self.stops_after.is_some_and(|k| received >= k) {
            slot.cancel();
        } else {
            match self.pace {
                Pace::Greedy => slot.call(|s| s.request(u64::MAX)),
                _ => slot.call(|s| s.request(1)),
            }
        }
    }
}

pub struct LaxSubscriber {
    slot: Slot,
    policy: Policy,
    jobs: Option<mpsc::Sender<Job>>,
    worker: Option<std::thread::JoinHandle<()>>,
    subscribed: bool,
    /// A terminal signal came.
    ended: bool,
    received: u64,
}

struct Worker {
    slot: Slot,
    policy: Policy,
    probe: Option<WhiteboxProbe<u64>>,
    received: u64,
}

impl Worker {
    fn run(mut self, jobs: mpsc::Receiver<Job>) {
        let inline = self.policy.pace == Pace::Inline;
        for job in jobs {
            if !matches!(job, Job::Stop) {
                std::thread::sleep(LATE);
            }
            match job {
                Job::Start if !inline => self.policy.first_request(&self.slot),
                Job::Start => {}
                Job::Refuse(second) => second.cancel(),
                Job::Next(element) => {
                    self.received += 1;
                    if let Some(probe) = &self.probe {
                        probe.received_next(&element);
                    }
                    if !inline {
                        self.policy.after_element(&self.slot, self.received);
                    }
                }
                Job::Error(error) => {
                    if let Some(probe) = &self.probe {
                        probe.received_error(&error);
                    }
                }
                Job::Complete => {
                    if let Some(probe) = &self.probe {
                        probe.received_complete();
                    }
                }
                Job::Request(n) => self.slot.call(|s| s.request(n)),
                Job::Cancel => self.slot.cancel(),
                Job::Stop => return,
            }
        }
    }
}

impl LaxSubscriber {
    fn new(policy: Policy, probe: Option<WhiteboxProbe<u64>>) -> Self {
        let slot = Slot::default();
        let (jobs, inbox) = mpsc::channel();
        let worker = Worker {
            slot: slot.clone(),
            policy,
            probe,
            received: 0,
        };
        let worker = std::thread::Builder::new()
            .name(String::from("lax-subscriber"))
            .spawn(move || worker.run(inbox))
            .expect("spawn the subscriber's worker");
        LaxSubscriber {
            slot,
            policy,
            jobs: Some(jobs),
            worker: Some(worker),
            subscribed: false,
            ended: false,
            received: 0,
        }
    }

    fn send(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(job);
        }
    }

    fn inline(&self) -> bool {
        self.policy.pace == Pace::Inline
    }

    /// The terminal signal: no call on the subscription after it (§2.4).
    fn ended(&mut self, job: Job) {
        self.ended = true;
        self.slot.clear();
        self.send(job);
    }

    fn subscribe(
        &mut self,
        subscription: Arc<dyn Subscription>,
        probe: Option<&WhiteboxProbe<u64>>,
    ) {
        let reopening = self.policy.reopens && !self.ended && self.slot.0.lock().is_none();
        if self.subscribed && !reopening {
            return self.send(Job::Refuse(subscription));
        }
        if reopening && self.subscribed {
            // It cancelled its own: with none active, it takes this one
            // (§2.5 binds it only "if it already has an active
            // Subscription"), and starts counting again.
            self.received = 0;
            *self.slot.0.lock() = Some(subscription);
            if self.inline() {
                self.policy.first_request(&self.slot);
            }
            return self.send(Job::Start);
        }
        self.subscribed = true;
        *self.slot.0.lock() = Some(subscription);
        if let (Some(probe), Some(jobs)) = (probe, &self.jobs) {
            probe.registered(LaxPuppet(jobs.clone()));
        }
        if self.inline() {
            self.policy.first_request(&self.slot);
        }
        self.send(Job::Start);
    }
}

impl Drop for LaxSubscriber {
    fn drop(&mut self) {
        // Gone: nothing calls the subscription any more (§3.1).
        self.slot.clear();
        if let Some(jobs) = self.jobs.take() {
            let _ = jobs.send(Job::Stop);
        }
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// The puppet's calls go through the worker, like the subscriber's own.
struct LaxPuppet(mpsc::Sender<Job>);

impl Puppet for LaxPuppet {
    fn trigger_request(&self, n: u64) {
        let _ = self.0.send(Job::Request(n));
    }

    fn trigger_cancel(&self) {
        let _ = self.0.send(Job::Cancel);
    }
}

impl Subscriber<u64> for LaxSubscriber {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.subscribe(subscription, None);
    }

    fn on_next(&mut self, element: u64) {
        if self.inline() {
            self.received += 1;
            self.policy.after_element(&self.slot, self.received);
        }
        self.send(Job::Next(element));
    }

    fn on_error(&mut self, error: StreamError) {
        self.ended(Job::Error(error));
    }

    fn on_complete(&mut self) {
        self.ended(Job::Complete);
    }
}

/// The whitebox form: the same subscriber, registering its puppet.
struct Instrumented {
    inner: LaxSubscriber,
    probe: WhiteboxProbe<u64>,
}

impl Subscriber<u64> for Instrumented {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        let probe = self.probe.clone();
        self.inner.subscribe(subscription, Some(&probe));
    }

    fn on_next(&mut self, element: u64) {
        self.inner.on_next(element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.inner.on_error(error);
    }

    fn on_complete(&mut self) {
        self.inner.on_complete();
    }
}

/// Makes laxest subscribers of one pace, stopping by themselves after
/// `stops_after` elements if given (and declaring it if `declared`), and
/// taking a new subscription after their own cancel if `reopens`.
#[derive(Debug, Clone, Copy)]
pub struct LaxSubscribers {
    pub pace: Pace,
    pub stops_after: Option<u64>,
    pub declared: bool,
    pub reopens: bool,
}

impl LaxSubscribers {
    fn policy(&self) -> Policy {
        Policy {
            pace: self.pace,
            stops_after: self.stops_after,
            reopens: self.reopens,
        }
    }

    fn declared_stop(&self) -> Option<u64> {
        self.stops_after.filter(|_| self.declared)
    }
}

impl SubscriberBlackboxFactory for LaxSubscribers {
    type Element = u64;
    type Subscriber = LaxSubscriber;

    fn create_subscriber(&self) -> LaxSubscriber {
        LaxSubscriber::new(self.policy(), None)
    }

    fn element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        self.declared_stop()
    }
}

impl SubscriberWhiteboxFactory for LaxSubscribers {
    type Element = u64;

    fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
        Box::new(Instrumented {
            inner: LaxSubscriber::new(self.policy(), Some(probe.clone())),
            probe,
        })
    }

    fn element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        self.declared_stop()
    }
}

const fn lax(pace: Pace, stops_after: Option<u64>, declared: bool) -> LaxSubscribers {
    LaxSubscribers {
        pace,
        stops_after,
        declared,
        reopens: false,
    }
}

const VARIANTS: [LaxSubscribers; 10] = [
    lax(Pace::OneAtATime, None, false),
    lax(Pace::Greedy, None, false),
    lax(Pace::Inline, None, false),
    lax(Pace::Split, None, false),
    lax(Pace::OneAtATime, Some(3), true),
    lax(Pace::Inline, Some(2), true),
    lax(Pace::OneAtATime, Some(0), true),
    lax(Pace::Inline, Some(0), true),
    lax(Pace::OneAtATime, Some(1), false),
    LaxSubscribers {
        reopens: true,
        ..lax(Pace::Inline, Some(1), false)
    },
];

/// Every variant passes the quick and the extended `$verification`.
macro_rules! every_variant_passes {
    ($verification:ident, $what:literal) => {
        for factory in VARIANTS {
            let name = format!("laxest {} {factory:?}", $what);
            let quick = $verification::new(factory)
                .env(crate::factories::generous())
                .run_all()
                .unwrap();
            crate::verdicts::assert_no_failure_and_skips_explained(&name, &quick);
            let extended = $verification::new(factory)
                .env(crate::extended::passing_env())
                .extended(crate::extended::config(100, 5))
                .run_extended()
                .unwrap();
            crate::verdicts::assert_passed_or_skipped_with_reason(&name, &extended);
        }
    };
}

#[test]
fn the_laxest_blackbox_subscribers_pass_quick_and_extended() {
    every_variant_passes!(SubscriberBlackboxVerification, "blackbox");
}

#[test]
fn the_laxest_whitebox_subscribers_pass_quick_and_extended() {
    every_variant_passes!(SubscriberWhiteboxVerification, "whitebox");
}
