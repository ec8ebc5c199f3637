//! The Streamlet verifications: the first conformance suite for the
//! Streamlet protocol.
//!
//! | module | job |
//! |---|---|
//! | [`source`] | rules 1, 2 and 4 from the source's side; [`streamlet_source_verification!`](crate::streamlet_source_verification) |
//! | [`sink`] | rules 3, 5 and 6 from the sink's side; [`streamlet_sink_verification!`](crate::streamlet_sink_verification) |
//! | [`probe`] | the TCK's end of a stream: a judging sink, a judging source and talkback |
//! | `lifecycle` (private) | where a stream stands and which condition a signal breaks |
//!
//! Both verifications run on the core: the same [environment](crate::env),
//! [runner](crate::runner) (one thread, `catch_unwind` and a watchdog per
//! rule), [context](crate::context) and [result data](crate::outcome) as the
//! Reactive Streams verifications. A result's `rule` is a condition id
//! (`streamlet.2.c`): every condition the rules bundle is tested, and
//! reported, on its own.
//!
//! The protocol differs from Reactive Streams in ways the tests respect:
//! `request` carries no count; a source may be pullable, listenable or both
//! ([`source::SourceKind`]); stop then start is pause and resume, not a
//! final cancel; `end` and `stop` carry an optional reason.

mod extended;
mod lifecycle;
pub mod probe;
pub mod sink;
pub mod source;
mod suite;
#[doc(hidden)]
pub mod testkit;

#[cfg(test)]
mod tests {
    use reactive_streams::rules::{self, Check, Subject};

    /// Every tested Streamlet condition names a test that exists, in the
    /// verification of its subject, and every generated `streamlet_` test
    /// checks a condition the catalogue says it tests.
    #[test]
    fn the_catalogue_and_the_generated_tests_agree() {
        let mut named = Vec::new();
        for rule in rules::RULES
            .iter()
            .filter(|r| r.id.starts_with("streamlet."))
        {
            let (verification, tests) = match rule.subject {
                Subject::Source => ("streamlet_source", super::source::TESTS),
                Subject::Sink => ("streamlet_sink", super::sink::TESTS),
                other => panic!("{}: subject {other:?}", rule.id),
            };
            for condition in rule.conditions {
                if let Check::Tested { tests: paths } = condition.check {
                    for path in paths {
                        let (v, test) = path.split_once("::").unwrap();
                        assert_eq!(v, verification, "{path}");
                        assert!(tests.contains(&test), "{path} is not generated");
                        assert_eq!(crate::runner::rule_of_test(test), condition.id);
                        named.push(test.to_string());
                    }
                }
            }
        }
        for test in super::source::TESTS.iter().chain(super::sink::TESTS) {
            if test.starts_with("streamlet_") {
                assert!(
                    named.iter().any(|n| n == test),
                    "{test} is not in the catalogue"
                );
            }
        }
    }
}
