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
//! * [`HotOnce`]: listenable and hot, one run of data for every sink, as
//!   the protocol's timer example: a sink starting late misses what went
//!   by, and gets the end when it starts after the run.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reactive_streams::{Sink, Source};
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::streamlet::source::{SourceFactory, SourceKind, SourceVerification};
use rstest::rstest;

use crate::correct::ThreadSource;
use crate::hot_once::HotOnce;
use crate::shared_log::SharedLog;

/// The sources serving their sinks independently.
#[derive(Debug, Clone, Copy)]
pub enum Independent {
    SharedLog,
    PacedThreads,
    HotOnce,
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
            Independent::HotOnce => Box::new(HotOnce::new(elements)),
        }
    }

    fn kind(&self) -> SourceKind {
        match self {
            Independent::SharedLog => SourceKind::Pullable,
            Independent::PacedThreads | Independent::HotOnce => SourceKind::Listenable,
        }
    }

    fn supports_restart(&self) -> bool {
        true
    }

    /// Each delivers `0..n`: element `i` is `i`.
    fn element_index(&self, data: &u64) -> Option<u64> {
        Some(*data)
    }
}

/// `inner`, counting the most sinks any one of its sources had.
struct Counted {
    inner: Independent,
    most_sinks: Arc<AtomicU64>,
}

struct CountedSource {
    inner: Box<dyn Source<u64>>,
    sinks: AtomicU64,
    most_sinks: Arc<AtomicU64>,
}

impl Source<u64> for CountedSource {
    fn connect(&self, sink: Box<dyn Sink<u64>>) {
        let sinks = self.sinks.fetch_add(1, Ordering::Relaxed) + 1;
        self.most_sinks.fetch_max(sinks, Ordering::Relaxed);
        self.inner.connect(sink);
    }
}

impl SourceFactory for Counted {
    type Element = u64;

    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new(CountedSource {
            inner: self.inner.create_source(elements),
            sinks: AtomicU64::new(0),
            most_sinks: self.most_sinks.clone(),
        })
    }

    fn kind(&self) -> SourceKind {
        self.inner.kind()
    }

    fn supports_restart(&self) -> bool {
        self.inner.supports_restart()
    }

    fn element_index(&self, data: &u64) -> Option<u64> {
        self.inner.element_index(data)
    }
}

#[rstest]
#[case::shared_log(Independent::SharedLog)]
#[case::paced_threads(Independent::PacedThreads)]
#[case::hot_once(Independent::HotOnce)]
fn sources_serving_sinks_independently_pass_the_quick_verification(#[case] factory: Independent) {
    let results = SourceVerification::new(factory).run_all().unwrap();
    assert_eq!(crate::failed_tests(&results), Vec::<String>::new());
    assert_eq!(crate::skipped_tests(&results), Vec::<&str>::new());
    // The several-sinks scenarios ran: one source had two sinks.
    let counted = Counted {
        inner: factory,
        most_sinks: Arc::default(),
    };
    let most_sinks = counted.most_sinks.clone();
    let result = SourceVerification::new(counted)
        .run("tck_create_n")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Passed, "{:?}", result.message);
    assert_eq!(most_sinks.load(Ordering::Relaxed), 2);
}

#[rstest]
#[case::shared_log(Independent::SharedLog)]
#[case::paced_threads(Independent::PacedThreads)]
#[case::hot_once(Independent::HotOnce)]
fn sources_serving_sinks_independently_pass_the_extended_verification(
    #[case] factory: Independent,
) {
    let results = SourceVerification::new(factory)
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(200, 10))
        .run_extended()
        .unwrap();
    crate::verdicts::assert_passed_or_skipped_with_reason(&format!("{factory:?}"), &results);
}
