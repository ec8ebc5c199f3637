//! The blackbox subscriber verification: the user gives only a way to make
//! their subscriber; the TCK drives it with its own probe publisher.

use std::fmt::Debug;

use reactive_streams::Subscriber;

use super::driver::Driver;
use super::rules;
use super::stage::{Nudge, Stage, Subject};
use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::engine::{Body, Engine, Table, Vacuity, body, plain};

/// Makes the subscribers the
/// [blackbox verification](crate::subscriber_blackbox_verification) drives.
///
/// ```
/// use std::sync::Arc;
/// use reactive_streams::{StreamError, Subscriber, Subscription};
/// use reactive_streams_tck::subscriber::SubscriberBlackboxFactory;
///
/// /// Requests everything, then counts.
/// #[derive(Default)]
/// struct Counter {
///     count: u64,
///     subscription: Option<Arc<dyn Subscription>>,
/// }
///
/// impl Subscriber<u64> for Counter {
///     fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
///         if self.subscription.is_some() {
///             return subscription.cancel(); // §2.5
///         }
///         subscription.request(u64::MAX);
///         self.subscription = Some(subscription);
///     }
///     fn on_next(&mut self, _: u64) { self.count += 1; }
///     fn on_error(&mut self, _: StreamError) { self.subscription = None; }
///     fn on_complete(&mut self) { self.subscription = None; }
/// }
///
/// struct Counters;
///
/// impl SubscriberBlackboxFactory for Counters {
///     type Element = u64;
///     type Subscriber = Counter;
///     fn create_subscriber(&self) -> Counter { Counter::default() }
///     fn element(&self, index: u64) -> u64 { index }
/// }
///
/// # use reactive_streams_tck::subscriber::SubscriberBlackboxVerification;
/// # use reactive_streams_tck::outcome::Verdict;
/// let results = SubscriberBlackboxVerification::new(Counters).run_all().unwrap();
/// assert!(results.iter().all(|r| r.verdict != Verdict::Failed));
/// ```
pub trait SubscriberBlackboxFactory: Send + Sync + 'static {
    /// The element type; `Debug` so that traces and messages can show it.
    type Element: Debug + Send + 'static;

    /// The subscriber type under test.
    type Subscriber: Subscriber<Self::Element> + 'static;

    /// A fresh subscriber; the TCK calls `on_subscribe` on it next.
    fn create_subscriber(&self) -> Self::Subscriber;

    /// The element the TCK sends as the `index`-th `on_next` (from 0).
    fn element(&self, index: u64) -> Self::Element;

    /// The nudge: make the subscriber request, for subscribers that wait
    /// for an outside event before signalling demand. Called right after
    /// `on_subscribe`. Default: nothing (the subscriber requests by itself).
    fn trigger_request(&self, subscriber: &mut Self::Subscriber) {
        let _ = subscriber;
    }

    /// How many elements the subscriber takes before it no longer needs its
    /// subscription, if it stops by itself (a `take(k)`, a search that ends
    /// at its first hit). Such a subscriber must then `cancel` (§2.6):
    /// with `Some(k)` the TCK sends elements as requested, never a terminal
    /// signal, and waits for `cancel()` after the `k`-th. Default: `None`
    /// (the subscriber consumes whatever comes; §2.6 is skipped).
    fn stops_after(&self) -> Option<u64> {
        None
    }
}

/// A blackbox factory as a [`Subject`].
pub(crate) struct Blackbox<F>(pub(crate) F);

impl<F: SubscriberBlackboxFactory> Subject for Blackbox<F> {
    type Element = F::Element;
    type Sub = F::Subscriber;

    fn stage<'a>(&'a self, cx: &RuleCx) -> Result<Stage<'a, F::Element, F::Subscriber>, Failure> {
        let factory = &self.0;
        let subscriber = cx.try_step("tck.factory", "create_subscriber", || {
            factory.create_subscriber()
        })?;
        let driver = Driver::new(cx, Box::new(subscriber), move |i| factory.element(i));
        let nudge = Nudge::Blackbox(Box::new(move |s: &mut F::Subscriber| {
            factory.trigger_request(s)
        }));
        Ok(Stage::new(driver, None, nudge))
    }

    fn stops_after(&self) -> Option<u64> {
        self.0.stops_after()
    }
}

/// §2.12 binds the caller of `on_subscribe`, which in a subscriber
/// verification is the TCK itself: nothing here for the subscriber to
/// break. Publishers and processors are checked by `publisher::spec_2_12`
/// and `processor::spec_2_12`; the types only stop the same subscriber
/// being given to `subscribe` twice (§1.10).
pub(crate) fn spec_2_12<X>(_: &RuleCx, _: &X) -> RuleBody {
    Ok(Outcome::Skipped(String::from(SPEC_2_12_SKIP)))
}

