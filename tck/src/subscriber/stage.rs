//! One subscriber under test, set up for a rule test: the [driver](super::driver)
//! that signals it, the whitebox probe if it carries one, and how to make it
//! request ("the nudge").

use std::fmt::Debug;
use std::sync::Arc;

use reactive_streams::Subscriber;

use super::driver::Driver;
use super::probe_subscription::inside;
use super::whitebox_probe::{Puppet, WhiteboxProbe};
use crate::context::{Failure, RuleCx};

/// What a subscriber verification verifies: something that makes stages.
/// Implemented by the blackbox and whitebox verifications and by the
/// processor verification's subscriber side.
pub(crate) trait Subject: Send + Sync + 'static {
    /// The elements the TCK sends.
    type Element: Debug + Send + 'static;
    /// The subscriber type the driver holds.
    type Sub: Subscriber<Self::Element> + ?Sized + 'static;

    /// Whether the puppet's `trigger_cancel()` must reach the subscription
    /// (not for a processor that declares it keeps upstream running when
    /// its downstream cancels).
    fn cancel_reaches_subscription(&self) -> bool {
        true
    }

    /// Whether the puppet's `trigger_request(n)` is the subscriber's own
    /// `request(n)` on the subscription, so that the demand grows by `n`
    /// at once. Not for a processor: the puppet is its downstream, and it
    /// may turn downstream demand into upstream demand later, in batches,
    /// one at a time or ahead by a prefetch; the rule tests then judge
    /// what reaches downstream.
    fn request_reaches_subscription(&self) -> bool {
        true
    }

    /// Whether the subscriber may recover from `on_error` (a processor
    /// switching to a fallback): it need not process the error itself,
    /// and may stay open after it.
    fn recovers_from_errors(&self) -> bool {
        false
    }

    /// How many signals to its processing logic the first `inputs`
    /// elements make: all of them for a subscriber; for a filtering
    /// processor, only the ones that pass.
    fn outputs_for(&self, inputs: u64) -> u64 {
        inputs
    }

    /// After how many elements the subscriber no longer needs its
    /// subscription, if it declares it (§2.6).
    fn stops_after(&self) -> Option<u64> {
        None
    }

    /// A fresh subscriber, not yet subscribed.
    fn stage<'a>(&'a self, cx: &RuleCx) -> Result<Stage<'a, Self::Element, Self::Sub>, Failure>;
}

/// How the TCK makes the subscriber request.
pub(crate) enum Nudge<'a, S: ?Sized> {
    /// The blackbox factory's `trigger_request`.
    Blackbox(Box<dyn Fn(&mut S) + 'a>),
    /// The puppet the subscriber registered with its whitebox probe.
    Whitebox,
}

pub(crate) struct Stage<'a, T, S: Subscriber<T> + ?Sized> {
    pub(crate) driver: Driver<'a, T, S>,
    pub(crate) probe: Option<WhiteboxProbe<T>>,
    nudge: Nudge<'a, S>,
}

impl<'a, T: Debug + Send + 'static, S: Subscriber<T> + ?Sized> Stage<'a, T, S> {
    pub(crate) fn new(
        driver: Driver<'a, T, S>,
        probe: Option<WhiteboxProbe<T>>,
        nudge: Nudge<'a, S>,
    ) -> Self {
        Stage {
            driver,
            probe,
            nudge,
        }
    }

    pub(crate) fn cx(&self) -> RuleCx {
        self.driver.cx().clone()
    }

    /// Names the scenario that follows, which goes on with this stage's
    /// subscriptions: they belong to it from now on, so their calls are
    /// not taken for late ones from the scenario they were created in.
    pub(crate) fn scenario(&self, scenario: impl Into<String>) {
        self.cx().scenario(scenario);
        for subscription in self.driver.subscriptions() {
            subscription.own_scenario();
        }
    }

    /// The whitebox probe (rule tests that need one only run in whitebox
    /// verifications).
    pub(crate) fn probe(&self) -> &WhiteboxProbe<T> {
        self.probe
            .as_ref()
            .expect("a whitebox rule test runs on a whitebox stage")
    }

    /// The registered puppet (whitebox only).
    pub(crate) fn puppet(&self) -> Result<Arc<dyn Puppet>, Failure> {
        self.probe().expect_puppet()
    }

    /// Pulls the puppet: `trigger_request(n)`.
    pub(crate) fn trigger_request(&self, n: u64) -> Result<(), Failure> {
        let puppet = self.puppet()?;
        self.cx().try_step(
            "tck.whitebox_probe",
            format!("puppet: trigger_request({})", crate::probe::show_demand(n)),
            || inside("puppet", || puppet.trigger_request(n)),
        )
    }

    /// Pulls the puppet: `trigger_cancel()`.
    pub(crate) fn trigger_cancel(&self) -> Result<(), Failure> {
        let puppet = self.puppet()?;
        self.cx()
            .try_step("tck.whitebox_probe", "puppet: trigger_cancel()", || {
                inside("puppet", || puppet.trigger_cancel())
            })
    }

    /// Gives the subscriber the chance to request: the blackbox factory's
    /// `trigger_request`, or the whitebox puppet's `trigger_request(n)`.
    pub(crate) fn nudge(&mut self, n: u64) -> Result<(), Failure> {
        match &self.nudge {
            Nudge::Blackbox(nudge) => {
                self.driver
                    .with_subscriber("tck.trigger_request", "trigger_request", |s| nudge(s))
            }
            Nudge::Whitebox => self.trigger_request(n),
        }
    }

    /// Waits (up to the long timeout) for the subscriber's first demand;
    /// whether it came.
    pub(crate) fn wait_first_request(&self) -> bool {
        let cx = self.cx();
        self.driver
            .subscription()
            .wait_demand(1, cx.env().timeout())
            >= 1
    }

    /// Watches for calls after the terminal signal, from the moment that is
    /// certain to leave nothing in flight: for a whitebox subscriber, when
    /// its processing logic reports the terminal signal (it processes in
    /// order, so earlier signals are done); for a blackbox one, when the
    /// terminal signal is delivered (rule tests using this send no element
    /// first).
    pub(crate) fn watch_after_terminal(&mut self, rule: &'static str) {
        match &self.probe {
            Some(probe) => {
                let subscriptions = self.driver.subscriptions();
                probe.on_terminal_report(Box::new(move |signal| {
                    for subscription in &subscriptions {
                        subscription.terminal(signal, Some(rule));
                    }
                }));
            }
            None => {
                self.driver.watch_after_terminal(rule);
            }
        }
    }

    /// Waits until a whitebox subscriber reports the terminal signal (no-op
    /// for blackbox).
    pub(crate) fn wait_processed(&self) {
        if let Some(probe) = &self.probe {
            probe.wait_terminal_report();
        }
    }

    /// Waits the no-signal window, or less if a failure was recorded: the
    /// time a misbehaving subscriber gets to show itself.
    pub(crate) fn settle(&self) {
        let cx = self.cx();
        let window = cx.env().no_signal_timeout();
        let deadline = std::time::Instant::now() + window;
        self.driver.subscription().wait_failure_until(deadline);
    }
}
