//! Correct streams pass every rule, however unusual: one that is `Pending`
//! (waking itself) before every item, one whose wake-ups all come from
//! other threads, one with the default `size_hint()`, one that registers
//! its waker before it looks for an item, and the same channel without a
//! feeder.

use reactive_streams_tck::ExtendedConfig;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::stream::{StreamFactory, StreamVerification};
use reactive_streams_tck::outcome::Verdict;
use rstest::rstest;

use crate::channel::{Bug, Channels, Shape, Unfed};

pub(crate) fn passes<F: StreamFactory>(factory: F, skipped: &[&str]) {
    let results = StreamVerification::new(factory)
        .env(TestEnv::default())
        .extended(ExtendedConfig::builder().cases(64).seed(11).build())
        .run_all()
        .unwrap();
    for result in &results {
        let want = if skipped.contains(&result.test.as_str()) {
            Verdict::Skipped
        } else {
            Verdict::Passed
        };
        assert_eq!(result.verdict, want, "{result:#?}");
    }
}

#[rstest]
#[case::plain(Shape::Plain)]
#[case::pending_before_every_item(Shape::PendingFirst)]
#[case::wakes_from_another_thread(Shape::WakesFromAnotherThread)]
#[case::default_size_hint(Shape::DefaultSizeHint)]
#[case::wakes_before_and_after_the_item(Shape::WakesTwice)]
#[case::wakes_under_its_lock(Shape::WakesUnderLock)]
#[case::registers_then_rechecks(Shape::RegistersFirst)]
fn unusual_but_correct_streams_pass(#[case] shape: Shape) {
    passes(Channels::shaped(shape), &[]);
}

#[rstest]
#[case::plain(Shape::Plain)]
#[case::pending_before_every_item(Shape::PendingFirst)]
#[case::wakes_from_another_thread(Shape::WakesFromAnotherThread)]
fn a_stream_without_a_feeder_passes_and_skips_the_race(#[case] shape: Shape) {
    // Not a FusedStream either, as far as the TCK knows.
    passes(Unfed(Channels::shaped(shape)), &["stream_2", "stream_4"]);
}

/// The extended schedules find what the quick rules find, as a minimal
/// script.
#[test]
fn the_extended_schedules_shrink_a_stale_waker_to_a_minimal_script() {
    let result = StreamVerification::new(Channels::broken(Bug::StaleWaker))
        .env(
            TestEnv::builder()
                .timeout(std::time::Duration::from_millis(100))
                .build(),
        )
        .extended(ExtendedConfig::builder().cases(64).seed(5).build())
        .run("tck_extended_schedules")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Failed);
    let message = result.message.unwrap();
    let (script, rest) = message.split_once(" → ").unwrap();
    let script = script
        .strip_prefix("tck.extended_schedules: expected every generated schedule to pass; actual: ")
        .unwrap();
    // Two polls with different wakers, then a push: the minimal stale-waker
    // schedule, whichever two wakers the generator drew.
    let lines: Vec<&str> = script.split("; ").collect();
    assert_eq!(lines.len(), 4, "{script}");
    assert_eq!((lines[0], lines[3]), ("create_fed_stream()", "push(0)"));
    assert!(lines[1].starts_with("poll_next [w") && lines[2].starts_with("poll_next [w"));
    assert_ne!(lines[1], lines[2]);
    let second = &lines[2]["poll_next [".len()..lines[2].len() - 1];
    assert!(
        rest.starts_with(&format!(
            "stream.1: expected a wake-up of {second} (the waker of the most recent poll, which returned Pending) once an item was pushed"
        )),
        "{rest}"
    );
}

/// A stream that is not `Send` (an `Rc` shared with its producer), in a
/// `ThreadBound`: every rule runs on the thread that made it, except
/// `stream.7`, skipped (and `stream.2`/`stream.4`: no feeder, not fused).
mod thread_bound {
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::pin::Pin;
    use std::rc::Rc;
    use std::task::{Context, Poll};

    use reactive_streams_tck::env::TestEnv;
    use reactive_streams_tck::futures::stream::{StreamFactory, StreamVerification, ThreadBound};
    use reactive_streams_tck::outcome::Verdict;

    pub struct Local(Rc<RefCell<VecDeque<u64>>>);

    impl futures_core::Stream for Local {
        type Item = u64;
        fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<u64>> {
            Poll::Ready(self.0.borrow_mut().pop_front())
        }
        fn size_hint(&self) -> (usize, Option<usize>) {
            let held = self.0.borrow().len();
            (held, Some(held))
        }
    }

    pub struct Locals {
        pub declared: bool,
    }

    impl StreamFactory for Locals {
        type Item = u64;
        type Stream = ThreadBound<Local>;
        fn create_stream(&self, items: u64) -> ThreadBound<Local> {
            ThreadBound::new(Local(Rc::new(RefCell::new((0..items).collect()))))
        }
        fn thread_bound(&self) -> bool {
            self.declared
        }
        fn item_index(&self, item: &u64) -> Option<u64> {
            Some(*item)
        }
    }

    #[test]
    fn a_thread_bound_stream_passes_and_skips_the_cross_thread_rule() {
        super::passes(
            Locals { declared: true },
            &["stream_2", "stream_4", "stream_7"],
        );
    }

    /// Undeclared, the stream is polled on another thread by stream.7: its
    /// `ThreadBound` refuses, and the message says what to declare.
    #[test]
    fn an_undeclared_thread_bound_stream_fails_the_cross_thread_rule() {
        let result = StreamVerification::new(Locals { declared: false })
            .env(TestEnv::default())
            .run("stream_7")
            .unwrap();
        assert_eq!(result.verdict, Verdict::Failed, "{result:#?}");
        let message = result.message.unwrap();
        assert!(message.contains("thread_bound()"), "{message}");
    }
}
