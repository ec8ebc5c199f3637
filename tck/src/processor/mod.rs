//! The processor verification (§4): a processor is verified as a publisher
//! (every publisher rule test, fed by a TCK helper publisher upstream), as
//! a subscriber (every whitebox rule test, through a TCK subscriber
//! downstream), and in both roles at once (§4.1, §4.2 and the recommended
//! behaviour around them).
//!
//! Processors are cheap cloneable handles (see
//! [`Processor`](reactive_streams::Processor)): the TCK gives one clone to
//! the upstream as a `Box<dyn Subscriber<_>>` and subscribes to another.
//!
//! ```
//! use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
//! use reactive_streams_tck::outcome::Verdict;
//! # use reactive_streams_tck::processor::testkit::IdentityProcessor;
//!
//! struct Identities;
//!
//! impl ProcessorFactory for Identities {
//!     type Input = u64;
//!     type Output = u64;
//!     type Processor = IdentityProcessor<u64>;
//!     fn create_processor(&self) -> IdentityProcessor<u64> {
//!         IdentityProcessor::new()
//!     }
//!     fn input(&self, index: u64) -> u64 { index }
//!     fn supports_multiple_subscribers(&self) -> bool { false }
//! }
//!
//! let results = ProcessorVerification::new(Identities).run_all().unwrap();
//! assert!(results.iter().all(|r| r.verdict != Verdict::Failed));
//! ```
//!
//! # Test names
//!
//! `<module>::processor::<test>`: the publisher verification's tests, the
//! whitebox subscriber verification's tests (one test per rule: where both
//! check a rule, as for §3.8, the test runs both), `spec_4_01`,
//! `spec_4_02`, and `tck_late_subscriber_demand`, `tck_cancel_propagates`,
//! `tck_bounded_upstream_demand`. See [`TESTS`].

mod as_publisher;
mod as_subscriber;
mod bounded;
mod crosstalk;
mod delivers;
mod extended;
mod filtering;
mod late;
mod leaving;
mod multicast;
mod passing;
mod prefetched;
mod rules;
mod serial_upstream;
#[doc(hidden)]
pub mod testkit;
mod upstream;

use std::fmt::Debug;
use std::sync::Arc;

use reactive_streams::{Publisher, Subscriber};

use crate::context::{Outcome, RuleBody, RuleCx};
use crate::engine::{Body, Engine, Table, Vacuity, body, plain};
use crate::publisher::RuleDef;
use as_publisher::AsPublisher;
use as_subscriber::ProcessorSubject;

