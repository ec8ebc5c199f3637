//! The Reactive Streams TCK for Rust.
//!
//! The verifications are being built; today this crate holds the result data
//! ([`outcome`]) that every verification produces and every report renders.

#![warn(missing_docs)]

pub mod outcome;
