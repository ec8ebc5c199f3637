//! The TCK in the publisher's seat: it owns the subscriber under test and
//! delivers signals to it on the rule thread, one at a time, never more
//! `on_next` than requested.
//!
//! Every signal is a named step: a panic inside it fails the rule the step
//! names (§2.13 by default; a rule test checking "must be prepared to
//! receive" names its own rule), and the thread is marked as inside that
//! signal so the [probe subscription](super::probe_subscription) can tell
//! a call made from inside `on_complete` from one made elsewhere.

use std::fmt::Debug;
use std::time::Duration;

use reactive_streams::{StreamError, Subscriber};

use super::probe_subscription::{ProbeSubscription, Role, inside};
use crate::context::{Failure, RuleCx};

/// The error the TCK signals with `on_error`.
pub(crate) fn tck_error() -> StreamError {
    StreamError::msg("TCK: upstream failure")
}

/// How many `on_next` a rule test delivers at most when the subscriber asks
/// for more (an unbounded request, say).
pub(crate) const FEED_CAP: u64 = 16;

pub(crate) struct Driver<'a, T, S: Subscriber<T> + ?Sized> {
    cx: RuleCx,
    subscriber: Option<Box<S>>,
    element: Box<dyn Fn(u64) -> T + 'a>,
    active: Option<ProbeSubscription>,
    all: Vec<ProbeSubscription>,
    delivered: u64,
    signal_rule: &'static str,
    after_terminal_rule: Option<&'static str>,
    watch_after_drop: bool,
    hold: Option<Duration>,
}

impl<'a, T: Debug, S: Subscriber<T> + ?Sized> Driver<'a, T, S> {
    pub(crate) fn new(cx: &RuleCx, subscriber: Box<S>, element: impl Fn(u64) -> T + 'a) -> Self {
        Driver {
            cx: cx.clone(),
            subscriber: Some(subscriber),
            element: Box::new(element),
            active: None,
            all: Vec::new(),
            delivered: 0,
            signal_rule: "2.13",
            after_terminal_rule: None,
            watch_after_drop: false,
            hold: None,
        }
    }

    /// The rule a panic inside a signal breaks from now on.
    pub(crate) fn signal_rule(&mut self, rule: &'static str) -> &mut Self {
        self.signal_rule = rule;
        self
    }

    /// Makes any call on the subscriptions after a terminal signal was
    /// delivered, on any thread, a failure of `rule` (§2.3, §2.4, §4.2).
    ///
    /// Only for scenarios with nothing in flight when the terminal signal
    /// goes out: an asynchronous subscriber may still be acting on an
    /// earlier signal, and that call is legitimate. Calls from inside
    /// `on_complete` / `on_error` are always §2.3 failures.
    pub(crate) fn watch_after_terminal(&mut self, rule: &'static str) -> &mut Self {
        self.after_terminal_rule = Some(rule);
        self
    }

    /// Makes any call on the subscriptions after the subscriber was
    /// dropped a §3.1 failure. Same caveat as
    /// [`watch_after_terminal`](Self::watch_after_terminal).
    pub(crate) fn watch_after_drop(&mut self) -> &mut Self {
        self.watch_after_drop = true;
        self
    }

    /// Subscriptions made from now on hold each call entering within
    /// `window` of their creation until another call overlaps it (§2.7).
    pub(crate) fn hold_calls(&mut self, window: Duration) -> &mut Self {
        self.hold = Some(window);
        self
    }

    pub(crate) fn cx(&self) -> &RuleCx {
        &self.cx
    }

    /// The active subscription (after [`Driver::subscribe`]).
    pub(crate) fn subscription(&self) -> &ProbeSubscription {
        self.active
            .as_ref()
            .expect("the TCK subscribes before it signals")
    }

    /// Every subscription given so far.
    pub(crate) fn subscriptions(&self) -> Vec<ProbeSubscription> {
        self.all.clone()
    }

