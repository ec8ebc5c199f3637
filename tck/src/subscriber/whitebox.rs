//! The whitebox subscriber verification: the subscriber carries a
//! [`WhiteboxProbe`] that reports what its processing logic received and
//! hands the TCK a [`Puppet`](super::Puppet) to request or cancel with.

use std::fmt::Debug;

use reactive_streams::Subscriber;

use super::blackbox::spec_2_12;
use super::driver::Driver;
use super::recording_publisher::RecordingPublisher;
use super::rules::{self, ElementText};
use super::stage::{Nudge, Stage, Subject};
use super::whitebox_probe::WhiteboxProbe;
use crate::context::{Failure, RuleBody, RuleCx};
use crate::engine::{Body, Engine, Table, Vacuity, body, plain};

/// Makes the instrumented subscribers the
/// [whitebox verification](crate::subscriber_whitebox_verification) drives.
///
/// ```
/// use reactive_streams::Subscriber;
/// use reactive_streams_tck::subscriber::{SubscriberWhiteboxFactory, WhiteboxProbe};
/// # use std::sync::Arc;
/// # use reactive_streams::{StreamError, Subscription};
/// # #[derive(Default)]
/// # struct Counter { subscription: Option<Arc<dyn Subscription>> }
/// # impl Subscriber<u64> for Counter {
/// #     fn on_subscribe(&mut self, s: Arc<dyn Subscription>) {
/// #         if self.subscription.is_some() { return s.cancel(); }
/// #         self.subscription = Some(s);
/// #     }
/// #     fn on_next(&mut self, _: u64) {}
/// #     fn on_error(&mut self, _: StreamError) { self.subscription = None; }
/// #     fn on_complete(&mut self) { self.subscription = None; }
/// # }
///
/// struct Counters;
///
/// impl SubscriberWhiteboxFactory for Counters {
///     type Element = u64;
///     fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
///         // An unchanged subscriber, wrapped; or report from its own logic.
///         Box::new(probe.wrap(Counter::default()))
///     }
///     fn element(&self, index: u64) -> u64 { index }
/// }
///
/// # use reactive_streams_tck::subscriber::SubscriberWhiteboxVerification;
/// # use reactive_streams_tck::outcome::Verdict;
/// let results = SubscriberWhiteboxVerification::new(Counters).run_all().unwrap();
/// assert!(results.iter().all(|r| r.verdict != Verdict::Failed));
/// ```
pub trait SubscriberWhiteboxFactory: Send + Sync + 'static {
    /// The element type. Elements are compared by their `Debug` text.
    type Element: Debug + Send + 'static;

    /// A fresh subscriber instrumented with `probe` (see
    /// [`WhiteboxProbe`] for the two ways to do it).
    fn create_subscriber(
        &self,
        probe: WhiteboxProbe<Self::Element>,
    ) -> Box<dyn Subscriber<Self::Element>>;

    /// The element the TCK sends as the `index`-th `on_next` (from 0).
    /// Distinct indices should give distinct elements, so that order can
    /// be checked (§2.11).
    fn element(&self, index: u64) -> Self::Element;

    /// For a subscriber built around a publisher (retry, repeat,
    /// resubscribe): the same subscriber, given the TCK's
    /// [`RecordingPublisher`] as the publisher it subscribes to again.
    /// §2.3 then also checks that `on_complete` and `on_error` do not call
    /// `subscribe` on it. Default: `None` (the subscriber has no
    /// publisher).
    fn create_subscriber_with_publisher(
        &self,
        probe: WhiteboxProbe<Self::Element>,
        publisher: RecordingPublisher<Self::Element>,
    ) -> Option<Box<dyn Subscriber<Self::Element>>> {
        let _ = (probe, publisher);
        None
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

/// A whitebox factory as a [`Subject`].
pub(crate) struct Whitebox<F>(pub(crate) F);

impl<F: SubscriberWhiteboxFactory> Subject for Whitebox<F> {
    type Element = F::Element;
    type Sub = dyn Subscriber<F::Element>;

    fn stage<'a>(&'a self, cx: &RuleCx) -> Result<Stage<'a, F::Element, Self::Sub>, Failure> {
        let factory = &self.0;
        let probe = WhiteboxProbe::new(cx, true);
        let for_subscriber = probe.clone();
        let subscriber = cx.try_step("tck.factory", "create_subscriber", move || {
            factory.create_subscriber(for_subscriber)
        })?;
        let driver = Driver::new(cx, subscriber, move |i| factory.element(i));
        Ok(Stage::new(driver, Some(probe), Nudge::Whitebox))
    }

    fn stops_after(&self) -> Option<u64> {
        self.0.stops_after()
    }
}

impl<F: SubscriberWhiteboxFactory> ElementText for Whitebox<F> {
    fn element_text(&self, index: u64) -> String {
        format!("{:?}", self.0.element(index))
    }
}

