//! The `futures::Sink` verification (rules `sink.1` … `sink.3` of
//! [`SINK_RULES`](reactive_streams::rules::SINK_RULES); `sink.4` and
//! `sink.5` are catalogued as untested, saying why). Not to be confused
//! with the Streamlet sink verification ([`streamlet`](crate::streamlet)),
//! a different protocol.
//!
//! The TCK sends `u64` items `0, 1, 2, …` the way the trait requires of a
//! caller (every `start_send` after a `poll_ready` that returned
//! `Ready(Ok(()))`), with its own instrumented wakers and no runtime, and
//! reads what was delivered through the factory's [`Delivery`].
//!
//! | test | rule | what it does |
//! |---|---|---|
//! | `sink_1` | `sink.1` | for each of `poll_ready`, `poll_flush` and `poll_close`: pauses the destination if the [`Delivery`] can, fills a sink until `poll_ready` is `Pending`, calls the method with two wakers in turn, then resumes the destination (or, if it cannot pause, takes one delivered item, if there is one: a sink may be `Pending` for reasons of its own): the second waker must be woken. Then, on fresh full sinks, the same room is made from another thread at the moment the method takes its waker (its first, then its second clone or `wake_by_ref`), and the method goes on once it is made: if it returns `Pending`, its waker must be woken (a check, then a registration with no lock between, loses that wake-up every time). A method never `Pending` there has nothing to wake; a sink never `Pending` at all is skipped only if its factory declares [`never_waits`](FuturesSinkFactory::never_waits), and fails `tck.configuration` otherwise |
//! | `sink_2` | `sink.2` | after `poll_flush` returns `Ready(Ok(()))`, every item sent is delivered |
//! | `sink_3` | `sink.3` | the same after `poll_close`; a send after the close is refused or delivered, never accepted and lost |
//! | `tck_extended_schedules` | `tck.extended_schedules` | generated schedules of `poll_ready`/`start_send`, `poll_flush`, `poll_close` (one of three wakers each) and takes, checked against `sink.1`–`sink.3` and shrunk (opt-in for `cargo xtask tck`: `--extended`) |
//!
//! # Destinations the TCK controls
//!
//! A sink in front of a destination that always accepts (an unbounded
//! channel, a growing buffer) is never `Pending`, so its wake-ups cannot be
//! seen. Give the TCK a destination it can pause: a [`Delivery`] made
//! [`pausable`](Delivery::pausable) for a destination of your own, or, for a
//! sink that forwards into another `Sink<u64>`, the TCK's [`Outlet`]. A
//! latest-value (watch-like) sink declares
//! [`latest_value`](FuturesSinkFactory::latest_value): a completed flush then owes
//! only the latest item sent.
//!
//! ```ignore
//! use reactive_streams_tck::sink_verification;
//! sink_verification!(my_sender, MySenderFactory);
//! // → my_sender::sink::sink_1, …, my_sender::sink::tck_extended_schedules
//! ```

mod delivery;
mod driver;
mod outlet;
mod race;
mod rules;
mod schedules;

pub use delivery::Delivery;
pub use outlet::Outlet;

use crate::engine::{Engine, Table, Vacuity, by_name};