    /// How many `on_next` were delivered.
    pub(crate) fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Delivers `signal`, unless the active subscription has ended through
    /// a `request(0)`: then its `on_error` goes out first, if still owed,
    /// and nothing after it (§1.7). A `request(0)` made inside the signal
    /// is answered as soon as the signal has returned.
    fn deliver(
        &mut self,
        signal: &'static str,
        what: String,
        f: impl FnOnce(&mut S),
    ) -> Result<(), Failure> {
        if self.answered_and_ended()? {
            self.cx.trace(format!(
                "not delivered: {what} (the subscription ended with the on_error answering request(0), §3.9)"
            ));
            return Ok(());
        }
        self.deliver_now(signal, what, f)?;
        self.answer_illegal_demand()
    }

    fn deliver_now(
        &mut self,
        signal: &'static str,
        what: String,
        f: impl FnOnce(&mut S),
    ) -> Result<(), Failure> {
        let Some(subscriber) = self.subscriber.as_deref_mut() else {
            return Ok(());
        };
        let terminal = matches!(signal, "on_complete" | "on_error");
        if terminal {
            for subscription in &self.all {
                subscription.delivering_terminal(true);
            }
        }
        let delivered = self
            .cx
            .try_step(self.signal_rule, what, || inside(signal, || f(subscriber)));
        if terminal {
            for subscription in &self.all {
                subscription.delivering_terminal(false);
            }
        }
        delivered
    }

    /// Whether the active subscription ended because the subscriber called
    /// `request(0)` (§3.9): no signal follows its `on_error`.
    pub(crate) fn ended_by_illegal_demand(&self) -> bool {
        self.active
            .as_ref()
            .is_some_and(ProbeSubscription::got_illegal_demand)
    }

    /// Answers a `request(0)` still owed its `on_error` (§3.9), then says
    /// whether the active subscription has ended that way: if so, no other
    /// signal follows (§1.7).
    fn answered_and_ended(&mut self) -> Result<bool, Failure> {
        self.answer_illegal_demand()?;
        Ok(self.ended_by_illegal_demand())
    }

    /// Delivers the `on_error` a `request(0)` on the active subscription
    /// is owed (§3.9), if it has not been yet. A second subscription's
    /// `request(0)` is not answered: it already broke §2.5, and its
    /// `on_error` would reach the subscriber as if the first subscription
    /// had failed.
    fn answer_illegal_demand(&mut self) -> Result<(), Failure> {
        let Some(active) = self.active.clone() else {
            return Ok(());
        };
        if !active.take_illegal_demand_answer() {
            return Ok(());
        }
        self.mark_terminal("on_error");
        let error = StreamError::illegal_demand(0);
        let what = format!("on_error({error}) answering request(0) (§3.9)");
        self.deliver_now("on_error", what, move |s| s.on_error(error))
    }

    fn subscribe_as(
        &mut self,
        label: &'static str,
        role: Role,
    ) -> Result<ProbeSubscription, Failure> {
        let subscription = ProbeSubscription::new(&self.cx, label, role);
        if let Some(window) = self.hold {
            subscription.hold_calls_for(window);
        }
        self.all.push(subscription.clone());
        let handle = subscription.handle();
        let what = format!("on_subscribe({label})");
        self.deliver("on_subscribe", what, move |s| s.on_subscribe(handle))?;
        Ok(subscription)
    }

    /// `on_subscribe` with a fresh probe subscription.
    pub(crate) fn subscribe(&mut self) -> Result<ProbeSubscription, Failure> {
        let subscription = self.subscribe_as("subscription", Role::Active)?;
        self.active = Some(subscription.clone());
        Ok(subscription)
    }

    /// A second `on_subscribe` while the first subscription is active
    /// (§2.5); `None` if the first has ended through a `request(0)`
    /// (§3.9), or the subscriber cancelled it by itself: a new
    /// subscription would then be no second one, and the subscriber may
    /// take it (§2.5 binds a subscriber "if it already has an active
    /// `Subscription`").
    pub(crate) fn subscribe_again(&mut self) -> Result<Option<ProbeSubscription>, Failure> {
        if self.answered_and_ended()? {
            self.cx.trace(
                "no second on_subscribe: the first subscription ended with the on_error answering request(0), §3.9",
            );
            return Ok(None);
        }
        if self.subscription().is_cancelled() {
            self.cx.trace(
                "no second on_subscribe: the subscriber cancelled its subscription by itself, so it has no active one (§2.5)",
            );
            return Ok(None);
        }
        self.subscribe_as("second subscription", Role::Extra)
            .map(Some)
    }

