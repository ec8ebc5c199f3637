//! Correct-but-unusual sources serving several sinks independently (issue
//! 27 §2): they pass the quick and the extended verification, whose
//! several-sinks scenarios must not mistake a pace or a thread of their
//! own for one sink holding up another.
//!
//! * [`SharedLog`]: one source object, one registry of lanes, a cursor per
//!   sink; synchronous, pullable, pause and resume.
//! * [`Independent::PacedThreads`]: listenable, a thread per sink, each at
//!   its own pace (every other sink connected waits half a millisecond
//!   between pushes, the rest push back to back).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reactive_streams::{Sink, Source};
use reactive_streams_tck::extended::SourceExtendedVerification;
use reactive_streams_tck::streamlet::source::{SourceFactory, SourceKind, SourceVerification};
use rstest::rstest;

use crate::correct::ThreadSource;
use crate::shared_log::SharedLog;

/// The sources serving their sinks independently.
#[derive(Debug, Clone, Copy)]
pub enum Independent {
    SharedLog,
    PacedThreads,
}

/// A thread per connected sink; the pace alternates with each connect.
struct PacedThreads {
    count: u64,
    connected: AtomicU64,
}

impl Source<u64> for PacedThreads {
    fn connect(&self, sink: Box<dyn Sink<u64>>) {
        let k = self.connected.fetch_add(1, Ordering::Relaxed);
        let tick = Duration::from_micros(if k % 2 == 0 { 500 } else { 0 });
        ThreadSource::paced(self.count, tick).connect(sink);
    }
}

impl SourceFactory for Independent {
    type Element = u64;

    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        match self {
            Independent::SharedLog => Box::new(SharedLog::new(elements)),
            Independent::PacedThreads => Box::new(PacedThreads {
                count: elements,
                connected: AtomicU64::new(0),
            }),
        }
    }

    fn kind(&self) -> SourceKind {
        match self {
            Independent::SharedLog => SourceKind::Pullable,
            Independent::PacedThreads => SourceKind::Listenable,
        }
    }

    fn supports_restart(&self) -> bool {
        true
    }

    /// Both deliver `0..n`: element `i` is `i`.
    fn element_index(&self, data: &u64) -> Option<u64> {
        Some(*data)
    }
}

#[rstest]
#[case::shared_log(Independent::SharedLog)]
#[case::paced_threads(Independent::PacedThreads)]
fn sources_serving_sinks_independently_pass_the_quick_verification(#[case] factory: Independent) {
    let results = SourceVerification::new(factory).run_all().unwrap();
    assert_eq!(crate::failed_tests(&results), Vec::<String>::new());
    assert_eq!(crate::skipped_tests(&results), Vec::<&str>::new());
}

#[rstest]
#[case::shared_log(Independent::SharedLog)]
#[case::paced_threads(Independent::PacedThreads)]
fn sources_serving_sinks_independently_pass_the_extended_verification(
    #[case] factory: Independent,
) {
    let results = SourceExtendedVerification::new(factory)
        .env(crate::extended::passing_env())
        .config(crate::extended::config(200, 10))
        .run_all()
        .unwrap();
    crate::verdicts::assert_passed_or_skipped_with_reason(&format!("{factory:?}"), &results);
}
