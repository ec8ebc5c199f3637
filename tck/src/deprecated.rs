//! The names of the separate extended verifications, before the extended
//! tests became the `extended` form of each verification's macro (issue
//! 30): each expands to exactly what it did, under the same test names.

/// The extended tests alone: `publisher_verification!(extended …)`.
#[deprecated(note = "write `publisher_verification!(extended name, factory, target)`")]
#[macro_export]
macro_rules! publisher_extended_verification {
    ($($invocation:tt)*) => { $crate::publisher_verification! { extended $($invocation)* } };
}

/// The extended tests alone: `processor_verification!(extended …)`.
#[deprecated(note = "write `processor_verification!(extended name, factory, target)`")]
#[macro_export]
macro_rules! processor_extended_verification {
    ($($invocation:tt)*) => { $crate::processor_verification! { extended $($invocation)* } };
}

/// The extended tests alone: `subscriber_blackbox_verification!(extended …)`.
#[deprecated(note = "write `subscriber_blackbox_verification!(extended name, factory, target)`")]
#[macro_export]
macro_rules! subscriber_blackbox_extended_verification {
    ($($invocation:tt)*) => { $crate::subscriber_blackbox_verification! { extended $($invocation)* } };
}

/// The extended tests alone: `subscriber_whitebox_verification!(extended …)`.
#[deprecated(note = "write `subscriber_whitebox_verification!(extended name, factory, target)`")]
#[macro_export]
macro_rules! subscriber_whitebox_extended_verification {
    ($($invocation:tt)*) => { $crate::subscriber_whitebox_verification! { extended $($invocation)* } };
}

/// The extended tests alone: `streamlet_source_verification!(extended …)`.
#[deprecated(note = "write `streamlet_source_verification!(extended name, factory, target)`")]
#[macro_export]
macro_rules! streamlet_source_extended_verification {
    ($($invocation:tt)*) => { $crate::streamlet_source_verification! { extended $($invocation)* } };
}

/// The extended tests alone: `streamlet_sink_verification!(extended …)`.
#[deprecated(note = "write `streamlet_sink_verification!(extended name, factory, target)`")]
#[macro_export]
macro_rules! streamlet_sink_extended_verification {
    ($($invocation:tt)*) => { $crate::streamlet_sink_verification! { extended $($invocation)* } };
}
