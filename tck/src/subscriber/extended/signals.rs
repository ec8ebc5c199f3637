//! Generated signal sequences for subscribers: the TCK plays the publisher.
//!
//! A [`SignalScript`] subscribes the subscriber under test, then runs up
//! to eight [`SignalStep`]s: a burst of `on_next` (never beyond the demand
//! the subscriber signalled), the nudge that makes it request, a second
//! `on_subscribe` while the first subscription is active, `on_complete` or
//! `on_error` (the script ends there: a publisher signals nothing after a
//! terminal signal). The subscriber verification's probe subscriptions
//! check every call as it happens (§2.3, §2.5 only cancel a second
//! subscription, §2.7, §3.1; a `request(0)` is answered with `on_error`,
//! §3.9, and ends the script); every signal must return normally
//! (§2.13); at the end the second subscription, if any, must have been
//! cancelled (§2.5).

use std::fmt;

use proptest::prelude::*;

use crate::context::{Outcome, RuleBody, RuleCx};
use crate::subscriber::stage::Subject;

/// The most steps of a script.
pub const MAX_SIGNAL_STEPS: usize = 8;

/// One step of a [`SignalScript`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalStep {
    /// Up to this many `on_next`, as far as the demand allows.
    Burst(u64),
    /// The nudge: the blackbox factory's `trigger_request`, or the
    /// whitebox puppet's `trigger_request(1)`.
    Nudge,
    /// A second `on_subscribe` while the first subscription is active.
    SubscribeAgain,
    /// `on_complete`; nothing follows.
    Complete,
    /// `on_error`; nothing follows.
    Error,
}

/// A generated sequence of signals to one subscriber.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignalScript {
    /// What the TCK does after the first `on_subscribe`.
    pub steps: Vec<SignalStep>,
}

impl SignalScript {
    /// The steps that run: up to and including the first terminal signal.
    pub fn effective_steps(&self) -> Vec<SignalStep> {
        let mut steps = Vec::new();
        for step in &self.steps {
            steps.push(*step);
            if matches!(step, SignalStep::Complete | SignalStep::Error) {
                break;
            }
        }
        steps
    }
}

impl fmt::Display for SignalStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignalStep::Burst(1) => f.write_str("on_next (if demanded)"),
            SignalStep::Burst(k) => write!(f, "up to {k} on_next (as demanded)"),
            SignalStep::Nudge => f.write_str("nudge (trigger_request)"),
            SignalStep::SubscribeAgain => f.write_str("on_subscribe(second subscription)"),
            SignalStep::Complete => f.write_str("on_complete"),
            SignalStep::Error => f.write_str("on_error"),
        }
    }
}

impl crate::explore::Scripted for SignalScript {
    fn script(&self) -> Vec<String> {
        let mut lines = vec![String::from("on_subscribe(subscription)")];
        lines.extend(self.effective_steps().iter().map(SignalStep::to_string));
        lines
    }
}

/// Signal scripts; shrinking favours shorter scripts, smaller bursts and
/// the first alternatives (bursts and nudges).
pub fn signal_scripts() -> SBoxedStrategy<SignalScript> {
    let step = prop_oneof![
        5 => (1u64..=4).prop_map(SignalStep::Burst),
        3 => Just(SignalStep::Nudge),
        1 => Just(SignalStep::SubscribeAgain),
        1 => Just(SignalStep::Complete),
        1 => Just(SignalStep::Error),
    ];
    prop::collection::vec(step, 0..=MAX_SIGNAL_STEPS)
        .prop_map(|steps| SignalScript { steps })
        .sboxed()
}

/// Runs `script` against a fresh subscriber of `subject`.
pub(crate) fn run<X: Subject>(cx: &RuleCx, subject: &X, script: &SignalScript) -> RuleBody {
    cx.trace(format!(
        "script: {}",
        crate::explore::Scripted::script(script).join("; ")
    ));
    let mut stage = subject.stage(cx)?;
    stage.driver.subscribe()?;
    let mut extras = Vec::new();
    let mut terminated = false;
    for step in script.effective_steps() {
        match step {
            SignalStep::Burst(k) => {
                for _ in 0..k {
                    if !stage.driver.next()? {
                        break;
                    }
                }
            }
            SignalStep::Nudge => stage.nudge(1)?,
            SignalStep::SubscribeAgain => extras.extend(stage.driver.subscribe_again()?),
            SignalStep::Complete => {
                stage.driver.complete()?;
                terminated = true;
            }
            SignalStep::Error => {
                stage.driver.error()?;
                terminated = true;
            }
        }
    }
    for extra in &extras {
        if !extra.wait_cancelled(cx.env().timeout()) {
            return Err(cx.failure_of(
                "2.5",
                "cancel() on the second subscription, given while the first was active",
                "it was not cancelled",
            ));
        }
    }
    stage.settle();
    if terminated {
        stage.driver.drop_subscriber()?;
    }
    Ok(Outcome::Passed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Scripted;

    #[test]
    fn scripts_stop_at_the_first_terminal_signal() {
        let script = SignalScript {
            steps: vec![
                SignalStep::Nudge,
                SignalStep::Burst(3),
                SignalStep::SubscribeAgain,
                SignalStep::Complete,
                SignalStep::Burst(1),
            ],
        };
        assert_eq!(
            script.script(),
            [
                "on_subscribe(subscription)",
                "nudge (trigger_request)",
                "up to 3 on_next (as demanded)",
                "on_subscribe(second subscription)",
                "on_complete",
            ]
        );
    }
}
