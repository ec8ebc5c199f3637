//! The naming contract between the verification macros and this command.
//!
//! Every test a verification macro generates has the path
//! `<user_mod>::<verification>::<test>`, where `<verification>` is one of
//! `publisher`, `subscriber_blackbox`, `subscriber_whitebox`, `processor`,
//! `streamlet_source`, `streamlet_sink`, `datum_lifecycle`, `stream` (a
//! `futures::Stream`), `sink` (a `futures::Sink`) or `stream_adapter` (a
//! stream wrapping other streams), and `<test>` names the rule:
//!
//! | test name | rule id |
//! |---|---|
//! | `spec_<section>_<two digits>` | `<section>.<number>`: `spec_3_09` → `3.9`, `spec_1_10` → `1.10` |
//! | `streamlet_<n>` | `streamlet.<n>` |
//! | `streamlet_<n>_<letter>` | `streamlet.<n>.<letter>` |
//! | `done_<n>` | `done.<n>`: a datum-lifecycle rule |
//! | `stream_<n>` | `stream.<n>`: a `futures::Stream` rule |
//! | `sink_<n>` | `sink.<n>`: a `futures::Sink` rule |
//! | `adapter_<n>` | `adapter.<n>`: a stream-adapter rule |
//! | `tck_<name>` | `tck.<name>`: a check of the user's factory |
//!
//! Any other test is not a rule test and is left alone.
//!
//! The extended verification's tests are `tck_extended_<name>` (rule id
//! `tck.extended_<name>`); `cargo xtask tck` runs them only with
//! `--extended` ([`RuleTest::is_extended`]).

use reactive_streams_tck::outcome::Verification;

/// One macro-generated rule test, identified by its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleTest {
    /// The full libtest path, as `--exact` wants it.
    pub path: String,
    /// The module the macro was invoked in (`range`, `tests::range`); empty
    /// when the macro was invoked at the root of the test crate.
    pub user_mod: String,
    /// Which verification generated the test.
    pub verification: Verification,
    /// The last path segment, e.g. `spec_3_09`.
    pub test: String,
    /// The rule id, e.g. `3.9`.
    pub rule: String,
}

impl RuleTest {
    /// Parses a libtest path; `None` when it does not follow the contract.
    pub fn parse(path: &str) -> Option<RuleTest> {
        let mut segments: Vec<&str> = path.split("::").collect();
        let test = segments.pop()?;
        let verification = verification(segments.pop()?)?;
        let rule = rule_id(test)?;
        Some(RuleTest {
            path: path.to_owned(),
            user_mod: segments.join("::"),
            verification,
            test: test.to_owned(),
            rule,
        })
    }

    /// Whether the test belongs to the opt-in extended verification.
    pub fn is_extended(&self) -> bool {
        reactive_streams_tck::runner::is_extended_rule(&self.rule)
    }

    /// The target name to use when the test wrote no result of its own.
    pub fn fallback_target(&self) -> String {
        if self.user_mod.is_empty() {
            self.verification.as_str().to_owned()
        } else {
            self.user_mod.clone()
        }
    }
}

fn verification(segment: &str) -> Option<Verification> {
    Some(match segment {
        "publisher" => Verification::Publisher,
        "subscriber_blackbox" => Verification::SubscriberBlackbox,
        "subscriber_whitebox" => Verification::SubscriberWhitebox,
        "processor" => Verification::Processor,
        "streamlet_source" => Verification::StreamletSource,
        "streamlet_sink" => Verification::StreamletSink,
        "datum_lifecycle" => Verification::DatumLifecycle,
        "stream" => Verification::FuturesStream,
        "sink" => Verification::FuturesSink,
        "stream_adapter" => Verification::StreamAdapter,
        _ => return None,
    })
}

