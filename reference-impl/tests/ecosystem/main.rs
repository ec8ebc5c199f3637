//! A census of the ecosystem: widely used `futures::Stream` and
//! `futures::Sink` implementations and stream adapters, verified exactly as
//! published (issue 28).
//!
//! Each target is a verification macro invocation, so `cargo xtask tck`
//! lists it in the reference report under its crate, version and type, and
//! one entry of [`all_targets`], whose quick verdicts `the_census_is_the_docs_table`
//! renders as the table of `docs/ecosystem.md` and holds the file to. A rule
//! a crate breaks is a finding: the target says so with `breaks [...]`, its
//! tests then assert exactly that failure instead of panicking on it, and a
//! minimal reproduction in plain `futures` sits in `findings.rs`.
//!
//! Only adapters that change nothing the rules observe are added: tokio's
//! timers are polled inside a runtime's context ([`support::InRuntime`]),
//! and kanal's borrowing stream is kept next to its receiver.

mod adapters;
mod findings;
mod sinks;
mod streams;
mod support;

/// Declares census targets: for each, the verification macro's tests
/// (`<name>::<verification>::<test>`, named `<crate> <version> <type>` in
/// reports), and its entry in this module's `entries()`.
///
/// ```ignore
/// census! {
///     futures_mpsc_unbounded: stream_verification(MpscUnbounded), "futures-channel", "mpsc::UnboundedReceiver";
/// }
/// ```
macro_rules! census {
    ($( $name:ident: $verify:ident($factory:expr), $krate:literal, $what:literal $(, breaks $breaks:expr)?; )*) => {
        $( crate::support::census_tests!($verify, $name, $factory, crate::support::target($krate, $what) $(, $breaks)?); )*

        /// This module's census targets.
        pub(crate) fn entries() -> Vec<crate::support::Entry> {
            vec![$(
                crate::support::Entry {
                    krate: $krate,
                    what: $what,
                    verification: crate::support::verification_name(stringify!($verify)),
                    breaks: crate::support::breaks(&[$(&$breaks[..])?]),
                    run: || crate::support::quick!($verify, $factory $(, $breaks)?; $name),
                }
            ),*]
        }
    };
}
pub(crate) use census;

/// Every census target, streams, sinks and adapters.
fn all_targets() -> Vec<support::Entry> {
    let mut entries = streams::entries();
    entries.extend(sinks::entries());
    entries.extend(adapters::entries());
    entries
}

#[test]
fn the_census_counts_at_least_30_targets() {
    let entries = all_targets();
    assert!(entries.len() >= 30, "{} targets", entries.len());
}

/// The docs' table is this census's result: every target's quick verdicts,
/// rendered, must stand in `docs/ecosystem.md` between its markers
/// (`RS_UPDATE_DOCS=1` rewrites them).
#[test]
fn the_census_is_the_docs_table() {
    let table = support::render(&all_targets());
    support::check_docs(&table);
}
