//! The publisher verification: every observable rule of §1 (Publisher) and
//! §3 (Subscription), run against the publishers a [`PublisherFactory`]
//! makes.
//!
//! # Two entry points
//!
//! In a test file, [`publisher_verification!`](crate::publisher_verification)
//! generates one `#[test]` per rule:
//!
//! ```ignore
//! use reactive_streams_tck::publisher_verification;
//! publisher_verification!(my_range, MyFactory::new());
//! // → my_range::publisher::spec_1_01, …, my_range::publisher::tck_configuration
//! ```
//!
//! As a library, [`PublisherVerification::run_all`] returns the results as
//! data:
//!
//! ```
//! use reactive_streams::Publisher;
//! use reactive_streams_tck::outcome::Verdict;
//! use reactive_streams_tck::publisher::{PublisherFactory, PublisherVerification};
//! use reactive_streams_tck::testkit::SyncRange;
//!
//! struct Ranges;
//! impl PublisherFactory for Ranges {
//!     type Element = u64;
//!     fn create_publisher(&self, n: u64) -> Box<dyn Publisher<u64>> {
//!         Box::new(SyncRange::new(0, n))
//!     }
//! }
//!
//! let results = PublisherVerification::new(Ranges).run_all().unwrap();
//! assert!(results.iter().all(|r| r.verdict != Verdict::Failed));
//! ```
//!
//! # Test names
//!
//! `<module>::publisher::<test>`, where `<test>` is `spec_<section>_<rule>`
//! with a two-digit rule (`spec_3_09`) for catalogue rules and
//! `tck_<name>` (rule id `tck.<name>`) for checks of the factory itself.
//! `cargo xtask tck` relies on this shape. See [`TESTS`] for the list.

pub(crate) mod extended;
mod factory;
pub(crate) mod rules;

use std::sync::Arc;

pub use factory::PublisherFactory;

use crate::context::{RuleBody, RuleCx};
use crate::engine::{Body, Engine, Run, Table, Test, Unmet, Vacuity, declared_skips};

/// One rule test: what it needs from the factory, and its body.
pub(crate) struct RuleDef<F> {
    /// What the factory must offer for the test to run at all.
    pub needs: Needs,
    /// The body.
    pub run: fn(&RuleCx, &F) -> RuleBody,
}

/// What a rule test needs from the factory; unmet needs skip it, saying
/// why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Needs {
    /// A publisher of at least this many elements.
    pub elements: u64,
    /// A failed publisher.
    pub failed_publisher: bool,
    /// Several subscribers on one publisher.
    pub multiple_subscribers: bool,
    /// Stochastic checks enabled.
    pub stochastic: bool,
}

impl Needs {
    /// Nothing.
    pub const NOTHING: Needs = Needs {
        elements: 0,
        failed_publisher: false,
        multiple_subscribers: false,
        stochastic: false,
    };

    /// A publisher of at least `n` elements.
    pub const fn elements(n: u64) -> Needs {
        Needs {
            elements: n,
            ..Needs::NOTHING
        }
    }

    /// The reason to skip, if the factory does not meet these needs.
    pub fn unmet<F: PublisherFactory>(&self, factory: &F) -> Option<String> {
        let (min, max) = (factory.min_elements(), factory.max_elements());
        let plural = if self.elements == 1 { "" } else { "s" };
        if self.elements > max {
            return Some(format!(
                "needs a publisher of {} element{plural}; the factory's max_elements() is {max}",
                self.elements
            ));
        }
        // A test needing `elements` makes publishers of that length; tests
        // needing none adapt to the lengths the factory declares.
        if self.elements > 0 && self.elements < min {
            return Some(format!(
                "needs a publisher of {} element{plural}; the factory's min_elements() is {min}",
                self.elements
            ));
        }
        if self.failed_publisher && factory.create_failed_publisher().is_none() {
            return Some(String::from(
                "needs a failed publisher; the factory's create_failed_publisher() returns None",
            ));
        }
        if self.multiple_subscribers && !factory.supports_multiple_subscribers() {
            return Some(String::from(
                "needs several subscribers; the factory's supports_multiple_subscribers() is false",
            ));
        }
        if self.multiple_subscribers && factory.max_subscribers().is_some_and(|k| k < 2) {
            return Some(format!(
                "needs several subscribers; the factory's max_subscribers() is {:?}",
                factory.max_subscribers()
            ));
        }
        if self.stochastic && !factory.run_stochastic() {
            return Some(String::from(
                "a stochastic check; the factory's run_stochastic() is false",
            ));
        }
        None
    }
}

