//! Conforming Streamlet sources and sinks pass generated scripts.

use reactive_streams::{Sink, Source};
use reactive_streams_tck::streamlet::sink::SinkFactory;
use reactive_streams_tck::streamlet::sink::SinkVerification;
use reactive_streams_tck::streamlet::source::SourceFactory;
use reactive_streams_tck::streamlet::source::SourceVerification;
use reactive_streams_tck::streamlet::testkit::{PullRange, TakeN};
use reactive_streams_tck::{streamlet_sink_verification, streamlet_source_verification};

pub struct PullRanges;

impl SourceFactory for PullRanges {
    type Element = u64;
    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new(PullRange::new(elements))
    }
    fn supports_restart(&self) -> bool {
        true
    }
    /// Element `i` is `i` (a restart may go on past the ones a stop left).
    fn element_index(&self, data: &u64) -> Option<u64> {
        Some(*data)
    }
}

// What a user writes.
streamlet_source_verification!(extended pull_range_extended, PullRanges, "pull_range");

#[test]
fn the_testkit_pull_range_passes_generated_scripts() {
    let results = SourceVerification::new(PullRanges)
        .env(crate::extended::passing_env())
        .extended(crate::extended::config(500, 20))
        .run_extended()
        .unwrap();
    crate::verdicts::assert_all_passed("PullRange", &results);
}

/// The testkit's sinks: take five pulling, take three pushed, drain.
#[derive(Debug, Clone, Copy)]
pub enum TakeSinks {
    FivePulling,
    ThreePushed,
    Drain,
}

impl SinkFactory for TakeSinks {
    type Element = u64;
    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(match self {
            TakeSinks::FivePulling => TakeN::new(5, true),
            TakeSinks::ThreePushed => TakeN::new(3, false),
            TakeSinks::Drain => TakeN::new(u64::MAX, true),
        })
    }
    fn create_element(&self, index: u64) -> u64 {
        index
    }
}

streamlet_sink_verification!(extended take_five_extended, TakeSinks::FivePulling, "take_five");

#[test]
fn the_testkit_sinks_pass_generated_scripts() {
    for sink in [
        TakeSinks::FivePulling,
        TakeSinks::ThreePushed,
        TakeSinks::Drain,
    ] {
        let results = SinkVerification::new(sink)
            .env(crate::extended::passing_env())
            .extended(crate::extended::config(500, 0))
            .run_extended()
            .unwrap();
        crate::verdicts::assert_all_passed(&format!("{sink:?}"), &results);
    }
}