/// Makes the processors the
/// [processor verification](crate::processor_verification) verifies.
///
/// The TCK checks counts and signals, not values: each input comes out as
/// one output, in order (an identity, a `map`, a scale), unless
/// [`passes`](Self::passes) declares which inputs a filter drops. Only the
/// processor, its element types and [`input`](Self::input) are required;
/// the rest declare properties with sensible defaults.
///
/// A filter declares which inputs pass; the TCK then feeds as many inputs
/// as it takes to make the outputs a rule test needs, and counts only the
/// passing ones:
///
/// ```
/// # use reactive_streams_tck::processor::testkit::FilteringProcessor;
/// # use reactive_streams_tck::processor::{ProcessorFactory, ProcessorVerification};
/// # use reactive_streams_tck::outcome::Verdict;
/// struct Evens;
///
/// impl ProcessorFactory for Evens {
///     type Input = u64;
///     type Output = u64;
///     type Processor = FilteringProcessor<u64>; // yours: keeps even numbers
///     fn create_processor(&self) -> Self::Processor {
///         FilteringProcessor::new(|x: &u64| x % 2 == 0)
///     }
///     fn input(&self, index: u64) -> u64 {
///         index
///     }
///     // Input `index` is `index`: the even ones come out.
///     fn passes(&self, index: u64) -> bool {
///         index % 2 == 0
///     }
///     # fn supports_multiple_subscribers(&self) -> bool { false }
/// }
/// # let results = ProcessorVerification::new(Evens).run_all().unwrap();
/// # assert!(results.iter().all(|r| r.verdict != Verdict::Failed), "{results:#?}");
/// ```
pub trait ProcessorFactory: Send + Sync + 'static {
    /// What the processor consumes.
    type Input: Debug + Send + 'static;
    /// What the processor publishes.
    type Output: Debug + Send + 'static;
    /// The processor: a cheap cloneable handle, subscriber of `Input` and
    /// publisher of `Output`.
    type Processor: Subscriber<Self::Input> + Publisher<Self::Output> + Clone + 'static;

    /// A fresh processor, not yet subscribed to anything.
    fn create_processor(&self) -> Self::Processor;

    /// The `index`-th input the TCK sends upstream (from 0).
    fn input(&self, index: u64) -> Self::Input;

    /// Whether the `index`-th input (from 0; the one [`input`](Self::input)
    /// makes) comes out of the processor, as exactly one output in input
    /// order, or is dropped. Default: every input passes (identity, `map`).
    ///
    /// Declare it for a filter. The publisher rule tests then feed the
    /// processor as many inputs as it takes for `n` to pass, and the
    /// subscriber rule tests count only passing inputs as outputs; a
    /// conforming filter asks upstream for a replacement of every input it
    /// drops, so that downstream demand is still met. It must let through
    /// infinitely many inputs (within the first million, each of the few
    /// the rule tests need).
    fn passes(&self, index: u64) -> bool {
        let _ = index;
        true
    }

    /// The most outputs the processor ever emits to a subscriber; `u64::MAX`
    /// (the default) means no limit. As
    /// [`PublisherFactory::max_elements`](crate::publisher::PublisherFactory::max_elements)
    /// for the processor's output side.
    ///
    /// Declare it for a processor that ends its own upstream subscription,
    /// as a `take(k)` does: after at most `k` outputs it cancels upstream
    /// and completes downstream (with `k = 0`, it may cancel from inside
    /// `on_subscribe`). The rule tests that need more outputs are skipped,
    /// saying so; the others accept `on_complete` once `k` outputs came out
    /// and a cancelled upstream, and the extended verification checks that
    /// no more than `k` ever come out.
    fn max_outputs(&self) -> u64 {
        u64::MAX
    }

    /// Whether the processor recovers from an upstream `on_error` instead
    /// of passing it on (§4.2). Default `false`. When `true`, §4.2 checks
    /// that it then treats its upstream as cancelled, the publisher rules
    /// that need a failed publisher are skipped, and every test delivering
    /// an upstream `on_error` (§2.3, §2.4, §2.10, the extended upstream
    /// scripts) accepts a switch to a fallback: more elements within
    /// downstream demand, then `on_complete`, or nothing until downstream
    /// asks.
    fn recovers_from_errors(&self) -> bool {
        false
    }

    /// Whether one processor serves several subscribers at once. Default
    /// `true`; when `false`, the tests needing two are skipped.
    fn supports_multiple_subscribers(&self) -> bool {
        true
    }

    /// As [`PublisherFactory::max_subscribers`](crate::publisher::PublisherFactory::max_subscribers):
    /// how many downstream subscribers one processor serves at once, if
    /// only up to a limit (a multicast that refuses the next with
    /// `on_subscribe`, then `on_error`, as §1.9 allows). `None`, the
    /// default, declares no limit (the meaning
    /// `supports_multiple_subscribers()` always had); `Some(k)`, `k >= 2`:
    /// the scenarios use at most `k` subscribers at once.
    fn max_subscribers(&self) -> Option<usize> {
        None
    }

    /// Whether the processor cancels upstream when its last downstream
    /// subscriber cancels (recommended by §4). Default `true`.
    fn propagates_cancellation(&self) -> bool {
        true
    }

    /// How far the processor's upstream demand may run ahead of its
    /// downstream demand (its prefetch, e.g. a buffer's capacity): with `d`
    /// elements requested downstream, upstream demand stays within
    /// `d + max_upstream_demand()`. The quick verification checks it at
    /// the first request (`d = 1`) and again after elements have arrived
    /// and downstream asked for more; the extended one under generated
    /// schedules. With several subscribers, `d` is the furthest any of them
    /// asked to go (a later subscriber's demand counted from the inputs
    /// delivered before it joined). Default 1024.
    ///
    /// Only this bound is checked on upstream demand: a processor may pass
    /// downstream demand on later, in batches, one element at a time, or
    /// prefetch and refill at a low-water mark; the other rule tests judge
    /// what reaches downstream.
    fn max_upstream_demand(&self) -> u64 {
        1024
    }

    /// As [`PublisherFactory::max_sync_recursion_depth`](crate::publisher::PublisherFactory::max_sync_recursion_depth).
    fn max_sync_recursion_depth(&self) -> u32 {
        1
    }

    /// Which input an output came from: the index (from 0) of the input
    /// [`input`](Self::input) made it from. `None` (the default) tells
    /// nothing. Declared, the publisher rule tests run on the processor's
    /// output side check that each subscriber gets each output at most once
    /// and in order, skipping only inputs that [`passes`](Self::passes)
    /// drops (`tck.create_n_gives_exactly_n`). An identity on `u64` inputs made by
    /// `input(i) = i` declares `Some(*output)`.
    fn element_index(&self, output: &Self::Output) -> Option<u64> {
        let _ = output;
        None
    }

    /// As [`PublisherFactory::run_stochastic`](crate::publisher::PublisherFactory::run_stochastic).
    fn run_stochastic(&self) -> bool {
        true
    }
}

