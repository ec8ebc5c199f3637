//! The subscriber verifications: every observable rule of §2 (Subscriber)
//! and the subscriber's side of §3, run against the subscribers a factory
//! makes.
//!
//! # Blackbox and whitebox
//!
//! * **Blackbox** ([`SubscriberBlackboxFactory`],
//!   [`subscriber_blackbox_verification!`](crate::subscriber_blackbox_verification)):
//!   the user gives only a way to make a subscriber, and optionally a nudge
//!   that makes it request. The TCK is its publisher: it calls the signal
//!   methods on the rule thread and hands it a probe subscription that
//!   records every `request` and `cancel` with its thread and the signal it
//!   happened inside.
//! * **Whitebox** ([`SubscriberWhiteboxFactory`],
//!   [`subscriber_whitebox_verification!`](crate::subscriber_whitebox_verification)):
//!   the subscriber also carries a [`WhiteboxProbe`], reporting what its
//!   processing logic received and handing the TCK a [`Puppet`] to pull.
//!   That makes §2.8, §2.11 and the demand side of §3.8 testable.
//!
//! | rule | blackbox | whitebox | how |
//! |---|---|---|---|
//! | §2.1 | ✓ | ✓ | after `on_subscribe` (and the nudge) a `request(n ≥ 1)` arrives; elements flow within it |
//! | §2.3 | ✓ | ✓ | no `request`/`cancel` from inside `on_complete`/`on_error`, nor (where watched) while they have not returned from a thread that had not called the subscription before (a helper they started; the subscriber's own worker may be finishing its business); whitebox, for a subscriber built around a publisher ([`SubscriberWhiteboxFactory::create_subscriber_with_publisher`]), no `subscribe` on it from inside them |
//! | §2.4 | ✓ | ✓ | after a terminal signal was delivered (whitebox: processed), nothing calls the subscription from any thread, not even its drop (cancel-on-drop excepted), until the subscriber is dropped inside the scenario |
//! | §2.5 | ✓ | ✓ | a second `on_subscribe` while active: that subscription is cancelled, never requested from |
//! | §2.6 | ✓ | ✓ | a subscriber declaring `stops_after() = Some(k)` cancels after the `k`-th element (dropping or keeping the subscription without `cancel()` fails); skipped without the declaration |
//! | §2.7 | ✓ | ✓ | an entry counter in the probe subscription sees overlapping calls; early calls are held open for one window so that unsynchronised threads collide |
//! | §2.8 | | ✓ | after the puppet cancels, elements in flight are accepted |
//! | §2.9, §2.10 | ✓ | ✓ | `on_complete` / `on_error` with and without a preceding request return normally (whitebox: and are processed) |
//! | §2.11 | | ✓ | the processing logic sees every element and the terminal signal, in order |
//! | §2.12 | – | – | binds the caller of `on_subscribe`, here the TCK: skipped with that reason; publishers and processors are checked by `publisher::spec_2_12` |
//! | §2.13 | ✓ | ✓ | every signal (including a second `on_subscribe`) returns normally; a panic in any signal of any rule test fails §2.13 |
//! | §3.1 | ✓ | ✓ | nothing calls the subscription once the subscriber was dropped |
//! | §3.8 | ✓ | ✓ | blackbox: every element requested is accepted; whitebox: the puppet's `trigger_request(n)` adds n |
//!
//! Not tested: §2.2 (a recommendation about the subscriber's own
//! scheduling). §2.6 is tested only for subscribers that declare when they
//! stop: whether a subscription is still needed is otherwise the
//! subscriber's own decision.

pub mod blackbox;
mod driver;
mod extended;
mod probe_subscription;
mod recording_publisher;
pub(crate) mod rules;
pub(crate) mod stage;
#[doc(hidden)]
pub mod testkit;
pub mod whitebox;
mod whitebox_probe;

pub use blackbox::{SubscriberBlackboxFactory, SubscriberBlackboxVerification};
pub use recording_publisher::RecordingPublisher;
pub use whitebox::{SubscriberWhiteboxFactory, SubscriberWhiteboxVerification};
pub use whitebox_probe::{Instrumented, Puppet, WhiteboxProbe};

pub(crate) use driver::Driver;