/// Why a scenario whose subscriber `number` (from 1, in the order they
/// subscribed) was refused is not concluded: §1.9 allows a refusal.
pub(crate) fn refused_reason(number: usize) -> String {
    format!("not concluded: the publisher refused subscriber {number} (§1.9 allows it)")
}

/// Whether one publisher of `factory` serves several subscribers at once:
/// it declares several, and no limit below two.
pub(crate) fn serves_several<F: PublisherFactory>(factory: &F) -> bool {
    factory.supports_multiple_subscribers() && factory.max_subscribers().is_none_or(|k| k >= 2)
}

/// The tests, quick then extended, in order. The macros generate one
/// `#[test]` for each; this list and the macros come from one source.
pub const TESTS: &[&str] = &crate::__publisher_tests!(@names);

/// Every test, as the [engine](crate::engine) runs it.
fn table<F: PublisherFactory>() -> Table<F> {
    let defs: Vec<(&'static str, RuleDef<F>)> = crate::__publisher_tests!(@table publisher::rules);
    defs.into_iter()
        .map(|(name, RuleDef { needs, run })| {
            let unmet = (needs != Needs::NOTHING)
                .then(|| Arc::new(move |factory: &F| needs.unmet(factory)) as Unmet<F>);
            let body = Arc::new(move |cx: &RuleCx, factory: &F| {
                declare_identity(cx, |factory: &F| factory);
                run(cx, factory)
            }) as Body<F>;
            (
                name,
                Test {
                    unmet,
                    run: Run::Quick(body),
                },
            )
        })
        .chain(EXTENDED.iter().map(|&name| {
            let run = |factory: &Arc<F>, prepared| extended::run(factory.clone(), prepared);
            (name, Test::extended(run))
        }))
        .collect()
}

/// The extended tests, in order.
const EXTENDED: &[&str] = &crate::__publisher_tests!(@extended_names);

/// Declares the publisher factory's `element_index` to the rule `cx`
/// runs (see [`Identity`](crate::probe::Identity)): the suite's subject is
/// an `S`, the factory is `factory_of` it.
pub(crate) fn declare_identity<S, P>(cx: &RuleCx, factory_of: fn(&S) -> &P)
where
    S: Send + Sync + 'static,
    P: PublisherFactory,
{
    if let Some(subject) = cx.subject::<S>() {
        cx.declare_identity(crate::probe::Identity::new(move |element: &P::Element| {
            factory_of(&subject).element_index(element)
        }));
    }
}

/// Declares `factory`'s `element_index` to the rule `cx` runs: a generated
/// case of the extended verification, run in a context of its own, checks
/// identity as the quick rule tests do.
pub(crate) fn declare_identity_of<P: PublisherFactory>(cx: &RuleCx, factory: &Arc<P>) {
    let factory = factory.clone();
    cx.declare_identity(crate::probe::Identity::new(move |element: &P::Element| {
        factory.element_index(element)
    }));
}

/// The reasons, if the factory's declarations are a configuration error:
/// lengths it cannot make (`min_elements() > max_elements()`), or skips of
/// every rule test that needs anything at all (elements, a failed
/// publisher, several subscribers). An always-empty publisher
/// (`max_elements() == 0`) is not an error: it is what it declares, and the
/// tests that need no element verify it.
pub(crate) fn everything_skipped<F: PublisherFactory>(factory: &F) -> Option<Vec<String>> {
    let (min, max) = (factory.min_elements(), factory.max_elements());
    if min > max {
        return Some(vec![format!(
            "the factory's min_elements() ({min}) exceeds its max_elements() ({max}): no length is left to ask create_publisher for"
        )]);
    }
    if max == 0 {
        return None;
    }
    declared_skips(&table::<F>(), factory)
}

/// Runs the publisher verification against one factory.
pub struct PublisherVerification<F: PublisherFactory> {
    engine: Engine<F>,
}

crate::engine::verification!(
    PublisherVerification<F: PublisherFactory>, Publisher, subject: F, make: |factory| factory,
    parallelism: 8, table: table::<F>, vacuity: Vacuity::Declared(everything_skipped::<F>),
    example: "spec_3_09",
);

/// The list of publisher rule tests, and what is generated from it. Not
/// API: use [`publisher_verification!`](crate::publisher_verification).
#[doc(hidden)]
#[macro_export]
macro_rules! __publisher_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [
            tck_configuration,
            tck_create_n_gives_exactly_n,
            spec_1_01, spec_1_02, spec_1_03, spec_1_04, spec_1_05, spec_1_06,
            spec_1_07, spec_1_08, spec_1_09, spec_1_10, spec_1_11, spec_2_12,
            spec_3_02, spec_3_03, spec_3_04, spec_3_05, spec_3_06, spec_3_07,
            spec_3_08, spec_3_09, spec_3_10, spec_3_11, spec_3_12, spec_3_13,
            spec_3_14, spec_3_15, spec_3_16, spec_3_17
        ] [
            tck_extended_schedules, tck_extended_stress
        ] $($then)* }
    };
}

