//! The rule catalogue: every numbered rule of Reactive Streams (§1.1–§4.2)
//! and of the Streamlet protocol (rules 1–6) as data, plus, apart from
//! them, the datum-lifecycle extension ([`LIFECYCLE_RULES`], `done.1` …
//! `done.6`), the rules of `futures::Stream` and `futures::Sink`
//! ([`STREAM_RULES`], `stream.1` …; [`SINK_RULES`], `sink.1` …) and of
//! stream adapters ([`ADAPTER_RULES`], `adapter.1` …).
//!
//! Each [`Rule`] says what it binds, how strongly, what it means in one
//! sentence of our own, where the authoritative text is, and how this project
//! checks it ([`Check`]). Reports and the `cargo xtask rules` command are
//! built from [`RULES`].
//!
//! ```
//! use reactive_streams::rules::{self, Check};
//!
//! assert_eq!(rules::RULES.len(), 49);
//! let rule = rules::find("3.9").unwrap();
//! assert!(rule.summary.contains("zero"));
//! assert!(matches!(rule.check, Check::Tested { .. } | Check::Untested { .. }));
//! ```

#[rustfmt::skip]
mod catalogue;
#[rustfmt::skip]
mod futures;
#[rustfmt::skip]
mod lifecycle;

pub use catalogue::RULES;
pub use futures::{ADAPTER_RULES, SINK_RULES, STREAM_RULES};
pub use lifecycle::LIFECYCLE_RULES;

/// The interface a rule binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Subject {
    /// Reactive Streams §1.
    Publisher,
    /// Reactive Streams §2.
    Subscriber,
    /// Reactive Streams §3.
    Subscription,
    /// Reactive Streams §4.
    Processor,
    /// Streamlet rules binding the source.
    Source,
    /// Streamlet rules binding the sink.
    Sink,
    /// `futures::Stream` rules (`stream.N`).
    FuturesStream,
    /// `futures::Sink` rules (`sink.N`); not the Streamlet sink.
    FuturesSink,
    /// Stream-adapter rules (`adapter.N`): a `futures::Stream` wrapping
    /// other streams.
    StreamAdapter,
}

/// How strongly a rule binds (RFC 2119 keywords).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Level {
    /// MUST, REQUIRED or SHALL.
    #[cfg_attr(feature = "serde", serde(rename = "MUST"))]
    Must,
    /// MUST NOT or SHALL NOT.
    #[cfg_attr(feature = "serde", serde(rename = "MUST NOT"))]
    MustNot,
    /// SHOULD or RECOMMENDED.
    #[cfg_attr(feature = "serde", serde(rename = "SHOULD"))]
    Should,
    /// MAY or OPTIONAL.
    #[cfg_attr(feature = "serde", serde(rename = "MAY"))]
    May,
}

impl Level {
    /// The RFC 2119 keyword, as the reports print it.
    pub const fn keyword(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::MustNot => "MUST NOT",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        }
    }
}

/// How this project checks a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(tag = "check", rename_all = "snake_case")
)]
pub enum Check {
    /// A TCK rule test checks it at run time.
    Tested {
        /// The rule tests, as `verification::test_name`.
        tests: &'static [&'static str],
    },
    /// Rust's types make a violation fail to compile.
    EnforcedByTypes {
        /// The compile-fail test that proves it (a path in this repository).
        proof: &'static str,
    },
    /// Not checked.
    Untested {
        /// Why not.
        reason: &'static str,
    },
}

impl Check {
    /// `tested`, `enforced_by_types` or `untested`.
    pub const fn kind(&self) -> &'static str {
        match self {
            Check::Tested { .. } => "tested",
            Check::EnforcedByTypes { .. } => "enforced_by_types",
            Check::Untested { .. } => "untested",
        }
    }
}

/// One condition of a rule that bundles several (Streamlet rules), with an
/// id of its own such as `streamlet.2.c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Condition {
    /// `streamlet.N.x`.
    pub id: &'static str,
    /// The condition in one sentence.
    pub summary: &'static str,
    /// How this condition is checked: the rule test that checks it, or why
    /// none can. The rule's own `check` lists the tests of all its
    /// conditions.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub check: Check,
}

/// One numbered rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Rule {
    /// `1.1` … `4.2`, `streamlet.1` … `streamlet.6`.
    pub id: &'static str,
    /// The interface the rule binds.
    pub subject: Subject,
    /// The strongest keyword of the rule.
    pub level: Level,
    /// The rule in one sentence of our own.
    pub summary: &'static str,
    /// The authoritative text.
    pub link: &'static str,
    /// How it is checked.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub check: Check,
    /// Sub-conditions with ids of their own (empty for most rules).
    pub conditions: &'static [Condition],
}

/// The rule with this id (`"3.9"`, `"§3.9"`, `"streamlet.2"`, a
/// datum-lifecycle id such as `"done.1"`, a stream, sink or adapter id
/// such as `"stream.1"`), or the rule that owns this condition id
/// (`"streamlet.2.c"`).
pub fn find(id: &str) -> Option<&'static Rule> {
    let id = id.trim_start_matches('§');
    RULES
        .iter()
        .chain(LIFECYCLE_RULES)
        .chain(STREAM_RULES)
        .chain(SINK_RULES)
        .chain(ADAPTER_RULES)
        .find(|rule| rule.id == id || rule.conditions.iter().any(|c| c.id == id))
}

