//! The datum-lifecycle extension: rules for stages that carry
//! [`Tracked`](crate::done::Tracked) data. They are not part of Reactive
//! Streams; they say what a stage must do with done-tokens so a source can
//! acknowledge its input safely (see [`crate::done`]).

use super::{Check, Level, Rule, Subject};

macro_rules! done {
    ($n:literal, $level:ident, $summary:literal, $check:expr) => {
        Rule {
            id: concat!("done.", $n),
            subject: Subject::Processor,
            level: Level::$level,
            summary: $summary,
            link: "https://docs.rs/reactive-streams/latest/reactive_streams/done/index.html",
            check: $check,
            conditions: &[],
        }
    };
}

/// The datum-lifecycle rules `done.1` … `done.6`, checked by the TCK's
/// datum-lifecycle verification.
///
/// ```
/// use reactive_streams::rules::{self, LIFECYCLE_RULES};
///
/// assert_eq!(LIFECYCLE_RULES.len(), 6);
/// assert_eq!(rules::find("done.2").unwrap().id, "done.2");
/// ```
pub const LIFECYCLE_RULES: &[Rule] = &[
    done!("1", MustNot, "A stage does not let a datum be done before every output made from it has been delivered downstream: holding a datum (in a buffer, a window, a pending pair) holds its token.", Check::Tested { tests: &["datum_lifecycle::done_1"] }),
    done!("2", Must, "Every output carries the tokens of all the data it was made from (all inputs of a merged output: zip, combine-latest, window), so none of them is done while downstream holds it.", Check::Tested { tests: &["datum_lifecycle::done_2"] }),
    done!("3", Must, "After the stream completes, every datum is done once downstream has dropped its outputs; before that, a datum downstream has consumed is done at once unless the stage still holds it (a stage may declare which of its inputs' latest data it keeps).", Check::Tested { tests: &["datum_lifecycle::done_3"] }),
    done!("4", Must, "After downstream cancels, every datum is done once downstream has dropped its outputs: the stage releases whatever it holds.", Check::Tested { tests: &["datum_lifecycle::done_4"] }),
    done!("5", Must, "After an upstream error, every datum is done once downstream has dropped its outputs: the stage releases whatever it holds.", Check::Tested { tests: &["datum_lifecycle::done_5"] }),
    done!("6", Must, "Each datum is done exactly once: a token is released by dropping it, which takes it by value, and further references exist only as counted clones.", Check::EnforcedByTypes { proof: "spec/tests/compile-fail/done_token_released_twice.rs" }),
];