/// Generates the publisher verification as `#[test]`s:
/// `<name>::publisher::<test>` for every quick test in
/// [`publisher::TESTS`](crate::publisher::TESTS); with `extended` before
/// the name, the extended tests (`tck_extended_schedules`,
/// `tck_extended_stress`) instead.
///
/// `$factory` is an expression making a
/// [`PublisherFactory`](crate::publisher::PublisherFactory); it is evaluated
/// once per test where the macro is invoked: it sees exactly what the
/// invocation sees (`self::`, `super::`, private items, imports), so the
/// macro works at the crate root, in any module, and several times in one
/// module under different names. Results carry `stringify!($name)` as their
/// target, or the display name given as a third argument.
///
/// ```ignore
/// publisher_verification!(my_range, MyFactory::new());
/// publisher_verification!(my_range_async, MyFactory::asynchronous(), "MyRange (async)");
/// // The extended tests, in a module of their own, reported under the
/// // quick tests' name (`cargo xtask tck` runs them with `--extended`):
/// publisher_verification!(extended my_range_extended, MyFactory::new(), "my_range");
/// ```
///
/// Each test writes its result to `RS_TCK_REPORT_DIR` (if set), panics with
/// the full failure text (rule, expected, actual, trace) if the rule failed,
/// and prints `skipped: <reason>` if it was skipped. `cargo test spec_3_09`
/// runs one rule.
#[macro_export]
macro_rules! publisher_verification {
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __publisher_tests, quick, publisher, $crate::publisher::PublisherVerification<_>; $($invocation)*
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::rule_of_test;
    use reactive_streams::rules::{Check, RULES};

    #[test]
    fn the_catalogue_and_the_tests_name_each_other() {
        for test in TESTS.iter().filter(|t| t.starts_with("spec_")) {
            let rule = reactive_streams::rules::find(&rule_of_test(test)).unwrap();
            match rule.check {
                Check::Tested { tests } => assert!(
                    tests.contains(&format!("publisher::{test}").as_str()),
                    "{test}"
                ),
                Check::EnforcedByTypes { .. } => assert_eq!(*test, "spec_1_10"),
                Check::Untested { .. } => panic!("{test} exists but {} is untested", rule.id),
            }
        }
        for rule in RULES {
            if let Check::Tested { tests } = rule.check {
                for test in tests.iter().filter_map(|t| t.strip_prefix("publisher::")) {
                    assert!(TESTS.contains(&test), "{} names {test}", rule.id);
                }
            }
        }
    }
}