/// The condition with this id, such as `"streamlet.2.c"`.
pub fn condition(id: &str) -> Option<&'static Condition> {
    RULES
        .iter()
        .flat_map(|rule| rule.conditions)
        .find(|c| c.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn expected_ids() -> Vec<String> {
        let mut ids = Vec::new();
        for (section, count) in [(1, 11), (2, 13), (3, 17), (4, 2)] {
            ids.extend((1..=count).map(|n| format!("{section}.{n}")));
        }
        ids.extend((1..=6).map(|n| format!("streamlet.{n}")));
        ids
    }

    #[test]
    fn catalogue_holds_exactly_the_49_rules_in_spec_order() {
        let ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        assert_eq!(ids, expected_ids());
    }

    #[test]
    fn condition_ids_are_unique_and_nested_under_their_rule() {
        let mut seen = HashSet::new();
        for rule in RULES {
            for condition in rule.conditions {
                assert!(
                    condition.id.starts_with(&format!("{}.", rule.id)),
                    "{} is not under {}",
                    condition.id,
                    rule.id
                );
                assert!(seen.insert(condition.id), "{} twice", condition.id);
            }
        }
    }

    #[test]
    fn every_entry_is_filled_in() {
        for rule in RULES
            .iter()
            .chain(LIFECYCLE_RULES)
            .chain(STREAM_RULES)
            .chain(SINK_RULES)
            .chain(ADAPTER_RULES)
        {
            assert!(rule.summary.ends_with('.'), "{}: summary", rule.id);
            assert!(rule.link.starts_with("https://"), "{}: link", rule.id);
            match rule.check {
                Check::Tested { tests } => assert!(!tests.is_empty(), "{}", rule.id),
                Check::EnforcedByTypes { proof } => {
                    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("..")
                        .join(proof);
                    assert!(path.exists(), "{}: proof {proof} is missing", rule.id);
                }
                Check::Untested { reason } => assert!(!reason.is_empty(), "{}", rule.id),
            }
        }
    }

    #[test]
    fn a_rule_lists_exactly_the_tests_of_its_conditions() {
        for rule in RULES.iter().filter(|r| !r.conditions.is_empty()) {
            let mut from_conditions = Vec::new();
            for condition in rule.conditions {
                match condition.check {
                    Check::Tested { tests } => {
                        // `streamlet.2.c` is checked by `<verification>::streamlet_2_c`.
                        let name = condition.id.replace('.', "_");
                        assert!(
                            tests.iter().all(|t| t.ends_with(&format!("::{name}"))),
                            "{}: {tests:?}",
                            condition.id
                        );
                        from_conditions.extend_from_slice(tests);
                    }
                    Check::Untested { reason } => assert!(!reason.is_empty(), "{}", condition.id),
                    Check::EnforcedByTypes { .. } => {}
                }
            }
            match rule.check {
                Check::Tested { tests } => assert_eq!(tests, from_conditions, "{}", rule.id),
                _ => assert!(from_conditions.is_empty(), "{}", rule.id),
            }
        }
    }

    #[test]
    fn lifecycle_rules_are_numbered_apart_from_the_49() {
        let ids: Vec<&str> = LIFECYCLE_RULES.iter().map(|r| r.id).collect();
        assert_eq!(
            ids,
            ["done.1", "done.2", "done.3", "done.4", "done.5", "done.6"]
        );
        for rule in LIFECYCLE_RULES {
            assert!(RULES.iter().all(|r| r.id != rule.id), "{}", rule.id);
            assert_eq!(find(rule.id), Some(rule));
        }
    }

    #[test]
    fn stream_and_sink_rules_are_numbered_apart_from_the_49() {
        let ids: Vec<&str> = STREAM_RULES
            .iter()
            .chain(SINK_RULES)
            .map(|r| r.id)
            .collect();
        let expected: Vec<String> = (1..=7)
            .map(|n| format!("stream.{n}"))
            .chain((1..=5).map(|n| format!("sink.{n}")))
            .collect();
        assert_eq!(ids, expected);
        for rule in STREAM_RULES.iter().chain(SINK_RULES) {
            assert!(RULES.iter().all(|r| r.id != rule.id), "{}", rule.id);
            assert_eq!(find(rule.id), Some(rule));
        }
    }

    #[test]
    fn adapter_rules_are_numbered_apart_and_found() {
        let ids: Vec<&str> = ADAPTER_RULES.iter().map(|r| r.id).collect();
        let expected: Vec<String> = (1..=6).map(|n| format!("adapter.{n}")).collect();
        assert_eq!(ids, expected);
        for rule in ADAPTER_RULES {
            assert_eq!(rule.subject, Subject::StreamAdapter);
            assert!(RULES.iter().all(|r| r.id != rule.id), "{}", rule.id);
            assert_eq!(find(rule.id), Some(rule));
        }
    }

    #[test]
    fn find_accepts_section_signs_and_condition_ids() {
        assert_eq!(find("§1.1").unwrap().id, "1.1");
        assert_eq!(find("streamlet.2.c").unwrap().id, "streamlet.2");
        assert!(find("5.1").is_none());
        assert_eq!(condition("streamlet.2.c").unwrap().id, "streamlet.2.c");
    }
}