/// §2.3, whitebox: the shared body, then, for a subscriber built around a
/// publisher, the publisher half: `on_complete` and `on_error` must not
/// call `subscribe` on the TCK's [`RecordingPublisher`].
fn spec_2_03<F: SubscriberWhiteboxFactory>(cx: &RuleCx, subject: &Whitebox<F>) -> RuleBody {
    let outcome = rules::spec_2_03(cx, subject)?;
    let factory = &subject.0;
    for terminal in ["on_complete", "on_error"] {
        let publisher = RecordingPublisher::new(cx);
        let probe = WhiteboxProbe::new(cx, true);
        let given = publisher.clone();
        let Some(subscriber) =
            cx.try_step("tck.factory", "create_subscriber_with_publisher", || {
                factory.create_subscriber_with_publisher(probe, given)
            })?
        else {
            return Ok(outcome);
        };
        cx.scenario(format!(
            "subscriber with the TCK's publisher: on_subscribe, {terminal}"
        ));
        let mut driver = Driver::new(cx, subscriber, move |i| factory.element(i));
        driver.subscribe()?;
        if terminal == "on_complete" {
            driver.complete()?;
        } else {
            driver.error()?;
        }
        driver.drop_subscriber()?;
        cx.trace(format!(
            "publisher: {} subscribe call(s)",
            publisher.subscribes()
        ));
        if cx.has_failed() {
            break;
        }
    }
    Ok(outcome)
}

/// The whitebox rule tests, in order.
pub const TESTS: &[&str] = &crate::__subscriber_whitebox_tests!(@names);

/// The whitebox rule bodies for any subject: the processor verification
/// runs them on its subscriber side.
pub(crate) fn table_for<X: Subject + ElementText>() -> Vec<(&'static str, Body<X>)> {
    vec![
        ("tck_happy_path", body(rules::tck_happy_path::<X>)),
        ("spec_2_01", body(rules::spec_2_01::<X>)),
        ("spec_2_03", body(rules::spec_2_03::<X>)),
        ("spec_2_04", body(rules::spec_2_04::<X>)),
        ("spec_2_05", body(rules::spec_2_05::<X>)),
        ("spec_2_07", body(rules::spec_2_07::<X>)),
        ("spec_2_08", body(rules::spec_2_08::<X>)),
        ("spec_2_09", body(rules::spec_2_09::<X>)),
        ("spec_2_10", body(rules::spec_2_10::<X>)),
        ("spec_2_11", body(rules::spec_2_11::<X>)),
        ("spec_2_12", body(spec_2_12::<X>)),
        ("spec_2_13", body(rules::spec_2_13::<X>)),
        ("spec_3_01", body(rules::spec_3_01::<X>)),
        ("spec_3_08", body(rules::spec_3_08_whitebox::<X>)),
    ]
}

fn table<F: SubscriberWhiteboxFactory>() -> Table<Whitebox<F>> {
    let mut table = plain(quick::<F>());
    table.push(("tck_extended_schedules", super::extended::schedules()));
    debug_assert!(
        table
            .iter()
            .map(|(name, _)| *name)
            .eq(TESTS.iter().copied())
    );
    table
}

fn quick<F: SubscriberWhiteboxFactory>() -> Vec<(&'static str, Body<Whitebox<F>>)> {
    let mut table = table_for::<Whitebox<F>>();
    for (test, run) in table.iter_mut() {
        if *test == "spec_2_03" {
            *run = body(spec_2_03::<F>);
        }
    }
    // §2.6 needs the factory's stops_after(), which processors do not declare.
    let at = table
        .iter()
        .position(|(test, _)| *test == "spec_2_07")
        .unwrap_or(table.len());
    table.insert(at, ("spec_2_06", body(rules::spec_2_06::<Whitebox<F>>)));
    table
}

/// Runs the whitebox subscriber verification against one factory.
pub struct SubscriberWhiteboxVerification<F: SubscriberWhiteboxFactory> {
    engine: Engine<Whitebox<F>>,
}

crate::engine::verification!(
    SubscriberWhiteboxVerification<F: SubscriberWhiteboxFactory>, SubscriberWhitebox,
    subject: Whitebox<F>, make: Whitebox, parallelism: 16, table: table::<F>,
    vacuity: Vacuity::Observed, example: "spec_2_05",
);

/// The list of whitebox tests, and what is generated from it. Not API: use
/// [`subscriber_whitebox_verification!`](crate::subscriber_whitebox_verification).
#[doc(hidden)]
#[macro_export]
macro_rules! __subscriber_whitebox_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [
            tck_happy_path,
            spec_2_01, spec_2_03, spec_2_04, spec_2_05, spec_2_06, spec_2_07, spec_2_08,
            spec_2_09, spec_2_10, spec_2_11, spec_2_12, spec_2_13, spec_3_01, spec_3_08
        ] [
            tck_extended_schedules
        ] $($then)* }
    };
}

/// Generates the whitebox subscriber verification as `#[test]`s:
/// `<name>::subscriber_whitebox::<test>` for every test in
/// [`subscriber::whitebox::TESTS`](crate::subscriber::whitebox::TESTS).
///
/// `$factory` makes a
/// [`SubscriberWhiteboxFactory`](crate::subscriber::SubscriberWhiteboxFactory);
/// otherwise as [`subscriber_blackbox_verification!`](crate::subscriber_blackbox_verification).
///
/// ```ignore
/// subscriber_whitebox_verification!(counter_whitebox, Counters);
/// // → counter_whitebox::subscriber_whitebox::tck_happy_path, …
/// ```
#[macro_export]
macro_rules! subscriber_whitebox_verification {
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __subscriber_whitebox_tests, quick, subscriber_whitebox, $crate::subscriber::SubscriberWhiteboxVerification<_>; $($invocation)*
        }
    };
}