/// The processor tests, quick then extended, in order. The macros generate
/// one `#[test]` for each.
pub const TESTS: &[&str] = &crate::__processor_tests!(@names);

/// Why a test needing several downstream subscribers at once cannot run
/// on `factory`'s processors, if it cannot: it declares a single
/// subscriber, or a limit below two.
pub(crate) fn several_unmet<F: ProcessorFactory>(factory: &F) -> Option<String> {
    if !factory.supports_multiple_subscribers() {
        return Some(String::from(
            "needs several subscribers; the factory's supports_multiple_subscribers() is false",
        ));
    }
    let k = factory.max_subscribers().filter(|k| *k < 2)?;
    Some(format!(
        "needs several subscribers; the factory's max_subscribers() is Some({k})"
    ))
}

/// The extended tests, in order.
const EXTENDED: &[&str] = &crate::__processor_tests!(@extended_names);

/// A publisher rule test run on the processor's output side.
fn publisher_part<F: ProcessorFactory>(
    name: &'static str,
    def: RuleDef<AsPublisher<F>>,
) -> Body<ProcessorSubject<F>> {
    Arc::new(move |cx: &RuleCx, subject: &ProcessorSubject<F>| {
        crate::publisher::declare_identity(cx, |subject: &ProcessorSubject<F>| &subject.publisher);
        if let Some(reason) = unmet(&def, &subject.publisher) {
            return Ok(Outcome::Skipped(reason));
        }
        if delivers::needs_delivery(name, def.needs.elements) {
            delivers::delivers(cx, &subject.publisher)?;
        }
        (def.run)(cx, &subject.publisher)
    })
}

/// Why a publisher rule test cannot run against the processor, in the
/// processor's declarations.
fn unmet<F: ProcessorFactory>(
    def: &RuleDef<AsPublisher<F>>,
    publisher: &AsPublisher<F>,
) -> Option<String> {
    let max = publisher.factory.max_outputs();
    if def.needs.elements > max {
        let plural = if def.needs.elements == 1 { "" } else { "s" };
        return Some(format!(
            "needs {} output{plural}; the factory's max_outputs() is {max}: the processor ends its own upstream subscription after at most {max} output{}",
            show_outputs(def.needs.elements),
            if max == 1 { "" } else { "s" }
        ));
    }
    if def.needs.failed_publisher && max == 0 && !publisher.factory.recovers_from_errors() {
        return Some(String::from(
            "needs a processor whose upstream fails; the factory's max_outputs() is 0: the processor may end its own upstream subscription before any upstream signal",
        ));
    }
    def.needs.unmet(publisher)
}

/// An output count, `u64::MAX` as unbounded.
fn show_outputs(n: u64) -> String {
    if n == u64::MAX {
        String::from("unbounded")
    } else {
        n.to_string()
    }
}