    /// Delivers the next element if the demand allows; whether it did.
    pub(crate) fn next(&mut self) -> Result<bool, Failure> {
        if self.answered_and_ended()? {
            return Ok(false);
        }
        let subscription = self.subscription().clone();
        if subscription.is_cancelled() || self.delivered >= subscription.demand() {
            return Ok(false);
        }
        let element = (self.element)(self.delivered);
        self.delivered += 1;
        let what = crate::probe::show_next(self.delivered, &element);
        self.deliver("on_next", what, move |s| s.on_next(element))?;
        Ok(true)
    }

    /// Delivers the next element within the demand even if the subscriber
    /// has cancelled meanwhile (§2.8: elements may still be in flight).
    pub(crate) fn next_in_flight(&mut self) -> Result<bool, Failure> {
        if self.answered_and_ended()? {
            return Ok(false);
        }
        let subscription = self.subscription().clone();
        if self.delivered >= subscription.demand() {
            return Ok(false);
        }
        let element = (self.element)(self.delivered);
        self.delivered += 1;
        let what = crate::probe::show_next(self.delivered, &element);
        self.deliver("on_next", what, move |s| s.on_next(element))?;
        Ok(true)
    }

    /// Delivers up to `cap` elements as demand allows, waiting up to
    /// `patience` for more demand whenever it runs out. Returns how many
    /// were delivered in total. Never asserts anything about timing.
    pub(crate) fn feed(&mut self, cap: u64, patience: Duration) -> Result<u64, Failure> {
        while self.delivered < cap {
            if self.next()? {
                continue;
            }
            let subscription = self.subscription().clone();
            if subscription.is_cancelled() || self.ended_by_illegal_demand() {
                break;
            }
            if subscription.wait_demand(self.delivered + 1, patience) <= self.delivered {
                break;
            }
        }
        Ok(self.delivered)
    }

    fn mark_terminal(&self, signal: &'static str) {
        for subscription in &self.all {
            subscription.terminal(signal, self.after_terminal_rule);
        }
    }

    /// `on_complete`.
    pub(crate) fn complete(&mut self) -> Result<(), Failure> {
        if self.answered_and_ended()? {
            return Ok(());
        }
        self.mark_terminal("on_complete");
        self.deliver("on_complete", String::from("on_complete"), |s| {
            s.on_complete()
        })
    }

    /// `on_error` with the TCK's error.
    pub(crate) fn error(&mut self) -> Result<(), Failure> {
        if self.answered_and_ended()? {
            return Ok(());
        }
        self.mark_terminal("on_error");
        let error = tck_error();
        let what = format!("on_error({error})");
        self.deliver("on_error", what, move |s| s.on_error(error))
    }

    /// Runs `f` on the subscriber (the blackbox nudge), as a step of `rule`.
    pub(crate) fn with_subscriber(
        &mut self,
        rule: &str,
        what: &str,
        f: impl FnOnce(&mut S),
    ) -> Result<(), Failure> {
        let Some(subscriber) = self.subscriber.as_deref_mut() else {
            return Ok(());
        };
        self.cx.try_step(rule, what, || f(subscriber))?;
        self.answer_illegal_demand()
    }

    /// Drops the subscriber, as a publisher does after a terminal signal or
    /// a cancellation; calls after this are outside its context (§3.1).
    pub(crate) fn drop_subscriber(&mut self) -> Result<(), Failure> {
        // An on_error owed for a request(0) goes out before the drop.
        self.answer_illegal_demand()?;
        // Marked first: the subscriber's own drop may still clean up on this
        // thread, but a call from any other thread from now on comes from
        // outside its context.
        if self.watch_after_drop {
            for subscription in &self.all {
                subscription.dropped();
            }
        }
        if let Some(subscriber) = self.subscriber.take() {
            self.cx
                .try_step(self.signal_rule, "drop the subscriber", move || {
                    inside("drop", move || drop(subscriber))
                })?;
        }
        Ok(())
    }
}
