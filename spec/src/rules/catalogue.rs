//! The entries. Summaries are our own words; the link is the authority.
//!
//! A Streamlet condition's summary is what its rule's level forbids, said
//! of the rule's subject: rule `streamlet.2` (a source, MUST NOT) has
//! condition `streamlet.2.c` "Emit before the sink has started the stream.",
//! so a report's row "streamlet.2.c | MUST NOT | Emit before …" reads as the
//! rule means.
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
    ($n:literal, $subject:ident, $level:ident, $summary:literal, $check:expr, [$(($cid:literal, $csummary:literal, $ccheck:expr)),* $(,)?]) => {
        Rule {
            id: concat!("streamlet.", $n),
            subject: Subject::$subject,
            level: Level::$level,
            summary: $summary,
            link: "https://github.com/loreanvictor/streamlet#the-rules",
            check: $check,
            conditions: &[$(Condition { id: concat!("streamlet.", $n, ".", $cid), summary: $csummary, check: $ccheck }),*],
        }
    };
}

/// A condition checked by the rule test of the same name in `$verification`.
macro_rules! tested {
    ($verification:literal, $n:literal, $cid:literal) => {
        Check::Tested { tests: &[concat!($verification, "::streamlet_", $n, "_", $cid)] }
    };
}

/// Why "the sink was connected to the source" cannot be broken by a source.
const SOURCE_HOLDS_ONLY_CONNECTED_SINKS: Check = Check::Untested {
    reason: "ownership: `Source::connect` takes the sink by value, so a source can only call a sink that was handed to it through `connect`; a sink the TCK never connected is out of every source's reach. Which source object makes a call is not observable from the sink, so a source greeting or signalling a sink that was connected to another source sharing its state cannot be told apart from the right source acting asynchronously; cross-wired talkbacks still show up as emissions to a sink that never started (streamlet.2.c)",
};

/// Why "connected" and "greeted" cannot be broken by a sink.
const SINK_HOLDS_TALKBACK_ONLY_AFTER_GREET: Check = Check::Untested {
    reason: "ownership: a sink can call a talkback only after a source handed it over in `Sink::greet`, and a source greets only sinks connected to it; the TCK's probe talkback exists for no one before the TCK greets the sink, so a call before connect or greet cannot happen. A talkback kept from an earlier stream is judged against that stream (streamlet.3.e, streamlet.5.d, streamlet.6.e)",
};