/// The rule id a test name stands for.
pub fn rule_id(test: &str) -> Option<String> {
    if let Some(rest) = test.strip_prefix("spec_") {
        let (section, number) = rest.split_once('_')?;
        let section_ok = section.len() == 1 && ('1'..='4').contains(&section.chars().next()?);
        let number_ok = number.len() == 2 && number.bytes().all(|b| b.is_ascii_digit());
        if !section_ok || !number_ok {
            return None;
        }
        let number: u32 = number.parse().ok()?;
        return (number > 0).then(|| format!("{section}.{number}"));
    }
    if let Some(rest) = test.strip_prefix("streamlet_") {
        let (number, letter) = match rest.split_once('_') {
            Some((number, letter)) => (number, Some(letter)),
            None => (rest, None),
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        return match letter {
            None => Some(format!("streamlet.{number}")),
            Some(l) if l.len() == 1 && l.bytes().all(|b| b.is_ascii_lowercase()) => {
                Some(format!("streamlet.{number}.{l}"))
            }
            Some(_) => None,
        };
    }
    for (prefix, id) in [
        ("done_", "done"),
        ("stream_", "stream"),
        ("sink_", "sink"),
        ("adapter_", "adapter"),
    ] {
        if let Some(number) = test.strip_prefix(prefix) {
            let ok = !number.is_empty()
                && !number.starts_with('0')
                && number.bytes().all(|b| b.is_ascii_digit());
            return ok.then(|| format!("{id}.{number}"));
        }
    }
    if let Some(name) = test.strip_prefix("tck_") {
        let ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        return ok.then(|| format!("tck.{name}"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_tests_map_two_digit_numbers_to_rule_ids() {
        assert_eq!(rule_id("spec_3_09").as_deref(), Some("3.9"));
        assert_eq!(rule_id("spec_1_10").as_deref(), Some("1.10"));
        assert_eq!(rule_id("spec_3_17").as_deref(), Some("3.17"));
        for not_a_rule in [
            "spec_3_9",
            "spec_5_01",
            "spec_3_00",
            "spec_3_x1",
            "spec_31_01",
        ] {
            assert_eq!(rule_id(not_a_rule), None, "{not_a_rule}");
        }
    }

    #[test]
    fn streamlet_and_tck_tests_map_to_their_ids() {
        assert_eq!(rule_id("streamlet_2_c").as_deref(), Some("streamlet.2.c"));
        assert_eq!(rule_id("streamlet_5").as_deref(), Some("streamlet.5"));
        assert_eq!(
            rule_id("tck_factory_makes_fresh_publishers").as_deref(),
            Some("tck.factory_makes_fresh_publishers")
        );
        for not_a_rule in [
            "streamlet_",
            "streamlet_2_cc",
            "tck_",
            "tck_Upper",
            "helper",
        ] {
            assert_eq!(rule_id(not_a_rule), None, "{not_a_rule}");
        }
    }

    #[test]
    fn datum_lifecycle_tests_map_to_done_ids() {
        assert_eq!(rule_id("done_1").as_deref(), Some("done.1"));
        assert_eq!(rule_id("done_12").as_deref(), Some("done.12"));
        for not_a_rule in ["done_", "done_01", "done_x", "done_1_a"] {
            assert_eq!(rule_id(not_a_rule), None, "{not_a_rule}");
        }
        let test = RuleTest::parse("window::datum_lifecycle::done_3").unwrap();
        assert_eq!(test.verification, Verification::DatumLifecycle);
        assert_eq!(test.user_mod, "window");
        assert_eq!(test.rule, "done.3");
        assert_eq!(RuleTest::parse("window::publisher::done_x"), None);
    }

    #[test]
    fn stream_and_sink_tests_map_to_their_ids() {
        assert_eq!(rule_id("stream_1").as_deref(), Some("stream.1"));
        assert_eq!(rule_id("sink_3").as_deref(), Some("sink.3"));
        for not_a_rule in ["stream_", "stream_01", "sink_x", "stream_1_a"] {
            assert_eq!(rule_id(not_a_rule), None, "{not_a_rule}");
        }
        let test = RuleTest::parse("tests::mpsc::stream::stream_2").unwrap();
        assert_eq!(test.verification, Verification::FuturesStream);
        assert_eq!(test.user_mod, "tests::mpsc");
        assert_eq!(test.rule, "stream.2");
        let sink = RuleTest::parse("mpsc::sink::sink_1").unwrap();
        assert_eq!(sink.verification, Verification::FuturesSink);
        let extended = RuleTest::parse("mpsc::stream::tck_extended_schedules").unwrap();
        assert!(extended.is_extended());
        let adapter = RuleTest::parse("census::map::stream_adapter::adapter_2").unwrap();
        assert_eq!(adapter.verification, Verification::StreamAdapter);
        assert_eq!(adapter.rule, "adapter.2");
        // The Streamlet sink stays apart.
        let streamlet = RuleTest::parse("take::streamlet_sink::streamlet_3_c").unwrap();
        assert_eq!(streamlet.verification, Verification::StreamletSink);
    }

    #[test]
    fn paths_split_into_module_verification_and_test() {
        let test = RuleTest::parse("tests::range::publisher::spec_3_09").unwrap();
        assert_eq!(test.user_mod, "tests::range");
        assert_eq!(test.verification, Verification::Publisher);
        assert_eq!(test.test, "spec_3_09");
        assert_eq!(test.rule, "3.9");
        let root = RuleTest::parse("streamlet_sink::streamlet_3_a").unwrap();
        assert_eq!(root.user_mod, "");
        assert_eq!(root.fallback_target(), "streamlet_sink");
        assert!(!test.is_extended());
        assert_eq!(RuleTest::parse("range::helpers::spec_3_09"), None);
        assert_eq!(RuleTest::parse("spec_3_09"), None);
    }

    #[test]
    fn extended_tests_are_tck_tests_marked_extended() {
        let schedules =
            RuleTest::parse("range_extended::publisher::tck_extended_schedules").unwrap();
        assert_eq!(schedules.rule, "tck.extended_schedules");
        assert!(schedules.is_extended());
        let stress = RuleTest::parse("publisher::tck_extended_stress").unwrap();
        assert!(stress.is_extended());
        let quick = RuleTest::parse("range::publisher::tck_configuration").unwrap();
        assert!(!quick.is_extended());
    }
}
