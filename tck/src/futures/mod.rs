//! The verifications of the `futures` traits, not of Reactive Streams nor
//! of Streamlet: a [`Stream`](futures_core::Stream) on its own
//! ([`stream`]), a [`Sink`](futures_sink::Sink) ([`sink`]: its names say
//! `FuturesSink`, apart from the Streamlet
//! [`SinkFactory`](crate::streamlet::sink::SinkFactory)), and a stream
//! adapter wrapping streams the TCK feeds ([`adapter`]).
//!
//! The TCK drives them with an executor and wakers of its own, no runtime:
//! every poll and every wake-up is traced and judged.

pub mod adapter;
mod at_take;
pub mod sink;
pub mod stream;