/// Why a subscriber verification has no §2.12 check of its own.
const SPEC_2_12_SKIP: &str = "§2.12 binds whoever calls on_subscribe (here the TCK); publishers and processors are checked by publisher::spec_2_12 and processor::spec_2_12";

/// The blackbox rule tests, in order. The macro generates one `#[test]`
/// for each; this list and the macro come from one source.
pub const TESTS: &[&str] = &crate::__subscriber_blackbox_tests!(@names);

fn table<F: SubscriberBlackboxFactory>() -> Table<Blackbox<F>> {
    let mut table = plain(quick::<F>());
    table.push(("tck_extended_schedules", super::extended::schedules()));
    table.push(("tck_extended_stress", super::extended::stress()));
    debug_assert!(
        table
            .iter()
            .map(|(name, _)| *name)
            .eq(TESTS.iter().copied())
    );
    table
}

fn quick<F: SubscriberBlackboxFactory>() -> Vec<(&'static str, Body<Blackbox<F>>)> {
    vec![
        ("spec_2_01", body(rules::spec_2_01::<Blackbox<F>>)),
        ("spec_2_03", body(rules::spec_2_03::<Blackbox<F>>)),
        ("spec_2_04", body(rules::spec_2_04::<Blackbox<F>>)),
        ("spec_2_05", body(rules::spec_2_05::<Blackbox<F>>)),
        ("spec_2_06", body(rules::spec_2_06::<Blackbox<F>>)),
        ("spec_2_07", body(rules::spec_2_07::<Blackbox<F>>)),
        ("spec_2_09", body(rules::spec_2_09::<Blackbox<F>>)),
        ("spec_2_10", body(rules::spec_2_10::<Blackbox<F>>)),
        ("spec_2_12", body(spec_2_12::<Blackbox<F>>)),
        ("spec_2_13", body(rules::spec_2_13::<Blackbox<F>>)),
        ("spec_3_01", body(rules::spec_3_01::<Blackbox<F>>)),
        ("spec_3_08", body(rules::spec_3_08_blackbox::<Blackbox<F>>)),
    ]
}

/// Runs the blackbox subscriber verification against one factory.
///
/// The generated tests ([`subscriber_blackbox_verification!`](crate::subscriber_blackbox_verification))
/// call it one rule at a time; [`run_all`](Self::run_all) returns every
/// result as data.
pub struct SubscriberBlackboxVerification<F: SubscriberBlackboxFactory> {
    engine: Engine<Blackbox<F>>,
}

crate::engine::verification!(
    SubscriberBlackboxVerification<F: SubscriberBlackboxFactory>, SubscriberBlackbox,
    subject: Blackbox<F>, make: Blackbox, parallelism: 16, table: table::<F>,
    vacuity: Vacuity::Observed, example: "spec_2_05",
);

/// The list of blackbox tests, and what is generated from it. Not API: use
/// [`subscriber_blackbox_verification!`](crate::subscriber_blackbox_verification).
#[doc(hidden)]
#[macro_export]
macro_rules! __subscriber_blackbox_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [
            spec_2_01, spec_2_03, spec_2_04, spec_2_05, spec_2_06, spec_2_07, spec_2_09,
            spec_2_10, spec_2_12, spec_2_13, spec_3_01, spec_3_08
        ] [
            tck_extended_schedules, tck_extended_stress
        ] $($then)* }
    };
}

/// Generates the blackbox subscriber verification as `#[test]`s:
/// `<name>::subscriber_blackbox::<test>` for every test in
/// [`subscriber::blackbox::TESTS`](crate::subscriber::blackbox::TESTS).
///
/// `$factory` is an expression making a
/// [`SubscriberBlackboxFactory`](crate::subscriber::SubscriberBlackboxFactory),
/// evaluated once per test where the macro is invoked (it sees what the
/// invocation sees). Results carry `stringify!($name)`
/// as their target, or the display name given as a third argument.
///
/// ```ignore
/// subscriber_blackbox_verification!(counter, Counters);
/// // → counter::subscriber_blackbox::spec_2_01, …, counter::subscriber_blackbox::spec_3_08
/// ```
///
/// Each test writes its result to `RS_TCK_REPORT_DIR` (if set), panics with
/// the full failure text if the rule failed, and prints `skipped: <reason>`
/// if it was skipped.
#[macro_export]
macro_rules! subscriber_blackbox_verification {
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __subscriber_blackbox_tests, quick, subscriber_blackbox, $crate::subscriber::SubscriberBlackboxVerification<_>; $($invocation)*
        }
    };
}
