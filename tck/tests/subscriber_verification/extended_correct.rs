//! Conforming subscribers pass generated signal scripts.

use reactive_streams_tck::outcome::RuleResult;
use reactive_streams_tck::subscriber::SubscriberBlackboxVerification;
use reactive_streams_tck::subscriber::SubscriberWhiteboxVerification;
use reactive_streams_tck::subscriber::testkit::{Greedy, Queued};
use reactive_streams_tck::{subscriber_blackbox_verification, subscriber_whitebox_verification};

use crate::factories::{Blackbox, Whitebox};

// What a user writes.
subscriber_blackbox_verification!(extended
    greedy_extended,
    Blackbox::new(|| Greedy::new(4)),
    "greedy"
);
subscriber_whitebox_verification!(extended
    greedy_whitebox_extended,
    Whitebox(|probe| Box::new(Greedy::new(4).with_probe(probe))),
    "greedy_whitebox"
);

fn assert_passed(name: &str, results: Vec<RuleResult>) {
    crate::verdicts::assert_all_passed(name, &results);
}

/// 300 scripts each keeps CI quick; 1,000 take about 1.1 s per subscriber
/// (`RS_TCK_SELFTEST_SCRIPTS=1000` to check).
#[test]
fn the_testkit_subscribers_pass_generated_scripts() {
    let scripts = std::env::var("RS_TCK_SELFTEST_SCRIPTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let config = || crate::extended::config(scripts, 20);
    for (name, factory) in [
        ("Greedy(1)", Blackbox::new(|| Greedy::new(1))),
        ("Greedy(8)", Blackbox::new(|| Greedy::new(8))),
    ] {
        assert_passed(
            name,
            SubscriberBlackboxVerification::new(factory)
                .env(crate::extended::passing_env())
                .extended(config())
                .run_extended()
                .unwrap(),
        );
    }
    assert_passed(
        "Queued",
        SubscriberBlackboxVerification::new(Blackbox::new(|| Queued::new(None)))
            .env(crate::extended::passing_env())
            .extended(config())
            .run_extended()
            .unwrap(),
    );
    for (name, factory) in [
        (
            "Greedy(4) whitebox",
            Whitebox(|probe| Box::new(Greedy::new(4).with_probe(probe))),
        ),
        (
            "Queued whitebox",
            Whitebox(|probe| Box::new(Queued::new(Some(probe)))),
        ),
    ] {
        assert_passed(
            name,
            SubscriberWhiteboxVerification::new(factory)
                .env(crate::extended::passing_env())
                .extended(config())
                .run_extended()
                .unwrap(),
        );
    }
}
