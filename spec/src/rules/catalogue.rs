//! The entries. Summaries are our own words; the link is the authority.
//!
//! When a verification starts covering a rule, its `check` changes from
//! `Untested` to `Tested`, naming the rule tests.

use super::{Check, Condition, Level, Rule, Subject};

macro_rules! rs {
    ($id:literal, $subject:ident, $level:ident, $summary:literal, $check:expr) => {
        Rule {
            id: $id,
            subject: Subject::$subject,
            level: Level::$level,
            summary: $summary,
            link: concat!(
                "https://github.com/reactive-streams/reactive-streams-jvm/blob/v1.0.4/README.md#",
                $id
            ),
            check: $check,
            conditions: &[],
        }
    };
}

macro_rules! streamlet {
    ($n:literal, $subject:ident, $level:ident, $summary:literal, $check:expr, [$(($cid:literal, $csummary:literal)),* $(,)?]) => {
        Rule {
            id: concat!("streamlet.", $n),
            subject: Subject::$subject,
            level: Level::$level,
            summary: $summary,
            link: "https://github.com/loreanvictor/streamlet#the-rules",
            check: $check,
            conditions: &[$(Condition { id: concat!("streamlet.", $n, ".", $cid), summary: $csummary }),*],
        }
    };
}

const NOT_YET: Check = Check::Untested {
    reason: "no TCK verification covers this rule yet",
};

/// The five conditions under which a stream is live (Streamlet rule 2);
/// rules 3, 4 and 6 reuse them.
macro_rules! live_conditions {
    ($n:literal) => {
        streamlet_conditions!($n)
    };
}

macro_rules! streamlet_conditions {
    ($n:literal) => {
        &[
            Condition { id: concat!("streamlet.", $n, ".a"), summary: "The sink was connected to the source." },
            Condition { id: concat!("streamlet.", $n, ".b"), summary: "The source has greeted the sink with a talkback." },
            Condition { id: concat!("streamlet.", $n, ".c"), summary: "The sink has started the stream at least once." },
            Condition { id: concat!("streamlet.", $n, ".d"), summary: "The sink has not stopped the stream since it last started it." },
            Condition { id: concat!("streamlet.", $n, ".e"), summary: "The source has not ended the stream." },
        ]
    };
}

