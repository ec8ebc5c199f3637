//! The stream verification: the asynchronous contract of a
//! [`futures::Stream`](futures_core::Stream) (rules `stream.1` … `stream.7`
//! of [`STREAM_RULES`](reactive_streams::rules::STREAM_RULES)), checked on
//! the stream itself rather than through a Reactive Streams bridge.
//!
//! This is about `futures::Stream`; the Streamlet *sink* verification
//! ([`streamlet`](crate::streamlet)) and the `futures::Sink` verification
//! ([`sink`](crate::futures::sink)) are different protocols.
//!
//! The TCK drives the stream with an executor of its own, no runtime: the
//! rule's thread calls `poll_next` with named, instrumented wakers (`w1`,
//! `w2`, …), and a failure shows every poll, its answer and every wake-up in
//! its trace:
//!
//! ```text
//! stream.1: [fed stream, polled with two wakers in turn before each item arrives]
//! expected a wake-up of w2 (the waker of the most recent poll, which returned Pending)
//! once fed stream could make progress (item 0 was pushed); actual: no wake-up of w2
//! within 1000 ms, though w1 (the waker of an earlier poll) was woken
//! ```
//!
//! | test | rule | what it does |
//! |---|---|---|
//! | `stream_1` | `stream.1` | every `Pending` must be followed by a wake-up of the waker of that poll; a fed stream is polled with two wakers before each item arrives |
//! | `stream_2` | `stream.2` | a feeder thread pushes items while the stream is being polled; a wake-up lost when the push overlapped a `poll_next`, or because the producer woke the consumer before its item was visible (every fourth round holds the producer inside `wake()` until the woken task has polled), fails; in another fourth of the rounds the item is pushed at the moment the stream takes its waker (`clone`, `wake_by_ref`), so a check-then-register stream fails every run |
//! | `stream_3` | `stream.3` | `size_hint()` before every poll and after every push against the items still to come |
//! | `stream_4` | `stream.4` | a fused stream's `is_terminated()` after `Ready(None)` |
//! | `stream_5` | `stream.5` | drops before the first poll, part-way, after the end, while `Pending`, with items queued; the wakers given must all be released, the producer must see the stream gone |
//! | `stream_6` | `stream.6` | polls no wake-up caused: no item lost, no busy self-waking |
//! | `stream_7` | `stream.7` | every poll on a new thread (skipped for a [`ThreadBound`] factory); a stream that fails the same scenario polled on one thread is reported "not concluded" under `tck.stream_gives_exactly_n` |
//! | `tck_configuration` | `tck.configuration` | the factory's declarations hold for its streams: `is_terminated()` answers `Some` for all of them or for none (before and after their end), an `endless()` stream does not end |
//! | `tck_stream_gives_exactly_n` | `tck.stream_gives_exactly_n` | `create_stream(n)` yields `n` items and a fed stream what was pushed, then the end; with the factory's `item_index`, each item once and in order (none lost, duplicated or reordered); for a [`latest_value`](StreamFactory::latest_value) stream, the newest last, the others at most once and in order |
//! | `tck_extended_schedules` | `tck.extended_schedules` | generated schedules of pushes, polls with one of three wakers, ends and drops, checked against a model and shrunk (opt-in for `cargo xtask tck`: `--extended`) |
//!
//! Only `stream_1` and `stream_2` hold the stream to its wake-ups; the other
//! rules poll again after a short wait whether woken or not, so a lost
//! wake-up fails the wake-up rules and no other. A stream that makes no
//! progress at all while polled so withholds what it owes: every test files
//! that under `tck.stream_gives_exactly_n` (another rule's test reports it
//! "not concluded").
//!
//! # Two entry points
//!
//! ```ignore
//! use reactive_streams_tck::stream_verification;
//! stream_verification!(my_channel, MyChannelFactory);
//! // → my_channel::stream::stream_1, …, my_channel::stream::tck_extended_schedules
//! ```
//!
//! or [`StreamVerification::run_all`] for the results as data:
//!
//! ```
//! use std::pin::Pin;
//! use std::task::{Context, Poll};
//! use reactive_streams_tck::outcome::Verdict;
//! use reactive_streams_tck::futures::stream::{StreamFactory, StreamVerification};
//!
//! struct Count(u64, u64);
//! impl futures_core::Stream for Count {
//!     type Item = u64;
//!     fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<u64>> {
//!         let this = self.get_mut();
//!         Poll::Ready((this.0 < this.1).then(|| { this.0 += 1; this.0 }))
//!     }
//! }
//!
//! struct Counts;
//! impl StreamFactory for Counts {
//!     type Item = u64;
//!     type Stream = Count;
//!     fn create_stream(&self, items: u64) -> Count {
//!         Count(0, items)
//!     }
//! }
//!
//! let results = StreamVerification::new(Counts).run_all().unwrap();
//! assert!(results.iter().all(|r| r.verdict != Verdict::Failed));
//! ```
//!
//! # Test names
//!
//! `<module>::stream::stream_<n>` for rule `stream.<n>`, and
//! `<module>::stream::tck_extended_schedules`; `cargo xtask tck` relies on
//! this shape. See [`TESTS`].