/// Runs the parts of one rule test in turn: the first failure ends it;
/// it is skipped only if every part was.
fn combined<X: 'static>(parts: Vec<Body<X>>) -> Body<X> {
    if parts.len() == 1 {
        return parts.into_iter().next().expect("one part");
    }
    Arc::new(move |cx: &RuleCx, subject: &X| -> RuleBody {
        let mut skipped = Vec::new();
        let mut outcome = None;
        for part in &parts {
            match part(cx, subject)? {
                Outcome::Skipped(reason) => skipped.push(reason),
                other => outcome = Some(other),
            }
        }
        Ok(outcome.unwrap_or_else(|| Outcome::Skipped(skipped.join("; "))))
    })
}

fn table<F: ProcessorFactory>() -> Table<ProcessorSubject<F>> {
    let publisher: Vec<(&'static str, RuleDef<AsPublisher<F>>)> =
        crate::__publisher_tests!(@table publisher::rules);
    let mut parts: Vec<(&'static str, Body<ProcessorSubject<F>>)> = publisher
        .into_iter()
        .map(|(name, def)| (name, publisher_part(name, def)))
        .collect();
    parts.extend(crate::subscriber::whitebox::table_for::<ProcessorSubject<F>>());
    parts.extend([
        ("spec_4_01", body(rules::spec_4_01::<F>)),
        ("spec_4_02", body(rules::spec_4_02::<F>)),
        (
            "tck_late_subscriber_demand",
            body(rules::tck_late_subscriber_demand::<F>),
        ),
        (
            "tck_cancel_propagates",
            body(rules::tck_cancel_propagates::<F>),
        ),
        (
            "tck_bounded_upstream_demand",
            body(rules::tck_bounded_upstream_demand::<F>),
        ),
        ("spec_1_05", body(prefetched::spec_1_05::<F>)),
        ("spec_3_08", body(leaving::spec_3_08::<F>)),
        ("spec_3_09", body(leaving::spec_3_09::<F>)),
        ("spec_3_13", body(leaving::spec_3_13::<F>)),
        (
            "tck_late_subscriber_demand",
            body(late::idle_early_subscriber::<F>),
        ),
        (
            "tck_late_subscriber_demand",
            body(crosstalk::one_party_never_moves_another::<F>),
        ),
        (
            "tck_bounded_upstream_demand",
            body(bounded::while_elements_flow::<F>),
        ),
        (
            "spec_2_07",
            body(serial_upstream::with_a_dropped_input::<F>),
        ),
    ]);
    let quick = TESTS
        .iter()
        .filter(|name| !EXTENDED.contains(name))
        .map(|&name| {
            let mine: Vec<_> = parts
                .iter()
                .filter(|(part, _)| *part == name)
                .map(|(_, body)| body.clone())
                .collect();
            assert!(!mine.is_empty(), "processor rule test {name} has no body");
            (name, combined(mine))
        })
        .collect();
    let mut table = plain(quick);
    table.extend(
        EXTENDED
            .iter()
            .map(|&name| (name, extended::test::<F>(name))),
    );
    table
}

/// Runs the processor verification against one factory.
pub struct ProcessorVerification<F: ProcessorFactory> {
    engine: Engine<ProcessorSubject<F>>,
}

crate::engine::verification!(
    ProcessorVerification<F: ProcessorFactory>, Processor, subject: ProcessorSubject<F>,
    make: ProcessorSubject::new, parallelism: 16, table: table::<F>, vacuity: Vacuity::Observed,
    example: "spec_4_01",
);

/// The list of processor rule tests, and what is generated from it. Not
/// API: use [`processor_verification!`](crate::processor_verification).
/// It is the publisher list, the whitebox list and the processor's own
/// tests, merged; a unit test keeps it in step with the other two.
#[doc(hidden)]
#[macro_export]
macro_rules! __processor_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [
            tck_configuration, tck_create_n_gives_exactly_n, tck_happy_path,
            tck_late_subscriber_demand, tck_cancel_propagates, tck_bounded_upstream_demand,
            spec_1_01, spec_1_02, spec_1_03, spec_1_04, spec_1_05, spec_1_06,
            spec_1_07, spec_1_08, spec_1_09, spec_1_10, spec_1_11,
            spec_2_01, spec_2_03, spec_2_04, spec_2_05, spec_2_07, spec_2_08,
            spec_2_09, spec_2_10, spec_2_11, spec_2_12, spec_2_13,
            spec_3_01, spec_3_02, spec_3_03, spec_3_04, spec_3_05, spec_3_06, spec_3_07,
            spec_3_08, spec_3_09, spec_3_10, spec_3_11, spec_3_12, spec_3_13,
            spec_3_14, spec_3_15, spec_3_16, spec_3_17,
            spec_4_01, spec_4_02
        ] [
            tck_extended_schedules, tck_extended_stress, tck_extended_upstream
        ] $($then)* }
    };
}

