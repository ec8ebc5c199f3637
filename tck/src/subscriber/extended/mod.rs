//! The extended subscriber verifications: generated signal sequences
//! ([`signals`]) against the subscribers a blackbox or
//! whitebox factory makes, shrunk to a minimal script on failure.

use std::sync::Arc;

pub mod signals;
pub mod stress;

use crate::explore::config::ExtendedConfigError;
use crate::explore::{extended_builder, scripted, stress_rounds, stressed, Settings, StressPlans};
use crate::outcome::{RuleResult, Verification};
use crate::subscriber::blackbox::Blackbox;
use crate::subscriber::stage::Subject;
use crate::subscriber::whitebox::Whitebox;
use crate::subscriber::{SubscriberBlackboxFactory, SubscriberWhiteboxFactory};
use stress::{self as subscriber_stress, SignalPlan};

/// The extended whitebox subscriber tests: `tck_extended_schedules` (rule
/// id `tck.extended_schedules`).
pub const SUBSCRIBER_TESTS: &[&str] = &["tck_extended_schedules"];

/// The extended blackbox subscriber tests: `tck_extended_schedules` and
/// `tck_extended_stress` (rule id `tck.extended_stress`; see
/// [`subscriber_stress`](self::stress)).
pub const BLACKBOX_TESTS: &[&str] = &["tck_extended_schedules", "tck_extended_stress"];

/// `tck_extended_stress` against a blackbox factory's subscribers.
fn stress<F: SubscriberBlackboxFactory>(
    settings: &Settings,
    subject: Arc<Blackbox<F>>,
) -> Result<RuleResult, ExtendedConfigError> {
    let prepared = settings.prepare(
        Verification::SubscriberBlackbox,
        (BLACKBOX_TESTS, "blackbox subscriber"),
        "tck_extended_stress",
    )?;
    Ok(stressed(prepared, move |cx, case, config| {
        let threads = config.stress_threads();
        let plans = StressPlans {
            who: "signalling threads",
            draw: |seed| SignalPlan::draw(seed, threads),
            show: |plan: &SignalPlan| format!("the signals, one thread after the other: {plan}\n"),
        };
        stress_rounds(cx, config, case, plans, move |cx, plan| {
            subscriber_stress::run(cx, &subject.0, plan)
        })
    }))
}

/// `tck_extended_schedules` against a blackbox or whitebox subject.
fn schedules<X: Subject>(
    settings: &Settings,
    subject: Arc<X>,
    verification: Verification,
    test: &str,
) -> Result<RuleResult, ExtendedConfigError> {
    let prepared = settings.prepare(verification, (SUBSCRIBER_TESTS, "subscriber"), test)?;
    Ok(scripted(
        prepared,
        signals::signal_scripts,
        move |cx, case| signals::run(cx, &*subject, case),
    ))
}