/// Makes fresh sinks of `u64` for the sink verification.
///
/// ```
/// use reactive_streams_tck::futures::sink::{Delivery, FuturesSinkFactory};
///
/// struct Unbounded;
/// impl FuturesSinkFactory for Unbounded {
///     type Error = std::convert::Infallible;
///     type Sink = DropIntoVec;
///     fn create_sink(&self) -> (DropIntoVec, Delivery) {
///         let shared = std::sync::Arc::new(std::sync::Mutex::new(std::collections::VecDeque::new()));
///         let taken = shared.clone();
///         (DropIntoVec(shared), Delivery::new(move || taken.lock().unwrap().pop_front()))
///     }
/// }
/// # use std::{pin::Pin, task::{Context, Poll}};
/// # pub struct DropIntoVec(std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<u64>>>);
/// # impl futures_sink::Sink<u64> for DropIntoVec {
/// #     type Error = std::convert::Infallible;
/// #     fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> { Poll::Ready(Ok(())) }
/// #     fn start_send(self: Pin<&mut Self>, item: u64) -> Result<(), Self::Error> { self.0.lock().unwrap().push_back(item); Ok(()) }
/// #     fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> { Poll::Ready(Ok(())) }
/// #     fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> { Poll::Ready(Ok(())) }
/// # }
/// ```
pub trait FuturesSinkFactory: Send + Sync + 'static {
    /// The sink's error.
    type Error: std::fmt::Debug + Send + 'static;
    /// The sink; `Send`, as the TCK's wakers may come from other threads.
    type Sink: futures_sink::Sink<u64, Error = Self::Error> + Send + 'static;

    /// A fresh sink and the side that sees what it delivered (for a
    /// channel, its receiver). A [`Delivery`] that can pause its
    /// destination ([`Delivery::pausable`], or the TCK's [`Outlet`] for a
    /// sink that forwards into another sink) lets the TCK see the sink
    /// `Pending` whatever its buffering, and check its wake-ups.
    fn create_sink(&self) -> (Self::Sink, Delivery);

    /// Whether the sink never waits: its `poll_ready`, `poll_flush` and
    /// `poll_close` never return `Pending` (an unbounded channel's sender).
    /// Only then is `sink.1` skipped for having nothing to wake; a sink
    /// the TCK never sees `Pending` that does not declare it fails
    /// `tck.configuration`, saying how to give it a destination that can
    /// pause. Default `false`.
    fn never_waits(&self) -> bool {
        false
    }

    /// Whether it is a latest-value sink (watch-like: its destination keeps
    /// only the newest item). Then a completed `poll_flush` or
    /// `poll_close` means the latest item sent is visible to the
    /// [`Delivery`], and earlier items may have been overwritten unseen;
    /// everything else is checked as usual. Default `false`.
    fn latest_value(&self) -> bool {
        false
    }
}

/// The tests, quick then extended, in order. The macro generates one
/// `#[test]` for each; this list and the macro come from one source.
pub const TESTS: &[&str] = &crate::__sink_tests!(@names);

/// The quick tests, in order.
const QUICK: &[&str] = &crate::__sink_tests!(@quick_names);

fn table<F: FuturesSinkFactory>() -> Table<F> {
    by_name(
        QUICK,
        rules::body::<F>,
        &[("tck_extended_schedules", schedules::explore_schedules::<F>)],
    )
}

/// Runs the sink verification against one factory.
pub struct FuturesSinkVerification<F: FuturesSinkFactory> {
    engine: Engine<F>,
}

crate::engine::verification!(
    FuturesSinkVerification<F: FuturesSinkFactory>, FuturesSink, subject: F,
    make: |factory| factory, parallelism: 8, table: table::<F>, vacuity: Vacuity::Allowed,
    example: "sink_1",
);

/// The list of sink tests, and what is generated from it. Not API: use
/// [`sink_verification!`](crate::sink_verification).
#[doc(hidden)]
#[macro_export]
macro_rules! __sink_tests {
    ($($then:tt)*) => {
        $crate::__test_list! { [sink_1, sink_2, sink_3] [tck_extended_schedules] $($then)* }
    };
}

/// Generates the `futures::Sink` verification as `#[test]`s:
/// `<name>::sink::<test>` for every test in
/// [`sink::TESTS`](crate::futures::sink::TESTS).
///
/// Like [`stream_verification!`](crate::stream_verification): `$factory` is
/// any expression making a [`FuturesSinkFactory`](crate::futures::sink::FuturesSinkFactory),
/// evaluated where the macro is invoked; it works at the crate root, in
/// any module and several times in one, and needs no `use`.
#[macro_export]
macro_rules! sink_verification {
    ($($invocation:tt)*) => {
        $crate::__verification_macro! {
            __sink_tests, all, sink, $crate::futures::sink::FuturesSinkVerification<_>; $($invocation)*
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::rule_of_test;
    use reactive_streams::rules::{Check, SINK_RULES};

    #[test]
    fn the_catalogue_and_the_tests_name_each_other() {
        for rule in SINK_RULES {
            let test = rule.id.replace('.', "_");
            match rule.check {
                Check::Tested { tests } => {
                    assert!(TESTS.contains(&test.as_str()), "{}", rule.id);
                    assert_eq!(tests, [format!("sink::{test}").as_str()]);
                }
                _ => assert!(!TESTS.contains(&test.as_str()), "{}", rule.id),
            }
        }
        for test in TESTS.iter().filter(|t| t.starts_with("sink_")) {
            assert!(reactive_streams::rules::find(&rule_of_test(test)).is_some());
        }
    }
}