/// Generates the processor verification as `#[test]`s:
/// `<name>::processor::<test>` for every quick test in
/// [`processor::TESTS`](crate::processor::TESTS); with `extended` before
/// the name, the extended tests (`tck_extended_schedules`,
/// `tck_extended_stress`, `tck_extended_upstream`) instead.
///
/// `$factory` makes a [`ProcessorFactory`](crate::processor::ProcessorFactory);
/// otherwise as [`publisher_verification!`](crate::publisher_verification).
///
/// ```ignore
/// processor_verification!(identity, Identities);
/// // → identity::processor::spec_1_01, …, identity::processor::spec_4_02
/// processor_verification!(extended identity_extended, Identities, "identity");
/// ```
#[macro_export]
macro_rules! processor_verification {
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __processor_tests, quick, processor, $crate::processor::ProcessorVerification<_>; $($invocation)*
        }
    };
}

#[cfg(test)]
mod tests {
    use super::TESTS;
    use crate::runner::rule_of_test;
    use reactive_streams::rules::{self, Check};

    /// The catalogue and the three lists name the same tests: every test a
    /// catalogue entry cites exists, and every `spec_` test is cited by
    /// the entry of its rule.
    #[test]
    fn the_catalogue_cites_exactly_these_tests() {
        let lists = [
            ("subscriber_blackbox", crate::subscriber::blackbox::TESTS),
            ("subscriber_whitebox", crate::subscriber::whitebox::TESTS),
            ("processor", TESTS),
        ];
        for rule in rules::RULES {
            if let Check::Tested { tests } = rule.check {
                for cited in tests {
                    let (verification, test) = cited.split_once("::").unwrap();
                    if let Some((_, list)) = lists.iter().find(|(v, _)| *v == verification) {
                        assert!(list.contains(&test), "{}: {cited} does not exist", rule.id);
                    }
                }
            }
        }
        for (verification, list) in lists {
            for test in list.iter().filter(|t| t.starts_with("spec_")) {
                let rule = rules::find(&rule_of_test(test)).unwrap();
                let cited = format!("{verification}::{test}");
                match rule.check {
                    Check::Tested { tests } => {
                        assert!(
                            tests.contains(&cited.as_str()),
                            "{}: {cited} is not cited",
                            rule.id
                        )
                    }
                    Check::EnforcedByTypes { .. } => {}
                    Check::Untested { .. } => panic!("{}: {cited} tests an untested rule", rule.id),
                }
            }
        }
    }

    #[test]
    fn the_list_is_the_publisher_and_whitebox_lists_and_section_4() {
        let mut expected: Vec<&str> = crate::publisher::TESTS.to_vec();
        expected.extend(crate::subscriber::whitebox::TESTS);
        expected.extend([
            "spec_4_01",
            "spec_4_02",
            "tck_late_subscriber_demand",
            "tck_cancel_propagates",
            "tck_bounded_upstream_demand",
            "tck_extended_upstream",
        ]);
        // §2.6 is about a subscriber that stops by itself (`stops_after`);
        // a processor's subscriber side is driven by its downstream.
        expected.retain(|test| *test != "spec_2_06");
        expected.sort_unstable();
        expected.dedup();
        let mut actual = TESTS.to_vec();
        actual.sort_unstable();
        assert_eq!(actual, expected);
    }
}