macro_rules! extended_subscriber_verification {
    ($(#[$doc:meta])* $name:ident, $factory:ident, $wrap:ident) => {
        $(#[$doc])*
        pub struct $name<F: $factory> {
            subject: Arc<$wrap<F>>,
            settings: Settings,
        }

        impl<F: $factory> $name<F> {
            /// An extended verification of `factory`'s subscribers, named
            /// after its type.
            pub fn new(factory: F) -> Self {
                $name {
                    subject: Arc::new($wrap(factory)),
                    settings: Settings::named::<F>("subscriber"),
                }
            }
        }

        extended_builder!($name, $factory);
    };
}

extended_subscriber_verification!(
    /// Generated signal sequences against a blackbox factory's subscribers.
    SubscriberBlackboxExtendedVerification,
    SubscriberBlackboxFactory,
    Blackbox
);

impl<F: SubscriberBlackboxFactory> SubscriberBlackboxExtendedVerification<F> {
    /// Runs one extended test by name (`"tck_extended_schedules"`,
    /// `"tck_extended_stress"`).
    ///
    /// # Panics
    ///
    /// If `test` is not in [`BLACKBOX_TESTS`].
    pub fn run(&self, test: &str) -> Result<RuleResult, ExtendedConfigError> {
        if test == "tck_extended_stress" {
            return stress(&self.settings, self.subject.clone());
        }
        schedules(
            &self.settings,
            self.subject.clone(),
            Verification::SubscriberBlackbox,
            test,
        )
    }

    /// Runs every extended blackbox test, in [`BLACKBOX_TESTS`] order.
    pub fn run_all(&self) -> Result<Vec<RuleResult>, ExtendedConfigError> {
        BLACKBOX_TESTS.iter().map(|test| self.run(test)).collect()
    }
}

extended_subscriber_verification!(
    /// Generated signal sequences against a whitebox factory's subscribers
    /// (the nudge is the puppet's `trigger_request(1)`).
    SubscriberWhiteboxExtendedVerification,
    SubscriberWhiteboxFactory,
    Whitebox
);

impl<F: SubscriberWhiteboxFactory> SubscriberWhiteboxExtendedVerification<F> {
    /// Runs one extended test by name (`"tck_extended_schedules"`).
    ///
    /// # Panics
    ///
    /// If `test` is not in [`SUBSCRIBER_TESTS`].
    pub fn run(&self, test: &str) -> Result<RuleResult, ExtendedConfigError> {
        schedules(
            &self.settings,
            self.subject.clone(),
            Verification::SubscriberWhitebox,
            test,
        )
    }

    /// Runs every extended whitebox test.
    pub fn run_all(&self) -> Result<Vec<RuleResult>, ExtendedConfigError> {
        SUBSCRIBER_TESTS.iter().map(|test| self.run(test)).collect()
    }
}

/// What a generated blackbox `#[test]` calls. Not API.
#[doc(hidden)]
pub fn __run_generated_blackbox<F: SubscriberBlackboxFactory>(
    test: &str,
    target: &str,
    factory: F,
) {
    crate::suite::run_generated(
        SubscriberBlackboxExtendedVerification::new(factory)
            .target(target)
            .run(test),
    );
}

/// What a generated whitebox `#[test]` calls. Not API.
#[doc(hidden)]
pub fn __run_generated_whitebox<F: SubscriberWhiteboxFactory>(
    test: &str,
    target: &str,
    factory: F,
) {
    crate::suite::run_generated(
        SubscriberWhiteboxExtendedVerification::new(factory)
            .target(target)
            .run(test),
    );
}

/// Generates the extended blackbox subscriber verification as `#[test]`s:
/// `<name>::subscriber_blackbox::tck_extended_schedules` — generated signal
/// sequences (`on_next` bursts within demand, nudges, a second
/// `on_subscribe`, `on_complete` / `on_error` at any point) shrunk to a
/// minimal script on failure — and `…::tck_extended_stress`, signals from
/// several threads in turn ([`subscriber_stress`](crate::extended::subscriber_stress)). Same arguments as
/// [`subscriber_blackbox_verification!`](crate::subscriber_blackbox_verification);
/// the module name must differ from the quick verification's.
///
/// ```ignore
/// subscriber_blackbox_extended_verification!(my_sink_extended, MyFactory, "my_sink");
/// ```
#[macro_export]
macro_rules! subscriber_blackbox_extended_verification {
    ($name:ident, $factory:expr $(,)?) => {
        $crate::subscriber_blackbox_extended_verification! { $name, $factory, stringify!($name) }
    };
    ($name:ident, $factory:expr, $target:expr $(,)?) => {
        $crate::__verification_tests! {
            $name, $factory, $target, subscriber_blackbox, $crate::subscriber::extended::__run_generated_blackbox,
            [tck_extended_schedules, tck_extended_stress]
        }
    };
}

/// Generates the extended whitebox subscriber verification as a `#[test]`:
/// `<name>::subscriber_whitebox::tck_extended_schedules`. See
/// [`subscriber_blackbox_extended_verification!`](crate::subscriber_blackbox_extended_verification).
#[macro_export]
macro_rules! subscriber_whitebox_extended_verification {
    ($name:ident, $factory:expr $(,)?) => {
        $crate::subscriber_whitebox_extended_verification! { $name, $factory, stringify!($name) }
    };
    ($name:ident, $factory:expr, $target:expr $(,)?) => {
        $crate::__verification_tests! {
            $name, $factory, $target, subscriber_whitebox, $crate::subscriber::extended::__run_generated_whitebox,
            [tck_extended_schedules]
        }
    };
}