mod config;
pub(crate) mod driver;
mod factory;
mod items;
mod latest;
mod race;
mod rules;
mod schedules;
mod thread_bound;

pub use factory::{Feeder, StreamFactory};
pub use thread_bound::ThreadBound;

use crate::engine::{Engine, Table, Vacuity, by_name};

/// The tests, quick then extended, in order. The macro generates one
/// `#[test]` for each; this list and the macro come from one source.
pub const TESTS: &[&str] = &crate::__stream_tests!(@names);

/// The quick tests, in order.
const QUICK: &[&str] = &crate::__stream_tests!(@quick_names);

fn table<F: StreamFactory>() -> Table<F> {
    by_name(
        QUICK,
        rules::body::<F>,
        &[("tck_extended_schedules", schedules::explore_schedules::<F>)],
    )
}

/// Runs the stream verification against one factory.
pub struct StreamVerification<F: StreamFactory> {
    engine: Engine<F>,
}

crate::engine::verification!(
    StreamVerification<F: StreamFactory>, FuturesStream, subject: F, make: |factory| factory,
    parallelism: 8, table: table::<F>, vacuity: Vacuity::Allowed, example: "stream_1",
);

/// The list of stream tests, and what is generated from it. Not API: use
/// [`stream_verification!`](crate::stream_verification).
#[doc(hidden)]
#[macro_export]
macro_rules! __stream_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [stream_1, stream_2, stream_3, stream_4, stream_5, stream_6, stream_7, tck_configuration, tck_stream_gives_exactly_n] [tck_extended_schedules] $($then)* }
    };
}

/// Generates the stream verification as `#[test]`s:
/// `<name>::stream::<test>` for every test in
/// [`stream::TESTS`](crate::futures::stream::TESTS).
///
/// `$factory` is an expression making a
/// [`StreamFactory`](crate::futures::stream::StreamFactory) — a path such as
/// `MyFactory` or `crate::factories::Mine`, or any other expression. It is
/// evaluated, once per test, where the macro is invoked (the hidden
/// `__verification_tests!` every verification macro expands to), so it sees
/// exactly what the invocation sees; the macro works at the crate root,
/// inside any module and several times in one, and needs no `use`; an item
/// of the user's named like the verification does not clash.
/// Results carry `stringify!($name)` as their target, or the display name
/// given as a third argument (a `&str` or `String` expression, a private
/// constant included, evaluated there too).
///
/// ```ignore
/// stream_verification!(unbounded, MpscUnbounded);
/// stream_verification!(bounded, MpscBounded { capacity: 1 }, "futures mpsc (bounded)");
/// ```
///
/// Each test writes its result to `RS_TCK_REPORT_DIR` (if set), panics with
/// the full failure text (rule, expected, actual, poll/wake trace) if the
/// rule failed, and prints `skipped: <reason>` if it was skipped.
#[macro_export]
macro_rules! stream_verification {
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __stream_tests, all, stream, $crate::futures::stream::StreamVerification<_>; $($invocation)*
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::rule_of_test;
    use reactive_streams::rules::{Check, STREAM_RULES};

    #[test]
    fn the_catalogue_and_the_tests_name_each_other() {
        let rule_tests: Vec<&str> = TESTS
            .iter()
            .copied()
            .filter(|t| t.starts_with("stream_"))
            .collect();
        assert_eq!(rule_tests.len(), STREAM_RULES.len());
        for (test, rule) in rule_tests.iter().zip(STREAM_RULES) {
            assert_eq!(rule_of_test(test), rule.id);
            match rule.check {
                Check::Tested { tests } => assert_eq!(tests, [format!("stream::{test}").as_str()]),
                _ => panic!("{test} exists but {} is not tested", rule.id),
            }
        }
    }
}
