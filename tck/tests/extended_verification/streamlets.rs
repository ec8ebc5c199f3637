//! The Streamlet source side: a conforming pullable, restartable source
//! passes generated sink scripts.

use reactive_streams::Source;
use reactive_streams_tck::extended::SourceExtendedVerification;
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::streamlet::source::SourceFactory;
use reactive_streams_tck::streamlet::testkit::PullRange;
use reactive_streams_tck::streamlet_source_extended_verification;

pub struct PullRanges;

impl SourceFactory for PullRanges {
    type Element = u64;
    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new(PullRange::new(elements))
    }
    fn supports_restart(&self) -> bool {
        true
    }
}

// What a user writes.
streamlet_source_extended_verification!(pull_range_extended, PullRanges, "pull_range");

#[test]
fn the_testkit_pull_range_passes_generated_scripts() {
    let results = SourceExtendedVerification::new(PullRanges)
        .env(crate::env())
        .config(crate::config(500, 0))
        .run_all()
        .unwrap();
    for r in &results {
        eprintln!("PullRange: {} {:.0} ms", r.test, r.duration_ms);
        assert_eq!(r.verdict, Verdict::Passed, "{}: {:?}", r.test, r.message);
    }
}

/// One element too many: the extended verification names the shortest
/// script that shows it.
pub struct OneTooMany;

impl SourceFactory for OneTooMany {
    type Element = u64;
    fn create_source(&self, elements: u64) -> Box<dyn Source<u64>> {
        Box::new(PullRange::new(elements + 1))
    }
}

#[test]
fn a_source_with_one_element_too_many_fails_with_a_minimal_script() {
    let result = SourceExtendedVerification::new(OneTooMany)
        .target("OneTooMany")
        .env(crate::env())
        .config(crate::config(500, 0))
        .run("tck_extended_schedules")
        .unwrap();
    assert_eq!(result.verdict, Verdict::Failed, "{result:#?}");
    insta::assert_snapshot!(result.message.unwrap());
}