/// Every rule, in specification order.
pub static RULES: &[Rule] = &[
    // §1 Publisher
    rs!("1.1", Publisher, Must, "A publisher never signals more on_next than the subscription has requested in total.", Check::Tested { tests: &["publisher::spec_1_01", "processor::spec_1_01"] }),
    rs!("1.2", Publisher, May, "A publisher may signal fewer on_next than requested and then terminate with on_complete or on_error.", Check::Tested { tests: &["publisher::spec_1_02", "processor::spec_1_02"] }),
    rs!("1.3", Publisher, Must, "on_subscribe, on_next, on_error and on_complete reach a subscriber serially, never overlapping.", Check::Tested { tests: &["publisher::spec_1_03", "processor::spec_1_03"] }),
    rs!("1.4", Publisher, Must, "A publisher that fails signals on_error.", Check::Tested { tests: &["publisher::spec_1_04", "processor::spec_1_04"] }),
    rs!("1.5", Publisher, Must, "A finite publisher that ends successfully signals on_complete.", Check::Tested { tests: &["publisher::spec_1_05", "processor::spec_1_05"] }),
    rs!("1.6", Publisher, Must, "After signalling on_error or on_complete, the publisher treats the subscription as cancelled.", Check::Tested { tests: &["publisher::spec_1_06", "processor::spec_1_06"] }),
    rs!("1.7", Publisher, Must, "No signal follows a terminal signal (on_error or on_complete).", Check::Tested { tests: &["publisher::spec_1_07", "processor::spec_1_07"] }),
    rs!("1.8", Publisher, Must, "Once a subscription is cancelled, its subscriber eventually stops receiving signals.", Check::Tested { tests: &["publisher::spec_1_08", "processor::spec_1_08"] }),
    rs!("1.9", Publisher, Must, "subscribe calls on_subscribe before any other signal and returns normally; failure is reported only through on_error after on_subscribe.", Check::Tested { tests: &["publisher::spec_1_09", "processor::spec_1_09"] }),
    rs!("1.10", Publisher, May, "subscribe may be called any number of times, each time with a different subscriber.", Check::EnforcedByTypes { proof: "spec/tests/compile-fail/subscribe_same_subscriber_twice.rs" }),
    rs!("1.11", Publisher, May, "A publisher may serve several subscribers and chooses whether each subscription is unicast or multicast.", Check::Tested { tests: &["publisher::spec_1_11", "processor::spec_1_11"] }),
    // §2 Subscriber
    rs!("2.1", Subscriber, Must, "A subscriber requests demand through its subscription before it can receive on_next.", Check::Tested { tests: &["subscriber_blackbox::spec_2_01", "subscriber_whitebox::spec_2_01", "processor::spec_2_01"] }),
    rs!("2.2", Subscriber, Should, "A subscriber whose processing could slow its publisher should dispatch signals asynchronously.", Check::Untested { reason: "a recommendation about how the subscriber schedules its own work; nothing outside it can tell" }),
    rs!("2.3", Subscriber, MustNot, "on_complete and on_error do not call any method of the subscription or the publisher.", Check::Tested { tests: &["subscriber_blackbox::spec_2_03", "subscriber_whitebox::spec_2_03", "processor::spec_2_03"] }),
    rs!("2.4", Subscriber, Must, "After on_complete or on_error, the subscriber treats its subscription as cancelled.", Check::Tested { tests: &["subscriber_blackbox::spec_2_04", "subscriber_whitebox::spec_2_04", "processor::spec_2_04"] }),
    rs!("2.5", Subscriber, Must, "A subscriber that already has an active subscription cancels any further subscription it is given.", Check::Tested { tests: &["subscriber_blackbox::spec_2_05", "subscriber_whitebox::spec_2_05", "processor::spec_2_05"] }),
    rs!("2.6", Subscriber, Must, "A subscriber cancels its subscription once it no longer needs it.", Check::Tested { tests: &["subscriber_blackbox::spec_2_06", "subscriber_whitebox::spec_2_06"] }),
    rs!("2.7", Subscriber, Must, "A subscriber calls request and cancel on its subscription serially, never overlapping.", Check::Tested { tests: &["subscriber_blackbox::spec_2_07", "subscriber_whitebox::spec_2_07", "processor::spec_2_07"] }),
    rs!("2.8", Subscriber, Must, "A subscriber accepts on_next signals that arrive after it cancelled, while requested elements were pending.", Check::Tested { tests: &["subscriber_whitebox::spec_2_08", "processor::spec_2_08"] }),
    rs!("2.9", Subscriber, Must, "A subscriber accepts on_complete whether or not it has requested anything.", Check::Tested { tests: &["subscriber_blackbox::spec_2_09", "subscriber_whitebox::spec_2_09", "processor::spec_2_09"] }),
    rs!("2.10", Subscriber, Must, "A subscriber accepts on_error whether or not it has requested anything.", Check::Tested { tests: &["subscriber_blackbox::spec_2_10", "subscriber_whitebox::spec_2_10", "processor::spec_2_10"] }),
    rs!("2.11", Subscriber, Must, "A subscriber makes each signal visible to its processing logic before processing it (happens-before).", Check::Tested { tests: &["subscriber_whitebox::spec_2_11", "processor::spec_2_11"] }),
    // The types stop only §1.10's half (the same subscriber given to
    // `subscribe` twice); a publisher calling on_subscribe twice on the
    // subscriber it owns is caught at run time by every probe.
    rs!("2.12", Subscriber, Must, "on_subscribe is called at most once on a given subscriber.", Check::Tested { tests: &["publisher::spec_2_12", "processor::spec_2_12", "subscriber_blackbox::spec_2_12", "subscriber_whitebox::spec_2_12"] }),
    rs!("2.13", Subscriber, Must, "Signal methods return normally; a subscriber reports its own failure only by cancelling its subscription.", Check::Tested { tests: &["subscriber_blackbox::spec_2_13", "subscriber_whitebox::spec_2_13", "processor::spec_2_13"] }),
    // §3 Subscription
    rs!("3.1", Subscription, Must, "request and cancel are only called from within the subscriber's own context.", Check::Tested { tests: &["subscriber_blackbox::spec_3_01", "subscriber_whitebox::spec_3_01", "processor::spec_3_01"] }),
    rs!("3.2", Subscription, Must, "A subscription lets its subscriber call request synchronously from inside on_next and on_subscribe.", Check::Tested { tests: &["publisher::spec_3_02", "processor::spec_3_02"] }),
    rs!("3.3", Subscription, Must, "request bounds the synchronous recursion between publisher and subscriber.", Check::Tested { tests: &["publisher::spec_3_03", "processor::spec_3_03"] }),
    rs!("3.4", Subscription, Should, "request returns to its caller promptly.", Check::Tested { tests: &["publisher::spec_3_04", "processor::spec_3_04"] }),
    rs!("3.5", Subscription, Must, "cancel returns promptly, is idempotent and is safe to call from any thread.", Check::Tested { tests: &["publisher::spec_3_05", "processor::spec_3_05"] }),
    rs!("3.6", Subscription, Must, "After cancellation, further request calls have no effect.", Check::Tested { tests: &["publisher::spec_3_06", "processor::spec_3_06"] }),
    rs!("3.7", Subscription, Must, "After cancellation, further cancel calls have no effect.", Check::Tested { tests: &["publisher::spec_3_07", "processor::spec_3_07"] }),
    rs!("3.8", Subscription, Must, "While not cancelled, request adds the given number to the elements to be delivered.", Check::Tested { tests: &["publisher::spec_3_08", "subscriber_blackbox::spec_3_08", "subscriber_whitebox::spec_3_08", "processor::spec_3_08"] }),
    rs!("3.9", Subscription, Must, "While not cancelled, a request of zero is answered with on_error carrying the illegal-demand error.", Check::Tested { tests: &["publisher::spec_3_09", "processor::spec_3_09"] }),
    rs!("3.10", Subscription, May, "While not cancelled, request may call on_next synchronously.", Check::Tested { tests: &["publisher::spec_3_10", "processor::spec_3_10"] }),
    rs!("3.11", Subscription, May, "While not cancelled, request may call on_complete or on_error synchronously.", Check::Tested { tests: &["publisher::spec_3_11", "processor::spec_3_11"] }),
    rs!("3.12", Subscription, Must, "While not cancelled, cancel makes the publisher eventually stop signalling the subscriber.", Check::Tested { tests: &["publisher::spec_3_12", "processor::spec_3_12"] }),
    rs!("3.13", Subscription, Must, "While not cancelled, cancel makes the publisher eventually drop every reference to the subscriber.", Check::Tested { tests: &["publisher::spec_3_13", "processor::spec_3_13"] }),
    rs!("3.14", Subscription, May, "While not cancelled, cancel may shut a stateful publisher down when no other subscription remains.", Check::Tested { tests: &["publisher::spec_3_14", "processor::spec_3_14"] }),
    rs!("3.15", Subscription, Must, "cancel returns normally; so does dropping a subscription (its Drop, how a Rust subscriber lets go of it, as cancel does).", Check::Tested { tests: &["publisher::spec_3_15", "processor::spec_3_15"] }),
    rs!("3.16", Subscription, Must, "request returns normally.", Check::Tested { tests: &["publisher::spec_3_16", "processor::spec_3_16"] }),
    rs!("3.17", Subscription, Must, "A subscription accepts any number of request calls and a total demand of at least 2^63-1 without overflowing; such demand may count as unbounded.", Check::Tested { tests: &["publisher::spec_3_17", "processor::spec_3_17"] }),
    // §4 Processor
    rs!("4.1", Processor, Must, "A processor is both a subscriber and a publisher and obeys both contracts.", Check::Tested { tests: &["processor::spec_4_01"] }),
    rs!("4.2", Processor, Must, "A processor either recovers from on_error, and then treats its upstream subscription as cancelled, or passes the error to its subscribers at once.", Check::Tested { tests: &["processor::spec_4_02"] }),
    // Streamlet protocol
    streamlet!("1", Source, MustNot, "A source greets a sink at most once, and only a sink that was connected to it.", Check::Tested { tests: &["streamlet_source::streamlet_1_a"] }, [
        ("a", "Greet a sink more than once.", tested!("streamlet_source", "1", "a")),
        ("b", "Greet a sink that was not connected to the source.", SOURCE_HOLDS_ONLY_CONNECTED_SINKS),
    ]),
    streamlet!("2", Source, MustNot, "A source emits only while the stream is live: connected, greeted, started, not stopped since the last start, and not ended.", Check::Tested { tests: &["streamlet_source::streamlet_2_b", "streamlet_source::streamlet_2_c", "streamlet_source::streamlet_2_d", "streamlet_source::streamlet_2_e"] }, [
        ("a", "Emit to a sink that was not connected to the source.", SOURCE_HOLDS_ONLY_CONNECTED_SINKS),
        ("b", "Emit before greeting the sink with a talkback.", tested!("streamlet_source", "2", "b")),
        ("c", "Emit before the sink has started the stream.", tested!("streamlet_source", "2", "c")),
        ("d", "Emit after the sink stopped the stream and before it starts it again.", tested!("streamlet_source", "2", "d")),
        ("e", "Emit after ending the stream.", tested!("streamlet_source", "2", "e")),
    ]),
    streamlet!("3", Sink, MustNot, "A sink requests data only while the stream is live.", Check::Tested { tests: &["streamlet_sink::streamlet_3_c", "streamlet_sink::streamlet_3_d", "streamlet_sink::streamlet_3_e"] }, [
        ("a", "Request data from a source the sink was not connected to.", SINK_HOLDS_TALKBACK_ONLY_AFTER_GREET),
        ("b", "Request data before the source has greeted the sink.", SINK_HOLDS_TALKBACK_ONLY_AFTER_GREET),
        ("c", "Request data before starting the stream.", tested!("streamlet_sink", "3", "c")),
        ("d", "Request data after stopping the stream and before starting it again.", tested!("streamlet_sink", "3", "d")),
        ("e", "Request data after the source has ended the stream.", tested!("streamlet_sink", "3", "e")),
    ]),
    streamlet!("4", Source, MustNot, "A source ends a stream, with or without a reason, only while the stream is live.", Check::Tested { tests: &["streamlet_source::streamlet_4_b", "streamlet_source::streamlet_4_c", "streamlet_source::streamlet_4_d", "streamlet_source::streamlet_4_e"] }, [
        ("a", "End the stream of a sink that was not connected to the source.", SOURCE_HOLDS_ONLY_CONNECTED_SINKS),
        ("b", "End the stream before greeting the sink.", tested!("streamlet_source", "4", "b")),
        ("c", "End the stream before the sink has started it.", tested!("streamlet_source", "4", "c")),
        ("d", "End the stream after the sink stopped it and before it starts it again.", tested!("streamlet_source", "4", "d")),
        ("e", "End the stream a second time.", tested!("streamlet_source", "4", "e")),
    ]),
    streamlet!("5", Sink, MustNot, "A sink starts a stream only when connected, greeted, not already started (or stopped since), and not ended.", Check::Tested { tests: &["streamlet_sink::streamlet_5_c", "streamlet_sink::streamlet_5_d"] }, [
        ("a", "Start the stream of a source the sink was not connected to.", SINK_HOLDS_TALKBACK_ONLY_AFTER_GREET),
        ("b", "Start the stream before the source has greeted the sink.", SINK_HOLDS_TALKBACK_ONLY_AFTER_GREET),
        ("c", "Start the stream again without having stopped it since the last start.", tested!("streamlet_sink", "5", "c")),
        ("d", "Start the stream after the source has ended it.", tested!("streamlet_sink", "5", "d")),
    ]),
    streamlet!("6", Sink, MustNot, "A sink stops a stream, with or without a reason, only while the stream is live.", Check::Tested { tests: &["streamlet_sink::streamlet_6_c", "streamlet_sink::streamlet_6_d", "streamlet_sink::streamlet_6_e"] }, [
        ("a", "Stop the stream of a source the sink was not connected to.", SINK_HOLDS_TALKBACK_ONLY_AFTER_GREET),
        ("b", "Stop the stream before the source has greeted the sink.", SINK_HOLDS_TALKBACK_ONLY_AFTER_GREET),
        ("c", "Stop the stream before starting it.", tested!("streamlet_sink", "6", "c")),
        ("d", "Stop the stream again before starting it again.", tested!("streamlet_sink", "6", "d")),
        ("e", "Stop the stream after the source has ended it.", tested!("streamlet_sink", "6", "e")),
    ]),
];
