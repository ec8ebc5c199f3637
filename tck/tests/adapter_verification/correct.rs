//! Correct adapters pass every rule, however unusual: a filter, pairs with
//! a vague size_hint, a merge polling with its own waker, one that polls
//! its inner stream only when woken, a zip, new items (no identity
//! declared), one that ends early, merges of two and three streams that
//! prefer their first input, go round in turn or are futures' `select_all`,
//! and a merge that stops at the first end and declares it.

use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::adapter::AdapterVerification;
use reactive_streams_tck::outcome::Verdict;
use rstest::rstest;

use crate::adapters::{Corpus, Kind};

#[rstest]
#[case::pass_through(Kind::PassThrough, &[])]
#[case::every_other(Kind::EveryOther, &[])]
#[case::pairs(Kind::Pairs, &[])]
#[case::own_waker_merge(Kind::OwnWakerMerge, &[])]
#[case::wake_driven(Kind::WakeDriven, &[])]
#[case::zip(Kind::Zip, &[])]
#[case::renumbers(Kind::Renumbers, &["adapter_5"])]
#[case::take_two(Kind::TakeTwo, &[])]
#[case::prefers_first(Kind::PrefersFirst, &[])]
#[case::round_robin(Kind::RoundRobin, &[])]
#[case::select_all(Kind::SelectAll, &[])]
#[case::stops_at_first_end_declared(Kind::StopsAtFirstEndDeclared, &[])]
fn unusual_but_correct_adapters_pass(#[case] kind: Kind, #[case] skipped: &[&str]) {
    let results = AdapterVerification::new(Corpus(kind))
        .env(TestEnv::default())
        .run_all()
        .unwrap();
    for result in &results {
        let want = if skipped.contains(&result.test.as_str()) {
            Verdict::Skipped
        } else {
            Verdict::Passed
        };
        assert_eq!(result.verdict, want, "{kind:?}: {result:#?}");
    }
}
