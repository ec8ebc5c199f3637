//! Correct-but-unusual sinks. One that never starts the stream (issue 14,
//! family 7): rule 5 says a sink MAY start it, so such a sink breaks no
//! rule: it passes the sink verification with no failure, and the tests
//! that need a started stream are skipped, saying so. One that starts
//! later, from a thread of its own, while declaring `starts_on_greet()`
//! and `stops_after(3)` (issue 31): the declarations say *that* it starts
//! and when it stops, not that it starts inside `greet`.

use std::sync::Arc;
use std::time::Duration;

#[path = "../common/passive_sink.rs"]
pub mod passive_sink;

use passive_sink::Passives;

use crate::pausing_sinks::{Pause, PausingSinks};
use reactive_streams::{Sink, StreamError, Talkback};
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::streamlet::sink::{SinkFactory, SinkVerification};
use reactive_streams_tck::streamlet_sink_verification;

/// Short: every test waits the timeout once for a start that never comes.
fn quick() -> TestEnv {
    TestEnv::builder()
        .timeout(Duration::from_millis(300))
        .build()
}

#[test]
fn a_sink_that_never_starts_passes_with_reasons() {
    let results = SinkVerification::new(Passives)
        .env(quick())
        .run_all()
        .unwrap();
    for r in &results {
        assert_ne!(r.verdict, Verdict::Failed, "{}: {:?}", r.test, r.message);
        if r.verdict == Verdict::Skipped {
            assert!(
                r.message.as_deref().is_some_and(|m| !m.is_empty()),
                "{} skipped without a reason",
                r.test
            );
        }
    }
}

/// It used to fail `tck_starts`; now that test is skipped, naming rule 5.
#[test]
fn tck_starts_skips_a_sink_that_never_starts() {
    let result = SinkVerification::new(Passives)
        .env(quick())
        .run("tck_starts")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Skipped, "{:?}", result.message);
    let reason = result.message.unwrap();
    assert!(reason.contains("rule 5"), "{reason}");
}

streamlet_sink_verification!(never_starting_sink, Passives);

/// Starts the stream from a thread it spawns in `greet` (rule 1 lets a
/// source greet asynchronously; nothing makes a sink start synchronously),
/// takes what is pushed (it never requests, so no request can race with
/// its stop) and stops inside its third `receive`.
struct StartsLater {
    received: u64,
    talkback: Option<Arc<dyn Talkback>>,
}

impl Sink<u64> for StartsLater {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        let starter = talkback.clone();
        std::thread::spawn(move || starter.start());
        self.talkback = Some(talkback);
    }

    fn receive(&mut self, _data: u64) {
        self.received += 1;
        if self.received == 3
            && let Some(talkback) = self.talkback.take()
        {
            talkback.stop(None);
        }
    }

    fn end(&mut self, _reason: Option<StreamError>) {
        self.talkback = None;
    }
}

struct LateStarters;

impl SinkFactory for LateStarters {
    type Element = u64;

    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(StartsLater {
            received: 0,
            talkback: None,
        })
    }

    fn create_element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        Some(3)
    }

    fn starts_on_greet(&self) -> bool {
        true
    }
}

#[test]
fn a_sink_starting_from_its_own_thread_keeps_its_declarations() {
    let results = SinkVerification::new(LateStarters).run_all().unwrap();
    crate::verdicts::assert_clean_and_skips_explained("starts later", &results);
    assert!(
        results.iter().all(|r| r.verdict == Verdict::Passed),
        "{results:#?}"
    );
}

/// Sinks that pause and resume before they stop for good (issue 38 §3),
/// declaring `stops_after(5)` and `starts_on_greet()`: a pause is not the
/// stop their declaration promises, so they pass every quick test, none
/// skipped.
#[rstest::rstest]
#[case::inside_receive(Pause::InsideReceive)]
#[case::resume_from_thread(Pause::ResumeFromThread)]
#[case::from_thread(Pause::FromThread)]
#[case::late_start_from_thread(Pause::LateStartFromThread)]
fn sinks_pausing_before_their_final_stop_pass_every_quick_test(#[case] pause: Pause) {
    let results = SinkVerification::new(PausingSinks(pause))
        .env(crate::extended::passing_env())
        .run_all()
        .unwrap();
    crate::verdicts::assert_all_passed(&format!("{pause:?}"), &results);
}

/// The same, extended: generated source scripts.
#[rstest::rstest]
#[case::inside_receive(Pause::InsideReceive)]
#[case::resume_from_thread(Pause::ResumeFromThread)]
#[case::from_thread(Pause::FromThread)]
#[case::late_start_from_thread(Pause::LateStartFromThread)]
fn sinks_pausing_before_their_final_stop_pass_the_extended_verification(#[case] pause: Pause) {
    let results = SinkVerification::new(PausingSinks(pause))
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    crate::verdicts::assert_all_passed(&format!("{pause:?}"), &results);
}

// What a user writes.
streamlet_sink_verification!(
    pausing_from_thread,
    PausingSinks(Pause::FromThread),
    "pauses from its own threads"
);
