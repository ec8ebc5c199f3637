//! The laxest conforming twin of `tck.greets` (issue 38): a source that
//! never greets any sink, and does not declare `greets_sinks()`.
//!
//! Rule 1: "A source MAY greet a sink with a talkback after they are
//! connected." — may, so it may also not. A source that never greets
//! never emits or ends either (rules 2 and 4 need the greet), so it breaks
//! no rule: every test that needs a greeted sink is "not concluded",
//! saying so, and none fails. Its broken twin, `Buggy(NeverGreets)` in
//! `broken_sources.rs`, does the same while declaring that it greets, and
//! fails `tck.greets`.

use reactive_streams::{Sink, Source};
use reactive_streams_tck::streamlet::source::{SourceFactory, SourceKind};

/// Keeps every sink connected to it, and never calls it.
#[derive(Default)]
pub struct Silent {
    sinks: parking_lot::Mutex<Vec<Box<dyn Sink<u64>>>>,
}

impl Source<u64> for Silent {
    fn connect(&self, sink: Box<dyn Sink<u64>>) {
        self.sinks.lock().push(sink);
    }
}

/// Silent sources, of either kind; undeclared.
#[derive(Debug, Clone, Copy)]
pub struct SilentSources(pub SourceKind);

impl SourceFactory for SilentSources {
    type Element = u64;

    fn create_source(&self, _elements: u64) -> Box<dyn Source<u64>> {
        Box::new(Silent::default())
    }

    fn kind(&self) -> SourceKind {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use reactive_streams_tck::outcome::Verdict;
    use reactive_streams_tck::streamlet::source::{SourceKind, SourceVerification};
    use rstest::rstest;

    use super::SilentSources;

    /// Quick and extended: nothing broken, every test that needed a greet
    /// "not concluded" and saying why (rule 1), none failed.
    #[rstest]
    #[case::pullable(SourceKind::Pullable)]
    #[case::listenable(SourceKind::Listenable)]
    fn a_source_that_never_greets_fails_nothing(#[case] kind: SourceKind) {
        let results = SourceVerification::new(SilentSources(kind))
            .env(crate::extended::short_timeout_env())
            .extended(crate::extended::config(20, 2))
            .run_all()
            .unwrap();
        crate::verdicts::assert_clean_and_skips_explained(&format!("{kind:?}"), &results);
        let greets = results.iter().find(|r| r.test == "tck_greets").unwrap();
        assert_eq!(greets.verdict, Verdict::Skipped);
        let message = greets.message.as_deref().unwrap();
        assert!(
            message.starts_with("not concluded: [source of 1, one sink connected] the source did not greet: sink was not greeted within 200 ms (rule 1 allows it"),
            "{message}"
        );
        for result in &results {
            if result.verdict == Verdict::Skipped && result.test != "tck_restart" {
                let message = result.message.as_deref().unwrap_or_default();
                assert!(
                    message.starts_with("not concluded: "),
                    "{}: {message}",
                    result.test
                );
            }
        }
    }
}
