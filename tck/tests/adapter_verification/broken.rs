//! The broken corpus: one adapter per rule that breaks it. Each must fail
//! exactly its rule, with the set of rules it breaks and its message
//! pinned by insta snapshots.

use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::adapter::AdapterVerification;
use reactive_streams_tck::outcome::Verdict;
use reactive_streams_tck::testkit::broken_rules;
use rstest::rstest;

use crate::adapters::{Corpus, Kind};

#[rstest]
#[case::stale_waker(Kind::StaleWaker, "adapter.1")]
#[case::forgets_waker_while_polling(Kind::ForgetsWakerWhilePolling, "adapter.2")]
#[case::registers_after_polling(Kind::RegistersAfterPolling, "adapter.2")]
#[case::polls_ended_inner(Kind::PollsEndedInner, "adapter.3")]
#[case::leaks_inner(Kind::LeaksInner, "adapter.4")]
#[case::swaps_pairs(Kind::SwapsPairs, "adapter.5")]
#[case::overstated_size_hint(Kind::OverstatedSizeHint, "adapter.6")]
#[case::ends_with_last_input(Kind::EndsWithLastInput, "adapter.5")]
#[case::takes_waiting_for_ended(Kind::TakesWaitingForEnded, "adapter.5")]
#[case::stops_at_first_end(Kind::StopsAtFirstEnd, "adapter.5")]
#[case::fuses_all_but_last(Kind::FusesAllButLast, "adapter.3")]
fn a_broken_adapter_fails_exactly_its_rule(#[case] kind: Kind, #[case] rule: &str) {
    let results = AdapterVerification::new(Corpus(kind))
        .env(TestEnv::default())
        .target(format!("{kind:?}"))
        .run_all()
        .unwrap();
    insta::with_settings!({ snapshot_suffix => format!("{kind:?}") }, {
        insta::assert_snapshot!("rules", broken_rules(&results));
    });
    let failed = results
        .iter()
        .find(|r| r.rule == rule && matches!(r.verdict, Verdict::Failed | Verdict::Warned))
        .unwrap_or_else(|| panic!("{rule} did not fail: {results:#?}"));
    let message = failed.message.as_deref().unwrap();
    assert!(message.starts_with(&format!("{rule}: ")), "{message}");
    assert!(!message.contains('\n'), "one line: {message}");
    // Which pushed item meets the race depends on timing.
    let message = if matches!(
        kind,
        Kind::ForgetsWakerWhilePolling | Kind::RegistersAfterPolling
    ) {
        redact_numbers(message)
    } else {
        message.to_string()
    };
    insta::with_settings!({ snapshot_suffix => format!("{kind:?}") }, {
        insta::assert_snapshot!("message", message);
    });
}

/// `text` with every number replaced by `[n]`, but the rule id's.
fn redact_numbers(text: &str) -> String {
    let (rule, rest) = text.split_once(": ").unwrap_or(("", text));
    let mut out = format!("{rule}: ");
    let mut digits = false;
    for c in rest.chars() {
        if c.is_ascii_digit() {
            if !digits {
                out.push_str("[n]");
            }
            digits = true;
        } else {
            digits = false;
            out.push(c);
        }
    }
    out
}

/// A factory that declares identity for an adapter that reorders gets one
/// line saying which item came out of order and what to declare instead.
#[test]
fn a_reordering_adapter_declared_to_keep_identity_gets_one_clear_line() {
    let result = AdapterVerification::new(Corpus(Kind::SwapsPairs))
        .env(TestEnv::default())
        .run("adapter_5")
        .unwrap();
    let message = result.message.unwrap();
    assert!(!message.contains('\n'), "{message}");
    assert!(message.contains("carried()"), "{message}");
    assert!(message.contains("return None"), "{message}");
}