/// Every rule, in specification order.
pub static RULES: &[Rule] = &[
    // §1 Publisher
    rs!("1.1", Publisher, Must, "A publisher never signals more on_next than the subscription has requested in total.", Check::Tested { tests: &["publisher::spec_1_01"] }),
    rs!("1.2", Publisher, May, "A publisher may signal fewer on_next than requested and then terminate with on_complete or on_error.", Check::Tested { tests: &["publisher::spec_1_02"] }),
    rs!("1.3", Publisher, Must, "on_subscribe, on_next, on_error and on_complete reach a subscriber serially, never overlapping.", Check::Tested { tests: &["publisher::spec_1_03"] }),
    rs!("1.4", Publisher, Must, "A publisher that fails signals on_error.", Check::Tested { tests: &["publisher::spec_1_04"] }),
    rs!("1.5", Publisher, Must, "A finite publisher that ends successfully signals on_complete.", Check::Tested { tests: &["publisher::spec_1_05"] }),
    rs!("1.6", Publisher, Must, "After signalling on_error or on_complete, the publisher treats the subscription as cancelled.", Check::Tested { tests: &["publisher::spec_1_06"] }),
    rs!("1.7", Publisher, Must, "No signal follows a terminal signal (on_error or on_complete).", Check::Tested { tests: &["publisher::spec_1_07"] }),
    rs!("1.8", Publisher, Must, "Once a subscription is cancelled, its subscriber eventually stops receiving signals.", Check::Tested { tests: &["publisher::spec_1_08"] }),
    rs!("1.9", Publisher, Must, "subscribe calls on_subscribe before any other signal and returns normally; failure is reported only through on_error after on_subscribe.", Check::Tested { tests: &["publisher::spec_1_09"] }),
    rs!("1.10", Publisher, May, "subscribe may be called any number of times, each time with a different subscriber.", Check::EnforcedByTypes { proof: "spec/tests/compile-fail/subscribe_same_subscriber_twice.rs" }),
    rs!("1.11", Publisher, May, "A publisher may serve several subscribers and chooses whether each subscription is unicast or multicast.", Check::Tested { tests: &["publisher::spec_1_11"] }),
    // §2 Subscriber
    rs!("2.1", Subscriber, Must, "A subscriber requests demand through its subscription before it can receive on_next.", NOT_YET),
    rs!("2.2", Subscriber, Should, "A subscriber whose processing could slow its publisher should dispatch signals asynchronously.", NOT_YET),
    rs!("2.3", Subscriber, MustNot, "on_complete and on_error do not call any method of the subscription or the publisher.", NOT_YET),
    rs!("2.4", Subscriber, Must, "After on_complete or on_error, the subscriber treats its subscription as cancelled.", NOT_YET),
    rs!("2.5", Subscriber, Must, "A subscriber that already has an active subscription cancels any further subscription it is given.", NOT_YET),
    rs!("2.6", Subscriber, Must, "A subscriber cancels its subscription once it no longer needs it.", NOT_YET),
    rs!("2.7", Subscriber, Must, "A subscriber calls request and cancel on its subscription serially, never overlapping.", NOT_YET),
    rs!("2.8", Subscriber, Must, "A subscriber accepts on_next signals that arrive after it cancelled, while requested elements were pending.", NOT_YET),
    rs!("2.9", Subscriber, Must, "A subscriber accepts on_complete whether or not it has requested anything.", NOT_YET),
    rs!("2.10", Subscriber, Must, "A subscriber accepts on_error whether or not it has requested anything.", NOT_YET),
    rs!("2.11", Subscriber, Must, "A subscriber makes each signal visible to its processing logic before processing it (happens-before).", NOT_YET),
    rs!("2.12", Subscriber, Must, "on_subscribe is called at most once on a given subscriber.", NOT_YET),
    rs!("2.13", Subscriber, Must, "Signal methods return normally; a subscriber reports its own failure only by cancelling its subscription.", NOT_YET),
    // §3 Subscription
    rs!("3.1", Subscription, Must, "request and cancel are only called from within the subscriber's own context.", Check::Untested { reason: "binds the caller of request and cancel, i.e. the subscriber; a publisher cannot tell from which context it is called (the subscriber verifications check the subscriber side)" }),
    rs!("3.2", Subscription, Must, "A subscription lets its subscriber call request synchronously from inside on_next and on_subscribe.", Check::Tested { tests: &["publisher::spec_3_02"] }),
    rs!("3.3", Subscription, Must, "request bounds the synchronous recursion between publisher and subscriber.", Check::Tested { tests: &["publisher::spec_3_03"] }),
    rs!("3.4", Subscription, Should, "request returns to its caller promptly.", Check::Tested { tests: &["publisher::spec_3_04"] }),
    rs!("3.5", Subscription, Must, "cancel returns promptly, is idempotent and is safe to call from any thread.", Check::Tested { tests: &["publisher::spec_3_05"] }),
    rs!("3.6", Subscription, Must, "After cancellation, further request calls have no effect.", Check::Tested { tests: &["publisher::spec_3_06"] }),
    rs!("3.7", Subscription, Must, "After cancellation, further cancel calls have no effect.", Check::Tested { tests: &["publisher::spec_3_07"] }),
    rs!("3.8", Subscription, Must, "While not cancelled, request adds the given number to the elements to be delivered.", Check::Tested { tests: &["publisher::spec_3_08"] }),
    rs!("3.9", Subscription, Must, "While not cancelled, a request of zero is answered with on_error carrying the illegal-demand error.", Check::Tested { tests: &["publisher::spec_3_09"] }),
    rs!("3.10", Subscription, May, "While not cancelled, request may call on_next synchronously.", Check::Tested { tests: &["publisher::spec_3_10"] }),
    rs!("3.11", Subscription, May, "While not cancelled, request may call on_complete or on_error synchronously.", Check::Tested { tests: &["publisher::spec_3_11"] }),
    rs!("3.12", Subscription, Must, "While not cancelled, cancel makes the publisher eventually stop signalling the subscriber.", Check::Tested { tests: &["publisher::spec_3_12"] }),
    rs!("3.13", Subscription, Must, "While not cancelled, cancel makes the publisher eventually drop every reference to the subscriber.", Check::Tested { tests: &["publisher::spec_3_13"] }),
    rs!("3.14", Subscription, May, "While not cancelled, cancel may shut a stateful publisher down when no other subscription remains.", Check::Tested { tests: &["publisher::spec_3_14"] }),
    rs!("3.15", Subscription, Must, "cancel returns normally.", Check::Tested { tests: &["publisher::spec_3_15"] }),
    rs!("3.16", Subscription, Must, "request returns normally.", Check::Tested { tests: &["publisher::spec_3_16"] }),
    rs!("3.17", Subscription, Must, "A subscription accepts any number of request calls and a total demand of at least 2^63-1 without overflowing; such demand may count as unbounded.", Check::Tested { tests: &["publisher::spec_3_17"] }),
    // §4 Processor
    rs!("4.1", Processor, Must, "A processor is both a subscriber and a publisher and obeys both contracts.", NOT_YET),
    rs!("4.2", Processor, Must, "A processor either recovers from on_error, and then treats its upstream subscription as cancelled, or passes the error to its subscribers at once.", NOT_YET),
    // Streamlet protocol
    streamlet!("1", Source, MustNot, "A source greets a sink at most once, and only a sink that was connected to it.", NOT_YET, [
        ("a", "A source greets a sink at most once."),
        ("b", "A source greets only sinks connected to it."),
    ]),
    Rule { conditions: live_conditions!("2"), ..streamlet!("2", Source, MustNot, "A source emits only while the stream is live: connected, greeted, started, not stopped since the last start, and not ended.", NOT_YET, []) },
    Rule { conditions: live_conditions!("3"), ..streamlet!("3", Sink, MustNot, "A sink requests data only while the stream is live.", NOT_YET, []) },
    Rule { conditions: live_conditions!("4"), ..streamlet!("4", Source, MustNot, "A source ends a stream, with or without a reason, only while the stream is live.", NOT_YET, []) },
    streamlet!("5", Sink, MustNot, "A sink starts a stream only when connected, greeted, not already started (or stopped since), and not ended.", NOT_YET, [
        ("a", "The sink was connected to the source."),
        ("b", "The sink was greeted by the source."),
        ("c", "The sink has not started the stream, or has stopped it since it last started it."),
        ("d", "The source has not ended the stream."),
    ]),
    Rule { conditions: live_conditions!("6"), ..streamlet!("6", Sink, MustNot, "A sink stops a stream, with or without a reason, only while the stream is live.", NOT_YET, []) },
];
